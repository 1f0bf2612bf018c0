"""The rater's changes to their judgments on the judging screen: a grade, a skip and its
reason, a note, a clear, an undo or redo. Each is shown at once, aimed at the result it was
asked for, and written in order off the UI thread (``ScreenWrites``); when it settles, the
screen says it saved, or keeps it on screen as unsaved with why, and the same key retries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QLabel, QWidget

from judge_app.gui.document_pane import DocumentPane
from judge_app.gui.result_list import ResultsPane
from judge_app.gui.screen_writes import ScreenWrites
from judge_app.judging.changes import Change, Outcome
from judge_app.judging.keys import SKIP_REASONS
from judge_app.judging.moves import Moves
from judge_app.judging.timing import ActiveTimer

if TYPE_CHECKING:  # a start paints the judging screen before SQLAlchemy and the store load
    from judge_app.judging.session import JudgingSession
    from judge_app.store.models import JudgmentEvent


class JudgingScreen(Protocol):
    """What the edits read and show on the judging screen (``gui.judging``)."""

    session: JudgingSession | None
    timer: ActiveTimer
    moves: Moves
    document: DocumentPane
    results: ResultsPane
    error_banner: QLabel
    message: SignalInstance

    @property
    def current_row(self) -> int: ...

    def land(self, row: int) -> None: ...

    def select_row(self, row: int) -> None: ...

    def open_query(self, index: int, row: int | None = None) -> None: ...

    def show_changed(self, row: int | None) -> None: ...

    def show_document(self) -> None: ...


class JudgmentEdits(QObject):
    """What the keys and the rubric change on ``screen``, and how each change settles."""

    def __init__(self, screen: JudgingScreen, parent: QWidget) -> None:
        super().__init__(parent)
        self.screen = screen
        self.writes = ScreenWrites(parent)
        self.writes.settled.connect(self._settle)
        self._last_change: Change | None = None  # the latest change asked for
        self._skipped_pair: tuple[int, int] | None = None  # the skip a reason key completes
        self._note_row = -1  # the row the note editor was opened on

    def forget_skip(self) -> None:
        """A new session: no skip is waiting for its reason."""
        self._skipped_pair = None

    def _current(self) -> tuple[JudgingSession, int] | None:
        """The open session and its current row, if a result is selected."""
        session, row = self.screen.session, self.screen.current_row
        return None if session is None or row < 0 else (session, row)

    def grade(self, grade: int) -> None:
        """Grade the current result and move to the next ungraded one. A result the last
        grade or skip moved to (or stayed on, when none was left) keeps the grade it has:
        a key typed past the end of a query never changes a grade the rater did not look
        at; selecting it (a move or a click) does."""
        if (current := self._current()) is None or self._kept(*current):
            return
        session, row = current
        change = session.grade(row, grade, self.screen.timer.elapsed_ms())
        self.screen.document.skip_strip.hide()  # out of the way; Alt+1–4 still give a reason
        self.screen.land(session.next_unjudged(row))
        self.submit(change)

    def _kept(self, session: JudgingSession, row: int) -> bool:
        """Does the result at ``row`` keep its judgment (``Moves.kept``)? Then say why."""
        why = self.screen.moves.kept(session, row)
        if why is not None:
            self.screen.message.emit(why, False)
        return why is not None

    def clear(self) -> None:
        if (current := self._current()) is not None:
            session, row = current
            self.submit(session.clear(row))

    def skip(self) -> None:
        """Mark the current result "cannot judge" and go on, as a grade does; the preset
        reasons are offered (Alt+1 to Alt+4) without taking the keys that follow."""
        if (current := self._current()) is None or self._kept(*current):
            return
        session, row = current
        change = session.skip(row, None, self.screen.timer.elapsed_ms())
        self._skipped_pair = change.pair
        self.screen.document.offer_reasons(session.items[row].external_id)
        self.screen.land(session.next_unjudged(row))
        self.submit(change)

    def give_skip_reason(self, number: int) -> None:
        """Store preset reason ``number`` (1 to 4) as the note of the result last skipped."""
        session = self.screen.session
        row = session.row_of_pair(self._skipped_pair) if session is not None else None
        if session is None or row is None or not session.items[row].skipped:
            self.screen.message.emit("Skip a result first (s), then give its reason", False)
            return
        self.screen.document.skip_strip.hide()
        self._skipped_pair = None
        change = session.set_note(row, SKIP_REASONS[number - 1])
        if change is not None:
            self.submit(change)

    def undo(self) -> None:
        if (session := self.screen.session) is not None:
            self.screen.moves.choose()
            self.submit(session.undo())

    def redo(self) -> None:
        if (session := self.screen.session) is not None:
            self.screen.moves.choose()
            self.submit(session.redo())

    def submit(self, change: Change) -> None:
        """Show ``change`` at once and queue it to be written after every earlier one."""
        session = self.screen.session
        assert session is not None
        self._last_change = change
        self.screen.show_changed(session.row_of_pair(change.pair))
        # last: the write queue's thread competes with the screen for the interpreter
        self.writes.submit(session.database, change.write, (session, change))

    def _settle(
        self,
        asked: tuple[JudgingSession, Change],
        event: JudgmentEvent | None,
        error: BaseException | None,
    ) -> None:
        """A change was written (or failed): show it as saved (or unsaved, with why)."""
        session, change = asked
        outcome = session.settle(change, event, error)
        if session is not self.screen.session:
            if not outcome.ok:  # a change of the session before this one: still said
                self._report(outcome, banner=False)
            return
        row = session.row_of_pair(change.pair)
        if change.pair is None and outcome.event is not None:
            row = self._history_row(session, outcome.event)
        self.screen.show_changed(row)
        elsewhere = change.pair is not None or outcome.event is not None
        if outcome.ok and row is None and elsewhere:  # another query's: saved, unsaid
            self.screen.error_banner.hide()
        else:
            self._report(outcome, banner=True)
        if not outcome.ok and change is self._last_change and row is not None:
            self.screen.select_row(row)  # nothing asked since: the same key tries again

    def _history_row(self, session: JudgingSession, event: JudgmentEvent) -> int | None:
        """The row of an undone or redone change: selected, its query opened, when nothing
        else is on its way (a later key has moved on)."""
        if self.writes.in_flight:
            return session.row_of_pair((event.query_id, event.document_id))
        if session.query is None or event.query_id != session.query.id:
            index = session.query_index_of(event.query_id)
            if index is None:
                return None
            self.screen.open_query(index)
        row = session.row_of(event.document_id)
        if row is not None:
            self.screen.select_row(row)
        return row

    def _report(self, outcome: Outcome, *, banner: bool) -> None:
        if outcome.ok:
            if banner:
                self.screen.error_banner.hide()
            self.screen.message.emit(outcome.message, False)
            return
        if banner:
            self.screen.error_banner.setText(
                f"<b>{outcome.message}.</b> The change is kept on screen as unsaved; press the "
                f"key again to retry. ({outcome.error})"
            )
            self.screen.error_banner.show()
        self.screen.message.emit(f"{outcome.message}: {outcome.error}", True)

    def edit_note(self) -> None:
        if (current := self._current()) is not None:
            session, self._note_row = current
            item = session.items[self._note_row]
            self.screen.document.open_note(item.external_id, item.note, item.judged)

    def close_note(self, save: bool) -> None:
        """Close the note editor, saving its text to the row it was opened on if ``save``."""
        text = self.screen.document.take_note()
        if text is None:
            return
        session = self.screen.session
        row, self._note_row = self._note_row, -1
        if save and session is not None and 0 <= row < len(session.items):
            if text != (session.items[row].note or ""):
                change = session.set_note(row, text or None)
                if change is None:  # not judged yet: shown, written with the grade
                    self.screen.results.model.row_changed(row)
                    self.screen.show_document()
                else:
                    self.submit(change)
        self.screen.results.view.setFocus()
