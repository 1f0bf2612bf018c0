"""The pairs an automatic judge is asked about: the pool of the chosen queries (the top
``depth`` of the pooled runs, each (query, document) once), with the texts a prompt shows.
Every function takes a Session and does not commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge_app.store.models import Document, Query, Result, Run


@dataclass(frozen=True)
class PoolPair:
    """A pooled (query, document) pair: database ids, external ids and texts (the body cut
    to the length asked for, plus one character to tell that it was cut)."""

    query_id: int
    document_id: int
    query_external_id: str
    query_text: str | None
    description: str | None
    doc_external_id: str
    title: str | None
    url: str | None
    body: str | None


def query_external_ids(session: Session) -> list[str]:
    """Every query's id, in order."""
    return list(session.scalars(select(Query.external_id).order_by(Query.external_id)))


def pool_pairs(
    session: Session,
    depth: int,
    *,
    runs: Sequence[str] | None = None,
    queries: Sequence[str] | None = None,
    limit: int | None = None,
    body_chars: int | None = None,
) -> list[PoolPair]:
    """The distinct pairs in the top ``depth`` of ``runs`` (None: every run) for ``queries``
    (external ids; None: all), ordered by query id, then best rank, then document id; the
    first ``limit`` (None: all); bodies cut to ``body_chars`` + 1 characters (None: whole)."""
    pooled = select(Result.query_id, Result.document_id, func.min(Result.rank).label("best")).where(
        Result.rank <= depth
    )
    if runs is not None:
        pooled = pooled.where(Result.run_id.in_(select(Run.id).where(Run.name.in_(list(runs)))))
    if queries is not None:
        chosen = select(Query.id).where(Query.external_id.in_(list(queries)))
        pooled = pooled.where(Result.query_id.in_(chosen))
    best = pooled.group_by(Result.query_id, Result.document_id).subquery()
    body = Document.body if body_chars is None else func.substr(Document.body, 1, body_chars + 1)
    statement = (
        select(
            best.c.query_id, best.c.document_id,
            Query.external_id, Query.text, Query.description,
            Document.external_id, Document.title, Document.url, body,
        )
        .join(Query, Query.id == best.c.query_id)
        .join(Document, Document.id == best.c.document_id)
        .order_by(Query.external_id, best.c.best, Document.external_id)
    )  # fmt: skip
    if limit is not None:
        statement = statement.limit(limit)
    return [PoolPair(*row) for row in session.execute(statement)]
