"""Rows read through the driver's own cursor, a chunk at a time and without pandas: the
integer keys of the graded judgments, the names of the small tables by id and in code-point
order, and every judgment in the order of the export. SQLAlchemy's row objects would double
the time of a million rows; pandas would hold them all at once."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from judge_app.io.exports import ById, Judgments
from judge_app.store.models import Document, JudgmentEvent, Query, Rater

CHUNK = 20_000
"""Rows fetched (and, for the export, sorted and written) at a time."""
IDS_PER_STATEMENT = 500
JUDGMENT_FIELDS = "query_id, document_id, rater_id, grade, skipped, note, judged_at, duration_ms"


def fetch(session: Session, sql: str) -> tuple[Sequence[tuple], int]:
    """The rows of ``sql`` and their width."""
    cursor = session.connection().connection.cursor()
    try:
        cursor.execute(sql)
        return cursor.fetchall(), len(cursor.description)
    finally:
        cursor.close()


def fetch_numbers(session: Session, sql: str) -> np.ndarray:
    """The rows of ``sql`` (integers, no NULL) as an int64 matrix, fetched a chunk at a time."""
    cursor = session.connection().connection.cursor()
    try:
        cursor.execute(sql)
        width = len(cursor.description)
        parts = [np.empty((0, width), dtype=np.int64)]
        while rows := cursor.fetchmany(CHUNK):
            flat = itertools.chain.from_iterable(rows)
            parts.append(np.fromiter(flat, np.int64, width * len(rows)).reshape(-1, width))
        return np.concatenate(parts)
    finally:
        cursor.close()


def graded_keys(session: Session) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Query, document and rater ids and the grade of every graded judgment, read as one
    number a row where the ids allow (a million rows' Python objects are most of a read)."""
    query, document, rater, grade, _rest = _judgment_numbers(
        session, "grade", [], "grade IS NOT NULL AND NOT skipped"
    )
    return query, document, rater, grade


SKIPPED = -1
"""The grade code of a skipped judgment (``timed_keys``)."""


def timed_keys(session: Session) -> tuple[np.ndarray, ...]:
    """Every judgment, skipped ones too: query, document and rater ids, the grade (SKIPPED
    where skipped), when (microseconds since 1970, UTC) and how long it took (ms; -1: not
    timed), read as numbers (see ``graded_keys``)."""
    sqlite = session.connection().dialect.name == "sqlite"
    at = (
        _SQLITE_MICROSECONDS
        if sqlite
        else "CAST(EXTRACT(EPOCH FROM judged_at) * 1000000 AS BIGINT)"
    )
    query, document, rater, grade, (moment, duration) = _judgment_numbers(
        session, "coalesce(grade, 7)", [at, "coalesce(duration_ms, -1)"], "1 = 1"
    )
    return query, document, rater, np.where(grade == 7, SKIPPED, grade), moment, duration


_SQLITE_MICROSECONDS = (
    "(CAST(strftime('%s', substr(judged_at, 1, 19)) AS INTEGER) * 1000000"
    " + CASE WHEN substr(judged_at, 20, 1) = '.'"
    " THEN CAST(substr(substr(judged_at, 21, 6) || '000000', 1, 6) AS INTEGER) ELSE 0 END)"
)
"""A stored time (SQLAlchemy's text, ``YYYY-MM-DD HH:MM:SS[.ffffff]`` in UTC) in whole
microseconds since 1970: the seconds by ``strftime`` (given a fraction, it rounds to the
millisecond and may carry into the next second), the fraction as written. SQLite's
``julianday`` is a double, a few dozen microseconds coarse at today's dates."""
_MICROSECONDS = "CAST(EXTRACT(EPOCH FROM judged_at) * 1000000 AS BIGINT)"
"""The same on PostgreSQL (a timestamp without time zone, in UTC; EXTRACT is exact)."""


