"""The adjudication screen: the documents the raters grade two or more apart, each with every
rater's grade, note and time beside the document, and one key to decide it.

A decision is the lead's grade stored as the rater ``adjudicated`` (never over a rater's): it
is shown at once and written off the UI thread by an ordered write queue; the list, the
progress and the status bar say when it is saved or why it is not. The decisions themselves
(what is decided, what comes next, undo) live in ``commands.adjudicate.Adjudication``. A
decided pair can be marked gold with its decided grade (``commands.gold``): a grade raters
are checked against later, which is nobody's judgment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.adjudicate import (
    MAX_RATER_KEYS,
    Adjudication,
    Decision,
    Dispute,
    Disputes,
    Opinion,
    read_disputes,
)
from judge_app.commands.gold import GoldOptions, GoldOutcome, gold
from judge_app.errors import in_words
from judge_app.gui.delegates import GradeBadgeDelegate, TwoLineDelegate
from judge_app.gui.document_view import DocumentView
from judge_app.gui.key_events import key_names
from judge_app.gui.models import Role
from judge_app.gui.panes import as_list, banner, captioned
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import MARK_STYLES, grade_colour, is_dark, muted_text, text_on
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace
from judge_app.judging.highlight import document_pieces, query_terms
from judge_app.judging.keys import ADJUDICATION_KEYMAP, ADJUDICATION_REPEATS
from judge_app.store import open_database
from judge_app.store.models import JudgmentEvent
from judge_app.store.write_queue import WriteQueue

_Index = QModelIndex | QPersistentModelIndex
ITEM, GRADES, DECISION = range(3)
HEADERS = ("Disagreement", "Grades", "Decision")
SHORTCUTS: tuple[tuple[str, tuple[tuple[tuple[str, ...], str], ...]], ...] = (
    (
        "Deciding",
        (
            (("1–9",), "Accept the grade of the rater with that number"),
            (("G", "0–5"), "Give your own grade"),
            (("Esc",), "Cancel G"),
            (("Ctrl+Z",), "Undo the last decision"),
            (("Ctrl+G",), "Mark the decided pair as gold"),
        ),
    ),
    (
        "Moving",
        (
            (("N", "Enter"), "Next undecided (also Tab)"),
            (("P",), "Previous undecided (also Shift+Tab)"),
            (("↓", "J"), "Next in the list"),
            (("↑", "K"), "Previous in the list"),
            (("?",), "These shortcuts"),
        ),
    ),
)
HINT = (
    "<b>1–{n}</b> accept a rater’s grade · <b>G</b> then <b>0–5</b> your own grade · "
    "<b>N</b>/<b>Enter</b> next undecided · <b>P</b> previous · <b>Ctrl+Z</b> undo · "
    "<b>Ctrl+G</b> mark as gold · <b>?</b> all keys"
)


def duration_text(ms: int | None) -> str:
    """A judgment's time as people read it: "12 s", "2 min 05 s"."""
    if ms is None:
        return "time not recorded"
    seconds = round(ms / 1000)
    if seconds < 60:
        return f"{seconds} s" if ms >= 1000 else f"{ms:,} ms"
    return f"{seconds // 60} min {seconds % 60:02d} s"


