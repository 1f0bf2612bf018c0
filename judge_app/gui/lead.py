"""A lead's tools: assign queries to raters, edit the rubric, set the pooling and the quality
checks (the gold items' dialog is ``gui.gold``).

Each dialog is opened with ``open()`` (never ``exec()``), reads what it shows through store
functions and writes its change in one transaction off the UI thread; the judging screen is
then read again (the workspace's ``campaignChanged``).
Nothing here shows a rater's grades: a lead sees counts, not judgments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from judge_app.commands.active_sampling import ActiveSample, ActiveSamplingOptions

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
from judge_app.commands.campaign_settings import SettingsChange, change_settings
from judge_app.errors import JudgeAppError, UsageError
from judge_app.gui.theme import grade_colour, text_on
from judge_app.gui.workers import Task, TaskDialog, Worker
from judge_app.gui.workspace import Workspace
from judge_app.names import known_name, normal_id, similar_name, similar_reason
from judge_app.store import Database
from judge_app.store.active_sample import sample_judge
from judge_app.store.assignments import AssignmentPlan, current_assignments
from judge_app.store.automatic import judge_names
from judge_app.store.grade_labels import DEFAULT_SCALE, GradeLabel
from judge_app.store.people import all_query_ids, campaign_raters, named_rater, new_rater_name
from judge_app.store.rater_queue import (
    PoolSettings,
    pool_settings,
    pooled_pair_count,
    run_names,
)
from judge_app.store.settings import (
    MAX_REPEAT_SHARE,
    QualitySettings,
    quality_settings,
    scale,
)

FIRST_RUN = "(the first run by name)"
UNRELIABLE_ALPHA = 0.667
"""The alpha threshold offered first: below it Krippendorff calls agreement unreliable."""


class LeadDialog(TaskDialog):
    """The frame of a lead's dialog: a title, a line of text, the content, the buttons.
    Each dialog builds its content, calls ``finish_layout()`` and defines ``save()``; one
    without ``accept`` writes each change as it is asked for and has only Close."""

    def __init__(
        self, workspace: Workspace, name: str, title: str, text: str, accept: str | None
    ) -> None:
        super().__init__(workspace.dialog_parent)
        self.workspace = workspace
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(22, 18, 22, 18)
        self.body.setSpacing(12)
        heading = QLabel(title)
        heading.setObjectName("dialogTitle")
        intro = QLabel(text)
        intro.setObjectName("dialogText")
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.body.addWidget(heading)
        self.body.addWidget(intro)
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.buttons = QDialogButtonBox()
        if accept is None:
            self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        else:
            self.accept_button = self.buttons.addButton(
                accept, QDialogButtonBox.ButtonRole.AcceptRole
            )
            self.accept_button.setDefault(True)
            self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)

    def finish_layout(self) -> None:
        """Put the error line and the buttons last; the accept button runs ``save()``."""
        self.body.addStretch(1)
        self.body.addWidget(self.error)
        self.body.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)

    def save(self) -> None:
        """Check and write what the dialog shows: each dialog's own."""
        raise NotImplementedError

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def run(self, title: str, work: Callable[[Database], object]) -> None:
        """Run ``work`` on the open database off the UI thread; the dialog waits."""
        database = self.workspace.database
        if database is None:
            return
        handle = database.share()  # the work's own, should the window close its database

        def task(_worker: Worker) -> object:
            with handle:
                return work(handle)

        self.wait_for(self.workspace.run_task(title, task, cancellable=False))

    def _failed(self, error: BaseException) -> None:
        self.show_error(f"Not saved: {error}")

    def _change(self, title: str, change: SettingsChange) -> None:
        """Write a change of the campaign's settings (``commands.campaign_settings``) off the
        UI thread, or say what is wrong with it."""
        try:
            change = change.checked()
        except UsageError as error:
            self.show_error(f"Not saved: {error}")
            return
        self.run(title, lambda database: change_settings(database, change))

    def saved(self, message: str) -> None:
        """The change is written: the judging screen reads it, the status bar says it."""
        self.workspace.campaignChanged.emit()
        self.workspace.show_message(message)
        self.accept()


