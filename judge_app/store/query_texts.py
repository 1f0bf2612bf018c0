"""Queries named by their text, as other tools name them (Quepid, RRE, OpenSearch's
Search Relevance Workbench): a text is the query whose text it is exactly; a text no query
has is the id of a new query (or of one created by its id alone, without a text yet)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge_app.errors import quoted
from judge_app.store.models import Query

BATCH = 500  # texts looked up a statement


def query_ids_of_texts(session: Session, texts: Sequence[str]) -> dict[str, str | None]:
    """The query id each text names; None where it names no one query (``texts_clash``)."""
    having: dict[str, list[str]] = {}
    named: dict[str, str | None] = {}  # a text that is a query's id → that query's text
    for start in range(0, len(texts), BATCH):
        batch = list(texts[start : start + BATCH])
        for text, external_id in session.execute(
            select(Query.text, Query.external_id).where(Query.text.in_(batch))
        ):
            if text is not None:
                having.setdefault(text, []).append(external_id)
        for external_id, text in session.execute(
            select(Query.external_id, Query.text).where(Query.external_id.in_(batch))
        ):
            named[external_id] = text
    found: dict[str, str | None] = {}
    for text in texts:
        ids = having.get(text, [])
        if ids:
            found[text] = ids[0] if len(ids) == 1 else None
        else:
            other = named.get(text)
            found[text] = text if other is None or other == text else None
    return found


def texts_clash(session: Session, text: str) -> str:
    """Why ``text`` names no one query: the text of several, or the id of another."""
    ids = session.scalars(
        select(Query.external_id).where(Query.text == text).order_by(Query.external_id)
    ).all()
    if len(ids) > 1:
        shown = ", ".join(quoted(query_id) for query_id in ids[:3])
        return f"the text of {len(ids)} queries ({shown}): give each query a text of its own"
    other = session.scalar(select(Query.text).where(Query.external_id == text))
    return (
        f"no query's text, and the id of the query whose text is {quoted(other)}: "
        "change that query's id or text"
    )
