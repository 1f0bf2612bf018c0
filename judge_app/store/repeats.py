"""Hidden repeats: a share of a rater's judged pairs shown to them again, later, as new items,
so that their second grade can be set beside their first (self-agreement).

A repeat is scheduled from pairs the rater graded before the session that schedules it,
within their queue's pool; the rater's queue (``store.rater_queue``) then shows the pair unjudged,
among the pairs a later run would add, and their changes of it are the repeat's while it is
open (``store.judgments.open_repeat``). Every function takes a Session and does not commit;
pandas is imported only where a frame is read (a rater's start loads no pandas).
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import and_, func, insert, select
from sqlalchemy.orm import Session

from judge_app.store.judgments import repeat_of
from judge_app.store.models import Document, Judgment, Query, Rater, RepeatJudgment, utcnow
from judge_app.store.rater_queue import PoolSettings, pool_settings, pooled_pairs

if TYPE_CHECKING:  # pandas is loaded by the raters' figures, never by a rater's judging
    import pandas as pd


def schedule_repeats(
    session: Session,
    rater_id: int,
    share: float,
    *,
    judged_before: datetime,
    pool: PoolSettings | None = None,
) -> int:
    """Schedule repeats until ``share`` of the rater's graded pairs have one, chosen at random
    (seeded by rater and count: the same choice for the same state) among pairs of their
    pool graded before ``judged_before``; how many were scheduled."""
    if share <= 0:
        return 0
    graded = (
        session.scalar(
            select(func.count())
            .select_from(Judgment)
            .where(Judgment.rater_id == rater_id, Judgment.grade.is_not(None))
        )
        or 0
    )
    scheduled = (
        session.scalar(
            select(func.count())
            .select_from(RepeatJudgment)
            .where(RepeatJudgment.rater_id == rater_id)
        )
        or 0
    )
    wanted = int(share * graded) - scheduled
    if wanted <= 0:
        return 0
    pairs = pooled_pairs(session, pool or pool_settings(session), rater_id).subquery()
    candidates = sorted(
        (query_id, document_id, grade)
        for query_id, document_id, grade in session.execute(
            select(Judgment.query_id, Judgment.document_id, Judgment.grade)
            .join(
                pairs,
                and_(
                    pairs.c.query_id == Judgment.query_id,
                    pairs.c.document_id == Judgment.document_id,
                ),
            )
            .outerjoin(
                RepeatJudgment,
                repeat_of(Judgment.rater_id, Judgment.query_id, Judgment.document_id),
            )
            .where(
                Judgment.rater_id == rater_id,
                Judgment.grade.is_not(None),
                Judgment.judged_at < judged_before,
                RepeatJudgment.rater_id.is_(None),
            )
        )
    )
    chosen = _seeded(rater_id, scheduled).sample(candidates, min(wanted, len(candidates)))
    if chosen:
        now = utcnow()
        session.execute(
            insert(RepeatJudgment),
            [
                {
                    "rater_id": rater_id,
                    "query_id": query_id,
                    "document_id": document_id,
                    "scheduled_at": now,
                    "first_grade": grade,
                    "skipped": False,
                }
                for query_id, document_id, grade in chosen
            ],
        )
    return len(chosen)


def _seeded(rater_id: int, scheduled: int) -> random.Random:
    digest = hashlib.sha256(f"repeats:{rater_id}:{scheduled}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def answered_repeats_frame(session: Session) -> pd.DataFrame:
    """Every repeat judged again: ``rater, query_id, doc_id, first_grade, grade, skipped,
    judged_at, duration_ms`` (external ids; the grade the rater had given when the repeat was
    scheduled; grade NA where skipped)."""
    statement = (
        select(
            Rater.name.label("rater"),
            Query.external_id.label("query_id"),
            Document.external_id.label("doc_id"),
            RepeatJudgment.first_grade,
            RepeatJudgment.grade,
            RepeatJudgment.skipped,
            RepeatJudgment.judged_at,
            RepeatJudgment.duration_ms,
        )
        .join(Rater, Rater.id == RepeatJudgment.rater_id)
        .join(Query, Query.id == RepeatJudgment.query_id)
        .join(Document, Document.id == RepeatJudgment.document_id)
        .where(RepeatJudgment.judged_at.is_not(None))
        .order_by(Rater.name, RepeatJudgment.judged_at)
    )
    import pandas as pd

    rows = session.execute(statement).all()
    columns = list(statement.selected_columns.keys())

    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype(
        {
            "first_grade": "int64",
            "grade": "Int64",
            "skipped": bool,
            "duration_ms": "Int64",
        }
    )


def any_repeats(session: Session) -> bool:
    """Whether a repeat was ever scheduled."""
    return session.scalar(select(RepeatJudgment.rater_id).limit(1)) is not None


def add_answered_repeats(session: Session, repeats: list[dict[str, object]]) -> None:
    """Add repeats already answered, each a ``RepeatJudgment``'s columns (rater_id, query_id,
    document_id, scheduled_at, first_grade, grade, skipped, judged_at, duration_ms)."""
    if repeats:
        session.execute(insert(RepeatJudgment), repeats)


def pending_repeats(session: Session) -> dict[str, int]:
    """How many repeats each rater (by name) has still to judge."""
    rows = session.execute(
        select(Rater.name, func.count())
        .join(RepeatJudgment, RepeatJudgment.rater_id == Rater.id)
        .where(RepeatJudgment.judged_at.is_(None))
        .group_by(Rater.name)
    )
    return {name: count for name, count in rows}
