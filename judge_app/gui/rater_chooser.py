"""Who is judging: the page that picks a rater of the database or adds one. Once a rater was
chosen on a database it offers only that rater; a lead's switch shows the others."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
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

from judge_app.names import only_case_or_spaces

LEAD_TOOLS = (("assign", "Assign…"), ("rubric", "Rubric…"), ("pool", "Pooling…"))


class RaterChooser(QWidget):
    """Who is judging: the rater last chosen here, or (after "Switch rater (lead)…", or when
    none was) any rater of the campaign, or a new one. Inline, never a dialog.

    It asks, the window acts: ``raterChosen(name, create, similar_ok)`` to judge as ``name``
    (adding the rater with ``create``, even one whose name differs from a rater's only by
    spaces with ``similar_ok``; a refusal comes back through ``show_error``, such a name
    through ``ask_similar``), and ``leadToolRequested(name)`` for a lead's tool (``assign``,
    ``rubric`` or ``pool``).
    """

    raterChosen = Signal(str, bool, bool)
    leadToolRequested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("raterChooser")
        outer = QGridLayout(self)
        card = QFrame()
        card.setObjectName("chooserCard")
        card.setFixedWidth(460)
        outer.addWidget(card, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = card_layout = QVBoxLayout(card)
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
        layout.addWidget(self._build_own())
        self.others = QWidget()
        self.others.setObjectName("otherRaters")
        layout.addWidget(self.others)
        layout = QVBoxLayout(self.others)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
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
        layout.addWidget(self._build_similar())
        layout.addSpacing(10)
        rule = QFrame()
        rule.setObjectName("chooserRule")
        rule.setFixedHeight(1)
        layout.addWidget(rule)
        layout.addSpacing(4)
        layout.addLayout(self._build_lead_tools())
        self.error = QLabel()
        self.error.setObjectName("statusError")
        self.error.setWordWrap(True)
        self.error.hide()
        card_layout.addWidget(self.error)
        self.own_name: str | None = None

    def _build_own(self) -> QWidget:
        """The rater last chosen here, to start at once, and a lead's way to the others."""
        self.own = QWidget()
        self.own.setObjectName("ownRater")
        layout = QVBoxLayout(self.own)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        row = QHBoxLayout()
        self.own_label = QLabel()
        self.own_label.setObjectName("ownRaterName")
        self.start_own = QPushButton("Start judging")
        self.start_own.setObjectName("startOwn")
        self.start_own.setDefault(True)
        self.start_own.clicked.connect(self._start_own)
        row.addWidget(self.own_label, 1)
        row.addWidget(self.start_own)
        layout.addLayout(row)
        self.switch = QPushButton("Switch rater (lead)…")
        self.switch.setObjectName("switchRater")
        self.switch.setProperty("class", "link")
        self.switch.setCursor(Qt.CursorShape.PointingHandCursor)
        self.switch.setAutoDefault(False)
        self.switch.clicked.connect(self.show_all)
        layout.addWidget(self.switch, 0, Qt.AlignmentFlag.AlignLeft)
        return self.own

    def _build_similar(self) -> QWidget:
        """Asks, for a new name only spaces away from a rater's, whether they are one."""
        self.similar = QFrame()
        self.similar.setObjectName("similarRater")
        layout = QVBoxLayout(self.similar)
        layout.setContentsMargins(0, 0, 0, 0)
        self.similar_text = QLabel()
        self.similar_text.setObjectName("chooserText")
        self.similar_text.setWordWrap(True)
        self.similar_text.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.similar_text)
        buttons = QHBoxLayout()
        self.use_similar = QPushButton()
        self.use_similar.setObjectName("useSimilarRater")
        self.add_anyway = QPushButton()
        self.add_anyway.setObjectName("addRaterAnyway")
        self.add_anyway.setAutoDefault(False)
        buttons.addWidget(self.use_similar)
        buttons.addWidget(self.add_anyway)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.use_similar.clicked.connect(
            lambda: self.raterChosen.emit(self.use_similar.property("rater"), False, False)
        )
        self.add_anyway.clicked.connect(
            lambda: self.raterChosen.emit(self.add_anyway.property("rater"), True, True)
        )
        self.similar.hide()
        return self.similar

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

    def refresh(self, names: list[str], own: str | None, database: str) -> None:
        """Offer ``own`` (the rater last chosen on ``database``) alone, or with ``own`` None
        every one of ``names`` and a new name."""
        self.database_label.setText(
            f"Judging in {database}. Your grades stay yours: nobody sees them while judging, "
            "and you see no one else's."
        )
        self.own_name = own
        self.own_label.setText(f"Judging as <b>{escape(own)}</b>" if own else "")
        self.raters.clear()
        self.raters.addItems(names)
        if own in names:
            self.raters.setCurrentText(own)
        self.start.setEnabled(bool(names))
        self.error.hide()
        self.similar.hide()
        self.new_name.clear()
        self.own.setVisible(own is not None)
        self.others.setVisible(own is None)
        self._focus_first()

    def show_all(self) -> None:
        """A lead's switch: every rater of the campaign, a new name and the lead's tools."""
        self.own.hide()
        self.others.show()
        self._focus_first()

    def _focus_first(self) -> None:
        """The focus where a rater starts: Start judging for the rater last chosen, else the
        list of raters (typing picks one, Enter starts), else the new name."""
        if not self.own.isHidden():
            self.start_own.setFocus()
        else:
            (self.raters if self.raters.count() else self.new_name).setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown (at start, or from Judge ▸ Change rater): Enter and typing work at once."""
        super().showEvent(event)
        QTimer.singleShot(0, self, self._focus_first)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter in the list of raters starts judging as the one chosen (a list, unlike a
        button, does nothing with Enter; outside a dialog no button takes it by default)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.raters.hasFocus():
            self._start()
            event.accept()
            return
        super().keyPressEvent(event)

    def ask_similar(self, name: str, other: str) -> None:
        """Ask whether the new name ``name`` is the rater ``other`` (their names differ only
        by spaces or case, or by invisible or look-alike characters) or another person."""
        self.error.hide()
        how = (
            "differs from the rater “{}” only by spaces or case"
            if only_case_or_spaces(name, other)
            else "looks like the rater “{}”: it differs only by invisible or look-alike characters"
        )
        self.similar_text.setText(f"“{name}” {how.format(other)}. Is this the same person?")
        self.use_similar.setText(f"Yes: judge as {other}")
        self.use_similar.setProperty("rater", other)
        self.add_anyway.setText(f"No: add {name}")
        self.add_anyway.setProperty("rater", name)
        self.similar.show()
        self.use_similar.setFocus()

    def show_error(self, text: str) -> None:
        """Why the rater asked for cannot judge (a role's name, an empty one)."""
        self.similar.hide()
        self.error.setText(text)
        self.error.show()

    def _start_own(self) -> None:
        if self.own_name:
            self.raterChosen.emit(self.own_name, False, False)

    def _start(self) -> None:
        if self.raters.currentText():
            self.raterChosen.emit(self.raters.currentText(), False, False)

    def _add(self) -> None:
        self.raterChosen.emit(self.new_name.text().strip(), True, False)
