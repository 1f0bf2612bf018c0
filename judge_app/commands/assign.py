"""Assign the queries to raters with an overlap for agreement (``judge-app assign``, Lead ▸
Assign queries…): every query to N of the raters in rotation, or a share of the queries to
every rater and each other query to one of them in turn (``store.assignments``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError, UsageError, quoted
from judge_app.store import Database
from judge_app.store.assignments import AssignmentPlan, plan_assignments, write_assignments
from judge_app.store.models import Rater
from judge_app.store.people import all_query_ids, named_rater


@dataclass(frozen=True)
class AssignOptions:
    """Who judges (``raters``: each found however typed, or added where the database lacks
    it; never the role ``adjudicated``, nor a new name only spaces away from a rater's), how:
    ``copies`` raters per query, or ``share`` percent of the queries to all of them;
    ``replace``: the plan is the raters' whole queue (else it is added to it). Judgments are
    never touched."""

    raters: tuple[str, ...]
    copies: int | None = None
    share: float | None = None
    replace: bool = False

    def checked(self) -> AssignOptions:
        """These options, or a usage error naming what is wrong."""
        if not self.raters:
            raise UsageError("--raters needs at least one name: --raters a,b,c")
        if (self.copies is None) == (self.share is None):
            raise UsageError("give either --copies N or --share P")
        if self.copies is not None and not 1 <= self.copies <= len(self.raters):
            raise UsageError(f"--copies takes a whole number from 1 to {len(self.raters)}")
        if self.share is not None and not (math.isfinite(self.share) and 0 <= self.share <= 100):
            raise UsageError("--share takes a percentage from 0 to 100")
        return self

    def plan(self, query_ids: list[int], rater_ids: list[int]) -> AssignmentPlan:
        """The plan for these queries and raters (in the order of ``raters``)."""
        share = None if self.share is None else self.share / 100
        return plan_assignments(query_ids, rater_ids, copies=self.copies, share=share)


@dataclass(frozen=True)
class Assigned:
    """What an assignment did: the plan, by rater name, and how many assignments are new."""

    options: AssignOptions
    plan: AssignmentPlan
    names: dict[int, str]
    added: int

    def __str__(self) -> str:
        judges = self.plan.judges_per_query()
        fewest, most = min(judges.values()), max(judges.values())
        lines = [
            f"{len(judges):,} queries assigned to {len(self.names)} raters, {self.added:,} "
            f"assignments new; each query judged by "
            f"{fewest if fewest == most else f'{fewest}–{most}'} of them"
            + (f", {len(self.plan.shared):,} by all" if self.options.share is not None else "")
        ]
        for rater_id, load in self.plan.load().items():
            lines.append(f"  {self.names[rater_id]}: {load:,} queries")
        return "\n".join(lines)


def assign(database: Database, options: AssignOptions) -> Assigned:
    """Plan and write the assignment in one unit of work (run again if another writer got
    in its way)."""
    options.checked()

    def change(session: Session) -> Assigned:
        queries = all_query_ids(session)
        if not queries:
            raise JudgeAppError(f"{database.describe()} holds no queries: import them first")
        raters = _raters(session, options.raters)
        plan = options.plan(queries, [rater.id for rater in raters])
        names = {rater.id: rater.name for rater in raters}
        return Assigned(
            options, plan, names, write_assignments(session, plan, replace=options.replace)
        )

    return database.write(change)


def _raters(session: Session, names: tuple[str, ...]) -> list[Rater]:
    """The raters ``names`` name, added where new; a usage error for one named twice."""
    raters: list[Rater] = []
    for name in names:
        rater = named_rater(session, name)
        assert rater is not None  # named_rater creates
        if rater in raters:
            raise UsageError(f"--raters names the rater {quoted(rater.name)} twice")
        raters.append(rater)
    return raters
