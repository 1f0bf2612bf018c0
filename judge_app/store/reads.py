"""Reads for the metrics, agreement, the window and info: each returns a pandas DataFrame."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import pandas as pd
import pyarrow as pa
from sqlalchemy import Select, and_, case, exists, func, select, union
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from judge_app.store.models import (
    Assignment,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    Rater,
    Result,
    Run,
)
from judge_app.store.people import in_campaign
from judge_app.store.rows import Places, fetch, graded_keys, history_statement, timed_keys


def read_frame(session: Session, statement: Select) -> pd.DataFrame:
    """The rows of ``statement`` as a frame (``pandas.read_sql``). A database's error stays
    the database's (pandas words it as "Execution failed on sql '…'", the whole statement),
    so that it reaches the user in words, and Ctrl+C as an interrupt."""
    try:
        return pd.read_sql(statement, session.connection())
    except pd.errors.DatabaseError as error:
        if isinstance(error.__cause__, DBAPIError):
            raise error.__cause__ from None
        raise


def judgments_frame(
    session: Session,
    raters: Sequence[str] | None = None,
    include_skipped: bool = True,
    *,
    texts: bool = True,
) -> pd.DataFrame:
    """One row per rater judgment: ``query_id, query_text, doc_id, doc_title, rater, grade,
    skipped, note, judged_at, duration_ms`` (ids are the external ones; grade is NA when
    skipped), ordered by query, document and rater (by code point, whatever the database's
    collation); without ``texts``, no query text, document title or note. Read as integer
    keys and named through the small tables, as ``grades_frame``."""
    sql = (
        "SELECT query_id, document_id, rater_id, grade, skipped, judged_at, duration_ms"
        + (", note" if texts else "")
        + " FROM judgment"
        + ("" if include_skipped else " WHERE NOT skipped")
    )
    rows, width = fetch(session, sql)
    columns = list(zip(*rows)) if rows else [()] * width
    query, document, rater = (np.asarray(column, dtype=np.int64) for column in columns[:3])
    named = {
        "query_id": _named(session, "query", "external_id", query),
        "doc_id": _named(session, "document", "external_id", document),
        "rater": _named(session, "rater", "name", rater),
        "grade": pd.array(columns[3], dtype="Int64"),
        "skipped": np.asarray(columns[4], dtype=bool),
        "judged_at": pd.to_datetime(pd.Series(columns[5], dtype=object), format="ISO8601"),
        "duration_ms": pd.array(columns[6], dtype="Int64"),
    }
    order = ["query_id", "doc_id", "rater", "grade", "skipped", "judged_at", "duration_ms"]
    if texts:
        named["query_text"] = _named(session, "query", "text", query)
        named["doc_title"] = _named(session, "document", "title", document)
        named["note"] = pd.Series(columns[7], dtype=object)
        order = [
            "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped",
            "note", "judged_at", "duration_ms",
        ]  # fmt: skip
    frame = pd.DataFrame({name: named[name] for name in order})
    if raters is not None:
        frame = frame[frame["rater"].isin(list(raters))]
    return frame.sort_values(["query_id", "doc_id", "rater"], kind="stable", ignore_index=True)


def results_frame(session: Session, runs: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per run result: ``run, query_id, doc_id, rank, score``, in order of run name,
    query id and rank."""
    rows = _number_rows(session, "SELECT run_id, query_id, document_id, rank, score FROM result")
    frame = pd.DataFrame(
        {
            "run": _named(session, "run", "name", rows[:, 0]),
            "query_id": _named(session, "query", "external_id", rows[:, 1]),
            "doc_id": _named(session, "document", "external_id", rows[:, 2]),
            "rank": rows[:, 3].astype(np.int64),
            "score": rows[:, 4],
        }
    )
    if runs is not None:
        frame = frame[frame["run"].isin(list(runs))]
    return frame.sort_values(["run", "query_id", "rank"], kind="stable", ignore_index=True)


