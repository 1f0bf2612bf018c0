"""The judging screen: the query, its results, the selected document, the rubric and progress.

Keys come from the active key map (keys are data). Each change is shown at once, aimed at the
result it was asked for, and handed to an ordered write queue (``ScreenWrites``) that commits
it off the UI thread as one store transaction: no key is dropped or applied to another
result, and a busy database is shown in words, never felt as a frozen window. The panes are
parts of their own: ``QueryHeader``, ``QueuePane``, ``ResultsPane``, ``DocumentPane`` and
``Rubric``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

from judge_app.gui.browser import open_in_browser
from judge_app.gui.document_pane import DocumentPane
from judge_app.gui.judgment_edits import JudgmentEdits
from judge_app.gui.key_events import key_id, key_names
from judge_app.gui.panes import as_list, banner, screen_column
from judge_app.gui.query_header import QueryHeader
from judge_app.gui.query_queue import QueuePane
from judge_app.gui.result_list import ResultsPane, done_cue, keys_cue, leave_cue
from judge_app.gui.rubric import Rubric
from judge_app.gui.step_watch import StepWatch
from judge_app.judging.changes import READ_ONLY, changes
from judge_app.judging.highlight import query_terms
from judge_app.judging.keys import ACTIONS, KEYMAPS, RepeatGuard
from judge_app.judging.moves import Moves, left_text
from judge_app.judging.timing import ActiveTimer
from judge_app.numbers import count_text

if TYPE_CHECKING:  # a start paints this screen before SQLAlchemy and the store are loaded
    from judge_app.judging.session import JudgingSession

COMPACT_WIDTH = 1150
COMPACT_HEIGHT = 640
"""Below this width or height the rubric shows each grade's title only (its description in
the tooltip and the ? overlay), so that the results and the document keep their room."""
SPLIT = [205, 650, 425]
"""The queue, results and document panes' first widths (a window scales them alike): at 1280
pixels the results show titles of 50 characters whole, and the document keeps 400 pixels."""


class JudgingScreen(QWidget):
    """One rater's judging of their queue."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    placeChanged = Signal(int, int)  # (query id, document id) of the result shown
    outOfStep = Signal()  # another window of the rater changed their judgments: read again
    idle = Signal()  # every change asked for is written (or failed)
    document: DocumentPane  # the parts, built by _build
    results: ResultsPane

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: JudgingSession | None = None
        self.keymap: dict[str, str] = KEYMAPS["standard"]
        self.timer = ActiveTimer()
        self.keys = RepeatGuard()
        self.edits = JudgmentEdits(self, self)
        self.writes = self.edits.writes
        self.writes.idle.connect(self.idle)
        self.writes.waiting.connect(lambda text: self.message.emit(text, False))
        self._shown_note: str | None = None  # the note the document pane shows
        self.moves = Moves()  # where a grade landed, which leaving was warned of
        self._landing = False  # the selection is being moved by a grade or skip
        self._terms: list[str] = []
        self.compact_rubric = False  # chosen in View; the rubric is also compact when small
        self._build()
        self.step_watch = StepWatch(
            lambda: self.session,
            lambda: bool(self.in_flight) or self.document.note_box.isVisible(),
            self,
        )
        self.step_watch.outOfStep.connect(self.outOfStep)

    def _build(self) -> None:
        self.header = QueryHeader()
        self.error_banner = banner("errorBanner")
        self.results = ResultsPane(self.handle_key)
        self.results.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.results.view.pressed.connect(lambda _index: self.moves.choose())
        self.queue = QueuePane()
        self.queue.chosen.connect(self._queue_chosen)
        self.queue.found.connect(self._queue_found)
        self.queue.left.connect(self.results.view.setFocus)
        self.queue.unmatched.connect(
            lambda: self.message.emit("No query of your queue matches", False)
        )
        as_list(self.queue.view, self.results.row_height())
        self.document = DocumentPane()
        self.document.noteFinished.connect(self.edits.close_note)
        self.document.reasonChosen.connect(self.edits.give_skip_reason)
        self.rubric = Rubric()
        self.rubric.graded.connect(lambda grade: self.run_action(f"grade{grade}"))

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("bodySplitter")
        self.splitter.setChildrenCollapsible(False)
        for pane in (self.queue, self.results, self.document):
            self.splitter.addWidget(pane)
        self.splitter.setCollapsible(0, True)  # View ▸ Queue, or dragged shut
        for index, stretch in enumerate((0, 5, 4)):
            self.splitter.setStretchFactor(index, stretch)
        self.splitter.setSizes(SPLIT)
        top = (self.header, self.error_banner, self.writes.banner)
        screen_column(self, top, self.splitter, (12, 10, 12, 6), self.rubric)

    @property
    def in_flight(self) -> int:
        """Changes asked for and not yet written (or failed)."""
        return self.writes.in_flight

    def set_compact_rubric(self, compact: bool) -> None:
        """Always show the rubric compact (titles only), or only where the window is small."""
        self.compact_rubric = compact
        self._fit_rubric()

    def _fit_rubric(self) -> None:
        compact = (
            self.compact_rubric or self.width() < COMPACT_WIDTH or self.height() < COMPACT_HEIGHT
        )
        self.rubric.set_compact(compact)
        self.results.set_compact(compact)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_rubric()

    # binding ---------------------------------------------------------------------------------

    def set_session(
        self,
        session: JudgingSession | None,
        *,
        query_id: int | None = None,
        document_id: int | None = None,
    ) -> None:
        """Judge ``session``'s queue: from query ``query_id`` at ``document_id`` where given
        (and still there), else from the first query with results left to judge."""
        self.session = session
        self.queue.set_session(session)
        self.results.model.set_session(session)
        self.error_banner.hide()
        self.document.skip_strip.hide()
        self.edits.forget_skip()
        self.moves.warned = None
        if session is not None:
            self.rubric.set_scale(session.scale, self.keymap)
        self.rubric.setEnabled(session is not None)
        self.header.overall_progress.setVisible(session is not None)
        if session is None:
            return
        if session.read_only:
            self.error_banner.setText(
                f"<b>{READ_ONLY}.</b> {html.escape(session.read_only_reason or '')}"
            )
            self.error_banner.show()
        self.header.rater.setText(f"Judging as <b>{html.escape(session.rater_name)}</b>")
        if (repeats := session.repeats_to_schedule()) is not None:
            # ahead of every grade of this session, off the UI thread; the repeats show as
            # their queries are opened (a failure only means none come back this time)
            self.writes.queue.submit(session.database, repeats, lambda _count, _error: None)
        if not session.queue:
            self._show_words("Nothing to judge", "No queries are assigned and none exist yet.")
            return
        start = session.query_index_of(query_id) if query_id is not None else None
        if start is None:
            from judge_app.store.rater_queue import next_unfinished  # loaded with the session

            start = next_unfinished(session.queue, session.progress) or 0
        self.open_query(start)
        row = session.row_of(document_id) if document_id is not None else None
        if row is not None:
            self.select_row(row)

    def set_keymap(self, keymap: dict[str, str]) -> None:
        self.keymap = keymap
        if self.session is not None:
            self.rubric.set_scale(self.session.scale, keymap)
        self._update_progress()  # the cue names the keys
        self.document.set_keymap(keymap)

    def apply_palette(self) -> None:
        """Re-render what depends on the palette (the document's marks)."""
        self.show_document()

    # navigation ------------------------------------------------------------------------------

    @property
    def current_row(self) -> int:
        return self.results.current_row

    def open_query(self, index: int, row: int | None = None) -> None:
        session = self.session
        if session is None or not 0 <= index < len(session.queue):
            return
        changed = session.query_index != index
        if changed:
            self.moves.warned = None
            self.document.skip_strip.hide()
        session.open_query(index)
        self.results.model.reload()
        self.queue.show_open(index)
        query = session.queue[index]
        self.header.show_query(index + 1, len(session.queue), query)
        self._terms = query_terms(query.text)
        if session.items:
            self.select_row(session.first_unjudged() if row is None else row)
        else:
            self.show_document()
        self._update_progress()
        self.results.view.setFocus()
        if changed:  # the status bar speaks of the open query only
            mine = session.query_progress()
            self.message.emit(
                f"Query {query.external_id}: {mine.done} of {mine.total} results judged", False
            )

    def select_row(self, row: int) -> None:
        self.results.select_row(row)

    def land(self, row: int) -> None:
        """Move to ``row`` after a grade or skip: its grade, if it has one, is not the
        rater's to change by the next key."""
        self._landing = True
        try:
            self.select_row(row)
        finally:
            self._landing = False
        self.moves.land(row)

    def _current_changed(self, *_args: object) -> None:
        if not self._landing:
            self.moves.choose()
        self.timer.restart()
        self.edits.close_note(save=True)
        self.show_document()
        row = self.current_row
        if self.session is not None and self.session.query is not None and row >= 0:
            self.placeChanged.emit(self.session.query.id, self.session.items[row].document_id)

    def show_opening(self, title: str, text: str) -> None:
        """Before the session, while a start opens the database or reads the queue: a key
        pressed meanwhile goes to the results, where it does nothing (never into Find)."""
        self.set_session(None)
        self._show_words(title, text)
        self.results.view.setFocus()

    def _show_words(self, title: str, text: str) -> None:
        self.header.show_words(title, text)
        self.document.view.clear()

    def show_document(self) -> None:
        row = self.current_row
        if self.session is None or not 0 <= row < len(self.session.items):
            self.document.view.clear()
            return
        item = self.session.items[row]
        self._shown_note = item.note
        self.document.show_item(item, self._terms)

    def _update_progress(self) -> None:
        session = self.session
        if session is None:
            return
        mine = session.query_progress()
        self.header.show_progress(mine, session.overall_progress())
        self.queue.model.query_changed(session.query_index)
        left = mine.total - mine.done
        if mine.total and not left:
            self._show_done()
        elif self.moves.warning(session):
            self.results.show_cue(leave_cue(left, self.moves.going), state="warning")
        else:
            self.results.show_cue(keys_cue(self.keymap), state="")

    def _show_done(self) -> None:
        """Say in the cue that the open query is done, and what is next."""
        assert self.session is not None
        overall = self.session.overall_progress()
        all_done = self.session.next_unfinished() is None
        text = done_cue(overall.done, len(self.session.queue), self.keymap, all_done)
        self.results.show_cue(text, state="done")

    # keys ------------------------------------------------------------------------------------

    def handle_key(self, event: QKeyEvent) -> bool:
        """Do what the key map binds the key to; True if the key was one of ours."""
        action = next((self.keymap[n] for n in key_names(event) if n in self.keymap), None)
        if action is None:
            return False
        fresh = self.keys.pressed(key_id(event), event.timestamp(), event.isAutoRepeat())
        if fresh or ACTIONS[action].repeats:  # a held-down key acts once, but moving
            self.run_action(action)
        return True

    def key_released(self, event: QKeyEvent) -> None:
        """A key went up, wherever the focus was."""
        self.keys.released(key_id(event), event.timestamp(), event.isAutoRepeat())

    def run_action(self, action: str) -> None:
        """Do ``action`` (a name of ``judging.keys.ACTIONS``)."""
        if self.session is not None and self.session.read_only and changes(action):
            where = self.session.database.describe()
            self.message.emit(f"{READ_ONLY}: {where} cannot be written to", True)
            return
        edits = self.edits
        for prefix, act in (("grade", edits.grade), ("skip_reason", edits.give_skip_reason)):
            if action.startswith(prefix) and action[len(prefix) :].isdigit():
                act(int(action[len(prefix) :]))
                return
        self._actions[action]()

    @property
    def _actions(self) -> dict[str, Callable[[], object]]:
        """What each action but a grade and a skip reason does."""
        last = self.results.model.rowCount() - 1
        return {
            "next": lambda: self.step_result(1),
            "previous": lambda: self.step_result(-1),
            "first": lambda: self.select_row(0),
            "last": lambda: self.select_row(last),
            "clear": self.edits.clear,
            "skip": self.edits.skip,
            "note": self.edits.edit_note,
            "open_url": self.open_url,
            "find_query": self.queue.focus_search,
            "next_unfinished": self.next_unfinished,
            "undo": self.edits.undo,
            "redo": self.edits.redo,
            "next_query": lambda: self.step_query(1),
            "previous_query": lambda: self.step_query(-1),
            "scroll_down": lambda: self.document.scroll_page(1),
            "scroll_up": lambda: self.document.scroll_page(-1),
            "help": self.helpRequested.emit,
        }

    def step_result(self, step: int) -> None:
        count = self.results.model.rowCount()
        if count:
            self.select_row(min(max(self.current_row + step, 0), count - 1))

    def step_query(self, step: int) -> None:
        if self.session is not None and self.session.queue:
            index = self.session.query_index + step
            if not 0 <= index < len(self.session.queue):
                edge = "last" if step > 0 else "first"
                self.message.emit(f"This is the {edge} query of your queue", False)
            elif self._may_leave("go on"):
                self.open_query(index)

    def next_unfinished(self) -> None:
        """Enter: the next query with results left to judge (after saying once what the open
        query still has ungraded)."""
        session = self.session
        if session is None or not session.queue:
            return
        index = session.next_unfinished()
        if index is None:
            progress = session.query_progress()
            if progress.done == progress.total:
                self._show_done()
                self.message.emit("Every query of your queue is done", False)
            else:
                self.message.emit("This is the only query with results left to judge", False)
                self.select_row(session.first_unjudged())
        elif self._may_leave("go to the next unfinished query"):
            self.open_query(index)

    def _may_leave(self, going: str) -> bool:
        """Whether to leave the open query: yes if it is done, or if the rater was told once
        what it leaves ungraded (then the same key leaves)."""
        assert self.session is not None
        left = self.moves.leave(self.session, going)
        if left:
            self.results.show_cue(leave_cue(left, going), state="warning")
            self.message.emit(f"{left_text(left)} not graded yet in this query", False)
        return not left

    def _queue_chosen(self, target: int) -> None:
        """A query clicked in the queue: opened at once, saying what was left ungraded."""
        session = self.session
        if session is None:
            return
        progress = session.query_progress()
        left = progress.total - progress.done
        leaving = session.query
        self.open_query(target)
        if leaving is not None and left and target != session.queue.index(leaving):
            results = count_text(left, "result")
            self.message.emit(f"Left {leaving.external_id} with {results} ungraded", False)

    def _queue_found(self, target: int) -> None:
        """The first query the search found: opened, unless it is the open one."""
        if self.session is not None and target != self.session.query_index:
            self.open_query(target)

    def open_url(self) -> None:
        """Open the current result's web page in the user's browser."""
        if self.session is not None and self.current_row >= 0:
            self.message.emit(*open_in_browser(self.session.items[self.current_row].url))

    def show_changed(self, row: int | None) -> None:
        """Repaint a changed row, the progress, and the document pane if it shows that row."""
        if row is not None:
            assert self.session is not None  # a row is one of the open session's
            self.results.model.row_changed(row)
            if row == self.current_row and self._shown_note != self.session.items[row].note:
                self.show_document()
        self._update_progress()
