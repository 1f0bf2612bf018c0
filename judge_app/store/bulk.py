"""Bulk writes of checked rows: queries, documents, runs with their results.

Rows go to the database through the driver's own cursor (``executemany`` on SQLite, COPY on
PostgreSQL), never as SQLAlchemy rows; ids are resolved once per distinct key (``IdCache``),
so a million rows import in seconds. A run's results are staged a chunk at a time in a TEMP
table of the import (``staging_table``), from which they are written by set-based SQL at the
end; judgments are written once, straight into their table (``bulk_judgments``). Every
function runs inside the caller's transaction and does not commit.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import (
    bindparam,
    column,
    delete,
    distinct,
    func,
    insert,
    literal,
    select,
    table,
    update,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import TableClause

from judge_app.store.models import Document, Query, Rater, Result, Run, utcnow

NamedModel = type[Query | Document | Rater]
"""A table whose rows are known by a key of their own: an external id, a rater's name."""
CHUNK = 50_000
IMPORT_CACHE_KIB = 16_384  # SQLite's page cache while an import writes (its default: 2,000)
LOOKUP_BATCH = 5_000  # names a SELECT asks for (SQLite allows 32,766 parameters)
# SQLAlchemy's SQLite DateTime storage format, in which times are sent as text.
SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"
# The columns of the TEMP table an import stages a run's results in
RESULT_STAGE = {
    "query_id": "INTEGER",
    "document_id": "INTEGER",
    "rank": "INTEGER",
    "score": "DOUBLE PRECISION",
}


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


@contextmanager
def driver_cursor(session: Session) -> Iterator[Any]:
    """The driver's own cursor on the session's connection, in its transaction: rows bound
    and read without SQLAlchemy's row objects (see ``marks``). The driver's errors come out
    as SQLAlchemy's, as from ``Session.execute``."""
    connection = session.connection().connection.dbapi_connection
    assert connection is not None  # a Session's connection is open while it is in use
    driver = session.get_bind().dialect.dbapi
    assert driver is not None  # a dialect that connected has its driver module
    cursor = connection.cursor()
    try:
        yield cursor
    except driver.Error as error:
        raise DBAPIError.instance(None, None, error, driver.Error) from error
    finally:
        cursor.close()


def marks(session: Session, count: int) -> str:
    """``count`` marks of bound values, comma-separated, in the driver's style (``?`` for
    sqlite3, ``%s`` for psycopg)."""
    return ", ".join(["?" if _is_sqlite(session) else "%s"] * count)


def time_text(moment: datetime) -> str:
    """A time as the store's DateTime columns hold it on SQLite (and PostgreSQL reads it)."""
    return moment.strftime(SQLITE_TIME_FORMAT)