def grades_frame(session: Session, raters: Sequence[str] | None = None) -> pd.DataFrame:
    """Every graded judgment (skipped ones left out), in no particular order: ``query_id,
    doc_id, rater, grade, skipped`` (grade float, skipped False): the rows NDCG and agreement
    are computed from. Read as integer keys, two to a number (a million rows' Python
    objects are most of the read), and named through the small tables."""
    query, document, rater, grade = graded_keys(session)
    frame = pd.DataFrame(
        {
            "query_id": _named(session, "query", "external_id", query),
            "doc_id": _named(session, "document", "external_id", document),
            "rater": _named(session, "rater", "name", rater),
            "grade": grade.astype(np.float64),
            "skipped": np.zeros(len(grade), dtype=bool),
        }
    )
    if raters is not None:
        frame = frame[frame["rater"].isin(list(raters))].reset_index(drop=True)
    return frame


Columns = dict[str, np.ndarray]
CampaignCodes = tuple[Columns, Columns, Columns, Columns]
JudgedCodes = tuple[Columns, Columns]


def campaign_codes(session: Session, automatic: bool = False) -> CampaignCodes:
    """Every graded judgment (``query_id, doc_id, rater, grade``; skipped ones left out), every
    run result (``run, query_id, doc_id, rank``) and, with ``automatic``, every automatic
    judge's grade (``query_id, doc_id, rater, grade``: failures left out, the judge as
    ``rater``) as integer columns, and the names the codes stand for (``query_id, doc_id,
    rater, run, judge``): a code is the place of its name among those of its kind used here,
    in code-point order. No strings per row."""
    return _campaign_codes(session, graded_keys(session), automatic)


def timed_campaign_codes(
    session: Session, automatic: bool = False
) -> tuple[CampaignCodes, JudgedCodes]:
    """``campaign_codes`` and every judgment with its time (``judged_codes``), from one read
    of the judgments."""
    keys = timed_keys(session)
    graded = keys[3] >= 0
    codes = _campaign_codes(session, tuple(key[graded] for key in keys[:4]), automatic)
    return codes, _judged(session, keys)


def judged_codes(session: Session) -> JudgedCodes:
    """Every judgment, skipped ones too (``query_id, doc_id, rater, grade, at,
    duration_ms``: grade -1 where skipped, ``at`` in microseconds since 1970, UTC, duration
    -1 where not timed), as integer columns, and the names the codes stand for (``query_id,
    doc_id, rater``: those used, in code-point order)."""
    return _judged(session, timed_keys(session))


def _judged(session: Session, keys: tuple[np.ndarray, ...]) -> JudgedCodes:
    query, document, rater, grade, at, duration = keys
    (query,), queries = _coded(session, "query", "external_id", query)
    (document,), docs = _coded(session, "document", "external_id", document)
    (rater,), raters = _coded(session, "rater", "name", rater)
    rows = {"query_id": query, "doc_id": document, "rater": rater, "grade": grade, "at": at}
    return rows | {"duration_ms": duration}, {"query_id": queries, "doc_id": docs, "rater": raters}


def _campaign_codes(
    session: Session, keys: tuple[np.ndarray, ...], automatic: bool
) -> CampaignCodes:
    query, document, rater, grade = keys
    result = _number_rows(session, "SELECT run_id, query_id, document_id, rank FROM result")
    result = result.astype(np.int64)
    auto = np.zeros((0, 4))
    if automatic:
        auto = _number_rows(
            session,
            "SELECT query_id, document_id, rater_id, grade FROM auto_judgment "
            "WHERE grade IS NOT NULL",
        )
    auto_keys = auto[:, :3].astype(np.int64)
    (query, result_query, auto_query), queries = _coded(
        session, "query", "external_id", query, result[:, 1], auto_keys[:, 0]
    )
    (document, result_doc, auto_doc), docs = _coded(
        session, "document", "external_id", document, result[:, 2], auto_keys[:, 1]
    )
    (rater,), raters = _coded(session, "rater", "name", rater)
    (judge,), judges = _coded(session, "rater", "name", auto_keys[:, 2])
    (run,), runs = _coded(session, "run", "name", result[:, 0])
    graded = {"query_id": query, "doc_id": document, "rater": rater, "grade": grade}
    results = {"run": run, "query_id": result_query, "doc_id": result_doc, "rank": result[:, 3]}
    judged = {"query_id": auto_query, "doc_id": auto_doc, "rater": judge, "grade": auto[:, 3]}
    names = {"query_id": queries, "doc_id": docs, "rater": raters, "run": runs, "judge": judges}
    return graded, results, judged, names


