"""Bulk writes of checked rows: queries, documents, runs with their results, judgments.

Rows go to the database through the driver's fastest path (``executemany`` on SQLite, COPY
on PostgreSQL); ids are resolved once per distinct key through a temporary table, so a
million judgments import in seconds. Results and judgments are staged a chunk at a time in a
TEMP table of the import (``staging_table``), where keys repeated anywhere in a file are found
(``repeated``) and from which they are written by set-based SQL at the end. Every function runs
inside the caller's transaction and does not commit.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import (
    DateTime,
    and_,
    bindparam,
    column,
    delete,
    distinct,
    exists,
    func,
    insert,
    literal,
    or_,
    select,
    table,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ColumnElement, TableClause

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

NamedModel = type[Query | Document | Rater]
"""A table whose rows are known by a key of their own: an external id, a rater's name."""
CHUNK = 50_000
# SQLAlchemy's SQLite DateTime storage format, in which times are sent as text.
SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"
JUDGMENT_KEY = ["rater_id", "query_id", "document_id"]
# The columns of the TEMP tables an import stages its results and judgments in
JUDGMENT_STAGE = {
    "rater_id": "INTEGER", "query_id": "INTEGER", "document_id": "INTEGER", "grade": "INTEGER",
    "skipped": "BOOLEAN NOT NULL DEFAULT FALSE", "note": "TEXT", "judged_at": "TIMESTAMP",
    "duration_ms": "INTEGER",
}  # fmt: skip
RESULT_STAGE = {
    "query_id": "INTEGER",
    "document_id": "INTEGER",
    "rank": "INTEGER",
    "score": "DOUBLE PRECISION",
}


@dataclass(frozen=True)
class JudgmentCounts:
    """What an import of judgments did."""

    added: int
    changed: int
    unchanged: int


def _insert(session: Session) -> Callable[[NamedModel], postgresql.Insert | sqlite.Insert]:
    """The dialect's INSERT construct, which knows ON CONFLICT."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


def _rowcount(result: object) -> int:
    """The rows written by an INSERT or UPDATE, from what ``Session.execute`` returned for
    it (a CursorResult)."""
    assert isinstance(result, CursorResult)
    return result.rowcount


def _values(series: pd.Series) -> list:
    """A column as a Python list with None for missing values."""
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub":  # never missing
        return series.tolist()
    return series.to_numpy(dtype=object, na_value=None).tolist()


def copy_rows(
    session: Session, table_name: str, columns: Sequence[str], rows: Iterable[tuple]
) -> None:
    """Insert plain rows into a table by the driver's fastest path."""
    connection = session.connection().connection.dbapi_connection
    assert connection is not None  # a Session's connection is open while it is in use
    cursor = connection.cursor()
    names = ", ".join(columns)
    iterator = iter(rows)
    try:
        if _is_sqlite(session):
            sql = f"INSERT INTO {table_name} ({names}) VALUES ({', '.join(['?'] * len(columns))})"
            while chunk := list(itertools.islice(iterator, CHUNK)):
                cursor.executemany(sql, chunk)
        else:
            with cursor.copy(f"COPY {table_name} ({names}) FROM STDIN") as copy:
                for row in iterator:
                    copy.write_row(row)
    finally:
        cursor.close()


@contextmanager
def staging_table(session: Session, columns: dict[str, str]) -> Iterator[TableClause]:
    """A TEMP table of ``columns`` (name: SQL type), dropped at the end of the block; a block
    that raises leaves it to the rollback of the transaction, which drops it as well.

    Its ``ordinal`` column numbers the rows as they are inserted, from 1 (not bound row by
    row: SQLite's rowid, a sequence on PostgreSQL): a file's rows staged in order from its
    first have ordinal = position + 1.
    """
    name = f"stage_{uuid.uuid4().hex[:12]}"
    ordinal = "INTEGER PRIMARY KEY" if _is_sqlite(session) else "BIGSERIAL PRIMARY KEY"
    spec = ", ".join(f"{field} {kind}" for field, kind in {"ordinal": ordinal, **columns}.items())
    connection = session.connection()
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE {name} ({spec})")
    yield table(name, *map(column, ["ordinal", *columns]))
    connection.exec_driver_sql(f"DROP TABLE {name}")


