"""Lead ▸ Pooling…: the depth, the runs pooled, the order results are shown in, and how many
of them preference judging compares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
)

if TYPE_CHECKING:
    from judge_app.commands.active_sampling import ActiveSample, ActiveSamplingOptions
    from judge_app.store import Database

from judge_app.commands.campaign_settings import SettingsChange, change_settings, pair_cost
from judge_app.gui.lead_dialog import LeadDialog, checkable_list, checked_items, field, note_label
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace
from judge_app.store.active_sample import sample_judge
from judge_app.store.automatic import judge_names
from judge_app.store.pair_queue import MAX_TOP, PairSettings, pair_settings
from judge_app.store.rater_queue import (
    PoolSettings,
    pool_settings,
    pooled_pair_count,
    run_names,
)

FIRST_RUN = "(the first run by name)"
"""The pooling order's choice of no run: the first run by name orders the results."""
MOST_PAIRS = MAX_TOP * (MAX_TOP - 1) // 2
"""Every pair of the most candidates compared: a larger budget asks no more."""


class PoolDialog(LeadDialog):
    """Which results raters judge: the top d of the chosen runs, in a run's order or shuffled;
    and the order raters take their queries in: as assigned, or the active sample drawn for an
    automatic judge, with the interval width it is expected to give (computed off the UI
    thread: ``expected`` carries the line shown); and how many of a query's results preference
    judging compares, in at most how many pairs per rater."""

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
        self.setMinimumWidth(680)
        with workspace.reading() as session:
            pool, runs = pool_settings(session), run_names(session)
            judges, sampled = judge_names(session), sample_judge(session)
            pairs = pair_settings(session)
        self._all_runs = runs
        self._task: Task | None = None
        self._again = False
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(10)
        grid.addWidget(field("Depth"), 0, 0)
        self.depth_box = QSpinBox()
        self.depth_box.setObjectName("poolDepth")
        self.depth_box.setRange(1, 10_000)
        self.depth_box.setValue(pool.depth)
        self.depth_box.setPrefix("the top ")
        self.depth_box.setSuffix(" results of each run")
        grid.addWidget(self.depth_box, 0, 1, Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(field("Runs"), 1, 0, Qt.AlignmentFlag.AlignTop)
        chosen = set(runs) if pool.runs is None else set(pool.runs)
        self.runs = checkable_list("poolRuns", [(name, name) for name in runs], chosen)
        self.runs.setFixedHeight(min(max(len(runs), 2), 5) * 26 + 8)
        grid.addWidget(self.runs, 1, 1)
        grid.addWidget(field("Order"), 2, 0, Qt.AlignmentFlag.AlignTop)
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
        order.addWidget(note_label("then the documents only the other runs found, best rank first"))
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
        grid.addWidget(field("Query order"), 3, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(self._query_order(pool, judges, sampled), 3, 1)
        grid.addWidget(field("Preference pairs"), 4, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(self._pairs(pairs), 4, 1)
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
        self.pairs_top.valueChanged.connect(lambda _value: self._update_cost())
        self.pairs_budget.valueChanged.connect(lambda _value: self._update_cost())
        self._update()
        self._update_cost()

    def _pairs(self, pairs: PairSettings) -> QVBoxLayout:
        """The results compared per query and the pairs per rater, with what they cost."""
        layout = QVBoxLayout()
        layout.setSpacing(6)
        self.pairs_top = QSpinBox()
        self.pairs_top.setObjectName("pairsTop")
        self.pairs_top.setAccessibleName("Results compared per query")
        self.pairs_top.setRange(2, MAX_TOP)
        self.pairs_top.setValue(pairs.top)
        self.pairs_top.setPrefix("the best ")
        self.pairs_top.setSuffix(" results of each query")
        self.pairs_budget = QSpinBox()
        self.pairs_budget.setObjectName("pairsBudget")
        self.pairs_budget.setAccessibleName("Pairs per rater and query")
        self.pairs_budget.setRange(1, max(MOST_PAIRS, pairs.budget))
        self.pairs_budget.setValue(pairs.budget)
        self.pairs_budget.setPrefix("at most ")
        self.pairs_budget.setSuffix(" pairs per rater")
        boxes = QHBoxLayout()
        boxes.addWidget(self.pairs_top)
        boxes.addWidget(self.pairs_budget)
        boxes.addStretch(1)
        self.pairs_cost = QLabel()
        self.pairs_cost.setObjectName("pairsCost")
        self.pairs_cost.setWordWrap(True)
        layout.addLayout(boxes)
        layout.addWidget(self.pairs_cost)
        return layout

    def pair_settings(self) -> PairSettings:
        return PairSettings(top=self.pairs_top.value(), budget=self.pairs_budget.value())

    def _update_cost(self) -> None:
        cost = pair_cost(self.pair_settings())
        self.pairs_cost.setText(f"{cost[0].upper()}{cost[1:]}.")

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
            note_label(
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
        if options is None or database is None or not checked_items(self.runs):
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
        runs = checked_items(self.runs)
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
        if not checked_items(self.runs):
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
        pairs = vars(self.pair_settings())
        if sampling is not None:
            from judge_app.commands.active_sampling import sample_queries

            def sample_and_pairs(database: Database) -> object:
                sample_queries(database, sampling, settings)  # the sample first: it can fail
                return change_settings(database, SettingsChange(pairs=pairs))

            self.run("Saving the pooling", sample_and_pairs)
            return
        self._change("Saving the pooling", SettingsChange(pool=vars(settings), pairs=pairs))

    def _succeeded(self, _result: object) -> None:
        self.saved("Pooling saved: every rater's queue is read again")


# quality checks -------------------------------------------------------------------------------