def _coded(
    session: Session, table: str, column: str, *ids: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray]:
    """Each of ``ids`` as the places of their names among the names of all the ids given, in
    code-point order (Arrow's order of UTF-8 bytes), and those names (an object array)."""
    import pyarrow.compute as pc

    places, names = _names(session, table, column)
    at = [places[some] for some in ids]
    present = np.zeros(len(names), dtype=bool)
    for some in at:
        present[some] = True
    used = np.flatnonzero(present)
    named = names.take(pa.array(used))
    order = np.asarray(pc.sort_indices(named), dtype=np.int64)
    code = np.zeros(len(names), dtype=np.int64)
    code[used[order]] = np.arange(len(used))
    return [code[some] for some in at], np.asarray(named.take(pa.array(order)).to_pylist(), object)


def _number_rows(session: Session, sql: str) -> np.ndarray:
    """The rows of ``sql`` (numbers; NULL becomes NaN) as a float64 matrix."""
    rows, width = fetch(session, sql)
    flat = itertools.chain.from_iterable(rows)
    try:
        values = np.fromiter(flat, dtype=np.float64, count=width * len(rows))
    except TypeError:  # a NULL among them
        flat = itertools.chain.from_iterable(rows)
        values = np.fromiter(
            (math.nan if value is None else value for value in flat),
            dtype=np.float64,
            count=width * len(rows),
        )
    return values.reshape(len(rows), width)


def _named(session: Session, table: str, column: str, ids: np.ndarray) -> pd.Series:
    """The names (``column`` of ``table``) of the rows with these ids, as strings taken by
    Arrow from the table's names (read once per reading session)."""
    places, names = _names(session, table, column)
    taken = names.take(pa.array(places[ids]))
    return pd.Series(taken, dtype=pd.StringDtype("pyarrow", na_value=np.nan))


def _names(session: Session, table: str, column: str) -> tuple[Places, pa.Array]:
    """Where each id's name is, and the names, of ``table``'s ``column``; kept with the
    session, which reads one snapshot."""
    cache = session.info.setdefault("judge_app.names", {})
    if (table, column) not in cache:
        pairs, _width = fetch(session, f"SELECT id, {column} FROM {table}")
        keys = np.fromiter((key for key, _name in pairs), dtype=np.int64, count=len(pairs))
        places = Places(keys, np.arange(len(keys)))
        cache[(table, column)] = places, pa.array([name for _key, name in pairs], pa.string())
    return cache[(table, column)]


def queries_frame(session: Session) -> pd.DataFrame:
    """``query_id, text, description`` for every query."""
    return read_frame(
        session,
        select(Query.external_id.label("query_id"), Query.text, Query.description).order_by(
            Query.external_id
        ),
    )


def documents_frame(session: Session) -> pd.DataFrame:
    """``doc_id, title, url, body`` for every document."""
    return read_frame(
        session,
        select(
            Document.external_id.label("doc_id"), Document.title, Document.url, Document.body
        ).order_by(Document.external_id),
    )


def pooled_or_graded_documents_frame(session: Session, depth: int) -> pd.DataFrame:
    """``doc_id, title, body`` of every document a run ranks within ``depth`` or a judgment
    grades: what the local judge grades (``pooled_or_graded_ids`` gives their ids)."""
    return read_frame(
        session,
        select(Document.external_id.label("doc_id"), Document.title, Document.body).where(
            Document.id.in_(_pooled_or_graded(depth))
        ),
    )


def pooled_or_graded_ids(session: Session, depth: int) -> tuple[pd.Series, pd.Series]:
    """The database ids, by external id, of every query and of the documents of
    ``pooled_or_graded_documents_frame``."""
    queries = session.execute(select(Query.external_id, Query.id)).all()
    documents = session.execute(
        select(Document.external_id, Document.id).where(Document.id.in_(_pooled_or_graded(depth)))
    ).all()
    return (
        pd.Series(dict(queries), dtype=np.int64),
        pd.Series(dict(documents), dtype=np.int64),
    )


