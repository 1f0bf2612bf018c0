"""What judging a query has cost the campaign so far, for planning more of it: the pool of
each query (its distinct documents in the top d of the runs), the time of every timed
judgment, and how many raters judged each query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from judge_app.names import ADJUDICATED
from judge_app.store.models import Judgment, Rater, Result, Run


@dataclass(frozen=True)
class JudgingCost:
    """``pool_sizes``: each query's number of distinct documents in the top ``depth`` of the
    runs (one value per query any of them lists); ``seconds``: every timed judgment's time
    (idle time left out; imported judgments have none); ``raters``: each judged query's
    number of raters. A lead's adjudicated grades are no rater's judgments."""

    pool_sizes: np.ndarray
    seconds: np.ndarray
    raters: np.ndarray


def judging_cost(
    session: Session, depth: int | None, runs: Sequence[str] | None = None
) -> JudgingCost:
    """The campaign's judging cost: pools of the top ``depth`` (None: every result) of
    ``runs`` (None: all)."""
    pooled = select(Result.query_id, func.count(func.distinct(Result.document_id)))
    if runs is not None:
        pooled = pooled.join(Run, Run.id == Result.run_id).where(Run.name.in_(list(runs)))
    if depth is not None:
        pooled = pooled.where(Result.rank <= depth)
    pool_sizes = [count for _query, count in session.execute(pooled.group_by(Result.query_id))]
    judged = (
        select(Judgment)
        .join(Rater, Rater.id == Judgment.rater_id)
        .where(Rater.name != ADJUDICATED, or_(Judgment.grade.is_not(None), Judgment.skipped))
        .subquery()
    )
    milliseconds = session.scalars(
        select(judged.c.duration_ms).where(judged.c.duration_ms.is_not(None))
    ).all()
    raters = session.scalars(
        select(func.count(func.distinct(judged.c.rater_id))).group_by(judged.c.query_id)
    ).all()
    return JudgingCost(
        pool_sizes=np.asarray(pool_sizes, dtype=np.int64),
        seconds=np.asarray(milliseconds, dtype=np.float64) / 1000,
        raters=np.asarray(raters, dtype=np.int64),
    )
