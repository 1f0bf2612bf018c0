"""Assign the queries to raters with an overlap for agreement (``judge-app assign``, Lead ▸
Assign queries…): every query to N of the raters in rotation, or a share of the queries to
every rater and each other query to one of them in turn (``store.assignments``); or each
disputed query to one more rater (``--where-disputed``).

Disputed is what the agreement page shows (``commands.agree``): a query with a document the
raters grade ``min_gap`` or more apart (two: the documents to adjudicate), or, given
``max_alpha``, a query whose ordinal alpha is below it. A document a lead decided (a judgment
of the rater ``adjudicated``) is disputed no longer, so a query whose every differing document
a lead decided is not disputed, whatever its alpha.

The analysis modules are imported where they are used: the judging window imports this one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError, UsageError, quoted
from judge_app.numbers import count_text
from judge_app.store.assignments import (
    AssignmentPlan,
    current_assignments,
    judged_queries,
    plan_assignments,
    write_assignments,
)
from judge_app.store.database import Database, opened
from judge_app.store.models import Rater
from judge_app.store.people import all_query_ids, named_rater

if TYPE_CHECKING:
    from judge_app.evaluation.campaign import Stamp
    from judge_app.metrics.codes import Graded

MIN_GAP = 2
"""Grades this far apart make a document disputed unless told otherwise: the agreement
page's documents to adjudicate (``agreement.report.ADJUDICATION_SPREAD``)."""
GRADE_RANGE = 5


@dataclass(frozen=True)
class QueryDispute:
    """How far a query's raters disagree, as the agreement page shows it: the widest spread
    of grades on a document of it no lead decided (0: none), and its ordinal alpha (None:
    undefined, as for a query only one rater graded)."""

    query_id: str
    widest: int
    alpha: float | None


@dataclass(frozen=True)
class Survey:
    """What ``--where-disputed`` plans from: each graded query's disagreement (as of the
    judgments ``stamp``), in the agreement page's order, with its database id; and by rater
    id, the queries each one judged and has in their queue."""

    stamp: Stamp
    disputes: list[QueryDispute]
    query_ids: dict[str, int]
    judged: dict[int, set[int]]
    queues: dict[int, set[int]]

    def has(self, rater_id: int, query_id: int) -> bool:
        """Whether the rater judged the query or will: it is in their queue, or they have
        no queue (the judging screen then gives them every query) and have begun judging.
        A rater with neither a queue nor a judgment is new: a queue costs them nothing."""
        queue = self.queues.get(rater_id, set())
        judged = self.judged.get(rater_id, set())
        return query_id in queue or query_id in judged or (not queue and bool(judged))


@dataclass(frozen=True)
class DisputedPlan:
    """The disputed queries (ids, in the agreement page's order), the plan that gives each
    one more rater, those no rater named is free for, and the names of the queries given."""

    disputed: tuple[str, ...]
    plan: AssignmentPlan
    unserved: tuple[str, ...]
    names: dict[int, str]


