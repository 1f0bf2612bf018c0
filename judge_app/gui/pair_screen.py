"""The pair screen: preference judging. For the open query, two results side by side (left and
right shuffled, nothing of a system or another rater shown), and a choice: left better, right
better, equally good, neither relevant, or skip.

As on the grading screen, keys are data (``judging.keys.PAIR_KEYMAP``), every choice is kept at
once and handed to the ordered write queue (``ScreenWrites``), and the next pair follows from
the plan (``judging.pair_plan``) without waiting for the database. A choice that could not be
saved brings its pair back, with why.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from judge_app.gui.document_pane import DocumentPane
from judge_app.gui.key_events import key_id, key_names
from judge_app.gui.panes import as_list, banner, screen_column
from judge_app.gui.plain import PLAIN
from judge_app.gui.query_header import QueryHeader
from judge_app.gui.query_queue import QueuePane
from judge_app.gui.result_list import two_line_height
from judge_app.gui.screen_writes import ScreenWrites
from judge_app.judging.highlight import query_terms
from judge_app.judging.keys import PAIR_ACTIONS, PAIR_KEYMAP, RepeatGuard, key_label, keys_of
from judge_app.judging.timing import ActiveTimer
from judge_app.numbers import count_text

if TYPE_CHECKING:
    from judge_app.gui.overlay import Groups
    from judge_app.judging.pair_session import PairChange, PairSession

CHOICES = (
    ("left", "Left better", "Left"),
    ("equal", "Equally good", "Equal"),
    ("neither", "Neither relevant", "Neither"),
    ("skip", "Skip", "Skip"),
    ("right", "Right better", "Right"),
)
"""The choice bar's buttons, left to right (the sides at the ends, under their results): the
action, its title, and its title where the window is narrow."""
COMPACT_WIDTH = 1000
"""Below this width the choice buttons show their short titles."""
STRETCH = {"left": 3, "equal": 2, "neither": 2, "skip": 1, "right": 3}
"""Each choice button's share of the bar: the sides widest, under their results."""
ARROWS = {"Left": "←", "Right": "→"}
"""Arrow keys as their arrows, on the choice buttons."""
STORED = {"left": "left", "right": "right", "equal": "equal", "neither": "neither",
          "skip": "skipped"}  # fmt: skip
"""Each choice action as the session names it."""
SPLIT = [205, 1075]
"""The queue's and the pair's first widths (the two results share the pair's alike)."""


class ChoiceButton(QPushButton):
    """One choice: its keys in caps, then its title."""

    def __init__(self, action: str, title: str, short: str) -> None:
        super().__init__()
        self.titles = {False: title, True: short}
        self.setObjectName(f"choice_{action}")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(44)
        self.setToolTip(PAIR_ACTIONS[action].title)
        self.setAccessibleName(title)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(8)
        self.keys = QLabel()
        self.keys.setObjectName("overlayKeys")
        self.title = QLabel(title)
        self.title.setObjectName("rubricTitle")
        if action == "right":  # the right side's button reads from its edge
            layout.addStretch(1)
        for child in (self.keys, self.title):
            child.setTextFormat(PLAIN)
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            layout.addWidget(child)
        if action != "right":
            layout.addStretch(1)

    def set_compact(self, compact: bool) -> None:
        """The short title (compact) or the whole one; never narrower than its words."""
        self.title.setText(self.titles[compact])
        layout = self.layout()
        assert layout is not None
        self.setMinimumWidth(layout.sizeHint().width())


