"""What preference judging reads of a query: the lead's pair settings, and the facts the pair
plan (``judging.pair_plan``) chooses pairs from: the pooled documents with their human grades
and their ranks in the runs, and every human rater's preferences of the query.

The grades and ranks only choose the candidates; nothing here reaches the rater's screen but
the documents themselves. Every function takes a Session and does not commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge_app.store.errors import StoreError
from judge_app.store.models import HUMAN, Judgment, Preference, Rater, Result
from judge_app.store.rater_queue import Item, PoolSettings, Progress, pool_runs, query_items
from judge_app.store.settings import get_setting, set_setting

DEFAULT_TOP = 6
DEFAULT_BUDGET = 10
MAX_TOP = 20
FUSION_K = 60
"""Reciprocal-rank fusion's constant (Cormack, Clarke and Büttcher 2009)."""
TOP, BUDGET = "pairs.top", "pairs.budget"


@dataclass(frozen=True)
class PairSettings:
    """A lead's plan for preference judging: compare each query's ``top`` candidates, at most
    ``budget`` pairs per rater and query."""

    top: int = DEFAULT_TOP
    budget: int = DEFAULT_BUDGET

    def checked(self) -> PairSettings:
        """These settings, or StoreError naming what is out of range."""
        if not 2 <= self.top <= MAX_TOP:
            raise StoreError(f"the results compared per query must be 2–{MAX_TOP}, not {self.top}")
        if self.budget < 1:
            raise StoreError(f"the pairs per rater and query must be at least 1, not {self.budget}")
        return self


@dataclass(frozen=True)
class QueryPairs:
    """What the pair plan needs of one query: the pooled ``items`` (as the rater would grade
    them, with only their own judgment), every human ``grades`` of each pooled document, each
    document's reciprocal-rank fusion over the pooled runs (``fused``) and every human rater's
    preferences (``choices``: rater id, document a, document b, choice)."""

    items: list[Item]
    grades: dict[int, list[int]]
    fused: dict[int, float]
    choices: list[tuple[int, int, int, str]]


def pair_settings(session: Session) -> PairSettings:
    """The pair settings a lead stored, or the defaults."""
    return PairSettings(
        top=int(get_setting(session, TOP) or DEFAULT_TOP),
        budget=int(get_setting(session, BUDGET) or DEFAULT_BUDGET),
    )


def set_pair_settings(session: Session, settings: PairSettings) -> None:
    """Store the pair settings; StoreError for a value out of range."""
    settings.checked()
    set_setting(session, TOP, str(settings.top))
    set_setting(session, BUDGET, str(settings.budget))


def query_pairs(session: Session, rater_id: int, query_id: int, pool: PoolSettings) -> QueryPairs:
    """The facts of query ``query_id`` the pair plan chooses ``rater_id``'s pairs from."""
    items = query_items(session, rater_id, query_id, pool)
    pooled = [item.document_id for item in items]
    grades: dict[int, list[int]] = {}
    for document_id, grade in session.execute(
        select(Judgment.document_id, Judgment.grade)
        .join(Rater, Rater.id == Judgment.rater_id)
        .where(
            Judgment.query_id == query_id,
            Judgment.document_id.in_(pooled),
            Judgment.grade.is_not(None),
            Rater.kind == HUMAN,
        )
    ):
        if grade is not None:  # the statement asks for grades only; this tells the type checker
            grades.setdefault(document_id, []).append(grade)
    fused: dict[int, float] = {}
    run_ids = [run_id for run_id, _name in pool_runs(session, pool)]
    for document_id, rank in session.execute(
        select(Result.document_id, Result.rank).where(
            Result.query_id == query_id, Result.run_id.in_(run_ids), Result.rank <= pool.depth
        )
    ):
        fused[document_id] = fused.get(document_id, 0.0) + 1.0 / (FUSION_K + rank)
    choices = [
        (row.rater_id, row.document_a_id, row.document_b_id, row.choice)
        for row in session.execute(
            select(
                Preference.rater_id, Preference.document_a_id, Preference.document_b_id,
                Preference.choice,
            )
            .join(Rater, Rater.id == Preference.rater_id)
            .where(Preference.query_id == query_id, Rater.kind == HUMAN)
        )
    ]  # fmt: skip
    return QueryPairs(items, grades, fused, choices)


def pair_progress(
    session: Session, rater_id: int, pool: PoolSettings, settings: PairSettings
) -> dict[int, Progress]:
    """The rater's progress on every query with pooled results: pairs chosen on (``graded``),
    skipped, and the most the plan asks (``settings.most``, fewer where a query pools fewer
    than ``top`` documents; a query the plan stops early shows its own total once opened)."""
    run_ids = [run_id for run_id, _name in pool_runs(session, pool)]
    pooled = (
        select(Result.query_id, Result.document_id)
        .where(Result.run_id.in_(run_ids), Result.rank <= pool.depth)
        .distinct()
        .subquery()
    )
    sizes = session.execute(select(pooled.c.query_id, func.count()).group_by(pooled.c.query_id))
    progress = {query_id: Progress(0, 0, most_pairs(settings, size)) for query_id, size in sizes}
    for query_id, choice, count in session.execute(
        select(Preference.query_id, Preference.choice, func.count())
        .where(Preference.rater_id == rater_id)
        .group_by(Preference.query_id, Preference.choice)
    ):
        old = progress.get(query_id, Progress(0, 0, 0))
        skipped = count if choice == "skipped" else 0
        graded, skips = old.graded + count - skipped, old.skipped + skipped
        progress[query_id] = Progress(graded, skips, max(old.total, graded + skips))
    return progress


def most_pairs(settings: PairSettings, documents: int) -> int:
    """The most pairs a rater compares for a query of ``documents`` candidates or more."""
    top = min(settings.top, documents)
    return min(settings.budget, top * (top - 1) // 2)
