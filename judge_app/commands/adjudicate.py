"""Adjudication: a lead's own grade of a document the raters disagree on, stored as a
judgment of the rater ``adjudicated`` (never over a rater's, never counted in agreement,
preferred by the evaluation unless told otherwise)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.store import Database
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.people import add_rater, find_rater


def adjudicator(database: Database) -> int:
    """The id of the rater ``adjudicated``: a lead's role, not a rater to choose or assign
    (inactive). Written only the first time, when the role is added."""
    with database.reading() as session:
        rater = find_rater(session, ADJUDICATED)
        if rater is not None and not rater.active:
            return rater.id

    def added(session: Session) -> int:
        role = find_rater(session, ADJUDICATED) or add_rater(session, ADJUDICATED)
        role.active = False
        return role.id

    return database.write(added)


def disputed_item(database: Database, query_id: str, doc_id: str) -> tuple[int | None, int | None]:
    """The database's own ids of the query and document to adjudicate (None if unknown)."""
    with database.reading() as session:
        query = query_ids(session, [query_id], create=False).get(query_id)
        document = document_ids(session, [doc_id], create=False).get(doc_id)
    return query, document
