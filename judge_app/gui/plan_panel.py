"""The evaluation page's planning panel: how many queries are needed to detect a difference Δ
in mean NDCG@k with the power asked for, and what judging them would cost, in words. The
numbers are ``judge_app.commands.plan``'s, computed off the UI thread from the per-query
scores of the evaluation the page shows and the judging cost read from the database."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.plan import Plan, PlanOptions, plan, read_judging_cost
from judge_app.evaluation.result import EvaluationResult
from judge_app.gui.error_words import error_text
from judge_app.gui.flow import FlowLayout
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.workers import Task, Worker
from judge_app.store.judging_cost import JudgingCost

SOURCE = "This campaign"
"""How the panel's messages name the campaign."""
CostKey = tuple[EvaluationResult, int | None, tuple[str, ...]]
"""The evaluation, pool depth and runs a judging cost was read for."""


def _spin(
    name: str, low: float, high: float, step: float, value: float, tip: str
) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setObjectName(name)
    spin.setDecimals(3)
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setValue(value)
    spin.setToolTip(tip)
    return spin


def _captioned(text: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    caption = QLabel(text)
    caption.setBuddy(widget)
    layout.addWidget(caption)
    layout.addWidget(widget)
    return box


def _same(first: CostKey, second: CostKey) -> bool:
    """Do two keys name the same evaluation (the object itself), depth and runs?"""
    return first[0] is second[0] and first[1:] == second[1:]


class PlanPanel(QFrame):
    """Δ, power and α, and the plan for them in words."""

    planned = Signal(object)  # the Plan shown, or the error that stopped it

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("planPanel")
        self.evaluation: EvaluationResult | None = None
        self.plan: Plan | None = None
        self.task: Task | None = None
        self._database: Callable[[], str] | None = None
        self._cost: tuple[CostKey, JudgingCost] | None = None
        self._again = False  # asked for while a plan was being computed
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(150)
        self._debounce.timeout.connect(self.compute)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(4)
        title = QLabel("HOW MANY QUERIES ARE ENOUGH?")
        title.setObjectName("paneCaption")
        title.setWordWrap(True)  # the page fits a narrow window
        layout.addWidget(title)
        row = QWidget()
        controls = FlowLayout(row, spacing=12)  # wraps, as the page's controls do
        controls.setContentsMargins(0, 0, 0, 0)
        self.delta = _spin(
            "planDelta", 0.001, 1.0, 0.005, 0.02, "The difference in mean NDCG to detect"
        )
        self.power = _spin("planPower", 0.5, 0.99, 0.05, 0.8, "The chance to detect it (1 − β)")
        self.power.setDecimals(2)
        self.alpha = _spin("planAlpha", 0.001, 0.2, 0.01, 0.05, "The significance level α")
        for text, spin in (("Δ", self.delta), ("Power", self.power), ("α", self.alpha)):
            controls.addWidget(_captioned(text, spin))
            spin.valueChanged.connect(self._debounce.start)
        layout.addWidget(row)
        self.words = QLabel("The plan follows the evaluation.")
        self.words.setTextFormat(PLAIN)  # run names
        self.words.setObjectName("planWords")
        self.words.setWordWrap(True)
        layout.addWidget(self.words)

    def set_database(self, database: Callable[[], str]) -> None:
        """Where a worker reads the judging cost: ``database()`` gives the URL to open."""
        self._database = database

    def set_evaluation(self, evaluation: EvaluationResult) -> None:
        """Plan from ``evaluation``'s per-query scores (computed again off the UI thread)."""
        self.evaluation = evaluation
        self.compute()

    def options(self) -> PlanOptions:
        """The plan the controls ask for, at the evaluation's k and runs."""
        assert self.evaluation is not None
        return PlanOptions(
            delta=round(self.delta.value(), 3),
            power=round(self.power.value(), 3),
            alpha=round(self.alpha.value(), 3),
            k=self.evaluation.options.k,
            runs=self.evaluation.options.runs,
        )

    def compute(self) -> None:
        """Compute the plan off the UI thread (after the one under way, if one is)."""
        if self.evaluation is None or self._database is None:
            return
        if self.task is not None:
            self._again = True
            return
        evaluation, options = self.evaluation, self.options()
        runs = tuple(evaluation.evaluations)
        key: CostKey = (evaluation, options.depth, runs)
        cached = self._cost[1] if self._cost is not None and _same(self._cost[0], key) else None
        url = self._database()

        def work(_worker: Worker) -> tuple[CostKey, JudgingCost, Plan]:
            cost = cached or read_judging_cost(url, options.depth, list(runs))
            return key, cost, plan(options, evaluation, cost, SOURCE)

        self.words.setText("Planning…")
        self.task = Task(self, "Planning", work, dialog=False).start()
        self.task.returned.connect(self._show)
        self.task.errored.connect(self._failed)
        self.task.finished.connect(self._done)

    def _show(self, outcome: tuple[CostKey, JudgingCost, Plan]) -> None:
        key, cost, shown = outcome
        self._cost = (key, cost)
        if self._again:
            return  # the controls changed meanwhile: the next plan replaces this one
        self.plan = shown
        self.words.setText(shown.sentence())
        self.words.setToolTip(
            plain_tip(
                f"Variance of per-query differences {shown.variance.variance:.4f}, "
                f"{shown.variance.describe()}; two-sided paired t-test"
            )
        )
        self.planned.emit(shown)

    def _failed(self, error: BaseException) -> None:
        if self._again:
            return
        self.plan = None
        self.words.setText(error_text(error))
        self.words.setToolTip("")
        self.planned.emit(error)

    def _done(self) -> None:
        self.task = None
        if self._again:
            self._again = False
            self.compute()
