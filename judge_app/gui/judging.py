"""The judging screen: the query, its results, the selected document, the rubric and progress.

Keys come from the active key map (keys are data). Each change is shown at once, aimed at the
result it was asked for, and handed to an ordered write queue that commits it off the UI
thread as one store transaction: no key is dropped or applied to another result, and a busy
database is shown in words, never felt as a frozen window.
"""

from __future__ import annotations

import html

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStyleOptionViewItem,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from judge_app.gui.delegates import GradeBadgeDelegate, TwoLineDelegate
from judge_app.gui.models import Column, QueueModel, ResultsModel, Role
from judge_app.gui.theme import MARK_STYLES, grade_colour, is_dark, muted_text, text_on
from judge_app.judging.highlight import highlighted_html, query_terms
from judge_app.judging.keys import ACTIONS, KEYMAPS, RepeatGuard, key_label, keys_of
from judge_app.judging.session import READ_ONLY, Change, JudgingSession, Outcome, changes
from judge_app.judging.timing import ActiveTimer
from judge_app.store.models import JudgmentEvent
from judge_app.store.settings import GradeLabel
from judge_app.store.write_queue import WriteQueue

WAIT_NOTICE_MS = 500
"""A change written for longer than this is shown as waiting for the database."""
_MODIFIERS = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)


def key_names(event: QKeyEvent) -> list[str]:
    """The names a key press may be bound under, most specific first: "Shift+?" then "?";
    "Num+1" then "1"."""
    names = [QKeySequence(event.keyCombination()).toString()]
    if not event.modifiers() & _MODIFIERS:
        text = event.text().upper()
        if text and text.isprintable() and not text.isspace():
            names.append(text)
        bare = event.modifiers() & ~(
            Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
        )
        names.append(QKeySequence(event.key() | bare.value).toString())
    return list(dict.fromkeys(name for name in names if name))


class ResultView(QTableView):
    """The result list: every key press goes to the judging screen's key map first."""

    def __init__(self, screen: JudgingScreen) -> None:
        super().__init__()
        self._screen = screen

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._screen.handle_key(event):
            event.accept()
            return
        super().keyPressEvent(event)


class RubricButton(QPushButton):
    """One grade of the rubric: its key, label and description; clicking grades."""

    def __init__(self, label: GradeLabel, key: str) -> None:
        super().__init__()
        self.grade = label.grade
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setObjectName(f"rubricGrade{label.grade}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(3)
        top = QHBoxLayout()
        top.setSpacing(8)
        self.key_label = QLabel()
        self.key_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.key_label.setObjectName("keyCap")
        self.title = QLabel()
        self.title.setObjectName("rubricTitle")
        top.addWidget(self.key_label)
        top.addWidget(self.title, 1)
        layout.addLayout(top)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setObjectName("rubricDescription")
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.description, 1)
        for child in (self.key_label, self.title, self.description):
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.set_label(label, key)

    def set_label(self, label: GradeLabel, key: str) -> None:
        colour = grade_colour(label.grade)
        self.key_label.setText(key)
        self.key_label.setStyleSheet(
            f"background:{colour.name()}; color:{text_on(colour).name()}; border-radius:4px;"
            "font-weight:700; padding:1px 7px;"
        )
        self.title.setText(f"{label.grade} · {label.label}")
        self.description.setText(label.description)
        self.setToolTip(f"{label.grade} {label.label}: {label.description} (key {key})")
        self.setAccessibleName(f"Grade {label.grade}, {label.label}")


