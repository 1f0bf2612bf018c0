"""What one rater has to judge: their queue of queries, the pooled items of a query with only
that rater's own judgments, and progress counts.

Blind judging starts here: nothing this module returns carries a system score or another
rater's grade. Every function takes a Session and does not commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Row, Select, Subquery, and_, case, exists, func, or_, select
from sqlalchemy.orm import Session

from judge_app.store.active_sample import has_active_sample, places_of
from judge_app.store.errors import StoreError
from judge_app.store.judgments import open_repeat, repeat_of
from judge_app.store.models import (
    Assignment,
    Document,
    Judgment,
    Query,
    Rater,
    RepeatJudgment,
    Result,
    Run,
)
from judge_app.store.people import assigned_queries
from judge_app.store.settings import get_setting, set_setting

DEFAULT_DEPTH = 10
Order = Literal["run", "shuffle"]
QueryOrder = Literal["assigned", "active"]
QUERY_ORDERS: tuple[QueryOrder, ...] = ("assigned", "active")


@dataclass(frozen=True)
class PoolSettings:
    """Which results a rater judges: the top ``depth`` of ``runs`` (None: every run), each
    document once, in the order of ``order_run`` (None: the first run by name) or shuffled
    per rater and query with ``seed``. Each rater takes their queries in the order they were
    assigned, or (``query_order`` ``active``) in the active sample's order."""

    depth: int = DEFAULT_DEPTH
    runs: tuple[str, ...] | None = None
    order: Order = "run"
    order_run: str | None = None
    seed: int = 0
    query_order: QueryOrder = "assigned"


@dataclass(frozen=True)
class QueueQuery:
    """A query of a rater's queue."""

    id: int
    external_id: str
    text: str | None
    description: str | None


@dataclass(frozen=True)
class Item:
    """One document to judge for a query, with the rater's own judgment (if any) and nothing
    else: no score, no rank of a system beyond the position shown, no other rater's grade."""

    position: int
    document_id: int
    external_id: str
    title: str | None
    url: str | None
    body: str | None
    grade: int | None = None
    skipped: bool = False
    note: str | None = None

    @property
    def judged(self) -> bool:
        return self.grade is not None or self.skipped


@dataclass(frozen=True)
class Progress:
    """How much of a set of items a rater has judged (graded or skipped)."""

    graded: int = 0
    skipped: int = 0
    total: int = 0

    @property
    def done(self) -> int:
        return self.graded + self.skipped

    def __add__(self, other: Progress) -> Progress:
        return Progress(
            self.graded + other.graded, self.skipped + other.skipped, self.total + other.total
        )


def pool_settings(session: Session) -> PoolSettings:
    """The pooling settings stored by a lead, or the defaults (all runs, top 10, run order)."""
    stored_runs = get_setting(session, "pool.runs")
    runs = None if stored_runs is None else json.loads(stored_runs)
    order = get_setting(session, "pool.order", "run")
    return PoolSettings(
        depth=int(get_setting(session, "pool.depth", str(DEFAULT_DEPTH)) or DEFAULT_DEPTH),
        runs=None if runs is None else tuple(runs),
        order="shuffle" if order == "shuffle" else "run",
        order_run=get_setting(session, "pool.order_run") or None,
        seed=int(get_setting(session, "pool.seed", "0") or 0),
        query_order="active"
        if get_setting(session, "pool.query_order") == "active"
        else "assigned",
    )


def set_pool_settings(session: Session, pool: PoolSettings) -> None:
    """Store the pooling settings; StoreError for a depth below 1, a run that does not exist,
    or the active query order without an active sample (``judge-app sample``)."""
    if pool.depth < 1:
        raise StoreError(f"the pool depth must be at least 1, not {pool.depth}")
    if pool.query_order not in QUERY_ORDERS:
        raise StoreError(f"the query order is one of {', '.join(QUERY_ORDERS)}")
    if pool.query_order == "active" and not has_active_sample(session):
        raise StoreError("no active sample is drawn yet: judge-app sample DB --judge NAME")
    known = set(session.scalars(select(Run.name)))
    named = set(pool.runs or ()) | ({pool.order_run} if pool.order_run else set())
    if unknown := sorted(named - known):
        raise StoreError(f"no run called {', '.join(unknown)} (runs: {', '.join(sorted(known))})")
    set_setting(session, "pool.depth", str(pool.depth))
    set_setting(session, "pool.runs", json.dumps(None if pool.runs is None else list(pool.runs)))
    set_setting(session, "pool.order", pool.order)
    set_setting(session, "pool.order_run", pool.order_run or "")
    set_setting(session, "pool.seed", str(pool.seed))
    set_setting(session, "pool.query_order", pool.query_order)