def _judgment_numbers(
    session: Session, grade: str, extra: list[str], condition: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Query, document and rater ids, ``grade`` (a whole number 0 to 7) and the ``extra``
    numbers of each judgment meeting ``condition``: the ids and grade packed into one number
    where they fit in 63 bits."""
    graded = f"FROM judgment WHERE {condition}"
    largest, _width = fetch(
        session,
        "SELECT (SELECT max(id) FROM query), (SELECT max(id) FROM document), "
        "(SELECT max(id) FROM rater)",
    )
    queries, documents, raters = (int(value or 0) + 1 for value in largest[0])
    if queries * documents * raters * 8 >= 1 << 63:  # would not fit: one by one
        columns = ", ".join(["query_id", "document_id", "rater_id", grade, *extra])
        keys = fetch_numbers(session, f"SELECT {columns} {graded}")
        return keys[:, 0], keys[:, 1], keys[:, 2], keys[:, 3], list(keys[:, 4:].T)
    pair = f"CAST(query_id AS BIGINT) * {documents} + document_id"
    numbers = [f"(({pair}) * {raters} + rater_id) * 8 + {grade}", *extra]
    if session.connection().dialect.name == "sqlite":
        rows = _joined_numbers(session, numbers, condition)
    else:
        rows = fetch_numbers(session, f"SELECT {', '.join(numbers)} {graded}")
    rest, grades = np.divmod(rows[:, 0], 8)
    rest, rater = np.divmod(rest, raters)
    query, document = np.divmod(rest, documents)
    return query, document, rater, grades, list(rows[:, 1:].T)


JOINED = 1 << 22
"""Judgment ids whose numbers SQLite joins into one text."""


def _joined_numbers(session: Session, numbers: list[str], condition: str) -> np.ndarray:
    """The ``numbers`` of each judgment meeting ``condition`` (one row each), read from SQLite
    as texts of a few million numbers each joined by ``group_concat``: a third of the time of
    a row object a judgment."""
    last, _width = fetch(session, "SELECT coalesce(max(id), 0) FROM judgment")
    joined = " || ',' || ".join(f"({number})" for number in numbers)
    sql = f"SELECT group_concat({joined}) FROM judgment WHERE id >= ? AND id < ? AND {condition}"
    connection = session.connection()
    texts = (
        connection.exec_driver_sql(sql, (start, start + JOINED)).scalar()
        for start in range(0, last[0][0] + 1, JOINED)
    )
    parts = [np.fromstring(text, dtype=np.int64, sep=",") for text in texts if text]
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return flat.reshape(-1, len(numbers))


class Places:
    """Each id's place (-1 for an id not given): looked up in a table indexed by id where the
    ids are dense, found by binary search where they are sparse (a table up to a few huge
    ids would take gigabytes)."""

    def __init__(self, ids: np.ndarray, places: np.ndarray) -> None:
        order = np.argsort(ids)
        self._ids, self._places = ids[order], places[order]
        self._table: np.ndarray | None = None
        top = int(ids.max()) + 1 if len(ids) else 0
        if top <= 4 * len(ids) + 1024:
            self._table = np.full(top, -1, dtype=np.int64)
            self._table[ids] = places

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        if not len(self._ids):
            return np.full(ids.shape, -1, dtype=np.int64)
        if self._table is not None:
            inside = (ids >= 0) & (ids < len(self._table))
            return np.where(inside, self._table[np.where(inside, ids, 0)], -1)
        at = np.minimum(np.searchsorted(self._ids, ids), len(self._ids) - 1)
        return np.where(self._ids[at] == ids, self._places[at], -1)


@dataclass(frozen=True)
class Names:
    """One column of a small table: the names by id, the ids in code-point order of their
    names (what Python's ``sorted`` gives) and each id's place in that order."""

    by_id: ById
    ordered_ids: list[int]
    place: Places

    def in_order(self) -> list[str | None]:
        """The names, in code-point order."""
        return [self.by_id[key] for key in self.ordered_ids]


def names(session: Session, table: str, column: str, ordered: bool = False) -> Names:
    """``column`` of ``table`` by id; with ``ordered`` (a column without NULL), in order too."""
    pairs, _width = fetch(session, f"SELECT id, {column} FROM {table}")
    top = max((key for key, _name in pairs), default=-1) + 1
    by_id: ById
    if top <= 4 * len(pairs) + 1024:  # dense: a list, a fifth of a dict's memory
        by_id = [None] * top
        for key, name in pairs:
            by_id[key] = name
    else:
        by_id = dict(pairs)
    keys = [key for key, _name in pairs]
    keys = sorted(keys, key=lambda key: by_id[key] or "") if ordered else []
    return Names(by_id, keys, Places(np.array(keys, dtype=np.int64), np.arange(len(keys))))


def history_statement(rater: str | None = None) -> Select:
    """The judgment history (of ``rater``, or everyone's), oldest first: whose judgment of
    which pair changed, from what to what, when, and the login that changed it (a hidden
    repeat's changes are no judgment's, and are left out)."""
    statement = (
        select(
            JudgmentEvent.id,
            Rater.name.label("rater"),
            Query.external_id.label("query_id"),
            Document.external_id.label("doc_id"),
            JudgmentEvent.action,
            JudgmentEvent.old_grade,
            JudgmentEvent.old_skipped,
            JudgmentEvent.old_note,
            JudgmentEvent.new_grade,
            JudgmentEvent.new_skipped,
            JudgmentEvent.new_note,
            JudgmentEvent.at,
            JudgmentEvent.reverts,
            JudgmentEvent.login,
        )
        .join(Rater, Rater.id == JudgmentEvent.rater_id)
        .join(Query, Query.id == JudgmentEvent.query_id)
        .join(Document, Document.id == JudgmentEvent.document_id)
        .where(JudgmentEvent.repeat.is_(False))
        .order_by(JudgmentEvent.id)
    )
    return statement if rater is None else statement.where(Rater.name == rater)


def history_in_order(session: Session) -> Iterator[Sequence[tuple]]:
    """Every judgment's history (``history_statement``), a chunk of rows at a time."""
    result = session.execute(history_statement(), execution_options={"yield_per": CHUNK})
    for chunk in result.partitions():
        yield [tuple(row) for row in chunk]


def judgments_in_order(session: Session) -> Judgments:
    """Every rater judgment, ordered by query id, document id and rater name (code points,
    whatever the database's collation), a chunk of rows at a time: read as they are taken,
    so while ``session`` is open."""
    queries = names(session, "query", "external_id", ordered=True)
    documents = names(session, "document", "external_id", ordered=True)
    raters = names(session, "rater", "name", ordered=True)
    places = (queries.place, documents.place, raters.place)
    return Judgments(
        query_ids=queries.by_id,
        query_texts=names(session, "query", "text").by_id,
        doc_ids=documents.by_id,
        doc_titles=names(session, "document", "title").by_id,
        raters=raters.by_id,
        chunks=(_sorted(rows, places) for rows in _chunks(session, queries, documents)),
    )


def _chunks(session: Session, queries: Names, documents: Names) -> Iterator[Sequence[tuple]]:
    """The judgments of runs of whole queries in order, about CHUNK rows a run; a query of
    more is read a run of its documents at a time."""
    counts, _width = fetch(session, "SELECT query_id, count(*) FROM judgment GROUP BY query_id")
    sizes = dict(counts)
    for batch in _batches(counts, queries.place):
        if sizes[batch[0]] <= CHUNK:
            yield _rows(session, f"query_id IN ({_listed(batch)})")
            continue
        query = batch[0]  # alone in its batch
        of_query, _width = fetch(
            session,
            f"SELECT document_id, count(*) FROM judgment WHERE query_id = {query} "
            "GROUP BY document_id",
        )
        for run in _batches(of_query, documents.place):
            yield _rows(session, f"query_id = {query} AND document_id IN ({_listed(run)})")


def _batches(counts: Sequence[tuple], place: Places) -> Iterator[list[int]]:
    """Runs of the ids of ``counts`` (id, rows) in order of ``place``, each of at most CHUNK
    rows, or of one id alone."""
    keys, sizes = (np.array([row[column] for row in counts], np.int64) for column in (0, 1))
    order = np.argsort(place[keys], kind="stable")
    batch: list[int] = []
    size = 0
    for key, count in zip(keys[order].tolist(), sizes[order].tolist()):
        if batch and (size + count > CHUNK or len(batch) == IDS_PER_STATEMENT):
            yield batch
            batch, size = [], 0
        batch.append(key)
        size += count
    if batch:
        yield batch


def _listed(ids: list[int]) -> str:
    return ", ".join(map(str, ids))


def _rows(session: Session, condition: str) -> Sequence[tuple]:
    rows, _width = fetch(session, f"SELECT {JUDGMENT_FIELDS} FROM judgment WHERE {condition}")
    return rows


def _sorted(rows: Sequence[tuple], places: tuple[Places, ...]) -> list[tuple]:
    """``rows`` ordered by the places of their query, document and rater."""
    count = len(rows)
    query, document, rater = (
        place[np.fromiter((row[column] for row in rows), np.int64, count)]
        for column, place in enumerate(places)
    )
    return [rows[index] for index in np.lexsort((rater, document, query)).tolist()]