@contextmanager
def import_cache(session: Session) -> Iterator[None]:
    """On SQLite, a page cache of IMPORT_CACHE_KIB for the block (the connection's own size
    again after it): an import's inserts find the pages of the tables and indexes they
    check and extend there more often than in the default 2 MB."""
    if not _is_sqlite(session):
        yield
        return
    connection = session.connection()
    size = connection.exec_driver_sql("PRAGMA cache_size").scalar()
    connection.exec_driver_sql(f"PRAGMA cache_size=-{IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        with suppress(DBAPIError):  # a connection a failure broke is not used again
            connection.exec_driver_sql(f"PRAGMA cache_size={int(size or 0)}")


def _values(series: pd.Series) -> list:
    """A column as a Python list with None for missing values."""
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub":  # never missing
        return series.tolist()
    return series.to_numpy(dtype=object, na_value=None).tolist()


def copy_rows(
    session: Session, table_name: str, columns: Sequence[str], rows: Iterable[tuple]
) -> None:
    """Insert plain rows into a table by the driver's fastest path."""
    names = ", ".join(columns)
    iterator = iter(rows)
    with driver_cursor(session) as cursor:
        if _is_sqlite(session):
            sql = f"INSERT INTO {table_name} ({names}) VALUES ({marks(session, len(columns))})"
            while chunk := list(itertools.islice(iterator, CHUNK)):
                cursor.executemany(sql, chunk)
        else:
            with cursor.copy(f"COPY {table_name} ({names}) FROM STDIN") as copy:
                for row in iterator:
                    copy.write_row(row)


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


def _stored_ids(session: Session, model: NamedModel, names: Sequence[str]) -> dict[str, int]:
    """The ids of the rows of ``model`` among ``names`` (by its key), a batch of names a
    SELECT through the driver's cursor."""
    key, found = IdCache.KEYS[model], {}
    with driver_cursor(session) as cursor:
        for start in range(0, len(names), LOOKUP_BATCH):
            batch = names[start : start + LOOKUP_BATCH]
            where = f"{key} IN ({marks(session, len(batch))})"
            cursor.execute(f'SELECT {key}, id FROM "{model.__tablename__}" WHERE {where}', batch)
            found.update(cursor.fetchall())
    return found


def _create(session: Session, model: NamedModel, names: Sequence[str]) -> None:
    """Add rows of ``model`` known by ``names`` alone: insert or ignore, so that two imports
    creating the same row at once do not collide."""
    extra = {Query: ["created_at"], Document: [], Rater: ["created_at", "active"]}[model]
    values = {"created_at": time_text(utcnow()), "active": True}
    columns, constants = [IdCache.KEYS[model], *extra], [values[name] for name in extra]
    sql = (
        f'INSERT INTO "{model.__tablename__}" ({", ".join(columns)}) '
        f"VALUES ({marks(session, len(columns))}) ON CONFLICT ({columns[0]}) DO NOTHING"
    )
    with driver_cursor(session) as cursor:
        cursor.executemany(sql, [(name, *constants) for name in names])


def _id_map(
    session: Session, model: NamedModel, external_ids: Iterable[str], create: bool
) -> dict[str, int]:
    """Ids of the rows known by ``external_ids`` (their key), in the order asked; missing
    ones created if asked."""
    wanted = list(dict.fromkeys(external_ids))
    found = _stored_ids(session, model, wanted)
    missing = [name for name in wanted if name not in found]
    if create and missing:
        _create(session, model, missing)
        found.update(_stored_ids(session, model, missing))
    return {name: found[name] for name in wanted if name in found}


def query_ids(session: Session, external_ids: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of queries by external id, creating the missing ones with their id alone."""
    return _id_map(session, Query, external_ids, create)


def document_ids(
    session: Session, external_ids: Iterable[str], create: bool = True
) -> dict[str, int]:
    """Internal ids of documents by external id, creating the missing ones with their id alone."""
    return _id_map(session, Document, external_ids, create)


def rater_ids(session: Session, names: Iterable[str], create: bool = True) -> dict[str, int]:
    """Internal ids of raters by name, creating the missing ones."""
    return _id_map(session, Rater, names, create)


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
            self._learn(model, new, given)
        table = np.fromiter(map(known.__getitem__, uniques), np.int64, len(uniques))
        mapped = pd.Series(np.append(table, 0)[codes], index=external_ids.index)
        return mapped.astype("Int64").mask(codes < 0) if (codes < 0).any() else mapped

    def _learn(self, model: NamedModel, new: list[str], given: bool) -> None:
        """Look up the ids of ``new`` names, creating the rows of those the database lacks."""
        found = _stored_ids(self._session, model, new)
        missing = [key for key in new if key not in found]
        if missing:
            if self._strict and model in self.unknown and not given:
                self.unknown[model].update(missing)
            _create(self._session, model, missing)
            found.update(_stored_ids(self._session, model, missing))
        self._ids[model].update(found)
        self._names.pop(model, None)

    def name(self, model: NamedModel, id_: int) -> str:
        """The external id of ``id_``, one this import named."""
        if model not in self._names:
            self._names[model] = {value: key for key, value in self._ids[model].items()}
        return self._names[model][id_]


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


def stage_results(
    session: Session, stage: TableClause, ids: IdCache, frame: pd.DataFrame
) -> dict[str, pd.Series]:
    """Stage results: ``query_id, doc_id[, rank], score``; returns the columns staged."""
    columns = {
        "query_id": ids.ids(Query, frame["query_id"]),
        "document_id": ids.ids(Document, frame["doc_id"]),
        "score": frame["score"],
    }
    if "rank" in frame:
        columns["rank"] = frame["rank"]
    stage_rows(session, stage, columns)
    return columns


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


def stage_rows(
    session: Session, stage: TableClause, columns: Mapping[str, pd.Series | Sequence[Any]]
) -> None:
    """Insert the rows made of ``columns`` (name: values, NA as NULL) into ``stage``."""
    lists = [_values(pd.Series(values)) for values in columns.values()]
    copy_rows(session, stage.name, list(columns), zip(*lists))
