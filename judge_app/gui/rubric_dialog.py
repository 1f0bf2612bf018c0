"""Lead ▸ Rubric…: the label and description of each of the six grades."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
)

if TYPE_CHECKING:
    pass

from judge_app.commands.campaign_settings import SettingsChange
from judge_app.gui.lead_dialog import LeadDialog, caption
from judge_app.gui.theme import grade_colour, text_on
from judge_app.gui.workspace import Workspace
from judge_app.store.grade_labels import DEFAULT_SCALE, GradeLabel
from judge_app.store.settings import (
    scale,
)


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
            grid.addWidget(caption(title), 0, column)
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