class ChoiceBar(QFrame):
    """The five choices, each with its keys; ``chosen`` gives the action clicked."""

    chosen = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("rubricPanel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        self.buttons: dict[str, ChoiceButton] = {}
        for action, title, short in CHOICES:
            button = ChoiceButton(action, title, short)
            button.clicked.connect(lambda _checked=False, a=action: self.chosen.emit(a))
            layout.addWidget(button, STRETCH[action])
            self.buttons[action] = button
        self.set_keymap(PAIR_KEYMAP)
        self.set_compact(False)

    def set_compact(self, compact: bool) -> None:
        for button in self.buttons.values():
            button.set_compact(compact)

    def set_keymap(self, keymap: dict[str, str]) -> None:
        """Name each choice's first two keys on its button."""
        for action, button in self.buttons.items():
            keys = keys_of(keymap, action)[:2]
            button.keys.setText(" ".join(ARROWS.get(key, key_label(key)) for key in keys))


class PairScreen(QWidget):
    """One rater comparing pairs of results for the queries of their queue."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    gradesRequested = Signal()  # Esc: back to grading
    idle = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: PairSession | None = None
        self.keymap = PAIR_KEYMAP
        self.keys = RepeatGuard()
        self.timer = ActiveTimer()
        self.writes = ScreenWrites(self)
        self.writes.settled.connect(self._settled)
        self.writes.idle.connect(self.idle)
        self.writes.waiting.connect(lambda text: self.message.emit(text, False))
        self._terms: list[str] = []
        self.header = QueryHeader()
        self.error_banner = banner("errorBanner")
        self.queue = QueuePane()
        self.queue.chosen.connect(self.open_query)
        self.queue.found.connect(self.open_query)
        self.queue.left.connect(self.setFocus)
        as_list(self.queue.view, two_line_height(self.queue.view))
        self.left = DocumentPane("Left")
        self.right = DocumentPane("Right")
        for pane in (self.left, self.right):
            pane.noteFinished.connect(self._close_note)
        self.done_label = QLabel()
        self.done_label.setObjectName("pairDone")
        self.done_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.done_label.setWordWrap(True)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.setObjectName("pairSides")
        sides.setChildrenCollapsible(False)
        for pane in (self.left, self.right):
            sides.addWidget(pane)
        self.pair_or_done = QStackedWidget()
        for page in (sides, self.done_label):
            self.pair_or_done.addWidget(page)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("pairSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.queue)
        self.splitter.addWidget(self.pair_or_done)
        self.splitter.setCollapsible(0, True)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes(SPLIT)
        self.choices = ChoiceBar()
        self.choices.chosen.connect(self.run_action)
        top = (self.header, self.error_banner, self.writes.banner)
        screen_column(self, top, self.splitter, (12, 10, 12, 6), self.choices)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    @property
    def in_flight(self) -> int:
        return self.writes.in_flight

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.choices.set_compact(self.width() < COMPACT_WIDTH)

    # binding ---------------------------------------------------------------------------------

    def set_session(self, session: PairSession | None) -> None:
        """Compare ``session``'s pairs, from the first query with pairs left."""
        self.session = session
        self.queue.set_session(session)
        self.error_banner.hide()
        self.choices.setEnabled(session is not None)
        if session is None:
            return
        self.header.rater.setText(f"Comparing as <b>{html.escape(session.rater_name)}</b>")
        if session.read_only:
            self.error_banner.setText(
                "<b>Read-only: choices cannot be saved.</b> "
                f"{html.escape(session.database.describe())} cannot be written to."
            )
            self.error_banner.show()
        if not session.queue:
            self.header.show_words(
                "Nothing to compare", "No queries are assigned and none exist yet."
            )
            self._show_pair()
            return
        self.open_query(session.first_unfinished())

    def apply_palette(self) -> None:
        self._show_pair()

    # showing ---------------------------------------------------------------------------------

    def open_query(self, index: int) -> None:
        """Open the queue's ``index``-th query at its next pair."""
        session = self.session
        if session is None or not 0 <= index < len(session.queue):
            return
        self._close_note(save=True)
        session.open_query(index)
        query = session.queue[index]
        self.header.show_query(index + 1, len(session.queue), query)
        self._terms = query_terms(query.text)
        self.queue.show_open(index)
        self._show_pair()
        self.setFocus()

    def _show_pair(self) -> None:
        """Show the session's pair (or that the query is done) and the progress."""
        session = self.session
        shown = session.shown if session is not None else None
        self._close_note(save=True)
        if shown is None:
            self._show_done()
        else:
            self.left.show_item(shown.left, self._terms)
            self.right.show_item(shown.right, self._terms)
            self.pair_or_done.setCurrentIndex(0)
            self.timer.restart()
        self.choices.setVisible(shown is not None)  # a query done: nothing to choose
        self._update_progress()

    def _show_done(self) -> None:
        """Say in the pair's place that the open query is done, and what is next."""
        session = self.session
        if session is None or session.query is None:
            self.done_label.setText("")
        else:
            progress = session.query_progress()
            said = (
                "This query has too few results to compare."
                if progress.total == 0
                else f"This query is done: {count_text(progress.done, 'pair')} compared."
            )
            then = (
                "Every query of your queue is done."
                if session.next_unfinished() is None
                else "Press <b>Enter</b> for the next query with pairs left."
            )
            self.done_label.setText(f"<p style='font-size:13pt'>{said}</p><p>{then}</p>")
        self.pair_or_done.setCurrentIndex(1)

    def _update_progress(self) -> None:
        session = self.session
        if session is None or session.query is None:
            return
        mine, overall = session.query_progress(), session.overall_progress()
        self.header.show_progress(mine, overall, done="compared", unit="pairs")
        self.queue.model.query_changed(session.query_index)

    # keys ------------------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.handle_key(event):
            super().keyPressEvent(event)

    def key_released(self, event: QKeyEvent) -> None:
        """A key went up, wherever the focus was."""
        self.keys.released(key_id(event), event.timestamp(), event.isAutoRepeat())

    def shortcut_groups(self) -> Groups:
        """The pair screen's keys for the shortcut overlay."""
        groups = (
            ("Choosing", ("left", "right", "equal", "neither", "skip", "note")),
            ("Moving", ("next_unfinished", "next_query", "previous_query", "find_query",
                        "scroll_down", "scroll_up")),
            ("More", ("undo", "redo", "grades", "help")),
        )  # fmt: skip
        return [
            (heading, [(keys_of(self.keymap, a), PAIR_ACTIONS[a].title) for a in actions])
            for heading, actions in groups
        ]

    def handle_key(self, event: QKeyEvent) -> bool:
        """Do what the pair key map binds the key to; True if the key was one of ours."""
        action = next((self.keymap[n] for n in key_names(event) if n in self.keymap), None)
        if action is None:
            return False
        self.timer.touch()
        fresh = self.keys.pressed(key_id(event), event.timestamp(), event.isAutoRepeat())
        if fresh or PAIR_ACTIONS[action].repeats:  # a held-down key chooses once
            self.run_action(action)
        return True

    def run_action(self, action: str) -> None:
        """Do ``action`` (a name of ``judging.keys.PAIR_ACTIONS``)."""
        session = self.session
        if session is None:
            return
        if action in STORED or action in ("undo", "redo", "note"):
            if session.read_only:
                self.message.emit(
                    f"Read-only: {session.database.describe()} cannot be written to", True
                )
                return
            if session.query is None:
                return
        self._actions[action]()

    @property
    def _actions(self) -> dict[str, Callable[[], object]]:
        choose = {action: (lambda a=action: self._choose(STORED[a])) for action in STORED}
        return {
            **choose,
            "note": self._open_note,
            "undo": lambda: self._submit(self._session().undo()),
            "redo": lambda: self._submit(self._session().redo()),
            "next_unfinished": self.next_unfinished,
            "next_query": lambda: self._step_query(1),
            "previous_query": lambda: self._step_query(-1),
            "find_query": self.queue.focus_search,
            "scroll_down": lambda: self._scroll(1),
            "scroll_up": lambda: self._scroll(-1),
            "grades": self.gradesRequested.emit,
            "help": self.helpRequested.emit,
        }

    def _session(self) -> PairSession:
        assert self.session is not None
        return self.session

    def _choose(self, choice: str) -> None:
        session = self._session()
        if session.shown is None:
            self.message.emit("No pair to choose on: this query is done", False)
            return
        self._close_note(save=True)
        self._submit(session.choose(choice, self.timer.elapsed_ms()))
        self._show_pair()

    def _submit(self, change: PairChange) -> None:
        session = self._session()
        self.writes.submit(session.database, change.write, change)
        self.message.emit(f"Saving: {change.words}…", False)

    def _settled(self, change: PairChange, event: object, error: BaseException | None) -> None:
        session = self.session
        if session is None:
            return
        showing = session.shown, session.query_index
        text = session.settle(change, event, error)  # type: ignore[arg-type]
        if error is not None:
            self.error_banner.setText(f"<b>Not saved.</b> {html.escape(text)}")
            self.error_banner.show()
        self.message.emit(text, error is not None)
        if (session.shown, session.query_index) != showing:
            if session.query_index != showing[1] and session.query is not None:
                query = session.query
                self.header.show_query(session.query_index + 1, len(session.queue), query)
                self._terms = query_terms(query.text)
                self.queue.show_open(session.query_index)
            self._show_pair()
        else:
            self._update_progress()

    def _open_note(self) -> None:
        session = self._session()
        if session.shown is None:
            return
        note = session.notes.get(session.shown.pair)
        self.left.open_note("this pair", note, False)
        self.left.note_prompt.setText(
            "Note on this pair (Enter keeps it, saved with your choice; Esc cancels)"
        )

    def _close_note(self, save: bool = True) -> None:
        text = self.left.take_note()
        if text is not None and save and self.session is not None and self.session.shown:
            self.session.keep_note(text)
            self.message.emit(
                "Note kept: saved with your choice" if text else "Note removed", False
            )
        self.setFocus()

    def _scroll(self, step: int) -> None:
        for pane in (self.left, self.right):
            pane.scroll_page(step)

    def _step_query(self, step: int) -> None:
        session = self.session
        if session is None or not session.queue:
            return
        index = session.query_index + step
        if 0 <= index < len(session.queue):
            self.open_query(index)
        else:
            self.message.emit(
                f"This is the {'last' if step > 0 else 'first'} query of your queue", False
            )

    def next_unfinished(self) -> None:
        """Enter: the next query with pairs left."""
        session = self.session
        if session is None:
            return
        index = session.next_unfinished()
        if index is None:
            self.message.emit("Every other query of your queue is done", False)
        else:
            self.open_query(index)
