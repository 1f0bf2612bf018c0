"""A run fetched from a live engine (``commands.fetch``), written as one snapshot: a new run
with its results, its description (where from, when, with which template), and the documents
the store had not seen. Written through the bulk writer of imports (``store.bulk``); every
function runs inside the caller's transaction and does not commit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from judge_app.store import bulk
from judge_app.store.models import Document, Query, Run

TEXT_FIELDS = ("title", "url", "body")


@dataclass(frozen=True)
class FetchedDocument:
    """A document as an engine gave it (a text it did not give: None)."""

    title: str | None
    url: str | None
    body: str | None


@dataclass(frozen=True)
class FetchedResult:
    """One result: the query, the document, its rank (from 1) and the engine's score."""

    query_id: str
    doc_id: str
    rank: int
    score: float | None


def queries_with_text(
    session: Session, external_ids: Sequence[str] | None = None
) -> list[tuple[str, str | None]]:
    """(id, text) of the queries named (None: every query), in the order of their ids."""
    statement = select(Query.external_id, Query.text).order_by(Query.external_id)
    if external_ids is not None:
        statement = statement.where(Query.external_id.in_(list(external_ids)))
    return [(name, text) for name, text in session.execute(statement)]


def run_names(session: Session) -> set[str]:
    """The names of the runs stored."""
    return set(session.scalars(select(Run.name)))


def write_fetched_run(
    session: Session,
    name: str,
    description: str,
    documents: Mapping[str, FetchedDocument],
    results: Sequence[FetchedResult],
) -> tuple[int, int]:
    """Write the new run ``name`` (``StoreError``-free: the caller made sure no run has the
    name) with its ``results`` and ``description``; ``documents`` the store has not seen are
    added with their texts, and those it has get the texts they lack (never changed).
    Returns the number of documents added and of results written."""
    doc_ids = list(documents)
    known = bulk.document_ids(session, doc_ids, create=False)
    ids = bulk.document_ids(session, doc_ids, create=True)
    for field in TEXT_FIELDS:
        given = [(ids[d], getattr(documents[d], field)) for d in doc_ids]
        given = [(id_, text) for id_, text in given if text is not None]
        if given:
            rows, texts = zip(*given)
            bulk.fill_missing_texts(session, Document, field, list(rows), list(texts))
    query_ids = bulk.query_ids(session, [result.query_id for result in results], create=False)
    with bulk.staging_table(session, bulk.RESULT_STAGE) as stage:
        bulk.stage_rows(
            session,
            stage,
            {
                "query_id": [query_ids[r.query_id] for r in results],
                "document_id": [ids[r.doc_id] for r in results],
                "rank": [r.rank for r in results],
                "score": [r.score for r in results],
            },
        )
        written, _queries = bulk.write_run(session, stage, name, ranked=True)
    session.execute(update(Run).where(Run.name == name).values(description=description))
    return len(doc_ids) - len(known), written
