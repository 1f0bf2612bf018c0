"""Bulk writes of checked tables: queries, documents, runs with their results, judgments.

Rows go to the database through the driver's fastest path (``executemany`` on SQLite, COPY
on PostgreSQL), and changes are then made by set-based SQL, so a million judgments import
in seconds. Every function runs inside the caller's transaction and does not commit.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pandas as pd
from sqlalchemy import (
    Boolean,
    DateTime,
    Integer,
    and_,
    column,
    delete,
    func,
    literal,
    or_,
    select,
    table,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import TableClause

from judge_app.store.models import Document, Judgment, JudgmentEvent, Query, Rater, Result, Run, utcnow

Progress = Callable[[int, int], None]
CHUNK = 50_000
# SQLAlchemy's SQLite DateTime storage format, used for timestamps staged as text.
SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"


@dataclass(frozen=True)
class JudgmentCounts:
    """What an import of judgments did."""

    added: int
    changed: int
    unchanged: int


def _insert(session: Session):  # type: ignore[no-untyped-def]
    """The dialect's INSERT construct, which knows ON CONFLICT."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


def _values(series: pd.Series) -> list:
    """A column as a Python list with None for missing values."""
    return series.to_numpy(dtype=object, na_value=None).tolist()


def copy_rows(
    session: Session,
    table_name: str,
    columns: Sequence[str],
    rows: Iterable[tuple],
    total: int,
    progress: Progress | None = None,
) -> None:
    """Insert plain rows into a table by the driver's fastest path, reporting progress."""
    connection = session.connection()
    dbapi = connection.connection.dbapi_connection
    cursor = dbapi.cursor()
    names = ", ".join(columns)
    iterator = iter(rows)
    done = 0
    try:
        if _is_sqlite(session):
            sql = f"INSERT INTO {table_name} ({names}) VALUES ({', '.join('?' * len(columns))})"
            while chunk := list(itertools.islice(iterator, CHUNK)):
                cursor.executemany(sql, chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
        else:
            with cursor.copy(f"COPY {table_name} ({names}) FROM STDIN") as copy:
                for done, row in enumerate(iterator, start=1):
                    copy.write_row(row)
                    if progress and done % CHUNK == 0:
                        progress(done, total)
            if progress:
                progress(total, total)
    finally:
        cursor.close()


class Stage:
    """A temporary table holding rows to be merged into the real tables by SQL."""

    def __init__(self, session: Session, columns: dict[str, str]) -> None:
        self.session = session
        self.name = f"stage_{uuid.uuid4().hex[:12]}"
        sqlite_db = _is_sqlite(session)
        types = {
            "text": "TEXT",
            "int": "BIGINT",
            "float": "DOUBLE PRECISION",
            "bool": "BOOLEAN",
            "time": "TEXT" if sqlite_db else "TIMESTAMP",
        }
        ddl = ", ".join(f"{name} {types[kind]}" for name, kind in columns.items())
        session.connection().exec_driver_sql(f"CREATE TEMPORARY TABLE {self.name} ({ddl})")
        self.columns = list(columns)
        self.table: TableClause = table(self.name, *(column(name) for name in columns))

    def load(self, frame: pd.DataFrame, progress: Progress | None = None) -> None:
        rows = zip(*(_values(frame[name]) for name in self.columns))
        copy_rows(self.session, self.name, self.columns, rows, len(frame), progress)

    def drop(self) -> None:
        self.session.connection().exec_driver_sql(f"DROP TABLE {self.name}")

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.drop()


def _id_map(session: Session, model: type, key: str, external_ids: Iterable[str], create: bool) -> dict[str, int]:
    """Ids of the rows whose ``key`` is among ``external_ids``; missing ones created if asked.

    Creation is insert-or-ignore, so two imports creating the same row at once do not collide.
    """
    wanted = pd.Series(pd.unique(pd.Series(list(external_ids), dtype=object)), dtype=object)
    if wanted.empty:
        return {}
    key_column = getattr(model, key)
    with Stage(session, {"external_id": "text"}) as stage:
        stage.load(pd.DataFrame({"external_id": wanted}))
        if create:
            names = [key] + (["created_at"] if hasattr(model, "created_at") else [])
            chosen = [stage.table.c.external_id] + (
                [literal(utcnow(), DateTime)] if hasattr(model, "created_at") else []
            )
            insert = _insert(session)(model).from_select(names, select(*chosen).where(literal(True)))
            session.execute(insert.on_conflict_do_nothing(index_elements=[key]))
        rows = session.execute(
            select(key_column, model.id).join(stage.table, stage.table.c.external_id == key_column)
        )
        return {key: id_ for key, id_ in rows}


def missing_ids(session: Session, model: type, key: str, external_ids: Iterable[str]) -> set[str]:
    """The external ids not in the table (for ``--strict`` imports)."""
    wanted = set(external_ids)
    return wanted - set(_id_map(session, model, key, wanted, create=False))


def query_ids(session: Session, external_ids: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of queries by external id, creating the missing ones with their id alone."""
    return _id_map(session, Query, "external_id", external_ids, create)


def document_ids(session: Session, external_ids: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of documents by external id, creating the missing ones with their id alone."""
    return _id_map(session, Document, "external_id", external_ids, create)


def rater_ids(session: Session, names: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of raters by name, creating the missing ones."""
    return _id_map(session, Rater, "name", names, create)


def upsert_queries(session: Session, frame: pd.DataFrame) -> int:
    """Add or update queries from ``query_id, text, description``; returns the rows written."""
    return _upsert_texts(
        session, Query, frame.rename(columns={"query_id": "external_id"}), ["text", "description"]
    )


def upsert_documents(session: Session, frame: pd.DataFrame) -> int:
    """Add or update documents from ``doc_id[, title, url, body]``; returns the rows written."""
    fields = [name for name in ("title", "url", "body") if name in frame]
    return _upsert_texts(session, Document, frame.rename(columns={"doc_id": "external_id"}), fields)


def _upsert_texts(session: Session, model: type, frame: pd.DataFrame, fields: list[str]) -> int:
    if frame.empty:
        return 0
    ids = _id_map(session, model, "external_id", frame["external_id"], create=True)
    rows = [
        {"id": ids[external_id], **dict(zip(fields, values))}
        for external_id, *values in zip(*(_values(frame[name]) for name in ["external_id", *fields]))
    ]
    session.execute(update(model), rows)
    return len(rows)


def fill_missing_texts(session: Session, model: type, field: str, pairs: pd.DataFrame) -> None:
    """Set ``field`` from ``pairs`` (external_id, value) where the row has none yet."""
    pairs = pairs.dropna().drop_duplicates("external_id")
    for external_id, value in zip(_values(pairs["external_id"]), _values(pairs["value"])):
        session.execute(
            update(model)
            .where(model.external_id == external_id, getattr(model, field).is_(None))
            .values({field: value})
        )


def replace_run(
    session: Session,
    name: str,
    results: pd.DataFrame,
    *,
    description: str | None = None,
    progress: Progress | None = None,
) -> int:
    """Create the run or replace all its results with ``query_id, doc_id, rank, score``."""
    run = session.scalars(select(Run).where(Run.name == name)).first()
    if run is None:
        run = Run(name=name, description=description)
        session.add(run)
        session.flush()
    else:
        run.imported_at = utcnow()
        if description is not None:
            run.description = description
        session.execute(delete(Result).where(Result.run_id == run.id))
    queries = query_ids(session, results["query_id"])
    documents = document_ids(session, results["doc_id"])
    rows = zip(
        itertools.repeat(run.id),
        results["query_id"].map(queries).tolist(),
        results["doc_id"].map(documents).tolist(),
        results["rank"].astype("int64").tolist(),
        _values(results["score"]),
    )
    columns = ["run_id", "query_id", "document_id", "rank", "score"]
    copy_rows(session, Result.__tablename__, columns, rows, len(results), progress)
    return run.id


def import_judgments(
    session: Session,
    frame: pd.DataFrame,
    *,
    action: str = "import",
    progress: Progress | None = None,
) -> JudgmentCounts:
    """Add or update judgments, appending one history event per judgment added or changed.

    ``frame`` has ``query_id, doc_id, rater, grade, skipped, note`` and may have
    ``judged_at`` and ``duration_ms``. A row equal to the stored judgment changes nothing.
    """
    queries = query_ids(session, frame["query_id"])
    documents = document_ids(session, frame["doc_id"])
    raters = rater_ids(session, frame["rater"])
    now = utcnow()
    staged = pd.DataFrame(
        {
            "rater_id": frame["rater"].map(raters),
            "query_id": frame["query_id"].map(queries),
            "document_id": frame["doc_id"].map(documents),
            "grade": frame["grade"].astype("Int64"),
            "skipped": frame["skipped"].astype(bool),
            "note": frame["note"],
            "judged_at": _timestamps(frame.get("judged_at"), len(frame)),
            "duration_ms": frame["duration_ms"] if "duration_ms" in frame else None,
        }
    )
    kinds = {
        "rater_id": "int",
        "query_id": "int",
        "document_id": "int",
        "grade": "int",
        "skipped": "bool",
        "note": "text",
        "judged_at": "time",
        "duration_ms": "int",
    }
    before = session.scalar(select(func.count()).select_from(Judgment)) or 0
    with Stage(session, kinds) as stage:
        stage.load(staged, progress)
        s = stage.table.c
        grade, skipped = s.grade.cast(Integer), s.skipped.cast(Boolean)
        old = Judgment.__table__.alias("old")
        differs = or_(
            old.c.id.is_(None),
            old.c.grade.is_distinct_from(grade),
            old.c.skipped != skipped,
            old.c.note.is_distinct_from(s.note),
        )
        source = stage.table.outerjoin(
            old,
            and_(
                old.c.rater_id == s.rater_id,
                old.c.query_id == s.query_id,
                old.c.document_id == s.document_id,
            ),
        )
        events = select(
            s.rater_id,
            s.query_id,
            s.document_id,
            literal(action),
            old.c.grade,
            old.c.skipped,
            old.c.note,
            grade,
            skipped,
            s.note,
            literal(now, DateTime),
        ).select_from(source).where(differs)
        event_columns = [
            "rater_id", "query_id", "document_id", "action", "old_grade", "old_skipped",
            "old_note", "new_grade", "new_skipped", "new_note", "at",
        ]  # fmt: skip
        last_event = session.scalar(select(func.max(JudgmentEvent.id))) or 0
        session.execute(JudgmentEvent.__table__.insert().from_select(event_columns, events))
        written = session.scalar(
            select(func.count()).where(JudgmentEvent.id > last_event)
        ) or 0
        judged_at = func.coalesce(_staged_time(s.judged_at, session), literal(now, DateTime))
        rows = select(
            s.rater_id, s.query_id, s.document_id, grade, skipped, s.note, judged_at,
            s.duration_ms.cast(Integer),
        ).where(literal(True))  # fmt: skip
        insert = _insert(session)(Judgment).from_select(
            ["rater_id", "query_id", "document_id", "grade", "skipped", "note", "judged_at",
             "duration_ms"],
            rows,
        )  # fmt: skip
        excluded = insert.excluded
        target = Judgment.__table__.c
        session.execute(
            insert.on_conflict_do_update(
                index_elements=["rater_id", "query_id", "document_id"],
                set_={
                    name: excluded[name]
                    for name in ("grade", "skipped", "note", "judged_at", "duration_ms")
                },
                where=or_(
                    target.grade.is_distinct_from(excluded.grade),
                    target.skipped != excluded.skipped,
                    target.note.is_distinct_from(excluded.note),
                ),
            )
        )
    after = session.scalar(select(func.count()).select_from(Judgment)) or 0
    added = after - before
    return JudgmentCounts(added, written - added, len(frame) - written)


def _timestamps(values: pd.Series | None, count: int) -> pd.Series:
    """Judgment times as staged text (None where the file gave none)."""
    if values is None:
        return pd.Series([None] * count, dtype=object)
    text = values.dt.strftime(SQLITE_TIME_FORMAT)
    return text.astype(object).where(values.notna(), None)


def _staged_time(expression, session: Session):  # type: ignore[no-untyped-def]
    """A staged time as the DateTime the column holds (text on SQLite, a timestamp elsewhere)."""
    if _is_sqlite(session):
        return expression
    return expression.cast(DateTime)