@dataclass(frozen=True)
class AssignOptions:
    """Who judges (``raters``: each found however typed, or added where the database lacks
    it; never the role ``adjudicated``, nor a new name only spaces away from a rater's), how:
    ``copies`` raters per query, or ``share`` percent of the queries to all of them, or
    (``where_disputed``) each disputed query to one more of them, one who neither judged it
    nor has it, the one with the fewest new queries first (in the order of ``raters``);
    disputed: a document graded ``min_gap`` or more apart, or the query's ordinal alpha below
    ``max_alpha`` (if given). ``replace``: the plan is the raters' whole queue (else it is
    added to it). Judgments are never touched."""

    raters: tuple[str, ...]
    copies: int | None = None
    share: float | None = None
    replace: bool = False
    where_disputed: bool = False
    min_gap: int = MIN_GAP
    max_alpha: float | None = None

    def checked(self) -> AssignOptions:
        """These options, or a usage error naming what is wrong."""
        if not self.raters:
            raise UsageError("needs at least one name: a,b,c", "raters")
        if self.where_disputed:
            return self._checked_disputed()
        if self.min_gap != MIN_GAP or self.max_alpha is not None:
            raise UsageError("and --max-alpha go with --where-disputed", "min-gap")
        if (self.copies is None) == (self.share is None):
            raise UsageError("give either --copies N or --share P (or --where-disputed)")
        if self.copies is not None and not 1 <= self.copies <= len(self.raters):
            raise UsageError(f"takes a whole number from 1 to {len(self.raters)}", "copies")
        if self.share is not None and not (math.isfinite(self.share) and 0 <= self.share <= 100):
            raise UsageError("takes a percentage from 0 to 100", "share")
        return self

    def _checked_disputed(self) -> AssignOptions:
        if self.copies is not None or self.share is not None:
            raise UsageError(
                "gives each disputed query one more rater: it takes neither --copies nor --share",
                "where-disputed",
            )
        if self.replace:
            raise UsageError("adds to the raters' queues: it takes no --replace", "where-disputed")
        from judge_app.options import require_whole  # it loads the metrics' stack

        require_whole("min-gap", self.min_gap, 1, GRADE_RANGE)
        alpha = self.max_alpha
        if alpha is not None and not (math.isfinite(alpha) and -1 <= alpha <= 1):
            raise UsageError("takes a number from -1 to 1", "max-alpha")
        return self

    def plan(self, query_ids: list[int], rater_ids: list[int]) -> AssignmentPlan:
        """The plan for these queries and raters (in the order of ``raters``)."""
        share = None if self.share is None else self.share / 100
        return plan_assignments(query_ids, rater_ids, copies=self.copies, share=share)

    def is_disputed(self, query: QueryDispute) -> bool:
        """Whether ``query`` is disputed by these options' measure."""
        if query.widest >= self.min_gap:
            return True
        low = (
            self.max_alpha is not None and query.alpha is not None and query.alpha < self.max_alpha
        )
        return low and query.widest > 0

    def plan_disputed(self, survey: Survey, rater_ids: Sequence[int]) -> DisputedPlan:
        """Each disputed query to the rater of ``rater_ids`` free for it (``Survey.has``)
        with the fewest new queries so far, the first of them in a tie."""
        disputed = tuple(query.query_id for query in survey.disputes if self.is_disputed(query))
        queues: dict[int, list[int]] = {rater: [] for rater in rater_ids}
        unserved: list[str] = []
        names: dict[int, str] = {}
        for name in disputed:
            query = survey.query_ids[name]
            free = [rater for rater in rater_ids if not survey.has(rater, query)]
            if not free:
                unserved.append(name)
                continue
            queues[min(free, key=lambda rater: len(queues[rater]))].append(query)
            names[query] = name
        return DisputedPlan(disputed, AssignmentPlan(queues), tuple(unserved), names)

    def measure(self) -> str:
        """What makes a query disputed, in words."""
        alpha = (
            ""
            if self.max_alpha is None
            else f", or the query's ordinal alpha below {self.max_alpha:g}"
        )
        return (
            f"a document the raters grade {self.min_gap} or more apart{alpha}; documents a "
            "lead decided count no more"
        )


@dataclass(frozen=True)
class Assigned:
    """What an assignment did: the plan, by rater name, how many assignments are new, and
    with ``--where-disputed`` which queries were disputed and which had no free rater."""

    options: AssignOptions
    plan: AssignmentPlan
    names: dict[int, str]
    added: int
    disputes: DisputedPlan | None = None

    @property
    def headline(self) -> str:
        """What was done, in one line."""
        return str(self).split("\n", 1)[0]

    def __str__(self) -> str:
        if self.disputes is not None:
            return self._disputed_text(self.disputes)
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

    def _disputed_text(self, disputes: DisputedPlan) -> str:
        lines = [disputed_summary(disputes), f"Disputed: {self.options.measure()}"]
        for rater_id, queries in disputes.plan.queues.items():
            given = ", ".join(disputes.names[query] for query in queries)
            lines.append(
                f"  {self.names[rater_id]}: {count_text(len(queries), 'new query', 'new queries')}"
                + (f" ({given})" if given else "")
            )
        return "\n".join(lines)


