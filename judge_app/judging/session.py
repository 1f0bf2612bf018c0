"""The state of one rater's judging session, without Qt: the queue, the open query's items,
and the changes asked for, on their way to the database and settled. The judging screen binds
its widgets to it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge_app.errors import in_words
from judge_app.judging.changes import NOTHING_TO_UNDO, Change, Outcome, Pair
from judge_app.store import Database
from judge_app.store import judgments as store
from judge_app.store.grade_labels import GradeLabel
from judge_app.store.judgments import JudgmentState, event_states
from judge_app.store.models import JudgmentEvent, utcnow
from judge_app.store.rater_queue import (
    Item,
    PoolSettings,
    Progress,
    QueueQuery,
    items_progress,
    next_unfinished,
    pool_settings,
    query_items,
    queue_progress,
    rater_queue,
    total_progress,
)
from judge_app.store.repeats import schedule_repeats
from judge_app.store.settings import quality_settings, scale


@dataclass
class _InFlight:
    """A pair with changes on their way to the database."""

    saved: JudgmentState | None  # what the database holds, as far as this session knows
    shown: JudgmentState | None  # what the screen shows: the latest change asked for
    count: int = 0


class JudgingSession:
    """One rater judging the queries of their queue.

    A change is asked for (``grade``, ``skip``, …: shown at once, as pending), written
    elsewhere (``Change.write``, on a write queue's thread) and settled (``settle``: shown as
    saved, or as unsaved with the reason). Everything but ``Change.write`` runs on one thread.
    """

    def __init__(
        self,
        database: Database,
        rater_id: int,
        rater_name: str,
        *,
        undo_after: int | None = None,
        opened_at: datetime | None = None,
    ) -> None:
        """``undo_after``: the history event undo may not reach behind (default: the rater's
        latest at this start, so that undo reverts only this session's changes); ``opened_at``:
        when the session started, which decides the hidden repeats it shows (``open_repeat``).
        A session read again in the middle of the rater's judging passes on its
        predecessor's both."""
        self.database = database
        self.rater_id = rater_id
        self.rater_name = rater_name
        self.resumed = opened_at is not None
        self.opened_at = utcnow() if opened_at is None else opened_at
        with database.reading() as session:
            # the rater's latest change as this session starts: the changes after it are
            # this session's (``changes_written``), or another window's
            self.started_after = store.latest_event_id(session, rater_id)
            self.undo_after = self.started_after if undo_after is None else undo_after
            self.pool: PoolSettings = pool_settings(session)
            self.scale: list[GradeLabel] = scale(session)
            self.queue: list[QueueQuery] = rater_queue(session, rater_id)
            self.progress: dict[int, Progress] = queue_progress(
                session, rater_id, self.pool, repeats_since=self.opened_at
            )
            self.repeat_share = quality_settings(session).repeat_share
        self.changes_written = 0  # by this session: another writer's show as more in the store
        self.query_index = -1
        self.items: list[Item] = []
        self.in_flight: dict[Pair, _InFlight] = {}
        # changes a failed write could not save: shown as unsaved, never dropped
        self.unsaved: dict[Pair, str] = {}
        # notes written on results not judged yet: shown, and written with the grade or skip
        self.early_notes: dict[Pair, str] = {}

    def repeats_to_schedule(self) -> Callable[[Session], int] | None:
        """The write that brings back, hidden among new items, the lead's share of the
        rater's work before this session (``store.repeats``); None when there is nothing to
        do: no share set, a read-only database, or a session read again in the middle."""
        if self.repeat_share <= 0 or self.read_only or self.resumed:
            return None
        share, opened = self.repeat_share, self.opened_at
        return lambda session: schedule_repeats(
            session, self.rater_id, share, judged_before=opened, pool=self.pool
        )

    @property
    def read_only(self) -> bool:
        """Whether the database was opened read-only: nothing can be graded."""
        return self.database.read_only

    @property
    def read_only_reason(self) -> str:
        return (
            f"{self.database.describe()} cannot be written to. You can look through the queue; "
            "to grade, ask for write access or open a copy you can write to"
        )

    # reading ---------------------------------------------------------------------------------

    @property
    def query(self) -> QueueQuery | None:
        return self.queue[self.query_index] if 0 <= self.query_index < len(self.queue) else None

    def query_index_of(self, query_id: int) -> int | None:
        for index, query in enumerate(self.queue):
            if query.id == query_id:
                return index
        return None

    def open_query(self, index: int) -> None:
        """Load the items of the queue's ``index``-th query, showing the changes still on
        their way as they will be."""
        query = self.queue[index]
        with self.database.reading() as session:
            items = query_items(
                session, self.rater_id, query.id, self.pool, repeats_since=self.opened_at
            )
        for row, item in enumerate(items):
            flight = self.in_flight.get((query.id, item.document_id))
            if flight is not None:
                items[row] = _showing(item, flight.shown)
            elif not item.judged and (early := self.early_notes.get((query.id, item.document_id))):
                items[row] = dataclasses.replace(item, note=early)
        self.items = items
        self.query_index = index
        self.progress[query.id] = items_progress(self.items)

    def out_of_step(self, session: Session) -> bool:
        """Whether the rater's judgments changed in the store other than through this session
        (another window of the same rater): read on a worker, as it asks the database."""
        return store.changes_since(session, self.rater_id, self.started_after) > (
            self.changes_written
        )

    def query_progress(self) -> Progress:
        return items_progress(self.items)

    def overall_progress(self) -> Progress:
        return total_progress(self.progress.values())

    def next_unjudged(self, row: int) -> int:
        """The first row after ``row`` (wrapping round) not judged yet; ``row`` if all are."""
        count = len(self.items)
        for step in range(1, count + 1):
            candidate = (row + step) % count
            if not self.items[candidate].judged:
                return candidate
        return row

    def next_unfinished(self) -> int | None:
        """The index of the first query after the open one (wrapping round) with results left
        to judge; None when every other query is done."""
        return next_unfinished(self.queue, self.progress, self.query_index)

    def first_unjudged(self) -> int:
        return self.next_unjudged(len(self.items) - 1) if self.items else -1

    def row_of(self, document_id: int) -> int | None:
        for row, item in enumerate(self.items):
            if item.document_id == document_id:
                return row
        return None

    def row_of_pair(self, pair: Pair | None) -> int | None:
        """The row showing ``pair``, if its query is the one open."""
        if pair is None or self.query is None or pair[0] != self.query.id:
            return None
        return self.row_of(pair[1])

    def unsaved_at(self, row: int) -> str | None:
        """What a failed write could not save for the result at ``row``, if anything."""
        if not self.unsaved or not 0 <= row < len(self.items):
            return None
        return self.unsaved.get(self._pair(row))

    def pending_at(self, row: int) -> bool:
        """Whether a change of the result at ``row`` is on its way to the database."""
        return (
            bool(self.in_flight)
            and 0 <= row < len(self.items)
            and self._pair(row) in self.in_flight
        )

    # asking for changes ----------------------------------------------------------------------

    def grade(self, row: int, grade: int, duration_ms: int | None = None) -> Change:
        label = self.scale[grade].label
        item = self.items[row]
        early = None if item.judged else self.early_notes.get(self._pair(row))
        return self._ask(
            row,
            JudgmentState(grade, False, item.note),
            lambda s, query, document: store.set_grade(
                s,
                self.rater_id,
                query,
                document,
                grade,
                duration_ms=duration_ms,
                note=early,
                repeats_since=self.opened_at,
            ),
            done=f"grade {grade} ({label})",
            pending=f"grade {grade}",
        )

    def skip(self, row: int, reason: str | None = None, duration_ms: int | None = None) -> Change:
        item = self.items[row]
        if reason is None and not item.judged:  # a note written before the skip is its reason
            reason = self.early_notes.get(self._pair(row))
        note = reason if reason is not None else item.note
        return self._ask(
            row,
            JudgmentState(None, True, note),
            lambda s, query, document: store.skip(
                s,
                self.rater_id,
                query,
                document,
                reason=reason,
                duration_ms=duration_ms,
                repeats_since=self.opened_at,
            ),
            done="skipped (cannot judge)",
            pending="skip",
        )

    def clear(self, row: int) -> Change:
        return self._ask(
            row,
            None,
            lambda s, query, document: store.clear(
                s, self.rater_id, query, document, repeats_since=self.opened_at
            ),
            done="grade cleared",
            pending="clear",
        )

    def set_note(self, row: int, note: str | None) -> Change | None:
        """The change that writes the note of the result at ``row``; None for a result not
        judged yet, whose note is only shown, and written with its grade or skip."""
        item = self.items[row]
        if not item.judged:
            self.items[row] = dataclasses.replace(item, note=note or None)
            if note:
                self.early_notes[self._pair(row)] = note
            else:
                self.early_notes.pop(self._pair(row), None)
            return None
        return self._ask(
            row,
            JudgmentState(item.grade, item.skipped, note or None),
            lambda s, query, document: store.set_note(
                s, self.rater_id, query, document, note, repeats_since=self.opened_at
            ),
            done="note saved" if note else "note removed",
            pending="note",
        )

    def undo(self) -> Change:
        """Revert this session's latest change not yet undone (never an earlier session's)."""
        return Change(
            lambda s: store.undo(s, self.rater_id, after_event_id=self.undo_after),
            pending="undo",
            done="Undone",
        )

    def redo(self) -> Change:
        """Re-apply this session's latest undone change."""
        return Change(
            lambda s: store.redo(s, self.rater_id, after_event_id=self.undo_after),
            pending="redo",
            done="Redone",
        )

    def _pair(self, row: int) -> Pair:
        assert self.query is not None
        return self.query.id, self.items[row].document_id

    def _ask(
        self,
        row: int,
        wanted: JudgmentState | None,
        write: Callable[[Session, int, int], JudgmentEvent | None],
        *,
        done: str,
        pending: str,
    ) -> Change:
        """Show ``wanted`` at ``row`` at once; the change that writes it."""
        query, document = pair = self._pair(row)
        shown = _state_of(self.items[row])
        flight = self.in_flight.setdefault(pair, _InFlight(saved=shown, shown=shown))
        flight.count += 1
        self._show(pair, flight.shown, wanted)
        flight.shown = wanted
        where = f"{self.items[row].external_id} (query {self.queue[self.query_index].external_id})"
        return Change(lambda s: write(s, query, document), pending, done, pair, where)

    # settling what was written ---------------------------------------------------------------

    def settle(
        self, change: Change, event: JudgmentEvent | None, error: BaseException | None
    ) -> Outcome:
        """Show what became of ``change``: written (``event``, None if nothing changed) or
        failed (``error``)."""
        if event is not None:
            self.changes_written += 1
        if change.pair is None:
            return self._settle_history(change, event, error)
        flight = self.in_flight[change.pair]
        flight.count -= 1
        if error is None:
            self.unsaved.pop(change.pair, None)
            self.early_notes.pop(change.pair, None)  # written with the judgment
            if event is not None:
                flight.saved = _event_state(event)
        else:
            self.unsaved[change.pair] = change.pending
        if flight.count == 0:  # the last change of the pair: show what the database holds
            del self.in_flight[change.pair]
            self._show(change.pair, flight.shown, flight.saved)
        if error is not None:
            return Outcome(f"Not saved: {change.pending} for {change.where}", in_words(error))
        if event is None:
            return Outcome(f"Unchanged: {change.where}")
        return Outcome(f"Saved: {change.done} for {change.where}", event=event)

    def _settle_history(
        self, change: Change, event: JudgmentEvent | None, error: BaseException | None
    ) -> Outcome:
        if error is not None:
            return Outcome(f"{change.pending.capitalize()} failed", in_words(error))
        if event is None:
            return Outcome(NOTHING_TO_UNDO if change.pending == "undo" else "Nothing to redo")
        pair = (event.query_id, event.document_id)
        old, new = event_states(event)
        flight = self.in_flight.get(pair)
        if flight is not None:  # a later change of the pair is on its way: it will show
            flight.saved = new
        else:
            self._show(pair, old, new)
        query = next((q for q in self.queue if q.id == event.query_id), None)
        name = query.external_id if query else "?"
        what = _describe_state(event.new_grade, event.new_skipped, self.scale)
        return Outcome(f"{change.done}: now {what} (query {name})", event=event)

    def _show(self, pair: Pair, old: JudgmentState | None, new: JudgmentState | None) -> None:
        """Show ``new`` for ``pair`` (which showed ``old``) and count it in the progress."""
        query_id, document_id = pair
        row = self.row_of_pair(pair)
        if row is not None:
            self.items[row] = _showing(self.items[row], new)
            self.progress[query_id] = items_progress(self.items)
        elif query_id in self.progress:
            self.progress[query_id] = _recounted(self.progress[query_id], old, new)


def _state_of(item: Item) -> JudgmentState | None:
    """What ``item`` shows of the rater's judgment (None: none)."""
    return JudgmentState(item.grade, item.skipped, item.note) if item.judged else None


def _showing(item: Item, state: JudgmentState | None) -> Item:
    """``item`` showing ``state`` as the rater's judgment."""
    if state is None:
        return dataclasses.replace(item, grade=None, skipped=False, note=None)
    return dataclasses.replace(item, grade=state.grade, skipped=state.skipped, note=state.note)


def _event_state(event: JudgmentEvent) -> JudgmentState | None:
    return event_states(event)[1]


def _recounted(
    progress: Progress, old: JudgmentState | None, new: JudgmentState | None
) -> Progress:
    """``progress`` with a pair's judgment changed from ``old`` to ``new``."""

    def counts(state: JudgmentState | None) -> tuple[int, int]:
        if state is None:
            return 0, 0
        return (0, 1) if state.skipped else (1, 0)

    (old_graded, old_skipped), (new_graded, new_skipped) = counts(old), counts(new)
    return dataclasses.replace(
        progress,
        graded=progress.graded - old_graded + new_graded,
        skipped=progress.skipped - old_skipped + new_skipped,
    )


def _describe_state(grade: int | None, skipped: bool | None, labels: list[GradeLabel]) -> str:
    if skipped is None:
        return "not judged"
    if skipped:
        return "skipped"
    assert grade is not None
    return f"grade {grade} ({labels[grade].label})"