class DisputeModel(QAbstractTableModel):
    """The disagreements: which document, the raters' grades, the lead's decision (saving,
    saved or not saved)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.adjudication: Adjudication | None = None
        self.pending: dict[int, int] = {}  # row: decisions on their way
        self.failed: set[int] = set()

    def set_adjudication(self, adjudication: Adjudication | None) -> None:
        self.beginResetModel()
        self.adjudication = adjudication
        self.pending.clear()
        self.failed.clear()
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() or self.adjudication is None:
            return 0
        return len(self.adjudication.items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if self.adjudication is None or not index.isValid():
            return None
        row, column = index.row(), index.column()
        item = self.adjudication.items[row]
        decided = self.adjudication.decided[row]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == ITEM:
                return f"{item.query_id} · {item.doc_id}"
            if column == GRADES:
                return " · ".join(map(str, item.grades))
            return "" if decided is None else str(decided)
        if role == Role.PROGRESS:
            return item.query_text or "(no query text)"
        if role == Role.COMPLETE:
            return decided is not None
        if role == Role.GRADE:
            return decided
        if role == Role.PENDING:
            return bool(self.pending.get(row))
        if role == Role.UNSAVED:
            return "not saved" if row in self.failed else None
        if role == Qt.ItemDataRole.ToolTipRole:
            state = "undecided" if decided is None else f"decided {decided}"
            given = ", ".join(f"{o.rater} {_grade_word(o)}" for o in item.opinions)
            return plain_tip(f"{item.query_id} · {item.doc_id}: {given}; {state}")
        if role == Qt.ItemDataRole.TextAlignmentRole and column == GRADES:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))


class DisputeList(QTableView):
    """The list of disagreements: every key press goes to the screen first (Tab included)."""

    def __init__(self, screen: AdjudicationScreen) -> None:
        super().__init__()
        self._screen = screen

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)
            and self._screen.handle_key(event)
        ):
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._screen.handle_key(event):
            event.accept()
            return
        super().keyPressEvent(event)


class RaterCard(QFrame):
    """One rater's judgment: the key that accepts it, the grade as a coloured badge, the
    note and the time it took. Clicking it accepts the grade."""

    clicked = Signal()

    def __init__(self, number: int, opinion: Opinion, label: str) -> None:
        super().__init__()
        self.setObjectName("raterCard")
        self.setProperty("chosen", False)
        self.opinion = opinion
        self.setCursor(
            Qt.CursorShape.PointingHandCursor
            if opinion.grade is not None
            else Qt.CursorShape.ArrowCursor
        )
        layout = QGridLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setHorizontalSpacing(10)
        layout.setVerticalSpacing(4)
        self.key = QLabel(str(number) if number <= MAX_RATER_KEYS else "")
        self.key.setObjectName("keyCap")
        self.key.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.key.setFixedWidth(26)
        name = QLabel(opinion.rater)
        name.setTextFormat(PLAIN)
        name.setObjectName("raterName")
        self.badge = QLabel()
        self.badge.setObjectName("gradeBadge")
        self.badge.setTextFormat(Qt.TextFormat.PlainText)
        if opinion.grade is not None:
            colour = grade_colour(opinion.grade)
            self.badge.setText(f"{opinion.grade} · {label}")
            self.badge.setStyleSheet(
                f"background:{colour.name()}; color:{text_on(colour).name()};"
                "border-radius:10px; padding:2px 10px; font-weight:600;"
            )
        else:
            self.badge.setText("skipped · cannot judge")
            self.badge.setStyleSheet(
                f"border:1px solid {grade_colour(None, True).name()}; border-radius:10px;"
                "padding:1px 9px;"
            )
        self.badge.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        time = QLabel(duration_text(opinion.duration_ms))
        time.setObjectName("raterTime")
        time.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        note = QLabel(f"“{opinion.note}”" if opinion.note else "No note")
        note.setObjectName("raterNote" if opinion.note else "raterNoNote")
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.key, 0, 0)
        layout.addWidget(name, 0, 1)
        layout.addWidget(time, 0, 2)
        layout.addWidget(self.badge, 1, 1, 1, 2, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(note, 2, 1, 1, 2)
        layout.setColumnStretch(1, 1)
        self.setToolTip(
            plain_tip(
                f"Press {number} to accept {opinion.rater}'s grade"
                if opinion.grade is not None and number <= MAX_RATER_KEYS
                else f"{opinion.rater} gave no grade"
            )
        )

    def set_chosen(self, chosen: bool) -> None:
        """Outline the card whose grade the decision took."""
        if self.property("chosen") != chosen:
            self.setProperty("chosen", chosen)
            self.style().unpolish(self)
            self.style().polish(self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.opinion.grade is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


class AdjudicationScreen(QWidget):
    """A lead deciding the disagreements of the open database, one key each."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    backRequested = Signal()  # to the agreement page
    idle = Signal()  # every decision asked for is written (or failed)
    # (decision, event, error): a decision written, from the write queue's thread
    _settled = Signal(object, object, object)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adjudicationScreen")
        self.workspace = workspace
        self.adjudication: Adjudication | None = None
        self.writes = WriteQueue()
        self.in_flight = 0
        self.choosing_grade = False  # G was pressed: a grade key 0–5 follows
        self.cards: list[RaterCard] = []
        self._terms: list[str] = []
        self._settled.connect(self._settle)
        workspace.campaignChanged.connect(self._campaign_changed)
        self._build()

    # building ----------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_header())
        self.error_banner = banner("errorBanner")
        layout.addWidget(self.error_banner)

        self.model = DisputeModel(self)
        self.list_view = DisputeList(self)
        self.list_view.setObjectName("disputeList")
        self.list_view.setModel(self.model)
        self.list_view.setItemDelegateForColumn(
            ITEM, TwoLineDelegate(Role.PROGRESS, Role.COMPLETE, self)
        )
        self.list_view.setItemDelegateForColumn(DECISION, GradeBadgeDelegate(self))
        as_list(self.list_view, int(self.list_view.fontMetrics().height() * 2.2) + 14)
        self.list_view.setTabKeyNavigation(False)
        self.list_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.list_view.horizontalHeader()
        header.setSectionResizeMode(ITEM, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(GRADES, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DECISION, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(DECISION, 84)
        self.list_view.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self._show_item(current.row())
        )
        left = captioned("Disagreements", self.list_view)
        left.setMinimumWidth(240)

        self.detail = QStackedWidget()
        self.detail.addWidget(self._build_item_page())
        self.detail.addWidget(self._build_message_page())

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([310, 900])
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(16, 12, 16, 8)
        body_layout.addWidget(self.splitter)
        layout.addWidget(body, 1)
        self.hint = QLabel()
        self.hint.setObjectName("adjudicationHint")
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)

    def _build_header(self) -> QWidget:
        header = QFrame()
        header.setObjectName("queryHeader")
        layout = QHBoxLayout(header)
        layout.setContentsMargins(20, 12, 20, 12)
        layout.setSpacing(16)
        left = QVBoxLayout()
        left.setSpacing(2)
        caption = QLabel("ADJUDICATING")
        caption.setObjectName("queryCaption")
        self.progress_label = QLabel()
        self.progress_label.setObjectName("adjudicationProgress")
        left.addWidget(caption)
        left.addWidget(self.progress_label)
        layout.addLayout(left)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("overallProgress")
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMinimumWidth(120)
        self.progress_bar.setMaximumWidth(320)
        layout.addWidget(self.progress_bar, 1, Qt.AlignmentFlag.AlignVCenter)
        layout.addStretch(0)
        self.help_button = QPushButton("Keys  ?")
        self.help_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.help_button.clicked.connect(self.helpRequested)
        self.back_button = QPushButton("Back to agreement")
        self.back_button.setObjectName("backToAgreement")
        self.back_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.back_button.clicked.connect(self.backRequested)
        layout.addWidget(self.help_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignVCenter)
        return header

    def _build_item_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(12, 0, 0, 0)
        layout.setSpacing(8)
        self.item_caption = QLabel()
        self.item_caption.setObjectName("paneCaption")
        self.query_text = QLabel()
        self.query_text.setObjectName("adjudicationQuery")
        self.query_text.setWordWrap(True)
        self.query_text.setTextFormat(Qt.TextFormat.PlainText)
        self.query_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel()
        self.summary.setObjectName("adjudicationSummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.item_caption)
        layout.addWidget(self.query_text)
        layout.addWidget(self.summary)

        self.document_view = DocumentView()

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.setSpacing(6)
        caption = QLabel("THE RATERS’ GRADES")
        caption.setObjectName("paneCaption")
        side_layout.addWidget(caption)
        self.cards_box = QWidget()
        self.cards_box.setObjectName("raterCards")
        self.cards_layout = QVBoxLayout(self.cards_box)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(8)
        scroll = QScrollArea()
        scroll.setObjectName("raterScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setWidget(self.cards_box)
        side_layout.addWidget(scroll, 1)
        side_layout.addWidget(self._build_own_grade())
        side.setMinimumWidth(260)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(captioned("Document", self.document_view))
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([520, 340])
        self.document_split = split
        layout.addWidget(split, 1)
        return page

    def _build_own_grade(self) -> QWidget:
        box = QFrame()
        box.setObjectName("ownGrade")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(12, 10, 12, 12)
        layout.setSpacing(8)
        self.own_caption = QLabel()
        self.own_caption.setObjectName("ownGradeCaption")
        self.own_caption.setWordWrap(True)
        layout.addWidget(self.own_caption)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.grade_buttons: list[QPushButton] = []
        for grade in range(6):
            button = QPushButton(str(grade))
            button.setObjectName(f"ownGrade{grade}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setMinimumHeight(32)
            button.setMinimumWidth(32)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            button.clicked.connect(lambda _checked=False, g=grade: self.give_grade(g))
            self.grade_buttons.append(button)
            row.addWidget(button)
        layout.addLayout(row)
        self.decision_label = QLabel()
        self.decision_label.setObjectName("decisionState")
        self.decision_label.setWordWrap(True)
        layout.addWidget(self.decision_label)
        self.gold_button = QPushButton("Mark as gold  (Ctrl+G)")
        self.gold_button.setObjectName("markGold")
        self.gold_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.gold_button.setToolTip(
            "Mark this pair gold with the decided grade: raters' grades of it are checked "
            "against it later. It is no rater's judgment."
        )
        self.gold_button.setEnabled(False)
        self.gold_button.clicked.connect(lambda _checked=False: self.mark_gold())
        layout.addWidget(self.gold_button)
        return box

    def _build_message_page(self) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        outer.addStretch(1)
        card = self.done_card = QFrame()
        card.setObjectName("doneCard")
        card.setFixedWidth(520)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        self.done_title = QLabel()
        self.done_title.setObjectName("doneTitle")
        self.done_title.setWordWrap(True)
        self.done_text = QLabel()
        self.done_text.setObjectName("doneText")
        self.done_text.setWordWrap(True)
        buttons = QHBoxLayout()
        self.done_back = QPushButton("Back to the agreement page")
        self.done_back.setDefault(True)
        self.done_back.clicked.connect(self.backRequested)
        self.review_button = QPushButton("Review the decisions")
        self.review_button.clicked.connect(lambda: self.select_row(0))
        buttons.addWidget(self.done_back)
        buttons.addWidget(self.review_button)
        buttons.addStretch(1)
        for widget in (self.done_title, self.done_text):
            layout.addWidget(widget)
        layout.addSpacing(6)
        layout.addLayout(buttons)
        outer.addWidget(card, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(2)
        return page

    # loading -----------------------------------------------------------------------------------

    def open_at(self, query_id: str | None = None, doc_id: str | None = None) -> Task | None:
        """Read the disagreements afresh (off the UI thread, once the decisions on their way
        are written) and show (query_id, doc_id), or the first undecided one."""
        if self.in_flight:
            self.idle.connect(
                lambda: self.open_at(query_id, doc_id), Qt.ConnectionType.SingleShotConnection
            )
            return None
        running = self.workspace.task
        if running is not None and running.running:  # one task at a time: read after it
            self.workspace.taskFinished.connect(
                lambda _task: self.open_at(query_id, doc_id),
                Qt.ConnectionType.SingleShotConnection,
            )
            return None
        if self.workspace.database is None:
            return None
        url = self.workspace.database_url()

        def work(_worker: Worker) -> Disputes:
            with open_database(url, read_only=True) as database:
                return read_disputes(database)

        self.progress_label.setText("Reading the disagreements…")
        task = self.workspace.run_task("Reading the disagreements", work)
        task.returned.connect(lambda disputes: self.set_disputes(disputes, query_id, doc_id))
        task.errored.connect(
            lambda error: self.message.emit(f"Cannot read the disagreements: {error}", True)
        )
        return task

    def _campaign_changed(self) -> None:
        """An import or a lead's change: read the list again where it is shown."""
        if self.isVisible() and self.adjudication is not None:
            row = self.current_row
            item = self.adjudication.items[row] if row >= 0 else None
            self.open_at(*((item.query_id, item.doc_id) if item else (None, None)))

    def set_disputes(
        self, disputes: Disputes, query_id: str | None = None, doc_id: str | None = None
    ) -> None:
        """Show ``disputes``, at (query_id, doc_id) if listed, else at the first undecided."""
        adjudication = Adjudication(disputes)
        self.adjudication = adjudication
        self.model.set_adjudication(adjudication)
        self.error_banner.hide()
        self.hint.setText(HINT.format(n=min(_most_raters(disputes.items), MAX_RATER_KEYS)))
        self._update_progress()
        if not adjudication.items:
            self._show_message_page()
            return
        found = None if query_id is None or doc_id is None else adjudication.find(query_id, doc_id)
        if found is None:
            found = adjudication.next_undecided(-1)
        if found is None:
            self._show_message_page()
        else:
            self.select_row(found)
        self.list_view.setFocus()

    # showing -----------------------------------------------------------------------------------

    @property
    def current_row(self) -> int:
        return self.list_view.currentIndex().row()

    def select_row(self, row: int) -> None:
        """Show item ``row`` (and leave the done state)."""
        index = self.model.index(row, ITEM)
        if not index.isValid():
            return
        self.detail.setCurrentIndex(0)
        self.list_view.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.list_view.scrollTo(index)
        self._show_item(row)
        self.list_view.setFocus()

    def _show_item(self, row: int) -> None:
        adjudication = self.adjudication
        self._cancel_grade_choice()
        if adjudication is None or not 0 <= row < len(adjudication.items):
            return
        self.detail.setCurrentIndex(0)
        item = adjudication.items[row]
        labels = [label.label for label in adjudication.disputes.scale]
        self.item_caption.setText(f"QUERY {item.query_id}  ·  DOCUMENT {item.doc_id}")
        self.query_text.setText(item.query_text or f"Query {item.query_id} (no text)")
        self._terms = query_terms(item.query_text)
        self._show_document(item)
        while (child := self.cards_layout.takeAt(0)) is not None:
            if (widget := child.widget()) is not None:
                widget.deleteLater()
        self.cards = []
        for number, opinion in enumerate(item.opinions, start=1):
            label = labels[opinion.grade] if opinion.grade is not None else ""
            card = RaterCard(number, opinion, label)
            card.clicked.connect(lambda n=number: self.accept(n))
            self.cards.append(card)
            self.cards_layout.addWidget(card)
        self.cards_layout.addStretch(1)
        for step, button in zip(adjudication.disputes.scale, self.grade_buttons):
            button.setToolTip(
                plain_tip(f"Your grade {step.grade} · {step.label}: {step.description}")
            )
        self._show_decision(row)

    def _show_document(self, item: Dispute) -> None:
        palette = self.palette()
        mark = MARK_STYLES["dark" if is_dark(palette) else "light"]
        self.document_view.show_pieces(
            document_pieces(
                item.title, item.doc_id, item.url, item.body, self._terms, mark, muted_text(palette)
            )
        )

    def _show_decision(self, row: int) -> None:
        """The summary line, the chosen card and the decision's state for item ``row``."""
        assert self.adjudication is not None
        item = self.adjudication.items[row]
        decided = self.adjudication.decided[row]
        grades = item.grades
        given = ", ".join(map(str, grades[:-1])) + f" and {grades[-1]}" if grades else "nothing"
        summary = f"The raters gave {given}: {item.spread} apart."
        if decided is None:
            state = "<b>Undecided</b>"
        else:
            label = self.adjudication.disputes.scale[decided].label
            state = f"<b>Decided: {decided} · {label}</b> — {self._save_state(row)}"
        self.summary.setText(summary)
        self.decision_label.setText(state)
        self.decision_label.setProperty("failed", row in self.model.failed)
        self.decision_label.style().unpolish(self.decision_label)
        self.decision_label.style().polish(self.decision_label)
        for card in self.cards:
            card.set_chosen(decided is not None and card.opinion.grade == decided)
        for grade, button in enumerate(self.grade_buttons):
            _paint_grade_button(button, grade, grade == decided, self.palette())
        self.gold_button.setEnabled(self._gold_ready(row))
        self._show_grade_caption()

    def _save_state(self, row: int) -> str:
        if self.model.pending.get(row):
            return "saving…"
        if row in self.model.failed:
            return "not saved"
        return "saved"

    def _show_grade_caption(self) -> None:
        self.own_caption.setText(
            "<b>Your grade: press 0–5</b> (Esc cancels)"
            if self.choosing_grade
            else "YOUR OWN GRADE · <b>G</b>, then <b>0–5</b>"
        )
        self.own_caption.setProperty("active", self.choosing_grade)
        self.own_caption.style().unpolish(self.own_caption)
        self.own_caption.style().polish(self.own_caption)

    def _update_progress(self) -> None:
        if self.adjudication is None:
            return
        done, total = self.adjudication.progress()
        self.progress_label.setText(self.adjudication.progress_text())
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)
        if self.detail.currentIndex() == 1 or self.adjudication.done():
            self._fill_message_page()

    def _show_message_page(self) -> None:
        self._fill_message_page()
        self.detail.setCurrentIndex(1)
        self.list_view.clearSelection()

    def _fill_message_page(self) -> None:
        assert self.adjudication is not None
        total = len(self.adjudication.items)
        if not total:
            self.done_title.setText("No disagreements to decide")
            self.done_text.setText(
                "No two raters grade a document two or more apart. New judgments may change "
                "that: the agreement page lists them as they come."
            )
        else:
            noun = "disagreement" if total == 1 else "disagreements"
            self.done_title.setText(
                f"All {total:,} {noun} decided" if total > 1 else f"The {noun} is decided"
            )
            self.done_text.setText(
                "Each decision is stored as the rater “adjudicated”: the evaluation prefers it "
                "to the raters’ grades, and agreement leaves it out. Ctrl+Z takes back the "
                "last one."
            )
        self.review_button.setVisible(total > 0)
        self.done_card.setMinimumHeight(self.done_card.heightForWidth(self.done_card.width()))

    def apply_palette(self) -> None:
        """Re-render what depends on the palette (the document's marks)."""
        row = self.current_row
        if self.adjudication is not None and 0 <= row < len(self.adjudication.items):
            self._show_document(self.adjudication.items[row])
            self._show_decision(row)

    # keys --------------------------------------------------------------------------------------

    def handle_key(self, event: QKeyEvent) -> bool:
        """Do what the key means on this screen (``ADJUDICATION_KEYMAP``); True if it was one
        of ours. After G, a digit 0–5 is the lead's own grade and any other key cancels."""
        action = next(
            (ADJUDICATION_KEYMAP[name] for name in key_names(event) if name in ADJUDICATION_KEYMAP),
            None,
        )
        if self.choosing_grade:
            digit = _digit(event)
            if digit is not None and 0 <= digit <= 5:
                if not event.isAutoRepeat():
                    self.give_grade(digit)
                return True
            self._cancel_grade_choice()
            return action in ("cancel", "own_grade")
        if action is None or action == "cancel":
            return False
        if event.isAutoRepeat() and action not in ADJUDICATION_REPEATS:
            return True  # held down, a decision is not made again
        if action.startswith("accept"):
            self.accept(int(action.removeprefix("accept")))
            return True
        self._actions[action]()
        return True

    @property
    def _actions(self) -> dict[str, Callable[[], object]]:
        """What each action of ``ADJUDICATION_KEYMAP`` (but accepting a grade) does."""
        rows = self.model.rowCount()
        return {
            "undo": self.undo,
            "gold": self.mark_gold,
            "help": self.helpRequested.emit,
            "own_grade": self._choose_grade,
            "next_undecided": lambda: self.step_undecided(1),
            "previous_undecided": lambda: self.step_undecided(-1),
            "next_row": lambda: self.select_row(min(self.current_row + 1, rows - 1)),
            "previous_row": lambda: self.select_row(max(self.current_row - 1, 0)),
        }

    def _choose_grade(self) -> None:
        if self.adjudication is None or self.current_row < 0:
            return
        self.choosing_grade = True
        self._show_grade_caption()
        self.message.emit("Your own grade: press 0–5 (Esc cancels)", False)

    def _cancel_grade_choice(self) -> None:
        if self.choosing_grade:
            self.choosing_grade = False
            self._show_grade_caption()

    def step_undecided(self, step: int) -> None:
        """Show the next (``step`` 1) or previous (-1) undecided disagreement."""
        if self.adjudication is None or not self.adjudication.items:
            return
        found = self.adjudication.next_undecided(self.current_row, step)
        if found is None:
            self._show_message_page()
            self.message.emit(f"Every disagreement is decided: {self._progress()}", False)
        else:
            self.select_row(found)

    # decisions ---------------------------------------------------------------------------------

    def accept(self, number: int) -> None:
        """Decide the current item with its ``number``-th rater's grade (from 1)."""
        row = self.current_row
        if self.adjudication is None or row < 0:
            return
        decision = self.adjudication.accept(row, number)
        if decision is None:
            opinions = self.adjudication.items[row].opinions
            why = (
                f"{opinions[number - 1].rater} gave no grade"
                if number <= len(opinions)
                else f"there are {len(opinions)} raters here"
            )
            self.message.emit(f"No grade to accept with {number}: {why}", False)
            return
        self._decided(decision)

    def give_grade(self, grade: int) -> None:
        """Decide the current item with the lead's own ``grade``."""
        row = self.current_row
        self.choosing_grade = False
        if self.adjudication is None or row < 0:
            self._show_grade_caption()
            return
        self._decided(self.adjudication.decide(row, grade))

    def undo(self) -> None:
        """Take back the last decision (written like any other), and show its item."""
        if self.adjudication is None:
            return
        decision = self.adjudication.undo()
        if decision is None:
            self.message.emit("No decision to undo", False)
            return
        self._submit(decision)
        self.select_row(decision.index)

    def _decided(self, decision: Decision) -> None:
        """Show ``decision``, write it, and move on to the next undecided item (or the done
        state)."""
        self._submit(decision)
        assert self.adjudication is not None
        following = self.adjudication.next_undecided(decision.index)
        if following is None:
            self._show_message_page()
        else:
            self.select_row(following)

    def _submit(self, decision: Decision) -> None:
        database = self.workspace.database
        assert database is not None and self.adjudication is not None
        row = decision.index
        self.in_flight += 1
        self.model.pending[row] = self.model.pending.get(row, 0) + 1
        self.model.failed.discard(row)
        self.model.row_changed(row)
        self._refresh_row(row)
        item = self.adjudication.items[row]
        what = "undecided" if decision.grade is None else f"{decision.grade} ({decision.source})"
        self.message.emit(f"{item.query_id} · {item.doc_id}: {what} — saving…", False)
        self.writes.submit(
            database,
            decision.write,
            lambda event, error: self._settled.emit(decision, event, error),
        )

    def _settle(
        self, decision: Decision, _event: JudgmentEvent | None, error: BaseException | None
    ) -> None:
        self.in_flight -= 1
        row = decision.index
        adjudication = self.adjudication
        if adjudication is not None and row < len(adjudication.items):
            self.model.pending[row] -= 1
            text = adjudication.settle(decision, error)
            if error is not None:
                self.model.failed.add(row)
                self.error_banner.setText(
                    f"<b>{text}</b>. The item is undecided again: decide it again to retry."
                )
                self.error_banner.show()
            else:
                self.error_banner.hide()
            self.model.row_changed(row)
            self._refresh_row(row)
            self.message.emit(f"{text} · {self._progress()}", error is not None)
        if self.in_flight == 0:
            self.idle.emit()

    def _refresh_row(self, row: int) -> None:
        """Update what shows item ``row``'s decision, and the progress."""
        self._update_progress()
        if row == self.current_row and self.detail.currentIndex() == 0:
            self._show_decision(row)

    def _progress(self) -> str:
        return self.adjudication.progress_text() if self.adjudication else ""

    # gold --------------------------------------------------------------------------------------

    def _gold_ready(self, row: int) -> bool:
        """Can item ``row`` be marked gold: decided, and the decision saved."""
        return (
            self.adjudication is not None
            and self.adjudication.decided[row] is not None
            and not self.model.pending.get(row)
            and row not in self.model.failed
        )

    def mark_gold(self) -> Task | None:
        """Mark the current pair gold with its decided grade, off the UI thread (through the
        use case of ``judge-app gold --mark``); None if it cannot be now (the status bar
        says why)."""
        row = self.current_row
        database = self.workspace.database
        if self.adjudication is None or database is None or row < 0:
            return None
        item, grade = self.adjudication.items[row], self.adjudication.decided[row]
        where = f"{item.query_id} · {item.doc_id}"
        if grade is None or not self._gold_ready(row):
            why = "decide it first" if grade is None else "wait until its decision is saved"
            self.message.emit(f"{where} cannot be marked gold yet: {why}", False)
            return None
        if self.workspace.busy():
            return None
        options = GoldOptions(mark=((item.query_id, item.doc_id, grade),))
        handle = database.share()  # the work's own, should the window close its database

        def work(_worker: Worker) -> GoldOutcome:
            with handle:
                return gold(handle, options)

        self.message.emit(f"{where}: marking gold with grade {grade}…", False)
        task = self.workspace.run_task("Marking gold", work, cancellable=False)
        task.returned.connect(lambda outcome: self._marked_gold(where, grade, outcome))
        task.errored.connect(
            lambda error: self.message.emit(
                f"{where} was not marked gold: {' '.join(in_words(error).splitlines())}", True
            )
        )
        return task

    def _marked_gold(self, where: str, grade: int, outcome: GoldOutcome) -> None:
        text = f"Gold: {where} marked with grade {grade}"
        self.message.emit("; ".join([text, *outcome.warnings]), False)

    def shortcut_groups(self) -> Sequence[tuple[str, Sequence[tuple[Sequence[str], str]]]]:
        """The keys of this screen, for the shortcut overlay."""
        return SHORTCUTS


def _paint_grade_button(button: QPushButton, grade: int, chosen: bool, palette: QPalette) -> None:
    """A grade button in its grade's colour, outlined when it is the decision."""
    colour = grade_colour(grade)
    outline = palette.color(QPalette.ColorRole.Text).name() if chosen else colour.name()
    button.setStyleSheet(
        f"QPushButton {{ background: {colour.name()}; color: {text_on(colour).name()};"
        f" border: 2px solid {outline}; border-radius: 6px; font-weight: 700; }}"
        f" QPushButton:hover {{ border-color: {palette.color(QPalette.ColorRole.Text).name()}; }}"
    )


def _digit(event: QKeyEvent) -> int | None:
    """The digit a key press typed (main row or keypad), or None."""
    text = event.text()
    return int(text) if len(text) == 1 and text in "0123456789" else None


def _grade_word(opinion: Opinion) -> str:
    return "skipped" if opinion.grade is None else str(opinion.grade)


def _most_raters(items: list[Dispute]) -> int:
    return max((len(item.opinions) for item in items), default=2)