def run_names(session: Session) -> list[str]:
    """The names of the runs, in order."""
    return list(session.scalars(select(Run.name).order_by(Run.name)))


def pooled_pair_count(session: Session, pool: PoolSettings) -> int:
    """How many (query, document) pairs the pool holds over all queries: the work of a
    rater who judges every query."""
    pairs = _whole_pool(session, pool)
    return session.scalar(select(func.count()).select_from(pairs)) or 0


def _whole_pool(session: Session, pool: PoolSettings) -> Subquery:
    """The distinct (query_id, document_id) pairs of the pool over all queries."""
    run_ids = [run_id for run_id, _name in pool_runs(session, pool)]
    return (
        select(Result.query_id, Result.document_id)
        .where(Result.run_id.in_(run_ids), Result.rank <= pool.depth)
        .distinct()
        .subquery()
    )


def all_rater_names(session: Session) -> list[str]:
    """The names of every rater, retired ones too, in order."""
    return list(session.scalars(select(Rater.name).order_by(Rater.name)))


def rater_queue(session: Session, rater_id: int) -> list[QueueQuery]:
    """The rater's queries in order: their assignment, or every query when there is none;
    with the pool's query order ``active``, those in the active sample first by ascending key,
    then the others as assigned. Nothing of the sample (scale, key) is returned."""
    ids = assigned_queries(session, rater_id)
    if pool_settings(session).query_order == "active":
        sampled = places_of(session, ids)
        assigned = {query_id: index for index, query_id in enumerate(ids)}
        ids.sort(
            key=lambda query_id: (
                query_id not in sampled,
                sampled.get(query_id, 0),
                assigned[query_id],
            )
        )
    rows = {
        row.id: row
        for row in session.execute(
            select(Query.id, Query.external_id, Query.text, Query.description).where(
                Query.id.in_(ids)
            )
        )
    }
    return [QueueQuery(*rows[query_id]) for query_id in ids if query_id in rows]


def pool_runs(session: Session, pool: PoolSettings) -> list[tuple[int, str]]:
    """(id, name) of the pooled runs, the run giving the order first, then by name."""
    statement = select(Run.id, Run.name).order_by(Run.name)
    if pool.runs is not None:
        statement = statement.where(Run.name.in_(list(pool.runs)))
    runs = [(row.id, row.name) for row in session.execute(statement)]
    if pool.order_run is not None:
        runs.sort(key=lambda run: run[1] != pool.order_run)
    return runs