def disputed_summary(disputes: DisputedPlan) -> str:
    """What giving the disputed queries one more rater does, in one line."""
    given = len(disputes.disputed) - len(disputes.unserved)
    if not disputes.disputed:
        return "No disputed query: nothing to assign"
    text = (
        f"{count_text(given, 'disputed query', 'disputed queries')}, each given to one more rater"
        if given
        else "No disputed query given to another rater"
    )
    if disputes.unserved:
        many = len(disputes.unserved) > 1
        text += (
            f"; {', '.join(disputes.unserved)} {'have' if many else 'has'} no free rater "
            f"(each rater named judged {'them' if many else 'it'} or has "
            f"{'them' if many else 'it'} already)"
        )
    return text


def query_disputes(graded: Graded) -> list[QueryDispute]:
    """Each graded query's disagreement, in the agreement page's order, from the agreement
    page's own lists (``commands.agree``)."""
    from judge_app.commands.agree import disputed, query_agreement

    widest: dict[str, int] = {}
    for query_id, item in disputed(graded, min_spread=1):
        if item.decided is None:
            widest[query_id] = max(widest.get(query_id, 0), item.spread)
    return [
        QueryDispute(row.query_id, widest.get(row.query_id, 0), row.krippendorff_alpha_ordinal)
        for row in query_agreement(graded)
    ]


def read_survey(database: Database | str) -> Survey:
    """What ``--where-disputed`` plans from, read in one snapshot of ``database`` (an open
    one, or a path or URL, opened read-only)."""
    with opened(database, read_only=True) as found, found.reading() as session:
        return _survey(session, found.describe())


def _survey(session: Session, source: str, rater_ids: Sequence[int] | None = None) -> Survey:
    from judge_app.commands.campaign import campaign_of
    from judge_app.store.bulk import query_ids

    campaign = campaign_of(session, source, queries=False, automatic=False)
    disputes = query_disputes(campaign.graded)
    return Survey(
        campaign.stamp,
        disputes,
        query_ids(session, [query.query_id for query in disputes], create=False),
        judged_queries(session, rater_ids),
        current_assignments(session),
    )


def _survey_now(session: Session, source: str, survey: Survey, rater_ids: Sequence[int]) -> Survey:
    """``survey`` with the raters' queries as ``session`` sees them; all of it read again if
    a judgment changed since (the disagreements are read before the write, to keep the write
    short)."""
    from judge_app.store.reads import change_stamp

    if change_stamp(session) != survey.stamp:
        return _survey(session, source, rater_ids)
    return Survey(
        survey.stamp,
        survey.disputes,
        survey.query_ids,
        judged_queries(session, rater_ids),
        current_assignments(session),
    )


def assign(database: Database | str, options: AssignOptions) -> Assigned:
    """Plan and write the assignment of ``database`` (an open one, or a path or URL) in one
    unit of work (run again if another writer got in its way)."""
    options.checked()
    with opened(database) as found:
        return _assigned(found, options)


def _assigned(database: Database, options: AssignOptions) -> Assigned:
    """``assign`` on the open ``database``."""
    survey = read_survey(database) if options.where_disputed else None

    def change(session: Session) -> Assigned:
        queries = all_query_ids(session)
        if not queries:
            raise JudgeAppError(f"{database.describe()} holds no queries: import them first")
        raters = _raters(session, options.raters)
        rater_ids = [rater.id for rater in raters]
        names = {rater.id: rater.name for rater in raters}
        disputes = None
        if survey is None:
            plan = options.plan(queries, rater_ids)
        else:
            now = _survey_now(session, database.describe(), survey, rater_ids)
            disputes = options.plan_disputed(now, rater_ids)
            plan = disputes.plan
        added = write_assignments(session, plan, replace=options.replace)
        return Assigned(options, plan, names, added, disputes)

    return database.write(change)


def _raters(session: Session, names: tuple[str, ...]) -> list[Rater]:
    """The raters ``names`` name, added where new; a usage error for one named twice."""
    raters: list[Rater] = []
    for name in names:
        rater = named_rater(session, name)
        assert rater is not None  # named_rater creates
        if rater in raters:
            raise UsageError(f"names the rater {quoted(rater.name)} twice", "raters")
        raters.append(rater)
    return raters
