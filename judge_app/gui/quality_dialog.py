"""Lead ▸ Quality checks…: the fastest credible judgment and the share of items shown again
for self-agreement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QLineEdit,
)

if TYPE_CHECKING:
    pass

from judge_app.commands.campaign_settings import SettingsChange
from judge_app.gui.lead_dialog import LeadDialog, field
from judge_app.gui.workspace import Workspace
from judge_app.store.settings import (
    MAX_REPEAT_SHARE,
    QualitySettings,
    quality_settings,
)


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
            label = field(title)
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
