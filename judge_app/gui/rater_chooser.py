"""Who is judging: the page that picks a rater of the database or adds one."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

LEAD_TOOLS = (("assign", "Assign…"), ("rubric", "Rubric…"), ("pool", "Pooling…"))


class RaterChooser(QWidget):
    """Who is judging: pick a rater of the database or add one. Inline, never a dialog.

    It asks, the window acts: ``raterChosen(name, create)`` to judge as ``name`` (adding the
    rater with ``create``; a refusal comes back through ``show_error``), and
    ``leadToolRequested(name)`` for a lead's tool (``assign``, ``rubric`` or ``pool``).
    """

    raterChosen = Signal(str, bool)
    leadToolRequested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("raterChooser")
        outer = QGridLayout(self)
        card = QFrame()
        card.setObjectName("chooserCard")
        card.setFixedWidth(460)
        outer.addWidget(card, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        title = QLabel("Who is judging?")
        title.setObjectName("chooserTitle")
        self.database_label = QLabel()
        self.database_label.setObjectName("chooserText")
        self.database_label.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(self.database_label)
        layout.addSpacing(8)
        self.raters = QComboBox()
        self.raters.setObjectName("raterCombo")
        self.start = QPushButton("Start judging")
        self.start.setObjectName("startJudging")
        self.start.setDefault(True)
        self.start.clicked.connect(self._start)
        pick = QHBoxLayout()
        pick.addWidget(self.raters, 1)
        pick.addWidget(self.start)
        layout.addLayout(pick)
        layout.addSpacing(6)
        other = QLabel("New rater")
        other.setObjectName("chooserText")
        layout.addWidget(other)
        self.new_name = QLineEdit()
        self.new_name.setObjectName("newRaterName")
        self.new_name.setPlaceholderText("Name of the new rater")
        self.new_name.returnPressed.connect(self._add)
        self.add = QPushButton("Add and start")
        self.add.setObjectName("addRater")
        self.add.clicked.connect(self._add)
        create = QHBoxLayout()
        create.addWidget(self.new_name, 1)
        create.addWidget(self.add)
        layout.addLayout(create)
        self.error = QLabel()
        self.error.setObjectName("statusError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        layout.addSpacing(10)
        rule = QFrame()
        rule.setObjectName("chooserRule")
        rule.setFixedHeight(1)
        layout.addWidget(rule)
        layout.addSpacing(4)
        layout.addLayout(self._build_lead_tools())

    def _build_lead_tools(self) -> QHBoxLayout:
        lead = QHBoxLayout()
        lead.setSpacing(4)
        lead_label = QLabel("Leading the work?")
        lead_label.setObjectName("chooserText")
        lead.addWidget(lead_label)
        lead.addStretch(1)
        self.lead_buttons: dict[str, QPushButton] = {}
        for name, title in LEAD_TOOLS:
            button = QPushButton(title)
            button.setObjectName(f"lead_{name}")
            button.setProperty("class", "link")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _checked=False, n=name: self.leadToolRequested.emit(n))
            lead.addWidget(button)
            self.lead_buttons[name] = button
        return lead

    def refresh(self, names: list[str], preferred: str | None, database: str) -> None:
        self.database_label.setText(
            f"Judging in {database}. Your grades stay yours: nobody sees them while judging, "
            "and you see no one else's."
        )
        self.raters.clear()
        self.raters.addItems(names)
        if preferred in names:
            self.raters.setCurrentText(preferred)
        self.start.setEnabled(bool(names))
        self.error.hide()
        (self.raters if names else self.new_name).setFocus()

    def show_error(self, text: str) -> None:
        """Why the rater asked for cannot judge (a new name too like a known one)."""
        self.error.setText(text)
        self.error.show()

    def _start(self) -> None:
        if self.raters.currentText():
            self.raterChosen.emit(self.raters.currentText(), False)

    def _add(self) -> None:
        self.raterChosen.emit(self.new_name.text().strip(), True)