def _id_map(
    session: Session, model: NamedModel, key: str, external_ids: Iterable[str], create: bool
) -> dict[str, int]:
    """Ids of the rows whose ``key`` is among ``external_ids``; missing ones created if asked.

    Creation is insert-or-ignore, so two imports creating the same row at once do not collide.
    """
    if isinstance(external_ids, pd.Series):
        series = external_ids
    else:
        series = pd.Series(list(external_ids), dtype=object)
    wanted = _values(series.drop_duplicates())
    if not wanted:
        return {}
    key_column = getattr(model, key)
    with staging_table(session, {"external_id": "TEXT"}) as stage:
        copy_rows(session, stage.name, ["external_id"], ((key,) for key in wanted))
        if create:
            names = [key] + (["created_at"] if hasattr(model, "created_at") else [])
            chosen = [stage.c.external_id] + (
                [literal(utcnow(), DateTime)] if hasattr(model, "created_at") else []
            )
            insert_ = _insert(session)(model).from_select(
                names, select(*chosen).where(literal(True))
            )
            session.execute(insert_.on_conflict_do_nothing(index_elements=[key]))
        rows = session.execute(
            select(key_column, model.id).join(stage, stage.c.external_id == key_column)
        )
        return {key: id_ for key, id_ in rows}


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


class IdCache:
    """Internal ids of the queries, documents and raters one import names, each looked up (or
    created) once; its memory grows with the distinct ids, not with the rows.

    With ``strict``, the queries and documents it had to create are ``unknown`` (what
    ``--strict`` refuses), unless they were ``given`` (by the import's queries or documents).
    """

    KEYS: dict[NamedModel, str] = {Query: "external_id", Document: "external_id", Rater: "name"}

    def __init__(self, session: Session, *, strict: bool = False) -> None:
        self._session = session
        self._strict = strict
        self._ids: dict[NamedModel, dict[str, int]] = {model: {} for model in self.KEYS}
        self._names: dict[NamedModel, dict[int, str]] = {}
        self.unknown: dict[NamedModel, set[str]] = {Query: set(), Document: set()}

    def ids(self, model: NamedModel, external_ids: pd.Series, *, given: bool = False) -> pd.Series:
        """The id of each external id (NA where it is missing), creating the unknown ones."""
        codes, found = pd.factorize(external_ids)
        uniques, known = found.tolist(), self._ids[model]
        new = [key for key in uniques if key not in known]
        if new:
            key = self.KEYS[model]
            if self._strict and model in self.unknown and not given:
                known.update(_id_map(self._session, model, key, new, create=False))
                self.unknown[model].update(key for key in new if key not in known)
            known.update(_id_map(self._session, model, key, new, create=True))
            self._names.pop(model, None)
        mapped = pd.Series(
            np.array([known[key] for key in uniques] + [0], dtype=np.int64)[codes],
            index=external_ids.index,
        )
        return mapped.astype("Int64").mask(codes < 0) if (codes < 0).any() else mapped

    def name(self, model: NamedModel, id_: int) -> str:
        """The external id of ``id_``, one this import named."""
        if model not in self._names:
            self._names[model] = {value: key for key, value in self._ids[model].items()}
        return self._names[model][id_]


