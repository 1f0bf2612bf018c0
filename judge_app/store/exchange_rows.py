"""What an export to another tool's format reads (``io.exchange.campaign.Campaign``):
every query and document with their texts, every rater judgment, and the pairs the runs
retrieved."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge_app.io.exchange.campaign import Campaign, Judgment
from judge_app.io.exports import utc_text
from judge_app.store import rows
from judge_app.store.models import Document, Query, Result


def campaign_of(
    session: Session, name: str, aggregate: str, grades: list[tuple[str, str, float]]
) -> Campaign:
    """The campaign of the database ``session`` reads, named ``name``, with ``grades`` (one
    per graded pair, the raters' combined by ``aggregate``)."""
    queries = {
        query_id: (text, description)
        for query_id, text, description in session.execute(
            select(Query.external_id, Query.text, Query.description).order_by(Query.external_id)
        )
    }
    documents = {
        doc_id: (title, url, body)
        for doc_id, title, url, body in session.execute(
            select(Document.external_id, Document.title, Document.url, Document.body).order_by(
                Document.external_id
            )
        )
    }
    pairs = [
        (query_id, doc_id)
        for query_id, doc_id in session.execute(
            select(Query.external_id, Document.external_id)
            .join(Result, Result.query_id == Query.id)
            .join(Document, Result.document_id == Document.id)
            .distinct()
            .order_by(Query.external_id, Document.external_id)
        )
    ]
    return Campaign(name, aggregate, queries, documents, _judgments(session), grades, pairs)


def _judgments(session: Session) -> list[Judgment]:
    found = rows.judgments_in_order(session)
    query_ids, doc_ids, raters = found.query_ids, found.doc_ids, found.raters
    judgments = []
    for chunk in found.chunks:
        for query, document, rater, grade, skipped, note, at, duration in chunk:
            judgments.append(
                Judgment(
                    str(query_ids[query]), str(doc_ids[document]), str(raters[rater]),
                    grade, bool(skipped), note, utc_text(at) if at is not None else None,
                    duration,
                )
            )  # fmt: skip
    return judgments
