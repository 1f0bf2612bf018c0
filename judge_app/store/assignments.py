"""Planning a lead's assignment of queries to raters, with an overlap for agreement.

Two ways (DESIGN section 5): every query to ``copies`` of the raters, rotating so each rater
gets the same load (give or take one); or a ``share`` of the queries to every rater (the
overlap on which agreement is measured) and each other query to one rater, in turn.
``plan_assignments`` is plain Python; ``write_assignments`` writes a plan through
``people.assign_queries``: it takes a Session and does not commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from judge_app.store.errors import StoreError
from judge_app.store.models import Assignment, Judgment
from judge_app.store.people import assign_queries


@dataclass(frozen=True)
class AssignmentPlan:
    """The queries each rater gets, in queue order, and which queries all of them share."""

    queues: dict[int, list[int]]
    shared: frozenset[int] = frozenset()

    def load(self) -> dict[int, int]:
        return {rater: len(queries) for rater, queries in self.queues.items()}

    def judges_per_query(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for queries in self.queues.values():
            for query in queries:
                counts[query] = counts.get(query, 0) + 1
        return counts


def plan_assignments(
    query_ids: Sequence[int],
    rater_ids: Sequence[int],
    *,
    copies: int | None = None,
    share: float | None = None,
) -> AssignmentPlan:
    """Every query to ``copies`` raters in rotation, or the ``share`` (0–1) of the queries,
    spread evenly over the list, to every rater and the rest to one rater each in turn."""
    if not rater_ids:
        raise StoreError("choose at least one rater")
    if (copies is None) == (share is None):
        raise StoreError("give either how many raters judge each query or the shared part")
    queues: dict[int, list[int]] = {rater: [] for rater in rater_ids}
    raters = list(rater_ids)
    if copies is not None:
        if not 1 <= copies <= len(raters):
            raise StoreError(f"each query can go to 1 to {len(raters)} raters, not {copies}")
        for index, query in enumerate(query_ids):
            for copy in range(copies):
                queues[raters[(index * copies + copy) % len(raters)]].append(query)
        return AssignmentPlan(queues)
    assert share is not None
    if not 0 <= share <= 1:
        raise StoreError(f"the shared part must be from 0 to 100 %, not {share:.0%}")
    count = round(share * len(query_ids))
    picked = {int(step * len(query_ids) / count) for step in range(count)} if count else set()
    shared = frozenset(query_ids[index] for index in picked)
    turn = 0
    for query in query_ids:
        if query in shared:
            for rater in raters:
                queues[rater].append(query)
        else:
            queues[raters[turn % len(raters)]].append(query)
            turn += 1
    return AssignmentPlan(queues, shared)


def write_assignments(session: Session, plan: AssignmentPlan, *, replace: bool = False) -> int:
    """Append each rater's planned queries to their queue (or, with ``replace``, make them
    their whole queue; judgments stay); returns how many assignments are new."""
    added = 0
    for rater_id, queries in plan.queues.items():
        if replace:
            session.execute(delete(Assignment).where(Assignment.rater_id == rater_id))
        added += assign_queries(session, rater_id, queries)
    return added


def current_assignments(session: Session) -> dict[int, set[int]]:
    """The queries assigned to each rater who has an assignment."""
    assigned: dict[int, set[int]] = {}
    for rater_id, query_id in session.execute(select(Assignment.rater_id, Assignment.query_id)):
        assigned.setdefault(rater_id, set()).add(query_id)
    return assigned


def judged_queries(session: Session, rater_ids: Sequence[int] | None = None) -> dict[int, set[int]]:
    """The queries each rater (of ``rater_ids``; None: every one) has judged a document of,
    graded or skipped, by rater id."""
    judged: dict[int, set[int]] = {}
    statement = select(Judgment.rater_id, Judgment.query_id).distinct()
    if rater_ids is not None:
        statement = statement.where(Judgment.rater_id.in_(list(rater_ids)))
    rows = session.execute(statement)
    for rater_id, query_id in rows:
        judged.setdefault(rater_id, set()).add(query_id)
    return judged
