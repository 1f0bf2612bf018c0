"""The state of one rater's judging session, without Qt: the queue, the open query's items,
and each change written as one transaction. The judging screen binds its widgets to it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError
from judge_app.store import Database
from judge_app.store import judgments as store
from judge_app.store.models import JudgmentEvent
from judge_app.store.queue import (
    Item,
    PoolSettings,
    Progress,
    QueueQuery,
    items_progress,
    pool_settings,
    query_items,
    queue_progress,
    rater_queue,
    total_progress,
)
from judge_app.store.settings import GradeLabel, scale


@dataclass(frozen=True)
class Outcome:
    """What a write did: ``message`` for the status bar, ``error`` when it failed, the
    ``event`` written (None when nothing changed) and how long the commit took."""

    message: str
    error: str | None = None
    event: JudgmentEvent | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


class JudgingSession:
    """One rater judging the queries of their queue."""

    def __init__(self, database: Database, rater_id: int, rater_name: str) -> None:
        self.database = database
        self.rater_id = rater_id
        self.rater_name = rater_name
        with database.reading() as session:
            self.pool: PoolSettings = pool_settings(session)
            self.scale: list[GradeLabel] = scale(session)
            self.queue: list[QueueQuery] = rater_queue(session, rater_id)
            self.progress: dict[int, Progress] = queue_progress(session, rater_id, self.pool)
        self.query_index = -1
        self.items: list[Item] = []
        # changes a failed write could not save, by row: shown as unsaved, never dropped
        self.unsaved: dict[int, str] = {}

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
        """Load the items of the queue's ``index``-th query."""
        query = self.queue[index]
        with self.database.reading() as session:
            self.items = query_items(session, self.rater_id, query.id, self.pool)
        self.query_index = index
        self.unsaved = {}
        self.progress[query.id] = items_progress(self.items)

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

    def first_unjudged(self) -> int:
        return self.next_unjudged(len(self.items) - 1) if self.items else -1

    def row_of(self, document_id: int) -> int | None:
        for row, item in enumerate(self.items):
            if item.document_id == document_id:
                return row
        return None

    # writing ---------------------------------------------------------------------------------

    def grade(self, row: int, grade: int, duration_ms: int | None = None) -> Outcome:
        label = self.scale[grade].label
        return self._write(
            row,
            lambda s, item: store.set_grade(
                s, self.rater_id, self._query_id, item.document_id, grade, duration_ms=duration_ms
            ),
            done=f"grade {grade} ({label})",
            pending=f"grade {grade}",
        )

    def skip(self, row: int, reason: str | None = None, duration_ms: int | None = None) -> Outcome:
        return self._write(
            row,
            lambda s, item: store.skip(
                s, self.rater_id, self._query_id, item.document_id, reason=reason,
                duration_ms=duration_ms,
            ),
            done="skipped (cannot judge)",
            pending="skip",
        )  # fmt: skip

    def clear(self, row: int) -> Outcome:
        return self._write(
            row,
            lambda s, item: store.clear(s, self.rater_id, self._query_id, item.document_id),
            done="grade cleared",
            pending="clear",
        )

    def set_note(self, row: int, note: str | None) -> Outcome:
        return self._write(
            row,
            lambda s, item: store.set_note(
                s, self.rater_id, self._query_id, item.document_id, note
            ),
            done="note saved" if note else "note removed",
            pending="note",
        )

    def undo(self) -> Outcome:
        return self._history(store.undo, "Undone", "Nothing to undo")

    def redo(self) -> Outcome:
        return self._history(store.redo, "Redone", "Nothing to redo")

    @property
    def _query_id(self) -> int:
        assert self.query is not None
        return self.query.id

    def _write(
        self,
        row: int,
        change: Callable[[Session, Item], JudgmentEvent | None],
        *,
        done: str,
        pending: str,
    ) -> Outcome:
        item = self.items[row]
        start = time.perf_counter()
        try:
            event = self.database.write(lambda session: change(session, item))
        except (JudgeAppError, OSError) as error:
            self.unsaved[row] = pending
            return Outcome(f"Not saved: {pending} for {item.external_id}", error=str(error))
        seconds = time.perf_counter() - start
        self.unsaved.pop(row, None)
        if event is not None:
            self._apply(event)
        where = f"{item.external_id} (query {self.query.external_id})"  # type: ignore[union-attr]
        if event is None:
            return Outcome(f"Unchanged: {where}", seconds=seconds)
        return Outcome(f"Saved: {done} for {where}", event=event, seconds=seconds)

    def _history(self, step: Callable[[Session, int], JudgmentEvent | None], done: str, none: str):
        start = time.perf_counter()
        try:
            event = self.database.write(lambda session: step(session, self.rater_id))
        except (JudgeAppError, OSError) as error:
            return Outcome(f"{done[:-1]} failed", error=str(error))
        seconds = time.perf_counter() - start
        if event is None:
            return Outcome(none, seconds=seconds)
        self._apply(event)
        query = next((q for q in self.queue if q.id == event.query_id), None)
        name = query.external_id if query else "?"
        what = _describe_state(event.new_grade, event.new_skipped, self.scale)
        return Outcome(f"{done}: now {what} (query {name})", event=event, seconds=seconds)

    def _apply(self, event: JudgmentEvent) -> None:
        """Show a written change in the items and the progress counts."""
        if self.query is None or event.query_id != self.query.id:
            return  # the screen opens that query, which reloads it
        row = self.row_of(event.document_id)
        if row is None:
            return
        self.items[row] = dataclasses.replace(
            self.items[row],
            grade=event.new_grade,
            skipped=bool(event.new_skipped),
            note=event.new_note,
        )
        self.progress[self.query.id] = items_progress(self.items)


def _describe_state(grade: int | None, skipped: bool | None, labels: list[GradeLabel]) -> str:
    if skipped is None:
        return "not judged"
    if skipped:
        return "skipped"
    assert grade is not None
    return f"grade {grade} ({labels[grade].label})"