def _pooled_or_graded(depth: int) -> Select:
    """The ids of the documents a run ranks within ``depth`` or a judgment grades."""
    pooled = select(Result.document_id).where(Result.rank <= depth)
    graded = select(Judgment.document_id).where(Judgment.grade.is_not(None))
    return select(union(pooled, graded).subquery().c[0])


def document_titles(session: Session, doc_ids: Sequence[str]) -> dict[str, str]:
    """The titles of these documents (those without one left out)."""
    rows = session.execute(
        select(Document.external_id, Document.title).where(
            Document.external_id.in_(list(doc_ids)), Document.title.is_not(None)
        )
    )
    return {doc_id: title for doc_id, title in rows if title is not None}


def history_frame(session: Session, rater: str | None = None) -> pd.DataFrame:
    """The judgment history, oldest first: whose judgment of which pair changed, from what to
    what, when, and the login that changed it (``rows.history_statement``)."""
    frame = read_frame(session, history_statement(rater))
    for name in ("old_grade", "new_grade", "reverts"):
        frame[name] = frame[name].astype("Int64")
    return frame


def change_stamp(session: Session) -> tuple[object, ...]:
    """Values that change whenever a judgment, a preference, a result, an automatic judge's
    answer or the active sample does, cheap enough to poll: a judgment added gets a new id,
    every change of one (of a preference too) is a history event, a preference cleared leaves
    one row fewer, a run imported again gets new result rows; automatic answers have no id, so
    their counts, the sum of their grades and the latest time stand for them, and the active
    sample's size, time and whether raters follow it."""
    row = session.connection().exec_driver_sql(
        "SELECT (SELECT coalesce(max(id), 0) FROM judgment), "
        "(SELECT coalesce(max(id), 0) FROM judgment_event), "
        "(SELECT coalesce(max(id), 0) FROM result), (SELECT count(*) FROM run), "
        "(SELECT count(*) FROM automatic_judge), (SELECT count(*) FROM auto_judgment), "
        "(SELECT count(grade) FROM auto_judgment), (SELECT sum(grade) FROM auto_judgment), "
        "(SELECT max(judged_at) FROM auto_judgment), (SELECT count(*) FROM active_sample), "
        "(SELECT max(drawn_at) FROM active_sample), "
        "(SELECT max(value) FROM setting WHERE key = 'pool.query_order'), "
        "(SELECT coalesce(max(id), 0) FROM preference_event), (SELECT count(*) FROM preference)"
    )
    return tuple(_stamp_value(value) for value in row.one())


def _stamp_value(value: object) -> object:
    """A stamp's value the same however the database returns it: a time as text, nothing
    (an empty table's sum or time) as 0."""
    if value is None:
        return 0
    return value.isoformat(sep=" ") if isinstance(value, datetime) else value


def table_counts(session: Session) -> dict[str, int]:
    """Rows per table (of raters: the campaign's, ``campaign_raters``), and how many queries
    and documents still lack their text."""
    models = {
        "queries": Query,
        "documents": Document,
        "runs": Run,
        "results": Result,
        "raters": None,
        "judgments": Judgment,
        "judgment events": JudgmentEvent,
        "assignments": Assignment,
    }
    counts = {
        name: session.scalar(select(func.count()).where(in_campaign())) or 0
        if model is None
        else session.scalar(select(func.count()).select_from(model)) or 0
        for name, model in models.items()
    }
    for name, (_ids, condition) in _WITHOUT_TEXT.items():
        counts[f"{name} without text"] = session.scalar(select(func.count()).where(condition)) or 0
    return counts


_WITHOUT_TEXT = {  # the ids, and the condition of having no text
    "queries": (Query.external_id, Query.text.is_(None)),
    "documents": (Document.external_id, and_(Document.title.is_(None), Document.body.is_(None))),
}