def query_items(
    session: Session,
    rater_id: int,
    query_id: int,
    pool: PoolSettings | None = None,
    *,
    repeats_since: datetime | None = None,
) -> list[Item]:
    """The documents to judge for a query: the union of the top ``depth`` results of the
    pooled runs, each document once, in the first run's order (documents it lacks follow by
    their best rank elsewhere) or shuffled with a seed fixed per rater and query; each with
    the rater's own grade, skip and note only. A pair the rater has an open hidden repeat of
    (``open_repeat``: ``repeats_since`` is the start of their session) shows the repeat
    (unjudged until judged again), where a later run's documents would be: after the first
    run's, in the run order."""
    pool = pool or pool_settings(session)
    runs = pool_runs(session, pool)
    if not runs:
        return []
    run_position = {run_id: index for index, (run_id, _name) in enumerate(runs)}
    # one statement (as a hand-written SELECT would be): the pooled results with their
    # document and the rater's own judgment of it
    rows = session.execute(
        select(
            Result.document_id, Result.run_id, Result.rank,
            Document.external_id, Document.title, Document.url, Document.body,
            Judgment.grade, Judgment.skipped, Judgment.note,
            RepeatJudgment.rater_id.label("repeat"),
            RepeatJudgment.grade.label("repeat_grade"),
            RepeatJudgment.skipped.label("repeat_skipped"),
            RepeatJudgment.note.label("repeat_note"),
        )
        .join(Document, Document.id == Result.document_id)
        .outerjoin(
            Judgment,
            and_(
                Judgment.query_id == Result.query_id,
                Judgment.document_id == Result.document_id,
                Judgment.rater_id == rater_id,
            ),
        )
        .outerjoin(
            RepeatJudgment,
            and_(
                repeat_of(rater_id, Result.query_id, Result.document_id),
                open_repeat(repeats_since),
            ),
        )
        .where(
            Result.query_id == query_id,
            Result.run_id.in_(list(run_position)),
            Result.rank <= pool.depth,
        )
    )  # fmt: skip
    best: dict[int, tuple[tuple[bool, int, int], Row]] = {}
    for row in rows:
        position = run_position[row.run_id]
        key = (row.repeat is not None or position > 0, row.rank, position)
        if row.document_id not in best or key < best[row.document_id][0]:
            best[row.document_id] = (key, row)
    if pool.order == "shuffle":
        order = sorted(best, key=lambda document_id: best[document_id][1].external_id)
        _seeded_random(pool.seed, rater_id, query_id).shuffle(order)
    else:
        order = sorted(best, key=lambda document_id: (best[document_id][0], document_id))
    items = []
    for position, document_id in enumerate(order, start=1):
        row = best[document_id][1]
        repeat = row.repeat is not None
        items.append(
            Item(
                position=position,
                document_id=document_id,
                external_id=row.external_id,
                title=row.title,
                url=row.url,
                body=row.body,
                grade=row.repeat_grade if repeat else row.grade,
                skipped=bool(row.repeat_skipped if repeat else row.skipped),
                note=row.repeat_note if repeat else row.note,
            )
        )
    return items