def _checkable_list(name: str, entries: list[tuple[str, object]], checked: set) -> QListWidget:
    widget = QListWidget()
    widget.setObjectName(name)
    widget.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    for title, data in entries:
        item = QListWidgetItem(title)
        item.setData(Qt.ItemDataRole.UserRole, data)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if data in checked else Qt.CheckState.Unchecked)
        widget.addItem(item)
    return widget


def _checked(widget: QListWidget) -> list:
    return [
        widget.item(row).data(Qt.ItemDataRole.UserRole)
        for row in range(widget.count())
        if widget.item(row).checkState() == Qt.CheckState.Checked
    ]


def _set_all(widget: QListWidget, checked: bool) -> None:
    state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
    for row in range(widget.count()):
        widget.item(row).setCheckState(state)


# assign ---------------------------------------------------------------------------------------


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
        left.addWidget(_caption("Raters"))
        self.raters = _checkable_list(
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
            button.clicked.connect(lambda _c=False, on=checked: _set_all(self.raters, on))
            pick.addWidget(button)
        pick.addStretch(1)
        left.addLayout(pick)
        columns.addLayout(left)

        right = QVBoxLayout()
        right.setSpacing(8)
        right.addWidget(_caption(f"How ({len(query_ids)} queries)"))
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
        right.addWidget(_note("in turn, so that each rater gets as many queries as the others"))
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
        right.addWidget(_note("each other query goes to one rater, in turn"))
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
        right.addWidget(_note("to one more rater each, who neither judged it nor has it"))
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
        right.addWidget(_caption("Preview"))
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
        return _checked(self.raters)

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
            self.show_error(str(error))
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
            self.summary.setText(str(error))
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


class RubricDialog(LeadDialog):
    """The six grades' labels and descriptions, as raters see them in the rubric."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "rubricDialog",
            "Rubric",
            "What each grade means, as raters see it beneath the results. Grades stay 0–5; "
            "the labels and descriptions are yours.",
            "Save",
        )
        self.setMinimumWidth(820)
        with workspace.reading() as session:
            labels = scale(session)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(8)
        for column, title in ((1, "Label"), (2, "Description")):
            grid.addWidget(_caption(title), 0, column)
        self.labels: list[QLineEdit] = []
        self.descriptions: list[QLineEdit] = []
        for grade, label in enumerate(labels):
            badge = QLabel(str(grade))
            colour = grade_colour(grade)
            badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
            badge.setFixedSize(28, 26)
            badge.setStyleSheet(
                f"background:{colour.name()}; color:{text_on(colour).name()};"
                "border-radius:5px; font-weight:700;"
            )
            name = QLineEdit(label.label)
            name.setObjectName(f"rubricLabel{grade}")
            name.setFixedWidth(190)
            name.setPlaceholderText(DEFAULT_SCALE[grade].label)
            text = QLineEdit(label.description)
            text.setObjectName(f"rubricText{grade}")
            text.setPlaceholderText("what a result of this grade is like")
            grid.addWidget(badge, grade + 1, 0)
            grid.addWidget(name, grade + 1, 1)
            grid.addWidget(text, grade + 1, 2)
            self.labels.append(name)
            self.descriptions.append(text)
        grid.setColumnStretch(2, 1)
        self.body.addLayout(grid)
        defaults = QPushButton("Restore the defaults")
        defaults.setObjectName("rubricDefaults")
        defaults.setAutoDefault(False)
        defaults.clicked.connect(self.restore_defaults)
        self.buttons.addButton(defaults, QDialogButtonBox.ButtonRole.ResetRole)
        self.finish_layout()

    def restore_defaults(self) -> None:
        for default, name, text in zip(DEFAULT_SCALE, self.labels, self.descriptions):
            name.setText(default.label)
            text.setText(default.description)

    def values(self) -> list[GradeLabel]:
        return [
            GradeLabel(grade, name.text().strip(), text.text().strip())
            for grade, (name, text) in enumerate(zip(self.labels, self.descriptions))
        ]

    def save(self) -> None:
        self._change("Saving the rubric", SettingsChange(grades=tuple(self.values())))

    def _succeeded(self, _result: object) -> None:
        self.saved("Rubric saved: raters see the new labels from now on")


# pool -----------------------------------------------------------------------------------------


class PoolDialog(LeadDialog):
    """Which results raters judge: the top d of the chosen runs, in a run's order or shuffled;
    and the order raters take their queries in: as assigned, or the active sample drawn for an
    automatic judge, with the interval width it is expected to give (computed off the UI
    thread: ``expected`` carries the line shown)."""

    expected = Signal(str)

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "poolDialog",
            "Pooling",
            "Raters judge the union of the top results of the chosen runs, each document "
            "once. Shuffling the order per rater keeps a system's ranking from biasing them.",
            "Save",
        )
        self.setMinimumWidth(640)
        with workspace.reading() as session:
            pool, runs = pool_settings(session), run_names(session)
            judges, sampled = judge_names(session), sample_judge(session)
        self._all_runs = runs
        self._task: Task | None = None
        self._again = False
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(10)
        grid.addWidget(_field("Depth"), 0, 0)
        self.depth_box = QSpinBox()
        self.depth_box.setObjectName("poolDepth")
        self.depth_box.setRange(1, 10_000)
        self.depth_box.setValue(pool.depth)
        self.depth_box.setPrefix("the top ")
        self.depth_box.setSuffix(" results of each run")
        grid.addWidget(self.depth_box, 0, 1, Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(_field("Runs"), 1, 0, Qt.AlignmentFlag.AlignTop)
        chosen = set(runs) if pool.runs is None else set(pool.runs)
        self.runs = _checkable_list("poolRuns", [(name, name) for name in runs], chosen)
        self.runs.setFixedHeight(min(max(len(runs), 2), 5) * 26 + 8)
        grid.addWidget(self.runs, 1, 1)
        grid.addWidget(_field("Order"), 2, 0, Qt.AlignmentFlag.AlignTop)
        order = QVBoxLayout()
        order.setSpacing(6)
        self.in_run_order = QRadioButton("As ranked by")
        self.in_run_order.setObjectName("poolRunOrder")
        self.order_run = QComboBox()
        self.order_run.setObjectName("poolOrderRun")
        self.order_run.addItem(FIRST_RUN, None)
        for name in runs:
            self.order_run.addItem(name, name)
        self.order_run.setCurrentIndex(max(self.order_run.findData(pool.order_run), 0))
        by_run = QHBoxLayout()
        by_run.addWidget(self.in_run_order)
        by_run.addWidget(self.order_run)
        by_run.addStretch(1)
        order.addLayout(by_run)
        order.addWidget(_note("then the documents only the other runs found, best rank first"))
        self.shuffled = QRadioButton("Shuffled, differently for each rater and query; seed")
        self.shuffled.setObjectName("poolShuffle")
        self.seed = QSpinBox()
        self.seed.setObjectName("poolSeed")
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setValue(pool.seed)
        shuffled = QHBoxLayout()
        shuffled.addWidget(self.shuffled)
        shuffled.addWidget(self.seed)
        shuffled.addStretch(1)
        order.addLayout(shuffled)
        group = QButtonGroup(self)
        group.addButton(self.in_run_order)
        group.addButton(self.shuffled)
        (self.shuffled if pool.order == "shuffle" else self.in_run_order).setChecked(True)
        grid.addLayout(order, 2, 1)
        grid.addWidget(_field("Query order"), 3, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(self._query_order(pool, judges, sampled), 3, 1)
        grid.setColumnStretch(1, 1)
        self.body.addLayout(grid)
        self.summary = QLabel()
        self.summary.setObjectName("previewText")
        self.summary.setWordWrap(True)
        self.body.addWidget(self.summary)
        self.finish_layout()
        self.depth_box.valueChanged.connect(lambda _value: self._update())
        self.runs.itemChanged.connect(lambda _item: self._update())
        self.in_run_order.toggled.connect(lambda _on: self._update())
        self.active_order.toggled.connect(lambda _on: self._update())
        self.active_judge.currentIndexChanged.connect(lambda _index: self._update())
        self._update()

    def _query_order(
        self, pool: PoolSettings, judges: list[str], sampled: str | None
    ) -> QVBoxLayout:
        """As assigned, or the active sample for a judge with its expected width."""
        layout = QVBoxLayout()
        layout.setSpacing(6)
        self.assigned_order = QRadioButton("As assigned")
        self.assigned_order.setObjectName("poolAssignedOrder")
        self.active_order = QRadioButton("Active sampling for judge")
        self.active_order.setObjectName("poolActiveOrder")
        self.active_judge = QComboBox()
        self.active_judge.setObjectName("poolActiveJudge")
        self.active_judge.addItems(judges)
        if sampled in judges:
            self.active_judge.setCurrentText(sampled)
        active = QHBoxLayout()
        active.addWidget(self.active_order)
        active.addWidget(self.active_judge)
        active.addStretch(1)
        group = QButtonGroup(self)
        group.addButton(self.assigned_order)
        group.addButton(self.active_order)
        self.active_order.setEnabled(bool(judges))
        on = pool.query_order == "active" and bool(judges)
        (self.active_order if on else self.assigned_order).setChecked(True)
        self.expected_line = QLabel()
        self.expected_line.setObjectName("poolActiveExpected")
        self.expected_line.setWordWrap(True)
        layout.addWidget(self.assigned_order)
        layout.addLayout(active)
        layout.addWidget(
            _note(
                "queries where the judge is least sure, or the runs differ, first: eval "
                "--judge then weights each by the chance it had to come first"
                if judges
                else "no automatic judge yet: grade with one first (judge-app autojudge)"
            )
        )
        layout.addWidget(self.expected_line)
        return layout

    def sampling(self, apply: bool = False) -> ActiveSamplingOptions | None:
        """The active sample asked for, to be stored if ``apply`` (None: the assigned order)."""
        if not self.active_order.isChecked() or not self.active_judge.currentText():
            return None
        from judge_app.commands.active_sampling import ActiveSamplingOptions  # numpy: not at start

        return ActiveSamplingOptions(judge=self.active_judge.currentText(), apply=apply)

    def _expect(self) -> None:
        """Compute the expected width of the sample asked for off the UI thread (after the
        computation under way, if one is)."""
        options, database = self.sampling(), self.workspace.database
        self.active_judge.setEnabled(self.active_order.isChecked())
        if options is None or database is None or not _checked(self.runs):
            self.expected_line.setText("")
            return
        if self._task is not None:
            self._again = True
            return
        handle, pool = database.share(), self.settings()

        def work(_worker: Worker) -> ActiveSample | None:
            from judge_app.commands.active_sampling import sample_queries

            with handle:
                return sample_queries(handle, options, pool)  # shown only: nothing is stored

        self.expected_line.setText("Expected width: computing…")
        self._task = Task(self, "Active sample", work, dialog=False).start()
        self._task.returned.connect(self._show_expected)
        self._task.errored.connect(self._expected_failed)
        self._task.finished.connect(self._expected_done)

    def _show_expected(self, sample: ActiveSample) -> None:
        if not self._again:
            self._say_expected(sample.sentence(sample.default_budget))

    def _expected_failed(self, error: BaseException) -> None:
        if not self._again:
            self._say_expected(f"No active sample: {error}")

    def _say_expected(self, text: str) -> None:
        self.expected_line.setText(text)
        self.expected.emit(text)

    def _expected_done(self) -> None:
        self._task = None
        if self._again:
            self._again = False
            self._expect()

    def settings(self) -> PoolSettings:
        runs = _checked(self.runs)
        return PoolSettings(
            depth=self.depth_box.value(),
            runs=None if len(runs) == len(self._all_runs) else tuple(runs),
            order="run" if self.in_run_order.isChecked() else "shuffle",
            order_run=self.order_run.currentData(),
            seed=self.seed.value(),
        )

    def _update(self) -> None:
        self.order_run.setEnabled(self.in_run_order.isChecked())
        self.seed.setEnabled(self.shuffled.isChecked())
        self._expect()
        database = self.workspace.database
        if not self._all_runs:
            self.summary.setText("There are no runs yet: import one first.")
            self.accept_button.setEnabled(False)
            return
        if not _checked(self.runs):
            self.summary.setText("Choose at least one run.")
            self.accept_button.setEnabled(False)
            return
        self.accept_button.setEnabled(True)
        if database is not None:
            with database.reading() as session:
                pairs = pooled_pair_count(session, self.settings())
            self.summary.setText(f"A rater who judges every query has {pairs:,} results to judge.")

    def save(self) -> None:
        settings, sampling = self.settings(), self.sampling(apply=True)
        if sampling is not None:
            from judge_app.commands.active_sampling import sample_queries

            self.run(
                "Saving the pooling",
                lambda database: sample_queries(database, sampling, settings),
            )
            return
        self._change("Saving the pooling", SettingsChange(pool=vars(settings)))

    def _succeeded(self, _result: object) -> None:
        self.saved("Pooling saved: every rater's queue is read again")


# quality checks -------------------------------------------------------------------------------


class QualityDialog(LeadDialog):
    """The quality checks: the fastest credible judgment, and the share of each rater's
    judged items shown to them again for self-agreement."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "qualityDialog",
            "Quality checks",
            "How the Raters page tells judgments made too fast, and how much of each rater's "
            "work comes back to them to measure how consistent they are.",
            "Save",
        )
        self.setMinimumWidth(680)
        with workspace.reading() as session:
            settings = quality_settings(session)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(4)
        self.min_seconds = QLineEdit(f"{settings.min_seconds:g}")
        self.min_seconds.setObjectName("qualityMinSeconds")
        self.repeat_share = QLineEdit(f"{100 * settings.repeat_share:g}")
        self.repeat_share.setObjectName("qualityRepeatShare")
        fields = (
            (
                "Fastest credible judgment (seconds)",
                self.min_seconds,
                "Faster judgments are flagged as too fast on the Raters page (0–600).",
            ),
            (
                "Show again for self-agreement (% of each rater's judged items)",
                self.repeat_share,
                "Repeats are hidden among new items; their grades never count in evaluation "
                f"or agreement (0–{MAX_REPEAT_SHARE:.0%}).",
            ),
        )
        for row, (title, edit, explanation) in enumerate(fields):
            label = _field(title)
            label.setBuddy(edit)
            edit.setFixedWidth(90)
            edit.setAlignment(Qt.AlignmentFlag.AlignRight)
            grid.addWidget(label, 2 * row, 0)
            grid.addWidget(edit, 2 * row, 1, Qt.AlignmentFlag.AlignLeft)
            hint = QLabel(explanation)
            hint.setObjectName("dialogText")
            hint.setWordWrap(True)
            grid.addWidget(hint, 2 * row + 1, 0, 1, 3)
            grid.setRowMinimumHeight(2 * row + 1, 28)
        grid.setColumnStretch(2, 1)
        self.body.addLayout(grid)
        self.finish_layout()

    def settings(self) -> QualitySettings:
        """The settings typed (not yet checked for range); ValueError naming a field that
        holds no number."""
        values = []
        for edit, what in (
            (self.min_seconds, "the fastest credible judgment"),
            (self.repeat_share, "the share of items shown again"),
        ):
            text = edit.text().strip().removesuffix("%").strip()
            try:
                values.append(float(text.replace(",", ".")))
            except ValueError:
                raise ValueError(f"{what} must be a number, not “{edit.text()}”") from None
        return QualitySettings(min_seconds=values[0], repeat_share=values[1] / 100)

    def save(self) -> None:
        try:
            settings = self.settings()
        except ValueError as error:
            self.show_error(f"Not saved: {error}")
            return
        self._change("Saving the quality checks", SettingsChange(quality=vars(settings)))

    def _succeeded(self, _result: object) -> None:
        self.saved("Quality checks saved: the Raters page is computed again with them")


def _caption(text: str) -> QLabel:
    caption = QLabel(text.upper())
    caption.setObjectName("paneCaption")
    return caption


def _field(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


def _note(text: str) -> QWidget:
    label = QLabel(text)
    label.setObjectName("dialogText")
    label.setWordWrap(True)
    label.setContentsMargins(24, 0, 0, 0)
    return label
