"""Lead ▸ Assign queries…: every query to N raters, a share to all of them, one more rater
where grades differ, or the pairs an active sample picks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

if TYPE_CHECKING:
    pass

from judge_app.commands.assign import (
    MIN_GAP,
    Assigned,
    AssignOptions,
    DisputedPlan,
    Survey,
    assign,
    disputed_summary,
    read_survey,
)
from judge_app.errors import JudgeAppError
from judge_app.gui.error_words import error_text
from judge_app.gui.lead_dialog import (
    LeadDialog,
    caption,
    checkable_list,
    checked_items,
    note_label,
    set_all,
)
from judge_app.gui.workers import Worker
from judge_app.gui.workspace import Workspace
from judge_app.names import known_name, normal_id, similar_name, similar_reason
from judge_app.store.assignments import AssignmentPlan, current_assignments
from judge_app.store.people import all_query_ids, campaign_raters, named_rater, new_rater_name

UNRELIABLE_ALPHA = 0.667
"""The alpha threshold offered first: below it Krippendorff calls agreement unreliable."""


class AssignDialog(LeadDialog):
    """Every query to N of the chosen raters, or a share of the queries to all of them, or
    each disputed query to one more of them (the grades are read, off the UI thread, when
    that is first chosen)."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "assignDialog",
            "Assign queries",
            "Give each rater a queue. Queries judged by two raters or more measure agreement. "
            "A rater without an assignment judges every query. The raters are those who "
            "judged or have queries (never a lead, nor the adjudications); add others by name.",
            "Assign",
        )
        self.setMinimumWidth(760)
        with workspace.reading() as session:
            raters = campaign_raters(session, assignable=True)
            query_ids = all_query_ids(session)
            assigned = current_assignments(session)
        self._names = dict(raters)
        self._query_ids = query_ids
        self._assigned = assigned
        self.plan: AssignmentPlan | None = None
        self.survey: Survey | None = None  # the grades' disagreements, once read
        self._survey_state = ""  # why there is no survey yet: reading, or the error

        columns = QHBoxLayout()
        columns.setSpacing(20)
        left = QVBoxLayout()
        left.setSpacing(6)
        left.addWidget(caption("Raters"))
        self.raters = checkable_list(
            "assignRaters", [(name, rater_id) for rater_id, name in raters], set(self._names)
        )
        self.raters.setFixedWidth(220)
        self.raters.itemChanged.connect(lambda _item: self._update())
        left.addWidget(self.raters, 1)
        self.new_rater = QLineEdit()
        self.new_rater.setObjectName("assignNewRater")
        self.new_rater.setPlaceholderText("Add a rater by name")
        self.new_rater.setFixedWidth(220)
        self.new_rater.installEventFilter(self)
        left.addWidget(self.new_rater)
        pick = QHBoxLayout()
        for title, checked in (("All", True), ("None", False)):
            button = QPushButton(title)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _c=False, on=checked: set_all(self.raters, on))
            pick.addWidget(button)
        pick.addStretch(1)
        left.addLayout(pick)
        columns.addLayout(left)

        right = QVBoxLayout()
        right.setSpacing(8)
        right.addWidget(caption(f"How ({len(query_ids)} queries)"))
        self.by_copies = QRadioButton("Every query to")
        self.by_copies.setObjectName("assignEvery")
        self.copies = QSpinBox()
        self.copies.setObjectName("assignCopies")
        self.copies.setRange(1, max(len(raters), 1))
        self.copies.setValue(min(2, max(len(raters), 1)))
        self.copies.setSuffix(" of the chosen raters")
        every = QHBoxLayout()
        every.addWidget(self.by_copies)
        every.addWidget(self.copies)
        every.addStretch(1)
        right.addLayout(every)
        right.addWidget(
            note_label("in turn, so that each rater gets as many queries as the others")
        )
        self.by_share = QRadioButton("Share")
        self.by_share.setObjectName("assignShare")
        self.share = QSpinBox()
        self.share.setObjectName("assignSharePercent")
        self.share.setRange(0, 100)
        self.share.setValue(20)
        self.share.setSuffix(" % of the queries with every chosen rater")
        shared = QHBoxLayout()
        shared.addWidget(self.by_share)
        shared.addWidget(self.share)
        shared.addStretch(1)
        right.addLayout(shared)
        right.addWidget(note_label("each other query goes to one rater, in turn"))
        self.by_disputes = QRadioButton("Add a rater where grades differ")
        self.by_disputes.setObjectName("assignDisputed")
        right.addWidget(self.by_disputes)
        self.min_gap = QSpinBox()
        self.min_gap.setObjectName("assignMinGap")
        self.min_gap.setRange(1, 5)
        self.min_gap.setValue(MIN_GAP)
        self.min_gap.setPrefix("grades ")
        self.min_gap.setSuffix(" or more apart")
        self.use_alpha = QCheckBox("or ordinal α below")
        self.use_alpha.setObjectName("assignUseAlpha")
        self.max_alpha = QDoubleSpinBox()
        self.max_alpha.setObjectName("assignMaxAlpha")
        self.max_alpha.setRange(-1.0, 1.0)
        self.max_alpha.setDecimals(3)
        self.max_alpha.setSingleStep(0.05)
        self.max_alpha.setValue(UNRELIABLE_ALPHA)
        measure = QHBoxLayout()
        measure.setContentsMargins(24, 0, 0, 0)
        for widget in (self.min_gap, self.use_alpha, self.max_alpha):
            measure.addWidget(widget)
        measure.addStretch(1)
        right.addLayout(measure)
        right.addWidget(note_label("to one more rater each, who neither judged it nor has it"))
        self.by_disputes.setToolTip(
            "The queries the agreement page shows as disputed: a document whose raters' grades "
            "differ by this much or more, or (if ticked) the query's ordinal alpha below the "
            "threshold. A document a lead decided is disputed no more. Each goes to the chosen "
            "rater given the fewest so far (the first of them in a tie) who has neither judged "
            "it nor has it in their queue; a rater with no queue who has judged has every query."
        )
        group = QButtonGroup(self)
        group.addButton(self.by_copies)
        group.addButton(self.by_share)
        group.addButton(self.by_disputes)
        self.by_copies.setChecked(True)
        self.replace = QCheckBox("Replace the chosen raters' queues (their judgments stay)")
        self.replace.setObjectName("assignReplace")
        right.addSpacing(4)
        right.addWidget(self.replace)
        right.addSpacing(4)
        right.addWidget(caption("Preview"))
        self.summary = QLabel()
        self.summary.setObjectName("previewText")
        self.summary.setWordWrap(True)
        right.addWidget(self.summary)
        self.preview = QTableWidget(0, 3)
        self.preview.setObjectName("assignPreview")
        self.preview.setHorizontalHeaderLabels(["Rater", "Queries after", "New"])
        self.preview.verticalHeader().hide()
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.preview.setShowGrid(False)
        self.preview.setMinimumHeight(170)
        header = self.preview.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        right.addWidget(self.preview, 1)
        columns.addLayout(right, 1)
        self.body.addLayout(columns, 1)
        self.finish_layout()
        self.resize(self.sizeHint())  # opened at its minimum, the buttons would cover the preview
        for signal in (
            self.copies.valueChanged,
            self.share.valueChanged,
            self.by_copies.toggled,
            self.by_disputes.toggled,
            self.replace.toggled,
            self.min_gap.valueChanged,
            self.use_alpha.toggled,
            self.max_alpha.valueChanged,
        ):
            signal.connect(lambda *_args: self._update())
        self._update()

    def chosen(self) -> list[int]:
        return checked_items(self.raters)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """Enter in the name field adds the rater: it does not assign."""
        if (
            watched is self.new_rater
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self._add_rater()
            return True
        return super().eventFilter(watched, event)

    def _add_rater(self) -> None:
        """Tick the rater the name typed names, or list a new one (added when assigned);
        refused as ``judge-app assign --raters`` refuses it, saying why."""
        try:
            rater_id, shown = self._rater_named(self.new_rater.text())
        except JudgeAppError as error:
            self.show_error(error_text(error))
            return
        if rater_id not in self._names:
            self._names[rater_id] = shown
            item = QListWidgetItem(shown)
            item.setData(Qt.ItemDataRole.UserRole, rater_id)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            self.raters.addItem(item)
        for row in range(self.raters.count()):
            if self.raters.item(row).data(Qt.ItemDataRole.UserRole) == rater_id:
                self.raters.item(row).setCheckState(Qt.CheckState.Checked)
        self.new_rater.clear()
        self.show_error("")

    def _rater_named(self, name: str) -> tuple[int, str]:
        """The id and name of the rater ``name`` names: one listed, one of the database, or
        a new one (with a stand-in id below 0 until the assignment adds it)."""
        listed = known_name(name, self._names.values())
        if listed is not None:
            return next(key for key, shown in self._names.items() if shown == listed), listed
        similar = similar_name(normal_id(name), self._names.values())
        if similar is not None:
            raise JudgeAppError(similar_reason(normal_id(name), similar))
        with self.workspace.reading() as session:
            known = named_rater(session, name, create=False)
            if known is not None:
                return known.id, known.name
            return -1 - sum(key < 0 for key in self._names), new_rater_name(session, name)

    def _update(self) -> None:
        chosen = self.chosen()
        by_disputes = self.by_disputes.isChecked()
        self.copies.setMaximum(max(len(chosen), 1))
        self.copies.setEnabled(self.by_copies.isChecked())
        self.share.setEnabled(self.by_share.isChecked())
        for widget in (self.min_gap, self.use_alpha):
            widget.setEnabled(by_disputes)
        self.max_alpha.setEnabled(by_disputes and self.use_alpha.isChecked())
        self.replace.setEnabled(not by_disputes)  # one more rater adds to a queue
        self.plan = None
        self.preview.setRowCount(0)
        if not chosen or not self._query_ids:
            self.summary.setText(
                "Choose at least one rater."
                if self._query_ids
                else "There are no queries to assign yet: import some first."
            )
            self.accept_button.setEnabled(False)
            return
        if by_disputes and self.survey is None:
            self._read_survey()
            self.summary.setText(self._survey_state)
            self.accept_button.setEnabled(False)
            return
        disputes: DisputedPlan | None = None
        try:
            options = self.assign_options().checked()
            if self.survey is not None and options.where_disputed:
                disputes = options.plan_disputed(self.survey, chosen)
                self.plan = disputes.plan
            else:
                self.plan = options.plan(self._query_ids, chosen)
        except JudgeAppError as error:
            self.summary.setText(error_text(error))
            self.accept_button.setEnabled(False)
            return
        self.accept_button.setEnabled(disputes is None or any(self.plan.queues.values()))
        replace = self.replace.isChecked() and not by_disputes
        rows: list[tuple[str, int, int]] = []
        for rater_id, queries in self.plan.queues.items():
            before = set() if replace else self._assigned.get(rater_id, set())
            new = len(set(queries) - before)
            rows.append((self._names[rater_id], len(before) + new, new))
        self.preview.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, value in enumerate(cells):
                text = f"{value:,}" if isinstance(value, int) else str(value)
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.preview.setItem(row, column, item)
        if disputes is None:
            self.summary.setText(self._describe(self.plan, len(chosen)))
        else:
            self.summary.setText(f"{disputed_summary(disputes)}.")

    def _read_survey(self) -> None:
        """Read the grades' disagreements off the UI thread (once): the dialog waits."""
        database = self.workspace.database
        if database is None or self._survey_state:
            return
        handle = database.share()  # the work's own, should the window close its database

        def work(_worker: Worker) -> Survey:
            with handle:
                return read_survey(handle)

        self._survey_state = "Reading where the raters' grades differ…"
        self.setEnabled(False)
        task = self.workspace.run_task("Reading the grades", work, cancellable=False)
        task.returned.connect(self._survey_read)
        task.errored.connect(self._survey_failed)
        task.finished.connect(self._work_done)

    def _survey_read(self, survey: object) -> None:
        assert isinstance(survey, Survey)  # what the task of _read_survey() returns
        self.survey = survey
        self._update()

    def _survey_failed(self, error: BaseException) -> None:
        self._survey_state = f"Cannot read the grades: {error}"
        self._update()

    def _describe(self, plan: AssignmentPlan, raters: int) -> str:
        loads = sorted(plan.load().values())
        spread = f"{loads[0]:,}" if loads[0] == loads[-1] else f"{loads[0]:,}–{loads[-1]:,}"
        queries = len(self._query_ids)
        if plan.shared or self.by_share.isChecked():
            text = (
                f"{len(plan.shared):,} of {queries:,} queries judged by all {raters} raters, "
                f"the other {queries - len(plan.shared):,} by one each; {spread} per rater."
            )
        else:
            copies = self.copies.value()
            judges = "rater" if copies == 1 else f"{copies} raters"
            text = f"Each of the {queries:,} queries judged by {judges}; {spread} per rater."
        if loads[0] == 0:
            text += " A rater left with no query would judge every query."
        return text

    def assign_options(self) -> AssignOptions:
        """The assignment the dialog's controls ask for (``judge-app assign``'s options)."""
        raters = tuple(self._names[rater_id] for rater_id in self.chosen())
        if self.by_disputes.isChecked():
            alpha = self.max_alpha.value() if self.use_alpha.isChecked() else None
            return AssignOptions(
                raters, where_disputed=True, min_gap=self.min_gap.value(), max_alpha=alpha
            )
        by_copies = self.by_copies.isChecked()
        return AssignOptions(
            raters,
            copies=self.copies.value() if by_copies else None,
            share=None if by_copies else float(self.share.value()),
            replace=self.replace.isChecked(),
        )

    def save(self) -> None:
        if self.plan is None:
            return
        options = self.assign_options()
        self.run("Assigning", lambda database: assign(database, options))

    def _failed(self, error: BaseException) -> None:
        self.show_error(f"Nothing was assigned: {error}")

    def _succeeded(self, assigned: object) -> None:
        assert isinstance(assigned, Assigned)  # what the task of save() returns
        if assigned.disputes is not None:
            self.saved(f"Assigned: {assigned.headline}")
            return
        total, raters = sum(assigned.plan.load().values()), len(assigned.plan.queues)
        self.saved(f"Assigned: {total:,} queries to {raters} raters")


# rubric ---------------------------------------------------------------------------------------