def _seeded_random(seed: int, rater_id: int, query_id: int) -> random.Random:
    """A random generator fixed by (seed, rater, query): the same shuffle every time."""
    digest = hashlib.sha256(f"{seed}:{rater_id}:{query_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pooled_pairs(session: Session, pool: PoolSettings, rater_id: int) -> Select:
    """The distinct (query_id, document_id) pairs of the rater's queue in the pool."""
    run_ids = [run_id for run_id, _name in pool_runs(session, pool)]
    statement = select(Result.query_id, Result.document_id).where(
        Result.run_id.in_(run_ids), Result.rank <= pool.depth
    )
    assigned = select(Assignment.query_id).where(Assignment.rater_id == rater_id)
    if session.scalar(select(assigned.exists())):
        statement = statement.where(Result.query_id.in_(assigned))
    # one run lists a document once per query (its unique key): only several runs need the
    # DISTINCT, which would sort every pair of the queue (a fifth of a start's read)
    return statement.distinct() if len(run_ids) > 1 else statement


def queue_progress(
    session: Session,
    rater_id: int,
    pool: PoolSettings | None = None,
    *,
    repeats_since: datetime | None = None,
) -> dict[int, Progress]:
    """Per query of the rater's queue (those with pooled items): graded, skipped and total,
    as the rater sees them (a pair with an open hidden repeat counts the repeat)."""
    pool = pool or pool_settings(session)
    pairs = pooled_pairs(session, pool, rater_id).subquery()
    repeat = RepeatJudgment.rater_id.is_not(None)
    statement = (
        select(
            pairs.c.query_id,
            func.count(case((repeat, RepeatJudgment.grade), else_=Judgment.grade)),
            func.count(case((repeat, case((RepeatJudgment.skipped, 1))), (Judgment.skipped, 1))),
            func.count(),
        )
        .select_from(pairs)
        .outerjoin(
            Judgment,
            and_(
                Judgment.query_id == pairs.c.query_id,
                Judgment.document_id == pairs.c.document_id,
                Judgment.rater_id == rater_id,
            ),
        )
        .outerjoin(
            RepeatJudgment,
            and_(
                repeat_of(rater_id, pairs.c.query_id, pairs.c.document_id),
                open_repeat(repeats_since),
            ),
        )
        .group_by(pairs.c.query_id)
    )
    return {
        query_id: Progress(graded, skipped, total)
        for query_id, graded, skipped, total in session.execute(statement)
    }


def overall_progress(session: Session, rater_id: int, pool: PoolSettings | None = None) -> Progress:
    """The rater's progress over all their assigned work."""
    return total_progress(queue_progress(session, rater_id, pool).values())


def raters_progress(
    session: Session, rater_ids: Iterable[int], pool: PoolSettings | None = None
) -> dict[int, Progress]:
    """The ``overall_progress`` of each of ``rater_ids`` (between their sessions: pending
    repeats count), read in three statements whatever the number of raters (a queue read per
    rater took 160 s for 10,000 raters)."""
    pairs = _whole_pool(session, pool or pool_settings(session))
    counts = select(pairs.c.query_id, func.count()).group_by(pairs.c.query_id)
    per_query = {query_id: count for query_id, count in session.execute(counts)}
    totals: dict[int, int] = {}  # the raters with an assignment: its pooled pairs
    for rater_id, query_id in session.execute(select(Assignment.rater_id, Assignment.query_id)):
        totals[rater_id] = totals.get(rater_id, 0) + per_query.get(query_id, 0)
    whole_pool = sum(per_query.values())
    # each rater's judgments in the pool and in their queue; a pending repeat is the rater's
    # view of its pair (and holds no grade until answered: one without its judgment, cleared
    # before, adds nothing)
    in_queue = or_(
        Judgment.rater_id.not_in(select(Assignment.rater_id)),
        exists().where(
            Assignment.rater_id == Judgment.rater_id, Assignment.query_id == Judgment.query_id
        ),
    )
    repeat = RepeatJudgment.rater_id.is_not(None)
    statement = (
        select(
            Judgment.rater_id,
            func.count(case((repeat, RepeatJudgment.grade), else_=Judgment.grade)),
            func.count(case((repeat, case((RepeatJudgment.skipped, 1))), (Judgment.skipped, 1))),
        )
        .select_from(pairs)
        .join(
            Judgment,
            and_(
                Judgment.query_id == pairs.c.query_id,
                Judgment.document_id == pairs.c.document_id,
            ),
        )
        .outerjoin(
            RepeatJudgment,
            and_(
                repeat_of(Judgment.rater_id, Judgment.query_id, Judgment.document_id),
                open_repeat(None),
            ),
        )
        .where(in_queue)
        .group_by(Judgment.rater_id)
    )
    judged = {row[0]: (row[1], row[2]) for row in session.execute(statement)}
    return {
        rater_id: Progress(*judged.get(rater_id, (0, 0)), totals.get(rater_id, whole_pool))
        for rater_id in rater_ids
    }


def next_unfinished(
    queue: Sequence[QueueQuery], progress: Mapping[int, Progress], after: int = -1
) -> int | None:
    """The index in ``queue`` of the first query after ``after`` (wrapping round, ``after``
    itself left out; -1: from the first) with work left by ``progress``; None if none has."""
    count = len(queue)
    for step in range(1, count + 1 if after < 0 else count):
        index = (after + step) % count
        found = progress.get(queue[index].id)
        if found is not None and found.done < found.total:
            return index
    return None


def total_progress(parts: Iterable[Progress]) -> Progress:
    """The sum of many progress counts (one pass, no intermediate objects)."""
    graded = skipped = total = 0
    for part in parts:
        graded += part.graded
        skipped += part.skipped
        total += part.total
    return Progress(graded, skipped, total)


def items_progress(items: list[Item]) -> Progress:
    """Progress of a list of items, as shown for the open query."""
    graded = sum(item.grade is not None for item in items)
    skipped = sum(item.skipped for item in items)
    return Progress(graded, skipped, len(items))
