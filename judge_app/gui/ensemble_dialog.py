"""Lead ▸ Combine judges…: several automatic judges combined into one (the ``ensemble`` use
case), which the Automatic judges page then calibrates like any judge."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit

from judge_app.automatic_judges.combine import COMBINE
from judge_app.commands.ensemble import EnsembleOptions, EnsembleSummary, ensemble
from judge_app.errors import UsageError
from judge_app.gui.error_words import error_text
from judge_app.gui.lead_dialog import LeadDialog, checkable_list, checked_items
from judge_app.gui.workspace import Workspace
from judge_app.store.automatic import judge_methods


class EnsembleDialog(LeadDialog):
    """The judges to combine, the rule and the ensemble's name; ``combined`` carries the
    summary when it is written."""

    combined = Signal(object)

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "ensembleDialog",
            "Combine judges",
            "Two or more automatic judges (models or prompts) become one: on each pair all of "
            "them graded, their grades are combined by the rule chosen. The ensemble is a judge "
            "like any: the Automatic judges page calibrates it and the evaluation can use it.",
            "Combine",
        )
        self.setMinimumWidth(560)
        with workspace.reading() as session:
            judges = [name for name, method in judge_methods(session) if method != "ensemble"]
        self.judges = checkable_list("ensembleJudges", [(name, name) for name in judges], set())
        self.judges.setMinimumHeight(120)
        self.combine = QComboBox()
        self.combine.setObjectName("ensembleCombine")
        for rule, words in COMBINE.items():
            self.combine.addItem(f"{rule}: {words}", rule)
        self.name = QLineEdit()
        self.name.setObjectName("ensembleName")
        self.name.setPlaceholderText("mean of a, b")
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        for row, (text, widget) in enumerate(
            (("Judges", self.judges), ("Combined by", self.combine), ("Name", self.name))
        ):
            label = QLabel(text)
            label.setObjectName("fieldLabel")
            label.setBuddy(widget)
            grid.addWidget(
                label, row, 0, Qt.AlignmentFlag.AlignTop if row == 0 else Qt.AlignmentFlag(0)
            )
            grid.addWidget(widget, row, 1)
        grid.setColumnStretch(1, 1)
        self.body.addLayout(grid)
        self.summary = QLabel()
        self.summary.setObjectName("ensembleSummary")
        self.summary.setWordWrap(True)
        self.summary.hide()
        self.body.addWidget(self.summary)
        if len(judges) < 2:
            self.show_error(
                "Combining needs two automatic judges or more: grade with Lead ▸ Automatic "
                "judge… first."
            )
        self.finish_layout()

    def options(self) -> EnsembleOptions:
        """The options the dialog shows, checked (a usage error names what is wrong)."""
        return EnsembleOptions(
            judges=tuple(checked_items(self.judges)),
            combine=self.combine.currentData(),
            name=self.name.text().strip() or None,
        ).checked()

    def save(self) -> None:
        """Combine off the UI thread; the dialog waits, then shows the summary."""
        try:
            options = self.options()
        except UsageError as error:
            self.show_error(error_text(error))
            return
        self.show_error("")
        self.run("Combining judges", lambda database: ensemble(database, options))

    def _failed(self, error: BaseException) -> None:
        self.show_error(error_text(error))

    def _succeeded(self, result: object) -> None:
        assert isinstance(result, EnsembleSummary)
        self.summary.setText(result.sentence())
        self.summary.show()
        self.workspace.show_message(result.sentence().splitlines()[0])
        self.combined.emit(result)
