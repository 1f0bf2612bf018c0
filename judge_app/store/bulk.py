"""Bulk writes of checked tables: queries, documents, runs with their results, judgments.

Rows go to the database through the driver's fastest path (``executemany`` on SQLite, COPY
on PostgreSQL); ids are resolved once per distinct key through a temporary table, so a
million judgments import in seconds. Every function runs inside the caller's transaction
and does not commit.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd
from sqlalchemy import (
    DateTime,
    column,
    delete,
    literal,
    select,
    table,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import TableClause

from judge_app.store.models import (
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    Rater,
    Result,
    Run,
    utcnow,
)

Progress = Callable[[int, int], None]
CHUNK = 50_000
# SQLAlchemy's SQLite DateTime storage format, in which times are sent as text.
SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"
JUDGMENT_KEY = ["rater_id", "query_id", "document_id"]


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
    constants: dict[str, str | bool] | None = None,
) -> None:
    """Insert plain rows into a table by the driver's fastest path, reporting progress.

    ``constants`` are columns with the same value in every row (written into the statement
    once rather than bound a million times).
    """
    constants = constants or {}
    cursor = session.connection().connection.dbapi_connection.cursor()
    names = ", ".join([*columns, *constants])
    iterator = iter(rows)
    done = 0
    try:
        if _is_sqlite(session):
            fixed = [_sql_literal(value) for value in constants.values()]
            values = ", ".join(["?"] * len(columns) + fixed)
            sql = f"INSERT INTO {table_name} ({names}) VALUES ({values})"
            while chunk := list(itertools.islice(iterator, CHUNK)):
                cursor.executemany(sql, chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
        else:
            extra = tuple(constants.values())
            with cursor.copy(f"COPY {table_name} ({names}) FROM STDIN") as copy:
                for done, row in enumerate(iterator, start=1):
                    copy.write_row(row + extra)
                    if progress and done % CHUNK == 0:
                        progress(done, total)
            if progress:
                progress(total, total)
    finally:
        cursor.close()


def _sql_literal(value: str | bool) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return "'" + value.replace("'", "''") + "'"


@contextmanager
def _staged_keys(session: Session, keys: Sequence[str]) -> Iterator[TableClause]:
    """A temporary one-column table (``external_id``) holding ``keys``, dropped afterwards."""
    name = f"stage_{uuid.uuid4().hex[:12]}"
    connection = session.connection()
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE {name} (external_id TEXT)")
    try:
        copy_rows(session, name, ["external_id"], ((key,) for key in keys), len(keys))
        yield table(name, column("external_id"))
    finally:
        connection.exec_driver_sql(f"DROP TABLE {name}")


def _mapped(keys: pd.Series, ids: dict[str, int]) -> np.ndarray:
    """``ids[key]`` for every key (factorised: each distinct key is looked up once)."""
    codes, uniques = pd.factorize(keys)
    return np.array([ids[key] for key in uniques], dtype=np.int64)[codes]


def _id_map(
    session: Session, model: type, key: str, external_ids: Iterable[str], create: bool
) -> dict[str, int]:
    """Ids of the rows whose ``key`` is among ``external_ids``; missing ones created if asked.

    Creation is insert-or-ignore, so two imports creating the same row at once do not collide.
    """
    if not isinstance(external_ids, pd.Series):
        external_ids = pd.Series(list(external_ids), dtype=object)
    wanted = _values(external_ids.drop_duplicates())
    if not wanted:
        return {}
    key_column = getattr(model, key)
    with _staged_keys(session, wanted) as stage:
        if create:
            names = [key] + (["created_at"] if hasattr(model, "created_at") else [])
            chosen = [stage.c.external_id] + (
                [literal(utcnow(), DateTime)] if hasattr(model, "created_at") else []
            )
            insert = _insert(session)(model).from_select(
                names, select(*chosen).where(literal(True))
            )
            session.execute(insert.on_conflict_do_nothing(index_elements=[key]))
        rows = session.execute(
            select(key_column, model.id).join(stage, stage.c.external_id == key_column)
        )
        return {key: id_ for key, id_ in rows}


def missing_ids(session: Session, model: type, key: str, external_ids: Iterable[str]) -> set[str]:
    """The external ids not in the table (for ``--strict`` imports)."""
    wanted = set(external_ids)
    return wanted - set(_id_map(session, model, key, wanted, create=False))


def query_ids(session: Session, external_ids: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of queries by external id, creating the missing ones with their id alone."""
    return _id_map(session, Query, "external_id", external_ids, create)


