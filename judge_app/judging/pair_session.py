"""One rater's preference judging, without Qt: their queue of queries, the pair shown for the
open query (chosen by ``judging.pair_plan``, left and right shuffled), the choices asked for,
on their way to the database and settled. The pair screen binds its widgets to it.

A choice is kept here the moment it is asked for, so that the next pair follows at once from
every choice so far; it is written elsewhere (``PairChange.write``, on a write queue's thread)
and settled (``settle``). A choice whose write failed is taken back and its pair shown again,
with why: nothing the window called saved is lost, and nothing unsaved is called saved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge_app.errors import in_words
from judge_app.judging.pair_plan import (
    DocPair,
    candidates,
    left_first,
    next_pair,
    seed_pairs,
    seeded,
)
from judge_app.store import Database
from judge_app.store import preferences as store
from judge_app.store.models import PreferenceEvent
from judge_app.store.packets import PlannedPair, planned_pairs
from judge_app.store.pair_queue import (
    PairSettings,
    most_pairs,
    pair_progress,
    pair_settings,
    query_pairs,
)
from judge_app.store.rater_queue import (
    Item,
    PoolSettings,
    Progress,
    QueueQuery,
    next_unfinished,
    pool_settings,
    rater_queue,
    total_progress,
)

LEFT, RIGHT = "left", "right"
CHOICE_WORDS = {
    LEFT: "left better",
    RIGHT: "right better",
    store.EQUAL: "equally good",
    store.NEITHER: "neither relevant",
    store.SKIPPED: "skipped",
}
"""What the rater chooses, as the screen names it: a side, or a choice of the pair."""
NOTHING_TO_UNDO = "Nothing to undo in this session"


@dataclass(frozen=True)
class ShownPair:
    """A pair as the rater sees it: the documents on the ``left`` and ``right``."""

    pair: DocPair
    left: Item
    right: Item


@dataclass(frozen=True)
class PairChange:
    """A change asked for: ``write`` commits it on a session; ``pair`` the pair it is aimed
    at (None for undo and redo, which the store aims); ``words`` what it is, for the status
    bar."""

    write: Callable[[Session], PreferenceEvent | None]
    words: str
    query_id: int
    pair: DocPair | None = None


class PairSession:
    """One rater comparing pairs of results for the queries of their queue."""

    def __init__(self, database: Database, rater_id: int, rater_name: str) -> None:
        self.database = database
        self.rater_id = rater_id
        self.rater_name = rater_name
        with database.reading() as session:
            self.undo_after = store.latest_preference_event(session, rater_id)
            self.pool: PoolSettings = pool_settings(session)
            self.settings: PairSettings = pair_settings(session)
            self.queue: list[QueueQuery] = rater_queue(session, rater_id)
            self.progress: dict[int, Progress] = pair_progress(
                session, rater_id, self.pool, self.settings
            )
            # a packet's pairs: the plan as it was at the export, shared with the raters
            # of the database (no one else's choices are in a packet to plan from)
            self.planned: dict[int, list[PlannedPair]] = {}
            for planned in planned_pairs(session):
                self.planned.setdefault(planned.query_id, []).append(planned)
        for query_id, pairs in self.planned.items():
            if (known := self.progress.get(query_id)) is not None:
                self.progress[query_id] = Progress(
                    known.graded, known.skipped, max(len(pairs), known.done)
                )
        self.query_index = -1
        self.budget = 0  # the most pairs the open query asks
        self.left_of: dict[DocPair, int] = {}  # a packet's pair: the document it shows left
        self.items: dict[int, Item] = {}
        self.ranked: list[int] = []
        self.seeds: list[DocPair] = []
        self.others: list[tuple[int, int, str]] = []  # other raters' choices on the query
        self.mine: dict[DocPair, str] = {}  # this rater's, as asked for (saved or on the way)
        self.shown: ShownPair | None = None
        self.notes: dict[DocPair, str] = {}  # written with the pair's choice

    @property
    def read_only(self) -> bool:
        return self.database.read_only

    @property
    def query(self) -> QueueQuery | None:
        return self.queue[self.query_index] if 0 <= self.query_index < len(self.queue) else None

    # reading ---------------------------------------------------------------------------------

    def open_query(self, index: int) -> None:
        """Read the queue's ``index``-th query's pool and preferences and show its next pair."""
        query = self.queue[index]
        with self.database.reading() as session:
            facts = query_pairs(session, self.rater_id, query.id, self.pool)
        self.query_index = index
        self.items = {item.document_id: item for item in facts.items}
        planned = self.planned.get(query.id)
        if planned:  # a packet: its pairs, in their order, and no other
            self.seeds = [(pair.document_a_id, pair.document_b_id) for pair in planned]
            self.ranked = sorted({doc for pair in self.seeds for doc in pair})
            self.budget = len(planned)
            self.left_of = {(p.document_a_id, p.document_b_id): p.left_document_id for p in planned}
        else:
            self.ranked = candidates(facts.grades, facts.fused, self.settings.top)
            self.seeds = seed_pairs(self.ranked, seeded(self.pool.seed, self.rater_id, query.id))
            self.budget = most_pairs(self.settings, len(self.ranked))
            self.left_of = {}
        self.others = [(a, b, c) for rater, a, b, c in facts.choices if rater != self.rater_id]
        self.mine = {(a, b): c for rater, a, b, c in facts.choices if rater == self.rater_id}
        self.notes = {}
        self._show_next()

    def _show_next(self, pair: DocPair | None = None) -> None:
        """Show ``pair``, or the plan's next pair (None once the query is done)."""
        query = self.query
        assert query is not None
        if pair is None:
            everyone = [*self.others, *((a, b, c) for (a, b), c in self.mine.items())]
            pair = next_pair(self.seeds, self.ranked, everyone, set(self.mine), self.budget)
        if pair is None:
            self.shown = None
        else:
            first, second = (self.items[doc] for doc in pair)
            left = self.left_of.get(pair)
            if left == first.document_id or (
                left is None and left_first(self.pool.seed, self.rater_id, query.id, pair)
            ):
                self.shown = ShownPair(pair, first, second)
            else:
                self.shown = ShownPair(pair, second, first)
        self.progress[query.id] = self.query_progress()

    def query_progress(self) -> Progress:
        """The open query's pairs chosen on, skipped, and the most the plan asks."""
        skipped = sum(choice == store.SKIPPED for choice in self.mine.values())
        done = len(self.mine)
        most = max(self.budget, done)
        return Progress(done - skipped, skipped, most if self.shown is not None else done)

    def overall_progress(self) -> Progress:
        return total_progress(self.progress.values())

    def next_unfinished(self) -> int | None:
        """The first query after the open one (wrapping round) with pairs left, if any."""
        return next_unfinished(self.queue, self.progress, self.query_index)

    def first_unfinished(self) -> int:
        """The first query of the queue with pairs left (0 when every one is done)."""
        found = next_unfinished(self.queue, self.progress)
        return 0 if found is None else found

    # changes ---------------------------------------------------------------------------------

    def choose(self, choice: str, duration_ms: int | None = None) -> PairChange:
        """Choose ``choice`` (``LEFT``, ``RIGHT`` or a store choice) for the pair shown, and
        show the next; the returned change writes it, with the pair's note."""
        shown, query = self.shown, self.query
        assert shown is not None and query is not None
        first = shown.pair[0]
        stored = {LEFT: store.FIRST, RIGHT: store.SECOND}.get(choice, choice)
        if choice in (LEFT, RIGHT) and shown.left.document_id != first:
            stored = store.SWAPPED[stored]
        a, b = shown.pair
        left, note = shown.left.document_id, self.notes.pop(shown.pair, None)
        self.mine[shown.pair] = stored
        self._show_next()
        words = (
            f"{CHOICE_WORDS[choice]}: {shown.left.external_id} against {shown.right.external_id}"
        )
        rater_id, query_id = self.rater_id, query.id
        return PairChange(
            lambda session: store.record_preference(
                session, rater_id, query_id, a, b, stored,
                left=left, note=note, duration_ms=duration_ms,
            ),
            words, query_id, shown.pair,
        )  # fmt: skip

    def undo(self) -> PairChange:
        """Revert this session's latest change (the store aims it)."""
        rater_id, after = self.rater_id, self.undo_after
        assert self.query is not None
        return PairChange(
            lambda session: store.undo_preference(session, rater_id, after_event_id=after),
            "undo", self.query.id,
        )  # fmt: skip

    def redo(self) -> PairChange:
        """Re-apply the latest change undone (unless a choice came after it)."""
        rater_id, after = self.rater_id, self.undo_after
        assert self.query is not None
        return PairChange(
            lambda session: store.redo_preference(session, rater_id, after_event_id=after),
            "redo", self.query.id,
        )  # fmt: skip

    def keep_note(self, note: str) -> None:
        """Keep ``note`` for the pair shown, written with its choice."""
        assert self.shown is not None
        if note:
            self.notes[self.shown.pair] = note
        else:
            self.notes.pop(self.shown.pair, None)

    def settle(
        self, change: PairChange, event: PreferenceEvent | None, error: BaseException | None
    ) -> str:
        """A change's write came back: what to say of it. A failed choice is taken back and
        its pair shown again (its query opened, if the rater has left it); an undo or redo
        shows its pair as it now is, in its query."""
        if error is not None:
            if change.pair is not None:
                self._go_to(change.query_id)
                self.mine.pop(change.pair, None)
                self._show_next(change.pair)
            return f"Not saved ({change.words}): {in_words(error)}. Choose again."
        if change.pair is not None:
            return f"Saved: {change.words}"
        if event is None:
            return NOTHING_TO_UNDO if change.words == "undo" else "Nothing to redo"
        self._go_to(event.query_id)
        pair = (event.document_a_id, event.document_b_id)
        if event.new_choice is None:
            self.mine.pop(pair, None)
        else:
            self.mine[pair] = event.new_choice
        self._show_next(pair if event.new_choice is None and pair[0] in self.items else None)
        what = "Undone" if change.words == "undo" else "Redone"
        again = "to choose again" if event.new_choice is None else "chosen as before"
        return f"{what}: the pair is {again}"

    def _go_to(self, query_id: int) -> None:
        """Open the query ``query_id`` unless it is open (read again from the store: what was
        written for it is there)."""
        query = self.query
        if query is None or query.id != query_id:
            index = next((i for i, q in enumerate(self.queue) if q.id == query_id), None)
            if index is not None:
                self.open_query(index)
