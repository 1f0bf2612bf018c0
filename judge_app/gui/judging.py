"""The judging screen: the query, its results, the selected document, the rubric and progress.

Keys come from the active key map (keys are data). Each change is shown at once, aimed at the
result it was asked for, and handed to an ordered write queue that commits it off the UI
thread as one store transaction: no key is dropped or applied to another result, and a busy
database is shown in words, never felt as a frozen window.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QSortFilterProxyModel,
    Qt,
    QThreadPool,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QDesktopServices, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
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
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from judge_app.gui.delegates import GradeBadgeDelegate, TwoLineDelegate
from judge_app.gui.document_view import DocumentView
from judge_app.gui.flow import FlowLayout
from judge_app.gui.key_events import key_names
from judge_app.gui.models import Column, QueueModel, ResultsModel, Role
from judge_app.gui.panes import as_list, banner, captioned
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import MARK_STYLES, grade_colour, is_dark, muted_text, text_on
from judge_app.gui.workers import Worker
from judge_app.judging.changes import READ_ONLY, Change, Outcome, changes
from judge_app.judging.highlight import Piece, document_pieces, query_terms
from judge_app.judging.keys import (
    ACTIONS,
    KEYMAPS,
    SKIP_REASONS,
    RepeatGuard,
    key_label,
    keys_of,
)
from judge_app.judging.timing import ActiveTimer
from judge_app.store.grade_labels import GradeLabel
from judge_app.store.write_queue import WriteQueue

if TYPE_CHECKING:  # a start paints this screen before SQLAlchemy and the store are loaded
    from judge_app.judging.session import JudgingSession
    from judge_app.store.models import JudgmentEvent

STEP_CHECK_MS = 2000
"""How often an active window asks whether another window of its rater changed a grade."""
WAIT_NOTICE_MS = 500
"""A change written for longer than this is shown as waiting for the database."""
COMPACT_WIDTH = 1150
COMPACT_HEIGHT = 640
"""Below this width or height the rubric shows each grade's title only (its description in
the tooltip and the ? overlay), so that the results and the document keep their room."""
RUBRIC_HEIGHT = {False: 118, True: 66}
CUE_PADDING = 16
"""The cue above the results is two lines high (and this padding), whatever it says."""
WEB_SCHEMES = ("http", "https")
"""What ``o`` opens in the browser: a result's address of any other kind is refused, said."""
URL_SHOWN = 120
"""The most of an address the status bar shows."""
SPLIT = [205, 650, 425]
"""The queue, results and document panes' first widths (a window scales them alike): at 1280
pixels the results show titles of 50 characters whole, and the document keeps 400 pixels."""


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

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A banner, a splitter or the window changed the view's height: the current result
        and the one after it stay in sight."""
        super().resizeEvent(event)
        self._screen.keep_in_view()


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
        self.title.setWordWrap(True)
        top.addWidget(self.key_label, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.title, 1, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setObjectName("rubricDescription")
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.description, 1)
        for child in (self.key_label, self.title, self.description):
            child.setTextFormat(PLAIN)  # a rubric's words are the lead's, never HTML
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.set_label(label, key)

    def set_label(self, label: GradeLabel, key: str) -> None:
        colour = grade_colour(label.grade)
        self.key_label.setText(key)
        self.key_label.setStyleSheet(
            f"background:{colour.name()}; color:{text_on(colour).name()}; border-radius:4px;"
            "font-weight:700; padding:1px 7px;"
        )
        self.title.setText(f"{label.grade} · {label.label}" if label.label else str(label.grade))
        self.description.setText(label.description)
        self.setToolTip(plain_tip(f"{label.grade} {label.label}: {label.description} (key {key})"))
        self.setAccessibleName(f"Grade {label.grade}, {label.label}")

    def set_compact(self, compact: bool) -> None:
        """Title only (compact), or title and description."""
        self.description.setVisible(not compact)


class JudgingScreen(QWidget):
    """One rater's judging of their queue."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    placeChanged = Signal(int, int)  # (query id, document id) of the result shown
    outOfStep = Signal()  # another window of the rater changed their judgments: read again
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
        self._step_timer = QTimer(self)
        self._step_timer.setInterval(STEP_CHECK_MS)
        self._step_timer.timeout.connect(self.check_in_step)
        self._step_check: Worker | None = None  # the check under way
        self._note_row = -1
        self._last_click = 0.0  # when the rubric was last clicked (time.monotonic)
        self._skipped_pair: tuple[int, int] | None = None  # the skip a reason key completes
        self._leave_warned: int | None = None  # the query whose ungraded results were named
        self._leaving = ""  # what the rater was doing when told ("go on", …)
        # the row a grade or skip moved the selection to (or kept it on, when none was left
        # ungraded): its grade is one the rater did not choose to look at, so no key changes it
        # until the rater selects it (see grade)
        self._landed: int | None = None
        self._landing = False  # the selection is being moved by a grade or skip
        self._terms: list[str] = []
        self.compact_rubric = False  # chosen in View; the rubric is also compact when small
        self._build()

    # building --------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_header())
        self.error_banner = banner("errorBanner")
        layout.addWidget(self.error_banner)
        self.wait_banner = banner("waitBanner")  # while a change waits for the database
        layout.addWidget(self.wait_banner)

        self.queue_model = QueueModel(parent=self)
        self.queue_filter = QueueFilter(self.queue_model, self)
        # a one-column table, not a QListView: QListView lays out every row again on each
        # dataChanged (O(queue) per grade), a table repaints the one row
        self.queue_view = QTableView()
        self.queue_view.setObjectName("queueList")
        self.queue_view.setModel(self.queue_filter)
        self.queue_view.setItemDelegate(TwoLineDelegate(Role.PROGRESS, Role.COMPLETE, self))
        self.queue_view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.queue_view.horizontalHeader().hide()
        self.queue_view.horizontalHeader().setStretchLastSection(True)
        self.queue_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.queue_view.clicked.connect(self._queue_clicked)
        queue_pane = captioned("Queue", self._build_queue_search(), self.queue_view)

        self.results_model = ResultsModel(parent=self)
        self.result_view = ResultView(self)
        self.result_view.setObjectName("resultList")
        self.result_view.setModel(self.results_model)
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
            as_list(view, row_height)
        self.result_view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.result_view.doubleClicked.connect(lambda _index: self.result_view.setFocus())
        self.result_view.pressed.connect(self._chosen)
        # "query done", what leaving would leave, or the keys: always there, of one height,
        # so that what it says never moves the results
        self.cue_banner = banner("cueBanner")
        self.cue_banner.setTextFormat(Qt.TextFormat.RichText)
        self.cue_banner.show()
        results_pane = captioned("Results", self.cue_banner, self.result_view)

        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("bodySplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(queue_pane)
        splitter.setCollapsible(0, True)  # View ▸ Queue, or dragged shut
        splitter.addWidget(results_pane)
        splitter.addWidget(self._build_document_pane())
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 5)
        splitter.setStretchFactor(2, 4)
        splitter.setSizes(SPLIT)
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(12, 10, 12, 6)
        body_layout.addWidget(splitter)
        layout.addWidget(body, 1)
        layout.addWidget(self._build_rubric())

    def _build_queue_search(self) -> QWidget:
        """The queue's search field and its "unfinished only" switch."""
        bar = QWidget()
        layout = QHBoxLayout(bar)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.queue_search = QLineEdit()
        self.queue_search.setObjectName("queueSearch")
        self.queue_search.setPlaceholderText("Find (Ctrl+F)")
        self.queue_search.setClearButtonEnabled(True)
        self.queue_search.textChanged.connect(self.queue_filter.set_text)
        self.queue_search.installEventFilter(self)
        self.unfinished_only = QToolButton()
        self.unfinished_only.setObjectName("unfinishedOnly")
        self.unfinished_only.setText("To do")
        self.unfinished_only.setCheckable(True)
        self.unfinished_only.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.unfinished_only.setToolTip("Show only the queries with results left to judge")
        self.unfinished_only.toggled.connect(self.queue_filter.set_unfinished_only)
        layout.addWidget(self.queue_search, 1)
        layout.addWidget(self.unfinished_only)
        return bar

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
            widget.setTextFormat(PLAIN)  # a query's text from a file is never HTML
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
        self.document_view = DocumentView()
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
        layout.addWidget(self._build_skip_strip())
        return pane

    def _build_skip_strip(self) -> QWidget:
        """After a skip: the preset reasons, each one key (Alt+1 to Alt+4) or a click."""
        self.skip_strip = QFrame()
        self.skip_strip.setObjectName("skipStrip")
        layout = QVBoxLayout(self.skip_strip)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        self.skip_prompt = QLabel()
        self.skip_prompt.setObjectName("notePrompt")
        self.skip_prompt.setWordWrap(True)
        layout.addWidget(self.skip_prompt)
        self.skip_buttons: list[QPushButton] = []
        buttons = QWidget()
        flow = FlowLayout(buttons, spacing=4)  # two a row, or one where the pane is narrow
        flow.setContentsMargins(0, 0, 0, 0)
        for number, reason in enumerate(SKIP_REASONS, start=1):
            button = QPushButton()
            button.setObjectName("skipReason")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(reason)
            button.clicked.connect(lambda _checked=False, n=number: self.give_skip_reason(n))
            flow.addWidget(button)
            self.skip_buttons.append(button)
        layout.addWidget(buttons)
        self.skip_strip.hide()
        return self.skip_strip

    def _build_rubric(self) -> QWidget:
        panel = QFrame()
        panel.setObjectName("rubricPanel")
        layout = QHBoxLayout(panel)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        self.rubric_buttons: list[RubricButton] = []
        for grade in range(6):
            button = RubricButton(GradeLabel(grade, "", ""), str(grade))
            button.clicked.connect(lambda _checked=False, g=grade: self._rubric_clicked(g))
            layout.addWidget(button, 1)
            self.rubric_buttons.append(button)
        panel.setFixedHeight(RUBRIC_HEIGHT[False])
        self.rubric_panel = panel
        return panel

    def set_compact_rubric(self, compact: bool) -> None:
        """Always show the rubric compact (titles only), or only where the window is small."""
        self.compact_rubric = compact
        self._fit_rubric()

    def _fit_rubric(self) -> None:
        compact = (
            self.compact_rubric or self.width() < COMPACT_WIDTH or self.height() < COMPACT_HEIGHT
        )
        for button in self.rubric_buttons:
            button.set_compact(compact)
        self.rubric_panel.setFixedHeight(RUBRIC_HEIGHT[compact])
        self.result_view.setColumnWidth(Column.GRADE, 116 if compact else 172)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_rubric()
        lines = self.cue_banner.fontMetrics().lineSpacing()
        self.cue_banner.setFixedHeight(2 * lines + CUE_PADDING)

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
        self.queue_filter.set_current(-1)
        self.error_banner.hide()
        self.skip_strip.hide()
        self._skipped_pair = None
        self._leave_warned = None
        self._update_rubric()
        self.rubric_panel.setEnabled(session is not None)
        self.overall_progress.setVisible(session is not None)
        if session is None:
            return
        if session.read_only:
            self.error_banner.setText(f"<b>{READ_ONLY}.</b> {_escape(session.read_only_reason)}")
            self.error_banner.show()
        self.rater_label.setText(f"Judging as <b>{session.rater_name}</b>")
        if (repeats := session.repeats_to_schedule()) is not None:
            # ahead of every grade of this session, off the UI thread; the repeats show as
            # their queries are opened (a failure only means none come back this time)
            self.writes.submit(session.database, repeats, lambda _count, _error: None)
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

    def set_active(self, active: bool) -> None:
        """The window became active (check at once, then every few seconds) or not (stop)."""
        if active:
            self.check_in_step()
            self._step_timer.start()
        else:
            self._step_timer.stop()

    def check_in_step(self) -> None:
        """Ask, on a worker, whether another window of this rater changed their judgments;
        ``outOfStep`` if so, once nothing of this window's is on its way."""
        session = self.session
        if session is None or self._step_check is not None or self.in_flight:
            return
        check = Worker(lambda _worker: _out_of_step(session))
        check.signals.returned.connect(lambda stale: self._stepped_out(session, stale))
        check.signals.finished.connect(lambda: setattr(self, "_step_check", None))
        self._step_check = check
        QThreadPool.globalInstance().start(check)

    def _stepped_out(self, session: JudgingSession, stale: bool) -> None:
        if stale and session is self.session and not self.in_flight:
            if not self.note_box.isVisible():
                self.outOfStep.emit()

    def set_keymap(self, keymap: dict[str, str]) -> None:
        self.keymap = keymap
        self._update_rubric()
        self._update_progress()  # the cue names the keys
        for number, button in enumerate(self.skip_buttons, start=1):
            keys = keys_of(keymap, f"skip_reason{number}")
            key = f"{key_label(keys[0])}  " if keys else ""
            button.setText(f"{key}{SKIP_REASONS[number - 1]}")

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
        changed = session.query_index != index
        if changed:
            self._leave_warned = None
            self.skip_strip.hide()
        session.open_query(index)
        self.results_model.reload()
        self.queue_filter.set_current(index)
        self.queue_model.query_changed(index)
        shown = self.queue_filter.mapFromSource(self.queue_model.index(index))
        if shown.isValid():
            self.queue_view.selectionModel().setCurrentIndex(
                shown, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.queue_view.scrollTo(shown)
        else:
            self.queue_view.selectionModel().clearSelection()
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
        if changed:  # the status bar speaks of the open query only
            mine = session.query_progress()
            self.message.emit(
                f"Query {query.external_id}: {mine.done} of {mine.total} results judged", False
            )

    def select_row(self, row: int) -> None:
        if 0 <= row < self.results_model.rowCount():
            self.result_view.selectionModel().setCurrentIndex(
                self.results_model.index(row, Column.TITLE),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.keep_in_view()

    def keep_in_view(self) -> None:
        """Scroll the current result into sight with the one after it (a row of look-ahead),
        where the view has room for both."""
        row = self.current_row
        if row < 0:
            return
        if row + 1 < self.results_model.rowCount():
            self.result_view.scrollTo(self.results_model.index(row + 1, 0))
        self.result_view.scrollTo(self.results_model.index(row, 0))

    def _land(self, row: int) -> None:
        """Move to ``row`` after a grade or skip: its grade, if it has one, is not the
        rater's to change by the next key."""
        self._landing = True
        try:
            self.select_row(row)
        finally:
            self._landing = False
        self._landed = row

    def _chosen(self, *_args: object) -> None:
        """The rater chose the current result (a click, a move, an undo): keys may change it."""
        self._landed = None

    def _current_changed(self, *_args: object) -> None:
        if not self._landing:
            self._landed = None
        self.timer.restart()
        self._close_note(save=True)
        self._show_document()
        row = self.current_row
        if self.session is not None and self.session.query is not None and row >= 0:
            self.placeChanged.emit(self.session.query.id, self.session.items[row].document_id)

    def show_opening(self, title: str, text: str) -> None:
        """Before the session, while a start opens the database or reads the queue: a key
        pressed meanwhile goes to the results, where it does nothing (never into Find)."""
        self.set_session(None)
        self._show_empty(title, text)
        self.result_view.setFocus()

    def _show_empty(self, title: str, text: str) -> None:
        self.query_caption.setText("")
        self.query_text.setText(title)
        self.query_description.setText(text)
        self.document_view.clear()

    def _show_document(self) -> None:
        row = self.current_row
        if self.session is None or not 0 <= row < len(self.session.items):
            self.document_view.clear()
            return
        item = self.session.items[row]
        self._shown_note = item.note
        palette = self.palette()
        muted = muted_text(palette)
        mark = MARK_STYLES["dark" if is_dark(palette) else "light"]
        saved_with = "" if item.judged else " (saved with your grade or skip)"
        note = (
            f'<p style="color:{muted}; border-left:3px solid {muted}; padding-left:8px">'
            f"<b>Your note{saved_with}:</b> {_escape(item.note)}</p>"
            if item.note
            else ""
        )
        pieces = document_pieces(
            item.title, item.external_id, item.url, item.body, self._terms, mark, muted
        )
        last = pieces[-1]  # the note after the text, in its last piece (the first, mostly)
        self.document_view.show_pieces([*pieces[:-1], Piece(last.html + note, last.continues)])

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
        left = mine.total - mine.done
        if mine.total and not left:
            self._show_cue(self._done_cue(), state="done")
        elif session.query is not None and self._leave_warned == session.query.id:
            self._show_cue(self._leave_cue(left), state="warning")
        else:
            self._show_cue(self._keys_cue(), state="")

    def _keys_cue(self) -> str:
        """The keys a rater needs most, in the active key map, for the cue's quiet state."""

        def key(action: str) -> str:
            keys = keys_of(self.keymap, action)
            return f"<b>{_escape(key_label(keys[0]))}</b>" if keys else "–"

        grades = f"{key('grade0')}–{key('grade5')}"
        return (
            f"{grades} grade and go on  ·  {key('skip')} skip  ·  {key('note')} note  ·  "
            f"{key('next_unfinished')} next query  ·  {key('help')} every key"
        )

    def _leave_cue(self, left: int) -> str:
        """What leaving the open query would leave ungraded, counted as it is now."""
        results = "result is" if left == 1 else "results are"
        return (
            f"<b>{left} {results} not graded yet.</b> Press the same key again to "
            f"{self._leaving} anyway, or grade {'it' if left == 1 else 'them'} first."
        )

    def _done_cue(self) -> str:
        """What the banner says once every result of the open query is judged."""
        assert self.session is not None
        if self.session.next_unfinished() is None:
            overall = self.session.overall_progress()
            return (
                f"<b>✓ All done:</b> the {overall.done} results of your "
                f"{len(self.session.queue)} queries are judged. Thank you!"
            )
        keys = keys_of(self.keymap, "next_unfinished")
        enter = _escape(key_label(keys[0])) if keys else "Enter"
        return f"<b>✓ Query done.</b> Press <b>{enter}</b> for the next unfinished query."

    def _show_cue(self, text: str, *, state: str) -> None:
        """Say ``text`` above the results: the keys (``state`` ""), the query ``done``, or a
        ``warning`` of what needs care. The cue keeps its height whatever it says."""
        if self.cue_banner.property("state") != state:
            self.cue_banner.setProperty("state", state)
            self.cue_banner.style().unpolish(self.cue_banner)
            self.cue_banner.style().polish(self.cue_banner)
        self.cue_banner.setText(text)
        self.cue_banner.setToolTip(text)

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
        elif action in ("first", "last"):
            self.select_row(0 if action == "first" else self.results_model.rowCount() - 1)
        elif action == "skip":
            self.skip()
        elif action.startswith("skip_reason"):
            self.give_skip_reason(int(action.removeprefix("skip_reason")))
        elif action == "note":
            self.edit_note()
        elif action == "open_url":
            self.open_url()
        elif action == "find_query":
            self.find_query()
        elif action == "next_unfinished":
            self.next_unfinished()
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
                self._show_cue(self._done_cue(), state="done")
                self.message.emit("Every query of your queue is done", False)
            else:
                self.message.emit("This is the only query with results left to judge", False)
                self.select_row(session.first_unjudged())
        elif self._may_leave("go to the next unfinished query"):
            self.open_query(index)

    def _may_leave(self, going: str) -> bool:
        """Whether to leave the open query: yes if it is done, or if the rater was told once
        what it leaves ungraded (then the same key leaves)."""
        session = self.session
        assert session is not None and session.query is not None
        progress = session.query_progress()
        left = progress.total - progress.done
        if left == 0 or self._leave_warned == session.query.id:
            return True
        self._leave_warned = session.query.id
        self._leaving = going
        self._show_cue(self._leave_cue(left), state="warning")
        results = "result is" if left == 1 else "results are"
        self.message.emit(f"{left} {results} not graded yet in this query", False)
        return False

    def _queue_clicked(self, index: QModelIndex) -> None:
        """A query chosen in the queue: opened at once, saying what was left ungraded."""
        session = self.session
        if session is None:
            return
        target = self.queue_filter.mapToSource(index).row()
        self.queue_search.clear()  # a query found is a search done: the whole queue again
        progress = session.query_progress()
        left = progress.total - progress.done
        leaving = session.query
        self.open_query(target)
        if leaving is not None and left and target != session.queue.index(leaving):
            results = "result" if left == 1 else "results"
            self.message.emit(f"Left {leaving.external_id} with {left} {results} ungraded", False)

    def find_query(self) -> None:
        """Ctrl+F: to the queue's search field."""
        self.queue_search.setFocus()
        self.queue_search.selectAll()

    def open_url(self) -> None:
        """Open the current result's web page in the user's browser."""
        row = self.current_row
        if self.session is None or row < 0:
            return
        url = self.session.items[row].url
        if not url:
            self.message.emit("This result has no web address", False)
            return
        address = QUrl(url.strip(), QUrl.ParsingMode.StrictMode)
        if address.scheme().lower() not in WEB_SCHEMES or not address.host():
            # a file: URL to a program runs it on some systems; javascript:, data: and the
            # like are no web page: only a web address goes to the browser
            self.message.emit(
                f"Not opened: {_shown_url(url)} is no web address (only http and https "
                "addresses open in the browser)",
                True,
            )
        elif QDesktopServices.openUrl(address):
            self.message.emit(f"Opened {_shown_url(url)} in the browser", False)
        else:
            self.message.emit(f"No browser could open {_shown_url(url)}", True)

    # writes ----------------------------------------------------------------------------------

    def grade(self, grade: int) -> None:
        """Grade the current result and move to the next ungraded one. A result the last
        grade or skip moved to (or stayed on, when none was left) keeps the grade it has:
        a key typed past the end of a query never changes a grade the rater did not look
        at; selecting it (a move or a click) does."""
        row = self.current_row
        if self.session is None or row < 0 or self._kept(row):
            return
        change = self.session.grade(row, grade, self.timer.elapsed_ms())
        self.skip_strip.hide()  # out of the way; Alt+1–4 still give the last skip its reason
        self._land(self.session.next_unjudged(row))
        self._submit(change)

    def _kept(self, row: int) -> bool:
        """Is the result at ``row`` one the last grade landed on, judged already? Then it
        keeps its grade, and the rater is told why and what to do."""
        assert self.session is not None
        item = self.session.items[row]
        if row != self._landed or not item.judged:
            return False
        grade = "its skip" if item.skipped else f"grade {item.grade}"
        progress = self.session.query_progress()
        where = (
            "every result of this query is judged"
            if progress.done == progress.total
            else "the grade moved the selection there"
        )
        self.message.emit(
            f"Not changed: {item.external_id} keeps {grade} ({where}). To change it, select "
            "it first (↑ ↓ or a click).",
            False,
        )
        return True

    def _rubric_clicked(self, grade: int) -> None:
        """A grade given with the mouse, as with its key: a double click, like a held-down
        key, grades once (the second click would grade the next result)."""
        now = time.monotonic()
        if now - self._last_click < QApplication.doubleClickInterval() / 1000:
            return
        self._last_click = now
        self.run_action(f"grade{grade}")

    def clear(self) -> None:
        row = self.current_row
        if self.session is not None and row >= 0:
            self._submit(self.session.clear(row))

    def skip(self) -> None:
        """Mark the current result "cannot judge" and go on, as a grade does; the preset
        reasons are offered (Alt+1 to Alt+4) without taking the keys that follow."""
        row = self.current_row
        if self.session is None or row < 0 or self._kept(row):
            return
        change = self.session.skip(row, None, self.timer.elapsed_ms())
        item = self.session.items[row]
        self._skipped_pair = change.pair
        self.skip_prompt.setText(
            f"Skipped {_escape(item.external_id)}. A reason, if you like (it becomes the "
            "note; keep judging otherwise):"
        )
        self.skip_strip.show()
        self._land(self.session.next_unjudged(row))
        self._submit(change)

    def give_skip_reason(self, number: int) -> None:
        """Store preset reason ``number`` (1 to 4) as the note of the result last skipped."""
        session = self.session
        row = session.row_of_pair(self._skipped_pair) if session is not None else None
        if session is None or row is None or not session.items[row].skipped:
            self.message.emit("Skip a result first (s), then give its reason", False)
            return
        self.skip_strip.hide()
        self._skipped_pair = None
        change = session.set_note(row, SKIP_REASONS[number - 1])
        if change is not None:
            self._submit(change)

    def edit_note(self) -> None:
        if self.session is not None and self.current_row >= 0:
            self._open_note()

    def undo(self) -> None:
        if self.session is not None:
            self._chosen()
            self._submit(self.session.undo())

    def redo(self) -> None:
        if self.session is not None:
            self._chosen()
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
            elsewhere = change.pair is not None or outcome.event is not None
            if outcome.ok and row is None and elsewhere:  # another query's: saved, unsaid
                self.error_banner.hide()
            else:
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

    def _open_note(self) -> None:
        assert self.session is not None
        self._note_row = self.current_row
        item = self.session.items[self._note_row]
        later = "" if item.judged else "; saved with your grade"
        self.note_prompt.setText(f"Note on {item.external_id} (Enter saves{later}, Esc cancels)")
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
                change = self.session.set_note(row, text or None)
                if change is None:  # not judged yet: shown, written with the grade
                    self.results_model.row_changed(row)
                    self._show_document()
                else:
                    self._submit(change)
        self.result_view.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.queue_search:  # (built before the note editor)
            if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
                if self._search_key(event):
                    return True
            return super().eventFilter(watched, event)
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

    def _search_key(self, event: QKeyEvent) -> bool:
        """Enter opens the first query found, Esc clears the search; both go back to the
        results."""
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            found = self.queue_filter.first_match()
            if found is None:
                self.message.emit("No query of your queue matches", False)
                return True
            self.queue_search.clear()  # found: the queue shows every query again
            self.result_view.setFocus()
            if self.session is not None and found != self.session.query_index:
                self.open_query(found)
            return True
        if key == Qt.Key.Key_Escape:
            self.queue_search.clear()
            self.result_view.setFocus()
            return True
        return False


class QueueFilter(QSortFilterProxyModel):
    """The queue as shown: the queries whose id or text holds the search text, all of them or
    only those with results left to judge; the open query always stays in sight."""

    def __init__(self, queue: QueueModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSourceModel(queue)
        self._text = ""
        self._unfinished_only = False
        self._current = -1

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "_text", text.strip().casefold()))

    def set_unfinished_only(self, unfinished_only: bool) -> None:
        self._refilter(lambda: setattr(self, "_unfinished_only", unfinished_only))

    def set_current(self, row: int) -> None:
        """The open query's row of the queue: shown whatever the filter."""
        if row != self._current:
            self._refilter(lambda: setattr(self, "_current", row))

    def _refilter(self, change: Callable[[], None]) -> None:
        """Make ``change`` to the filter and show its rows again."""
        if hasattr(self, "endFilterChange"):  # Qt 6.10 and later
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateRowsFilter()

    def first_match(self) -> int | None:
        """The queue row of the first query shown other than the open one, else the open one."""
        rows = [self.mapToSource(self.index(row, 0)).row() for row in range(self.rowCount())]
        others = [row for row in rows if row != self._current]
        first = others or rows
        return first[0] if first else None

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:  # type: ignore[override]
        if source_row == self._current:
            return True
        index = self.sourceModel().index(source_row, 0, source_parent)
        if self._unfinished_only and index.data(Role.COMPLETE):
            return False
        if not self._text:
            return True
        shown = f"{index.data(Qt.ItemDataRole.DisplayRole)} {index.data(Role.PROGRESS)}"
        return self._text in shown.casefold()


def _out_of_step(session: JudgingSession) -> bool:
    with session.database.reading() as reading:
        return session.out_of_step(reading)


def _key_id(event: QKeyEvent) -> int:
    """The physical key where the system says which it is, else Qt's key code."""
    return event.nativeScanCode() or event.key()


def _shown_url(url: str) -> str:
    """``url`` as the status bar shows it: on one line, at most ``URL_SHOWN`` characters."""
    text = " ".join(url.split())
    return text if len(text) <= URL_SHOWN else text[: URL_SHOWN - 1] + "…"


def _escape(text: str | None) -> str:
    return html.escape(text or "")