class JudgingScreen(QWidget):
    """One rater's judging of their queue."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    idle = Signal()  # every change asked for is written (or failed)
    # (session, change, event, error): a change written, from the write queue's thread
    _settled = Signal(object, object, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: JudgingSession | None = None
        self.keymap: dict[str, str] = KEYMAPS["standard"]
        self.timer = ActiveTimer()
        self.keys = RepeatGuard()
        self.writes = WriteQueue()
        self.in_flight = 0  # changes asked for and not yet settled
        self._last_change: Change | None = None  # the latest change asked for
        self._shown_note: str | None = None  # the note the document pane shows
        self.closing = False  # the window closes once the changes on their way are written
        self._settled.connect(self._settle)
        self._wait_timer = QTimer(self)
        self._wait_timer.setInterval(250)
        self._wait_timer.timeout.connect(self._show_waiting)
        self._note_for_skip = False
        self._note_row = -1
        self._terms: list[str] = []
        self._build()

    # building --------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_header())
        self.error_banner = QLabel()
        self.error_banner.setObjectName("errorBanner")
        self.error_banner.setWordWrap(True)
        self.error_banner.hide()
        layout.addWidget(self.error_banner)
        self.wait_banner = QLabel()  # while a change waits for the database
        self.wait_banner.setObjectName("waitBanner")
        self.wait_banner.setWordWrap(True)
        self.wait_banner.hide()
        layout.addWidget(self.wait_banner)

        self.queue_model = QueueModel(parent=self)
        # a one-column table, not a QListView: QListView lays out every row again on each
        # dataChanged (O(queue) per grade), a table repaints the one row
        self.queue_view = QTableView()
        self.queue_view.setObjectName("queueList")
        self.queue_view.setModel(self.queue_model)
        self.queue_view.setItemDelegate(TwoLineDelegate(Role.PROGRESS, Role.COMPLETE, self))
        self.queue_view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.queue_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.queue_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.queue_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.queue_view.setShowGrid(False)
        self.queue_view.setWordWrap(False)
        self.queue_view.horizontalHeader().hide()
        self.queue_view.horizontalHeader().setStretchLastSection(True)
        self.queue_view.verticalHeader().hide()
        self.queue_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.queue_view.clicked.connect(lambda index: self.open_query(index.row()))
        queue_pane = self._pane("Queue", self.queue_view)

        self.results_model = ResultsModel(parent=self)
        self.result_view = ResultView(self)
        self.result_view.setObjectName("resultList")
        self.result_view.setModel(self.results_model)
        self.result_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.result_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.result_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.result_view.setShowGrid(False)
        self.result_view.setWordWrap(False)
        self.result_view.setAlternatingRowColors(False)
        self.result_view.verticalHeader().hide()
        self.result_view.setItemDelegateForColumn(
            Column.TITLE, TwoLineDelegate(Role.URL, parent=self)
        )
        self.result_view.setItemDelegateForColumn(Column.GRADE, GradeBadgeDelegate(self))
        self.result_view.setColumnHidden(Column.URL, True)
        header = self.result_view.horizontalHeader()
        header.setSectionResizeMode(Column.POSITION, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(Column.GRADE, QHeaderView.ResizeMode.Fixed)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setHighlightSections(False)
        self.result_view.setColumnWidth(Column.POSITION, 40)
        self.result_view.setColumnWidth(Column.GRADE, 172)
        option = QStyleOptionViewItem()
        self.result_view.initViewItemOption(option)
        row_height = TwoLineDelegate(Role.URL).sizeHint(option, QModelIndex()).height()
        for view in (self.result_view, self.queue_view):
            view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            view.verticalHeader().setDefaultSectionSize(row_height)
        self.result_view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.result_view.doubleClicked.connect(lambda _index: self.result_view.setFocus())
        results_pane = self._pane("Results", self.result_view)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("bodySplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(queue_pane)
        splitter.addWidget(results_pane)
        splitter.addWidget(self._build_document_pane())
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 4)
        splitter.setStretchFactor(2, 5)
        splitter.setSizes([210, 560, 510])
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(12, 10, 12, 6)
        body_layout.addWidget(splitter)
        layout.addWidget(body, 1)
        layout.addWidget(self._build_rubric())

    def _pane(self, title: str, widget: QWidget) -> QWidget:
        pane = QWidget()
        pane_layout = QVBoxLayout(pane)
        pane_layout.setContentsMargins(0, 0, 0, 0)
        pane_layout.setSpacing(6)
        caption = QLabel(title.upper())
        caption.setObjectName("paneCaption")
        pane_layout.addWidget(caption)
        pane_layout.addWidget(widget, 1)
        return pane

    def _build_header(self) -> QWidget:
        header = QFrame()
        header.setObjectName("queryHeader")
        layout = QHBoxLayout(header)
        layout.setContentsMargins(20, 14, 20, 14)
        layout.setSpacing(24)
        left = QVBoxLayout()
        left.setSpacing(4)
        self.query_caption = QLabel()
        self.query_caption.setObjectName("queryCaption")
        self.query_text = QLabel()
        self.query_text.setObjectName("queryText")
        self.query_text.setWordWrap(True)
        self.query_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.query_description = QLabel()
        self.query_description.setObjectName("queryDescription")
        self.query_description.setWordWrap(True)
        self.query_description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for widget in (self.query_caption, self.query_text, self.query_description):
            left.addWidget(widget)
        layout.addLayout(left, 1)

        right = QVBoxLayout()
        right.setSpacing(6)
        self.rater_label = QLabel()
        self.rater_label.setObjectName("raterLabel")
        self.rater_label.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.query_progress = QLabel()
        self.query_progress.setObjectName("queryProgress")
        self.query_progress.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.overall_progress = QProgressBar()
        self.overall_progress.setObjectName("overallProgress")
        self.overall_progress.setMinimumWidth(260)
        self.overall_progress.setTextVisible(True)
        self.overall_progress.setFormat("All work: %v / %m judged (%p%)")
        self.overall_progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        right.addWidget(self.rater_label)
        right.addWidget(self.query_progress)
        right.addWidget(self.overall_progress)
        right.addStretch(1)
        layout.addLayout(right)
        return header

    def _build_document_pane(self) -> QWidget:
        pane = QFrame()
        pane.setObjectName("documentPane")
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        caption = QLabel("DOCUMENT")
        caption.setObjectName("paneCaption")
        layout.addWidget(caption)
        self.document_view = QTextBrowser()
        self.document_view.setObjectName("documentView")
        self.document_view.setOpenLinks(False)
        self.document_view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.document_view.document().setDocumentMargin(14)
        layout.addWidget(self.document_view, 1)

        self.note_box = QFrame()
        self.note_box.setObjectName("noteBox")
        note_layout = QVBoxLayout(self.note_box)
        note_layout.setContentsMargins(10, 8, 10, 8)
        note_layout.setSpacing(4)
        self.note_prompt = QLabel()
        self.note_prompt.setObjectName("notePrompt")
        self.note_edit = QLineEdit()
        self.note_edit.setObjectName("noteEdit")
        self.note_edit.installEventFilter(self)
        note_layout.addWidget(self.note_prompt)
        note_layout.addWidget(self.note_edit)
        self.note_box.hide()
        layout.addWidget(self.note_box)
        return pane

    def _build_rubric(self) -> QWidget:
        panel = QFrame()
        panel.setObjectName("rubricPanel")
        layout = QHBoxLayout(panel)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        self.rubric_buttons: list[RubricButton] = []
        for grade in range(6):
            button = RubricButton(GradeLabel(grade, "", ""), str(grade))
            button.clicked.connect(lambda _checked=False, g=grade: self.run_action(f"grade{g}"))
            layout.addWidget(button, 1)
            self.rubric_buttons.append(button)
        panel.setFixedHeight(118)
        return panel

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
        self.queue_model.set_session(session)
        self.results_model.set_session(session)
        self.error_banner.hide()
        self._update_rubric()
        if session is None:
            return
        if session.read_only:
            self.error_banner.setText(f"<b>{READ_ONLY}.</b> {_escape(session.read_only_reason)}")
            self.error_banner.show()
        self.rater_label.setText(f"Judging as <b>{session.rater_name}</b>")
        if session.queue:
            start = session.query_index_of(query_id) if query_id is not None else None
            if start is None:
                start = next(
                    (
                        index
                        for index, query in enumerate(session.queue)
                        if (p := session.progress.get(query.id)) and p.done < p.total
                    ),
                    0,
                )
            self.open_query(start)
            row = session.row_of(document_id) if document_id is not None else None
            if row is not None:
                self.select_row(row)
        else:
            self._show_empty("Nothing to judge", "No queries are assigned and none exist yet.")

    def set_keymap(self, keymap: dict[str, str]) -> None:
        self.keymap = keymap
        self._update_rubric()

    def _update_rubric(self) -> None:
        if self.session is None:
            return
        for label, button in zip(self.session.scale, self.rubric_buttons):
            keys = keys_of(self.keymap, f"grade{label.grade}")
            button.set_label(label, key_label(keys[0]) if keys else "")

    def apply_palette(self) -> None:
        """Re-render what depends on the palette (the document's marks)."""
        self._show_document()

    # navigation ------------------------------------------------------------------------------

    @property
    def current_row(self) -> int:
        index = self.result_view.currentIndex()
        return index.row() if index.isValid() else -1

    def open_query(self, index: int, row: int | None = None) -> None:
        session = self.session
        if session is None or not 0 <= index < len(session.queue):
            return
        session.open_query(index)
        self.results_model.reload()
        self.queue_model.query_changed(index)
        self.queue_view.selectionModel().setCurrentIndex(
            self.queue_model.index(index), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        query = session.queue[index]
        self.query_caption.setText(
            f"QUERY {index + 1} OF {len(session.queue)}  ·  {query.external_id}"
        )
        self.query_text.setText(query.text or query.external_id)
        self.query_description.setText(query.description or "")
        self.query_description.setVisible(bool(query.description))
        self._terms = query_terms(query.text)
        if session.items:
            self.select_row(session.first_unjudged() if row is None else row)
        else:
            self._show_document()
        self._update_progress()
        self.result_view.setFocus()

    def select_row(self, row: int) -> None:
        if 0 <= row < self.results_model.rowCount():
            self.result_view.selectionModel().setCurrentIndex(
                self.results_model.index(row, Column.TITLE),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.result_view.scrollTo(self.results_model.index(row, 0))

    def _current_changed(self, *_args: object) -> None:
        self.timer.restart()
        self._close_note(save=True)
        self._show_document()

    def _show_empty(self, title: str, text: str) -> None:
        self.query_caption.setText("")
        self.query_text.setText(title)
        self.query_description.setText(text)
        self.document_view.clear()

    def _show_document(self) -> None:
        row = self.current_row
        if self.session is None or not 0 <= row < len(self.session.items):
            self.document_view.setHtml("")
            return
        item = self.session.items[row]
        self._shown_note = item.note
        palette = self.palette()
        muted = muted_text(palette)
        mark = MARK_STYLES["dark" if is_dark(palette) else "light"]
        title = highlighted_html(item.title or item.external_id, self._terms, mark)
        body = highlighted_html(item.body, self._terms, mark) or (
            f'<p style="color:{muted}"><i>This document has no text.</i></p>'
        )
        url = item.url or ""
        note = (
            f'<p style="color:{muted}; border-left:3px solid {muted}; padding-left:8px">'
            f"<b>Your note:</b> {_escape(item.note)}</p>"
            if item.note
            else ""
        )
        self.document_view.setHtml(
            f'<div style="font-size:15pt; font-weight:600; margin-bottom:2px">'
            f"{_strip_p(title)}</div>"
            f'<div style="color:{muted}; font-size:9.5pt; margin-bottom:10px">'
            f"{_escape(url)} &nbsp;·&nbsp; {_escape(item.external_id)}</div>"
            f'<div style="font-size:11pt; line-height:150%">{body}</div>{note}'
        )

    def _update_progress(self) -> None:
        session = self.session
        if session is None:
            return
        mine = session.query_progress()
        skipped = f", {mine.skipped} skipped" if mine.skipped else ""
        self.query_progress.setText(
            f"This query: <b>{mine.graded} / {mine.total}</b> graded{skipped}"
        )
        overall = session.overall_progress()
        self.overall_progress.setRange(0, max(overall.total, 1))
        self.overall_progress.setValue(overall.done)
        self.queue_model.query_changed(session.query_index)

    # keys ------------------------------------------------------------------------------------

    def handle_key(self, event: QKeyEvent) -> bool:
        """Do what the key map binds the key to; True if the key was one of ours."""
        action = next((self.keymap[n] for n in key_names(event) if n in self.keymap), None)
        if action is None:
            return False
        fresh = self.keys.pressed(_key_id(event), event.timestamp(), event.isAutoRepeat())
        if fresh or ACTIONS[action].repeats:  # a held-down key acts once, but moving
            self.run_action(action)
        return True

    def key_released(self, event: QKeyEvent) -> None:
        """A key went up, wherever the focus was."""
        self.keys.released(_key_id(event), event.timestamp(), event.isAutoRepeat())

    def run_action(self, action: str) -> None:
        if self.session is not None and self.session.read_only and changes(action):
            where = self.session.database.describe()
            self.message.emit(f"{READ_ONLY}: {where} cannot be written to", True)
            return
        if action.startswith("grade"):
            self.grade(int(action[5:]))
        elif action in ("next", "previous"):
            self.step_result(1 if action == "next" else -1)
        elif action == "clear":
            self.clear()
        elif action == "skip":
            self.skip()
        elif action == "note":
            self.edit_note()
        elif action == "undo":
            self.undo()
        elif action == "redo":
            self.redo()
        elif action in ("next_query", "previous_query"):
            self.step_query(1 if action == "next_query" else -1)
        elif action in ("scroll_down", "scroll_up"):
            bar = self.document_view.verticalScrollBar()
            step = bar.pageStep() if action == "scroll_down" else -bar.pageStep()
            bar.setValue(bar.value() + step)
        elif action == "help":
            self.helpRequested.emit()

    def step_result(self, step: int) -> None:
        row = self.current_row
        count = self.results_model.rowCount()
        if count:
            self.select_row(min(max(row + step, 0), count - 1))

    def step_query(self, step: int) -> None:
        if self.session is not None and self.session.queue:
            index = self.session.query_index + step
            if 0 <= index < len(self.session.queue):
                self.open_query(index)
            else:
                edge = "last" if step > 0 else "first"
                self.message.emit(f"This is the {edge} query of your queue", False)

    # writes ----------------------------------------------------------------------------------

    def grade(self, grade: int) -> None:
        row = self.current_row
        if self.session is None or row < 0:
            return
        change = self.session.grade(row, grade, self.timer.elapsed_ms())
        self.select_row(self.session.next_unjudged(row))
        self._submit(change)

    def clear(self) -> None:
        row = self.current_row
        if self.session is not None and row >= 0:
            self._submit(self.session.clear(row))

    def skip(self, reason: str | None = None) -> None:
        """Mark the current result "cannot judge", then offer to type a reason."""
        row = self.current_row
        if self.session is None or row < 0:
            return
        self._submit(self.session.skip(row, reason, self.timer.elapsed_ms()))
        if reason is None:
            self._open_note(for_skip=True)

    def edit_note(self) -> None:
        row = self.current_row
        if self.session is None or row < 0:
            return
        if not self.session.items[row].judged:
            self.message.emit("Grade or skip the result before adding a note", False)
            return
        self._open_note(for_skip=False)

    def undo(self) -> None:
        if self.session is not None:
            self._submit(self.session.undo())

    def redo(self) -> None:
        if self.session is not None:
            self._submit(self.session.redo())

    def _submit(self, change: Change) -> None:
        """Show ``change`` at once and queue it to be written after every earlier one."""
        session = self.session
        assert session is not None
        self.in_flight += 1
        self._last_change = change
        self._show_changed(session.row_of_pair(change.pair))
        if not self._wait_timer.isActive():
            self._wait_timer.start()
        self.writes.submit(  # last: its thread competes with the screen for the interpreter
            session.database,
            change.write,
            lambda event, error: self._settled.emit(session, change, event, error),
        )

    def _settle(
        self,
        session: JudgingSession,
        change: Change,
        event: JudgmentEvent | None,
        error: BaseException | None,
    ) -> None:
        """A change was written (or failed): show it as saved (or unsaved, with why)."""
        self.in_flight -= 1
        outcome = session.settle(change, event, error)
        if session is self.session:
            row = session.row_of_pair(change.pair)
            if change.pair is None and outcome.event is not None:
                row = self._history_row(outcome.event)
            self._show_changed(row)
            self._report(outcome, banner=True)
            if not outcome.ok and change is self._last_change and row is not None:
                self.select_row(row)  # nothing asked since: the same key tries again
        elif not outcome.ok:  # a change of the session before this one: still said
            self._report(outcome, banner=False)
        if self.in_flight == 0:
            self._wait_timer.stop()
            self.wait_banner.hide()
            self.idle.emit()

    def _history_row(self, event: JudgmentEvent) -> int | None:
        """The row of an undone or redone change: selected, its query opened, when nothing
        else is on its way (a later key has moved on)."""
        assert self.session is not None
        if self.in_flight:
            return self.session.row_of_pair((event.query_id, event.document_id))
        if self.session.query is None or event.query_id != self.session.query.id:
            index = self.session.query_index_of(event.query_id)
            if index is None:
                return None
            self.open_query(index)
        row = self.session.row_of(event.document_id)
        if row is not None:
            self.select_row(row)
        return row

    def _show_changed(self, row: int | None) -> None:
        """Repaint a changed row, the progress, and the document pane if it shows that row."""
        if row is not None:
            assert self.session is not None  # a row is one of the open session's
            self.results_model.row_changed(row)
            if row == self.current_row and self._shown_note != self.session.items[row].note:
                self._show_document()
        self._update_progress()

    def _report(self, outcome: Outcome, *, banner: bool) -> None:
        if outcome.ok:
            if banner:
                self.error_banner.hide()
            self.message.emit(outcome.message, False)
            return
        if banner:
            self.error_banner.setText(
                f"<b>{outcome.message}.</b> The change is kept on screen as unsaved; press the "
                f"key again to retry. ({outcome.error})"
            )
            self.error_banner.show()
        self.message.emit(f"{outcome.message}: {outcome.error}", True)

    def _show_waiting(self) -> None:
        """While a change waits for the database, say so with the time it has waited."""
        waited = self.writes.busy_seconds()
        if self.in_flight == 0 or waited * 1000 < WAIT_NOTICE_MS:
            return
        queued = f"{self.in_flight} change{'s' if self.in_flight != 1 else ''}"
        saved = (
            "saved as soon as it is free, then the window closes"
            if self.closing
            else "each saved in order as soon as it is free"
        )
        self.wait_banner.setText(
            f"<b>Waiting for the database</b> ({waited:.0f} s): another program is writing to "
            f"it. Keep judging: {queued} queued, each saved in order as soon as it is free."
        )
        self.wait_banner.show()
        self.message.emit(
            f"Waiting for the database: another program is writing to it, {waited:.0f} s. "
            f"{queued} queued, {saved}.",
            False,
        )

    # the inline note editor ------------------------------------------------------------------

    def _open_note(self, for_skip: bool) -> None:
        assert self.session is not None
        self._note_for_skip = for_skip
        self._note_row = self.current_row
        item = self.session.items[self._note_row]
        if for_skip:
            self.note_prompt.setText(
                "Skipped. Why can't it be judged? (optional; Enter saves, Esc leaves it empty)"
            )
        else:
            self.note_prompt.setText(f"Note on {item.external_id} (Enter saves, Esc cancels)")
        self.note_edit.setText(item.note or "")
        self.note_box.show()
        self.note_edit.setFocus()
        self.note_edit.selectAll()

    def _close_note(self, save: bool) -> None:
        """Hide the note editor, saving its text to the row it was opened on if ``save``."""
        if not self.note_box.isVisible():
            return
        text = self.note_edit.text().strip()
        self.note_box.hide()
        row, self._note_row = self._note_row, -1
        if save and self.session is not None and 0 <= row < len(self.session.items):
            if text != (self.session.items[row].note or ""):
                self._submit(self.session.set_note(row, text or None))
        self.result_view.setFocus()
        if self._note_for_skip and self.session is not None and row == self.current_row >= 0:
            self._note_for_skip = False
            if self.session.items[row].skipped:
                self.select_row(self.session.next_unjudged(row))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.note_edit
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
        ):
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._close_note(save=True)
                return True
            if key == Qt.Key.Key_Escape:
                self._close_note(save=False)
                return True
        if watched is self.note_edit and event.type() == QEvent.Type.FocusOut:
            if self.note_box.isVisible() and not self.note_box.isAncestorOf(
                self.focusWidget() or self
            ):
                self._close_note(save=True)
        return super().eventFilter(watched, event)


def _key_id(event: QKeyEvent) -> int:
    """The physical key where the system says which it is, else Qt's key code."""
    return event.nativeScanCode() or event.key()


def _escape(text: str | None) -> str:
    return html.escape(text or "")


def _strip_p(fragment: str) -> str:
    return fragment.removeprefix("<p>").removesuffix("</p>")