def repeated(
    session: Session, stage: TableClause, key: Sequence[str], limit: int
) -> tuple[int, list[tuple]]:
    """How many rows of ``stage`` repeat the ``key`` of an earlier row (rows missing a key
    value aside), and the first ``limit`` of them as ``(position, first position, *key)``
    (a position is ordinal - 1: see ``staging_table``)."""
    names = ", ".join(key)
    rows = f"FROM {stage.name} WHERE " + " AND ".join(f"{name} IS NOT NULL" for name in key)
    distinct = f"SELECT COUNT(*) FROM (SELECT DISTINCT {names} {rows}) AS d"  # sorts fastest
    total = session.execute(text(f"SELECT (SELECT COUNT(*) {rows}) - ({distinct})")).scalar()
    if not total:
        return 0, []
    groups = (
        f"SELECT {names}, MIN(ordinal) AS first_ordinal {rows} GROUP BY {names} HAVING COUNT(*) > 1"
    )
    same = " AND ".join(f"s.{name} = g.{name}" for name in key)
    found = session.execute(
        text(
            f"SELECT s.ordinal - 1, g.first_ordinal - 1, {', '.join('s.' + name for name in key)} "
            f"FROM {stage.name} AS s JOIN ({groups}) AS g ON {same} "
            f"WHERE s.ordinal > g.first_ordinal ORDER BY s.ordinal LIMIT {int(limit)}"
        )
    )
    return int(total), [tuple(row) for row in found]


def update_texts(
    session: Session,
    model: type[Query | Document],
    ids: pd.Series | Sequence[int | None],
    frame: pd.DataFrame,
    fields: list[str],
) -> None:
    """Set ``fields`` of the rows ``ids`` (of ``model``) to the columns of ``frame``."""
    rows = [
        {"id": id_, **dict(zip(fields, values))}
        for id_, *values in zip(_values(pd.Series(ids)), *(_values(frame[f]) for f in fields))
        if id_ is not None
    ]
    if rows:
        session.execute(update(model), rows)


def fill_missing_texts(
    session: Session,
    model: type[Query | Document],
    field: str,
    ids: Sequence[int],
    values: Sequence[str],
) -> None:
    """Set ``field`` of the rows ``ids`` to ``values`` where the row has none yet."""
    target = model.__table__
    statement = (
        update(target)
        .where(target.c.id == bindparam("b_id"), target.c[field].is_(None))
        .values({field: bindparam("b_value")})
    )
    session.execute(statement, [{"b_id": i, "b_value": v} for i, v in zip(ids, values)])


def stage_results(session: Session, stage: TableClause, ids: IdCache, frame: pd.DataFrame) -> None:
    """Stage results: ``query_id, doc_id[, rank], score``."""
    columns = {
        "query_id": ids.ids(Query, frame["query_id"]),
        "document_id": ids.ids(Document, frame["doc_id"]),
        "score": frame["score"],
    }
    if "rank" in frame:
        columns["rank"] = frame["rank"]
    stage_rows(session, stage, columns)


def write_run(
    session: Session, stage: TableClause, name: str, *, ranked: bool = True
) -> tuple[int, int]:
    """Create the run ``name`` or replace all its results with the staged ones; without
    ``ranked``, ranks are given as trec_eval orders a run: per query, score descending and
    ties by document id descending. Returns the number of results and of their queries."""
    run = session.scalars(select(Run).where(Run.name == name)).first()
    if run is None:
        run = Run(name=name)
        session.add(run)
        session.flush()
    else:
        run.imported_at = utcnow()
        session.execute(delete(Result).where(Result.run_id == run.id))
    rows = select(literal(run.id), stage.c.query_id, stage.c.document_id)
    if ranked:
        rows = rows.add_columns(stage.c.rank)
    else:
        document = Document.external_id  # in code point order, as Python orders strings
        if session.get_bind().dialect.name == "postgresql":
            by_document = document.collate("C").desc()
        else:
            by_document = document.desc()
        rank = func.row_number().over(
            partition_by=stage.c.query_id, order_by=[stage.c.score.desc(), by_document]
        )
        rows = rows.add_columns(rank).join(Document, Document.id == stage.c.document_id)
    rows = rows.add_columns(stage.c.score).order_by(stage.c.ordinal)
    names = ["run_id", "query_id", "document_id", "rank", "score"]
    session.execute(insert(Result.__table__).from_select(names, rows))
    counts = select(func.count(), func.count(distinct(stage.c.query_id))).select_from(stage)
    results, queries = session.execute(counts).one()
    return results, queries


