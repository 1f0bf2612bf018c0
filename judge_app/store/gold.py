"""Gold items: (query, document) pairs whose grade a lead knows. Raters judge them like any
pair; their grades are checked against the gold grade, which is nobody's judgment (nothing
that reads ``judgment`` sees it). Every function takes a Session and does not commit."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from judge_app.store.judgments import validate_grade
from judge_app.store.models import Document, GoldItem, Query, utcnow


def set_gold(session: Session, query_id: int, document_id: int, grade: int) -> bool:
    """Mark the pair as gold with ``grade`` (replacing an earlier gold grade); whether that
    changed anything."""
    grade = validate_grade(grade)
    item = session.get(GoldItem, (query_id, document_id))
    if item is not None and item.grade == grade:
        return False
    if item is None:
        session.add(GoldItem(query_id=query_id, document_id=document_id, grade=grade))
    else:
        item.grade, item.marked_at = grade, utcnow()
    session.flush()
    return True


def set_gold_items(session: Session, items: Iterable[tuple[int, int, int]]) -> int:
    """Mark many (query id, document id, grade) gold; how many changed."""
    return sum(set_gold(session, *item) for item in items)


def clear_gold(session: Session, query_id: int, document_id: int) -> bool:
    """Unmark the pair; whether it was gold."""
    removed = session.execute(
        delete(GoldItem).where(GoldItem.query_id == query_id, GoldItem.document_id == document_id)
    )
    return bool(getattr(removed, "rowcount", 0))


def gold_frame(session: Session) -> pd.DataFrame:
    """Every gold item: ``query_id, doc_id, grade, marked_at`` (external ids), in order."""
    rows = session.execute(
        select(Query.external_id, Document.external_id, GoldItem.grade, GoldItem.marked_at)
        .join(Query, Query.id == GoldItem.query_id)
        .join(Document, Document.id == GoldItem.document_id)
        .order_by(Query.external_id, Document.external_id)
    ).all()
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade", "marked_at"])
    return frame.astype({"grade": "int64"})
