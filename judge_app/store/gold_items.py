"""Gold items: (query, document) pairs whose grade a lead knows. Raters judge them like any
pair; their grades are checked against the gold grade, which is nobody's judgment (nothing
that reads ``judgment`` sees it). Every function takes a Session and does not commit."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import pandas as pd
from sqlalchemy import case, delete, func, select
from sqlalchemy.orm import Session

from judge_app.store.judgments import validate_grade
from judge_app.store.models import Document, GoldItem, Query, Result, Run, utcnow

PAIR_BATCH = 500
"""Pairs a statement of ``best_ranks`` asks about."""


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


def gold_frame(session: Session, titles: bool = False) -> pd.DataFrame:
    """Every gold item: ``query_id, doc_id, grade, marked_at`` (external ids), in order;
    with ``titles``, the document's title too (``doc_title``, None where it has none)."""
    columns = [Query.external_id, Document.external_id, GoldItem.grade, GoldItem.marked_at]
    rows = session.execute(
        select(*columns, *([Document.title] if titles else []))
        .join(Query, Query.id == GoldItem.query_id)
        .join(Document, Document.id == GoldItem.document_id)
        .order_by(Query.external_id, Document.external_id)
    ).all()
    names = ["query_id", "doc_id", "grade", "marked_at"] + (["doc_title"] if titles else [])
    frame = pd.DataFrame(rows, columns=names)
    return frame.astype({"grade": "int64"})


def gold_grades(session: Session) -> dict[tuple[int, int], int]:
    """The gold grade of every gold item, by (query id, document id)."""
    rows = session.execute(select(GoldItem.query_id, GoldItem.document_id, GoldItem.grade))
    return {(query, document): grade for query, document, grade in rows}


def best_ranks(
    session: Session, pairs: Collection[tuple[int, int]], pooled_runs: Sequence[str] | None
) -> pd.DataFrame:
    """The (query id, document id) ``pairs`` a run retrieved: ``query, document, rank``, the
    pair's best rank in any run, and ``pooled_rank``, its best in the runs ``pooled_runs``
    names (None: every run; NA where none of them retrieved it)."""
    pooled = Result.run_id.in_(select(Run.id).where(Run.name.in_(list(pooled_runs or ()))))
    pooled_rank = Result.rank if pooled_runs is None else case((pooled, Result.rank))
    wanted = sorted(set(pairs))
    rows: list[tuple] = []
    for start in range(0, len(wanted), PAIR_BATCH):
        batch = wanted[start : start + PAIR_BATCH]
        found = session.execute(
            select(
                Result.query_id, Result.document_id, func.min(Result.rank), func.min(pooled_rank)
            )
            .where(
                Result.query_id.in_({query for query, _document in batch}),
                Result.document_id.in_({document for _query, document in batch}),
            )
            .group_by(Result.query_id, Result.document_id)
        )
        asked = set(batch)
        rows += [row for row in found if (row[0], row[1]) in asked]
    frame = pd.DataFrame(rows, columns=["query", "document", "rank", "pooled_rank"])
    return frame.astype({"query": "int64", "document": "int64", "rank": "int64",
                         "pooled_rank": "Int64"})  # fmt: skip