def stage_judgments(
    session: Session, stage: TableClause, ids: IdCache, frame: pd.DataFrame
) -> None:
    """Stage judgments: ``query_id, doc_id, rater, grade, skipped, note[, judged_at,
    duration_ms]``. Columns empty in every row (and ``skipped`` false in every row) are left
    to the table's defaults rather than bound row by row."""
    columns = {
        "rater_id": ids.ids(Rater, frame["rater"]),
        "query_id": ids.ids(Query, frame["query_id"]),
        "document_id": ids.ids(Document, frame["doc_id"]),
        "grade": frame["grade"].astype("Int64"),
        "note": frame["note"],
    }
    if frame["skipped"].any():
        columns["skipped"] = frame["skipped"].astype(bool)
    if "judged_at" in frame and frame["judged_at"].notna().any():
        times = frame["judged_at"].dt.strftime(SQLITE_TIME_FORMAT)
        columns["judged_at"] = times.astype(object).where(frame["judged_at"].notna(), None)
    if "duration_ms" in frame and frame["duration_ms"].notna().any():
        columns["duration_ms"] = frame["duration_ms"].astype("Int64")
    stage_rows(session, stage, columns)


def merge_judgments(session: Session, stage: TableClause) -> JudgmentCounts:
    """Add the staged judgments or update the stored ones they change, each change appending
    an ``import`` event to the history; a row equal to the stored judgment changes nothing.

    A judgment an import adds has no event: it enters as it is (and a later change's event
    holds it as the old state), so a million-row import writes a million rows, not two
    million. Staged rows without a time are judged now.
    """
    judgment, now = Judgment.__table__, literal(utcnow(), DateTime)
    same = and_(*(judgment.c[name] == stage.c[name] for name in JUDGMENT_KEY))
    differs = or_(
        *(judgment.c[name].is_distinct_from(stage.c[name]) for name in ("grade", "skipped", "note"))
    )
    old, new = ["grade", "skipped", "note"], [stage.c.grade, stage.c.skipped, stage.c.note]
    events = (
        select(*(judgment.c[name] for name in JUDGMENT_KEY), literal("import"))
        .add_columns(*(judgment.c[name] for name in old), *new, now)
        .join_from(stage, judgment, same)
        .where(differs)
        .order_by(stage.c.ordinal)
    )
    columns = [*JUDGMENT_KEY, "action", "old_grade", "old_skipped", "old_note", "new_grade",
               "new_skipped", "new_note", "at"]  # fmt: skip
    counted = {"preserve_rowcount": True}  # INSERT's row count is kept only when asked
    copied = insert(JudgmentEvent.__table__).from_select(columns, events)
    changed = _rowcount(session.execute(copied, execution_options=counted))
    if changed:
        values: dict[str, ColumnElement[Any]] = dict(zip(old, new), duration_ms=stage.c.duration_ms)
        values["judged_at"] = func.coalesce(stage.c.judged_at, now)
        session.execute(update(judgment).where(same, differs).values(values))
    fields = [*JUDGMENT_KEY, "grade", "skipped", "note", "judged_at", "duration_ms"]
    rows = (
        select(*(stage.c[name] for name in fields[:6]), func.coalesce(stage.c.judged_at, now))
        .add_columns(stage.c.duration_ms)
        .where(~exists().where(same))
        .order_by(stage.c.ordinal)
    )
    added = _rowcount(
        session.execute(insert(judgment).from_select(fields, rows), execution_options=counted)
    )
    staged = session.execute(select(func.count()).select_from(stage)).scalar_one()
    return JudgmentCounts(added, changed, staged - added - changed)


def stage_rows(
    session: Session, stage: TableClause, columns: Mapping[str, pd.Series | Sequence[Any]]
) -> None:
    """Insert the rows made of ``columns`` (name: values, NA as NULL) into ``stage``."""
    lists = [_values(pd.Series(values)) for values in columns.values()]
    copy_rows(session, stage.name, list(columns), zip(*lists))