def document_ids(
    session: Session, external_ids: Iterable[str], create: bool = True
) -> dict[str, int]:
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
        for external_id, *values in zip(
            *(_values(frame[name]) for name in ["external_id", *fields])
        )
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
        _mapped(results["query_id"], queries).tolist(),
        _mapped(results["doc_id"], documents).tolist(),
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
    progress: Progress | None = None,
) -> JudgmentCounts:
    """Add or update judgments; each judgment changed appends an event to the history.

    ``frame`` has ``query_id, doc_id, rater, grade, skipped, note`` and may have
    ``judged_at`` and ``duration_ms``. A row equal to the stored judgment changes nothing.
    A judgment an import adds has no event: it enters as it is (and a later change's event
    holds it as the old state), so a million-row import writes a million rows, not two
    million. New judgments go in by the driver's bulk path; changed ones by primary key.
    """
    now = utcnow()
    raters = rater_ids(session, frame["rater"])
    incoming = pd.DataFrame(
        {
            "rater_id": _mapped(frame["rater"], raters),
            "query_id": _mapped(frame["query_id"], query_ids(session, frame["query_id"])),
            "document_id": _mapped(frame["doc_id"], document_ids(session, frame["doc_id"])),
            "grade": frame["grade"].astype("Int64").to_numpy(),
            "skipped": frame["skipped"].astype(bool).to_numpy(),
            "note": _values(frame["note"]),
        }
    )
    now_text = now.strftime(SQLITE_TIME_FORMAT)
    constants: dict[str, str | bool] = {"judged_at": now_text}
    if "judged_at" in frame and frame["judged_at"].notna().any():
        times = frame["judged_at"].dt.strftime(SQLITE_TIME_FORMAT)
        incoming["judged_at"] = (
            times.astype(object).where(frame["judged_at"].notna(), now_text).to_numpy()
        )
        constants = {}
    if "duration_ms" in frame and frame["duration_ms"].notna().any():
        incoming["duration_ms"] = frame["duration_ms"].astype("Int64").to_numpy()
    existing = _stored_judgments(session, list(raters.values()))
    if existing.empty:
        new, changed = incoming, incoming.iloc[:0]
    else:
        merged = incoming.merge(existing, how="left", on=JUDGMENT_KEY, validate="one_to_one")
        is_new = merged["id"].isna().to_numpy()
        differs = (
            _differ(merged["grade"], merged["old_grade"])
            | _differ(merged["skipped"], merged["old_skipped"])
            | _differ(merged["note"], merged["old_note"])
        )
        new, changed = merged[is_new][incoming.columns], merged[~is_new & differs]
    if not new["skipped"].any():
        constants["skipped"] = False
    # columns the same (or empty) in every new row are not bound a million times
    columns = [
        name for name in incoming.columns if name not in constants and new[name].notna().any()
    ]
    rows = zip(*(_values(new[name]) for name in columns))
    copy_rows(session, Judgment.__tablename__, columns, rows, len(new), progress, constants)
    if len(changed):
        _apply_changes(session, changed, now)
    return JudgmentCounts(len(new), len(changed), len(frame) - len(new) - len(changed))


def _stored_judgments(session: Session, rater_ids: list[int]) -> pd.DataFrame:
    """The stored judgments of these raters: key, id and the state (as ``old_*``)."""
    statement = select(
        Judgment.rater_id, Judgment.query_id, Judgment.document_id, Judgment.id,
        Judgment.grade.label("old_grade"), Judgment.skipped.label("old_skipped"),
        Judgment.note.label("old_note"),
    ).where(Judgment.rater_id.in_(rater_ids))  # fmt: skip
    frame = pd.read_sql(statement, session.connection())
    return frame.astype({"old_grade": "Int64", "old_skipped": bool})


def _differ(left: pd.Series, right: pd.Series) -> pd.Series:
    """Element-wise "not the same value", a missing value being equal only to another."""
    a = left.to_numpy(dtype=object, na_value=None)
    b = right.to_numpy(dtype=object, na_value=None)
    return pd.Series(a != b, index=left.index)


def _apply_changes(session: Session, changed: pd.DataFrame, now: datetime) -> None:
    """Update changed judgments by primary key and append their ``import`` events."""
    fields = ["id", "grade", "skipped", "note"]
    fields += [name for name in ("judged_at", "duration_ms") if name in changed]
    updates = [dict(zip(fields, row)) for row in zip(*(_values(changed[name]) for name in fields))]
    for row in updates:
        text = row.get("judged_at")
        row["judged_at"] = datetime.strptime(text, SQLITE_TIME_FORMAT) if text else now
        row.setdefault("duration_ms", None)
    session.execute(update(Judgment), updates)
    columns = ["rater_id", "query_id", "document_id", "action", "old_grade", "old_skipped",
               "old_note", "new_grade", "new_skipped", "new_note", "at"]  # fmt: skip
    frame = changed.assign(action="import", at=now, new_grade=changed["grade"],
                           new_skipped=changed["skipped"], new_note=changed["note"])  # fmt: skip
    session.execute(
        JudgmentEvent.__table__.insert(),
        [dict(zip(columns, row)) for row in zip(*(_values(frame[name]) for name in columns))],
    )