def ids_without_text(session: Session, limit: int = 10) -> dict[str, list[str]]:
    """The first ``limit`` ids (in order) of queries and of documents known by id alone."""
    found = {}
    for name, (external_id, condition) in _WITHOUT_TEXT.items():
        statement = select(external_id).where(condition).order_by(external_id).limit(limit)
        found[name] = list(session.scalars(statement))
    return found


def raters_frame(session: Session, limit: int | None = None) -> pd.DataFrame:
    """Per rater of the campaign (``campaign_raters``; the first ``limit`` by name):
    ``rater, active, judged, skipped, mean_grade, queries``."""
    statement = (
        select(
            Rater.name.label("rater"),
            Rater.active,
            func.count(Judgment.grade).label("judged"),
            func.count(case((Judgment.skipped, 1))).label("skipped"),
            func.avg(Judgment.grade).label("mean_grade"),
            func.count(Judgment.query_id.distinct()).label("queries"),
        )
        .outerjoin(Judgment, Judgment.rater_id == Rater.id)
        .where(in_campaign())
        .group_by(Rater.id, Rater.name, Rater.active)
        .order_by(Rater.name)
        .limit(limit)
    )
    return read_frame(session, statement)


def coverage_frame(session: Session, depth: int = 10) -> pd.DataFrame:
    """Per run: ``run, queries, results, judged, judged_at_depth`` where judged counts the
    results graded by at least one rater, overall and in each query's top ``depth``."""
    judged = exists().where(
        and_(
            Judgment.query_id == Result.query_id,
            Judgment.document_id == Result.document_id,
            Judgment.grade.is_not(None),
        )
    )
    statement = (
        select(
            Run.name.label("run"),
            func.count(Result.query_id.distinct()).label("queries"),
            func.count(Result.id).label("results"),
            func.sum(case((judged, 1), else_=0)).label("judged"),
            func.sum(case((Result.rank <= depth, 1), else_=0)).label("results_at_depth"),
            func.sum(case((and_(Result.rank <= depth, judged), 1), else_=0)).label(
                "judged_at_depth"
            ),
        )
        .join(Result, Result.run_id == Run.id, isouter=True)
        .group_by(Run.id, Run.name)
        .order_by(Run.name)
    )
    frame = read_frame(session, statement)
    for name in ("judged", "results_at_depth", "judged_at_depth"):
        frame[name] = frame[name].fillna(0).astype("int64")
    return frame


PAIR_CHUNK = 500
"""Ids looked up per statement by ``pair_judgments`` (well under every database's limit)."""


def pair_judgments(session: Session, pairs: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """Every judgment of these (query id, doc id) pairs, every rater's, with the texts the
    adjudication screen shows: ``query, document`` (the database's own ids), ``query_id,
    doc_id, query_text, doc_title, doc_url, doc_body, rater, grade, skipped, note,
    duration_ms``, ordered by query id, doc id and rater."""
    wanted = set(pairs)
    columns = (
        Judgment.query_id.label("query"),
        Judgment.document_id.label("document"),
        Query.external_id.label("query_id"),
        Document.external_id.label("doc_id"),
        Query.text.label("query_text"),
        Document.title.label("doc_title"),
        Document.url.label("doc_url"),
        Document.body.label("doc_body"),
        Rater.name.label("rater"),
        Judgment.grade,
        Judgment.skipped,
        Judgment.note,
        Judgment.duration_ms,
    )
    queries = sorted({query_id for query_id, _doc_id in wanted})
    rows = []
    for start in range(0, len(queries), PAIR_CHUNK):
        statement = (
            select(*columns)
            .join(Query, Query.id == Judgment.query_id)
            .join(Document, Document.id == Judgment.document_id)
            .join(Rater, Rater.id == Judgment.rater_id)
            .where(Query.external_id.in_(queries[start : start + PAIR_CHUNK]))
        )
        rows += [row for row in session.execute(statement) if (row[2], row[3]) in wanted]
    frame = pd.DataFrame(rows, columns=[column.key for column in columns])
    return frame.sort_values(["query_id", "doc_id", "rater"], kind="stable", ignore_index=True)
