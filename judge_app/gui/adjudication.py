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
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
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
from judge_app.gui.delegates import GradeBadgeDelegate, TwoLineDelegate
from judge_app.gui.dispute_view import AdjudicationHeader, DisputeDetail, DoneCard
from judge_app.gui.error_words import error_text
from judge_app.gui.key_events import key_names
from judge_app.gui.models import Role
from judge_app.gui.panes import as_list, banner, captioned, screen_column
from judge_app.gui.plain import plain_tip
from judge_app.gui.screen_writes import ScreenWrites
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace
from judge_app.judging.keys import ADJUDICATION_KEYMAP, ADJUDICATION_REPEATS
from judge_app.store import open_database
from judge_app.store.models import JudgmentEvent

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


class AdjudicationScreen(QWidget):
    """A lead deciding the disagreements of the open database, one key each."""

    message = Signal(str, bool)  # text for the status bar, is it an error
    helpRequested = Signal()
    backRequested = Signal()  # to the agreement page
    idle = Signal()  # every decision asked for is written (or failed)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adjudicationScreen")
        self.workspace = workspace
        self.adjudication: Adjudication | None = None
        self.writes = ScreenWrites(self)
        self.writes.settled.connect(self._settle)
        self.writes.idle.connect(self.idle)
        self.writes.waiting.connect(lambda text: self.message.emit(text, False))
        self.choosing_grade = False  # G was pressed: a grade key 0–5 follows
        workspace.campaignChanged.connect(self._campaign_changed)
        self._build()

    def _build(self) -> None:
        self.header = AdjudicationHeader()
        self.header.help_button.clicked.connect(self.helpRequested)
        self.header.back_button.clicked.connect(self.backRequested)
        self.error_banner = banner("errorBanner")
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

        self.dispute = DisputeDetail()
        self.dispute.accepted.connect(self.accept)
        self.dispute.graded.connect(self.give_grade)
        self.dispute.goldRequested.connect(self.mark_gold)
        self.done = DoneCard()
        self.done.back_button.clicked.connect(self.backRequested)
        self.done.review_button.clicked.connect(lambda: self.select_row(0))
        self.detail = QStackedWidget()
        self.detail.addWidget(self.dispute)
        self.detail.addWidget(self.done)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([310, 900])
        self.hint = QLabel()
        self.hint.setObjectName("adjudicationHint")
        self.hint.setWordWrap(True)
        top = (self.header, self.error_banner, self.writes.banner)
        screen_column(self, top, self.splitter, (16, 12, 16, 8), self.hint)

    @property
    def in_flight(self) -> int:
        """Decisions asked for and not yet written (or failed)."""
        return self.writes.in_flight

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

        self.header.progress_label.setText("Reading the disagreements…")
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
        self.dispute.show_dispute(adjudication.items[row], adjudication.disputes.scale)
        self._show_decision(row)

    def _show_decision(self, row: int) -> None:
        """The summary line, the chosen card and the decision's state for item ``row``."""
        assert self.adjudication is not None
        grades = self.adjudication.items[row].grades
        decided = self.adjudication.decided[row]
        given = ", ".join(map(str, grades[:-1])) + f" and {grades[-1]}" if grades else "nothing"
        if decided is None:
            state = "<b>Undecided</b>"
        else:
            label = self.adjudication.disputes.scale[decided].label
            state = f"<b>Decided: {decided} · {label}</b> — {self._save_state(row)}"
        spread = self.adjudication.items[row].spread
        self.dispute.show_decision(
            f"The raters gave {given}: {spread} apart.",
            state,
            decided,
            row in self.model.failed,
            self._gold_ready(row),
        )
        self.dispute.show_grade_caption(self.choosing_grade)

    def _save_state(self, row: int) -> str:
        if self.model.pending.get(row):
            return "saving…"
        if row in self.model.failed:
            return "not saved"
        return "saved"

    def _update_progress(self) -> None:
        if self.adjudication is None:
            return
        done, total = self.adjudication.progress()
        self.header.show_progress(self.adjudication.progress_text(), done, total)
        if self.detail.currentIndex() == 1 or self.adjudication.done():
            self.done.show_total(len(self.adjudication.items))

    def _show_message_page(self) -> None:
        assert self.adjudication is not None
        self.done.show_total(len(self.adjudication.items))
        self.detail.setCurrentIndex(1)
        self.list_view.clearSelection()

    def apply_palette(self) -> None:
        """Re-render what depends on the palette (the document's marks)."""
        row = self.current_row
        if self.adjudication is not None and 0 <= row < len(self.adjudication.items):
            self.dispute.show_document()
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
        self.dispute.show_grade_caption(self.choosing_grade)
        self.message.emit("Your own grade: press 0–5 (Esc cancels)", False)

    def _cancel_grade_choice(self) -> None:
        if self.choosing_grade:
            self.choosing_grade = False
            self.dispute.show_grade_caption(self.choosing_grade)

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
            self.dispute.show_grade_caption(self.choosing_grade)
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
        self.model.pending[row] = self.model.pending.get(row, 0) + 1
        self.model.failed.discard(row)
        self.model.row_changed(row)
        self._refresh_row(row)
        item = self.adjudication.items[row]
        what = "undecided" if decision.grade is None else f"{decision.grade} ({decision.source})"
        self.message.emit(f"{item.query_id} · {item.doc_id}: {what} — saving…", False)
        # last: the write queue's thread competes with the screen for the interpreter
        self.writes.submit(database, decision.write, decision)

    def _settle(
        self, decision: Decision, _event: JudgmentEvent | None, error: BaseException | None
    ) -> None:
        row = decision.index
        adjudication = self.adjudication
        if adjudication is None or row >= len(adjudication.items):
            return
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
                f"{where} was not marked gold: {' '.join(error_text(error).splitlines())}",
                True,
            )
        )
        return task

    def _marked_gold(self, where: str, grade: int, outcome: GoldOutcome) -> None:
        text = f"Gold: {where} marked with grade {grade}"
        self.message.emit("; ".join([text, *outcome.warnings]), False)

    def shortcut_groups(self) -> Sequence[tuple[str, Sequence[tuple[Sequence[str], str]]]]:
        """The keys of this screen, for the shortcut overlay."""
        return SHORTCUTS


def _digit(event: QKeyEvent) -> int | None:
    """The digit a key press typed (main row or keypad), or None."""
    text = event.text()
    return int(text) if len(text) == 1 and text in "0123456789" else None


def _grade_word(opinion: Opinion) -> str:
    return "skipped" if opinion.grade is None else str(opinion.grade)


def _most_raters(items: list[Dispute]) -> int:
    return max((len(item.opinions) for item in items), default=2)
