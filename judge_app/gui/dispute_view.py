"""The adjudication screen's parts: the header, the disagreement shown (its query, document,
each rater's grade on a card and the lead's own grade with its state) and the card that says
every disagreement is decided."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.adjudicate import MAX_RATER_KEYS, Dispute, Opinion
from judge_app.gui.document_view import DocumentView
from judge_app.gui.panes import captioned
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import grade_colour, text_on
from judge_app.judging.highlight import query_terms
from judge_app.store.grade_labels import GradeLabel


def duration_text(ms: int | None) -> str:
    """A judgment's time as people read it: "12 s", "2 min 05 s"."""
    if ms is None:
        return "time not recorded"
    seconds = round(ms / 1000)
    if seconds < 60:
        return f"{seconds} s" if ms >= 1000 else f"{ms:,} ms"
    return f"{seconds // 60} min {seconds % 60:02d} s"


class RaterCard(QFrame):
    """One rater's judgment: the key that accepts it, the grade as a coloured badge, the
    note and the time it took. Clicking it accepts the grade."""

    clicked = Signal()

    def __init__(self, number: int, opinion: Opinion, label: str) -> None:
        super().__init__()
        self.setObjectName("raterCard")
        self.setProperty("chosen", False)
        self.opinion = opinion
        self.setCursor(
            Qt.CursorShape.PointingHandCursor
            if opinion.grade is not None
            else Qt.CursorShape.ArrowCursor
        )
        layout = QGridLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setHorizontalSpacing(10)
        layout.setVerticalSpacing(4)
        self.key = QLabel(str(number) if number <= MAX_RATER_KEYS else "")
        self.key.setObjectName("keyCap")
        self.key.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.key.setFixedWidth(26)
        name = QLabel(opinion.rater)
        name.setTextFormat(PLAIN)
        name.setObjectName("raterName")
        self.badge = QLabel()
        self.badge.setObjectName("gradeBadge")
        self.badge.setTextFormat(Qt.TextFormat.PlainText)
        if opinion.grade is not None:
            colour = grade_colour(opinion.grade)
            self.badge.setText(f"{opinion.grade} · {label}")
            self.badge.setStyleSheet(
                f"background:{colour.name()}; color:{text_on(colour).name()};"
                "border-radius:10px; padding:2px 10px; font-weight:600;"
            )
        else:
            self.badge.setText("skipped · cannot judge")
            self.badge.setStyleSheet(
                f"border:1px solid {grade_colour(None, True).name()}; border-radius:10px;"
                "padding:1px 9px;"
            )
        self.badge.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        time = QLabel(duration_text(opinion.duration_ms))
        time.setObjectName("raterTime")
        time.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        note = QLabel(f"“{opinion.note}”" if opinion.note else "No note")
        note.setObjectName("raterNote" if opinion.note else "raterNoNote")
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.key, 0, 0)
        layout.addWidget(name, 0, 1)
        layout.addWidget(time, 0, 2)
        layout.addWidget(self.badge, 1, 1, 1, 2, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(note, 2, 1, 1, 2)
        layout.setColumnStretch(1, 1)
        self.setToolTip(
            plain_tip(
                f"Press {number} to accept {opinion.rater}'s grade"
                if opinion.grade is not None and number <= MAX_RATER_KEYS
                else f"{opinion.rater} gave no grade"
            )
        )

    def set_chosen(self, chosen: bool) -> None:
        """Outline the card whose grade the decision took."""
        if self.property("chosen") != chosen:
            self.setProperty("chosen", chosen)
            self.style().unpolish(self)
            self.style().polish(self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.opinion.grade is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


class AdjudicationHeader(QFrame):
    """What is being decided, how far along, the keys and the way back."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("queryHeader")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(20, 12, 20, 12)
        layout.setSpacing(16)
        left = QVBoxLayout()
        left.setSpacing(2)
        caption = QLabel("ADJUDICATING")
        caption.setObjectName("queryCaption")
        self.progress_label = QLabel()
        self.progress_label.setObjectName("adjudicationProgress")
        left.addWidget(caption)
        left.addWidget(self.progress_label)
        layout.addLayout(left)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("overallProgress")
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMinimumWidth(120)
        self.progress_bar.setMaximumWidth(320)
        layout.addWidget(self.progress_bar, 1, Qt.AlignmentFlag.AlignVCenter)
        layout.addStretch(0)
        self.help_button = QPushButton("Keys  ?")
        self.back_button = QPushButton("Back to agreement")
        self.back_button.setObjectName("backToAgreement")
        for button in (self.help_button, self.back_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)

    def show_progress(self, text: str, done: int, total: int) -> None:
        self.progress_label.setText(text)
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)


class DisputeDetail(QWidget):
    """One disagreement: its query, its document, the raters' cards and the lead's own grade.
    ``accepted`` gives the number (from 1) of a rater's card clicked, ``graded`` an own grade
    clicked, ``goldRequested`` the gold button."""

    accepted = Signal(int)
    graded = Signal(int)
    goldRequested = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 0, 0, 0)
        layout.setSpacing(8)
        self.item_caption = QLabel()
        self.item_caption.setObjectName("paneCaption")
        self.query_text = QLabel()
        self.query_text.setObjectName("adjudicationQuery")
        self.query_text.setWordWrap(True)
        self.query_text.setTextFormat(Qt.TextFormat.PlainText)
        self.query_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel()
        self.summary.setObjectName("adjudicationSummary")
        self.summary.setWordWrap(True)
        for label in (self.item_caption, self.query_text, self.summary):
            layout.addWidget(label)
        self.document_view = DocumentView()
        self.cards: list[RaterCard] = []
        self._terms: list[str] = []
        self._item: Dispute | None = None

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.setSpacing(6)
        caption = QLabel("THE RATERS’ GRADES")
        caption.setObjectName("paneCaption")
        side_layout.addWidget(caption)
        self.cards_box = QWidget()
        self.cards_box.setObjectName("raterCards")
        self.cards_layout = QVBoxLayout(self.cards_box)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(8)
        scroll = QScrollArea()
        scroll.setObjectName("raterScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setWidget(self.cards_box)
        side_layout.addWidget(scroll, 1)
        side_layout.addWidget(self._build_own_grade())
        side.setMinimumWidth(260)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(captioned("Document", self.document_view))
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([520, 340])
        self.document_split = split
        layout.addWidget(split, 1)

    def _build_own_grade(self) -> QWidget:
        box = QFrame()
        box.setObjectName("ownGrade")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(12, 10, 12, 12)
        layout.setSpacing(8)
        self.own_caption = QLabel()
        self.own_caption.setObjectName("ownGradeCaption")
        self.own_caption.setWordWrap(True)
        layout.addWidget(self.own_caption)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.grade_buttons: list[QPushButton] = []
        for grade in range(6):
            button = QPushButton(str(grade))
            button.setObjectName(f"ownGrade{grade}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setMinimumHeight(32)
            button.setMinimumWidth(32)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            button.clicked.connect(lambda _checked=False, g=grade: self.graded.emit(g))
            self.grade_buttons.append(button)
            row.addWidget(button)
        layout.addLayout(row)
        self.decision_label = QLabel()
        self.decision_label.setObjectName("decisionState")
        self.decision_label.setWordWrap(True)
        layout.addWidget(self.decision_label)
        self.gold_button = QPushButton("Mark as gold  (Ctrl+G)")
        self.gold_button.setObjectName("markGold")
        self.gold_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.gold_button.setToolTip(
            "Mark this pair gold with the decided grade: raters' grades of it are checked "
            "against it later. It is no rater's judgment."
        )
        self.gold_button.setEnabled(False)
        self.gold_button.clicked.connect(lambda _checked=False: self.goldRequested.emit())
        layout.addWidget(self.gold_button)
        return box

    def show_dispute(self, item: Dispute, scale: Sequence[GradeLabel]) -> None:
        """Show ``item``: its query, document and a card for each rater's grade."""
        self._item = item
        self.item_caption.setText(f"QUERY {item.query_id}  ·  DOCUMENT {item.doc_id}")
        self.query_text.setText(item.query_text or f"Query {item.query_id} (no text)")
        self._terms = query_terms(item.query_text)
        self.show_document()
        while (child := self.cards_layout.takeAt(0)) is not None:
            if (widget := child.widget()) is not None:
                widget.deleteLater()
        self.cards = []
        for number, opinion in enumerate(item.opinions, start=1):
            label = scale[opinion.grade].label if opinion.grade is not None else ""
            card = RaterCard(number, opinion, label)
            card.clicked.connect(lambda n=number: self.accepted.emit(n))
            self.cards.append(card)
            self.cards_layout.addWidget(card)
        self.cards_layout.addStretch(1)
        for step, button in zip(scale, self.grade_buttons):
            button.setToolTip(
                plain_tip(f"Your grade {step.grade} · {step.label}: {step.description}")
            )

    def show_document(self) -> None:
        """The document of the disagreement shown, in the palette's colours."""
        if (item := self._item) is not None:
            self.document_view.show_document(
                item.title, item.doc_id, item.url, item.body, self._terms
            )

    def show_decision(
        self, summary: str, state: str, decided: int | None, failed: bool, gold: bool
    ) -> None:
        """The raters' ``summary``, the decision's ``state`` (``failed`` to save or not), the
        ``decided`` grade outlined on its card and button, and whether gold may be marked."""
        self.summary.setText(summary)
        self.decision_label.setText(state)
        _restyle(self.decision_label, "failed", failed)
        for card in self.cards:
            card.set_chosen(decided is not None and card.opinion.grade == decided)
        for grade, button in enumerate(self.grade_buttons):
            _paint_grade_button(button, grade, grade == decided, self.palette())
        self.gold_button.setEnabled(gold)

    def show_grade_caption(self, choosing: bool) -> None:
        """Say the keys of the own grade, or (``choosing``, after G) that a digit is awaited."""
        self.own_caption.setText(
            "<b>Your grade: press 0–5</b> (Esc cancels)"
            if choosing
            else "YOUR OWN GRADE · <b>G</b>, then <b>0–5</b>"
        )
        _restyle(self.own_caption, "active", choosing)


class DoneCard(QWidget):
    """What shows where the disagreement would, once each is decided (or when none exist)."""

    def __init__(self) -> None:
        super().__init__()
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        card = self.card = QFrame()
        card.setObjectName("doneCard")
        card.setFixedWidth(520)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        self.title = QLabel()
        self.title.setObjectName("doneTitle")
        self.text = QLabel()
        self.text.setObjectName("doneText")
        for label in (self.title, self.text):
            label.setWordWrap(True)
            layout.addWidget(label)
        buttons = QHBoxLayout()
        self.back_button = QPushButton("Back to the agreement page")
        self.back_button.setDefault(True)
        self.review_button = QPushButton("Review the decisions")
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.review_button)
        buttons.addStretch(1)
        layout.addSpacing(6)
        layout.addLayout(buttons)
        outer.addWidget(card, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(2)

    def show_total(self, total: int) -> None:
        """Say that the ``total`` disagreements are decided, or that there are none."""
        if not total:
            self.title.setText("No disagreements to decide")
            self.text.setText(
                "No two raters grade a document two or more apart. New judgments may change "
                "that: the agreement page lists them as they come."
            )
        else:
            noun = "disagreement" if total == 1 else "disagreements"
            self.title.setText(
                f"All {total:,} {noun} decided" if total > 1 else f"The {noun} is decided"
            )
            self.text.setText(
                "Each decision is stored as the rater “adjudicated”: the evaluation prefers it "
                "to the raters’ grades, and agreement leaves it out. Ctrl+Z takes back the "
                "last one."
            )
        self.review_button.setVisible(total > 0)
        self.card.setMinimumHeight(self.card.heightForWidth(self.card.width()))


def _paint_grade_button(button: QPushButton, grade: int, chosen: bool, palette: QPalette) -> None:
    """A grade button in its grade's colour, outlined when it is the decision."""
    colour = grade_colour(grade)
    outline = palette.color(QPalette.ColorRole.Text).name() if chosen else colour.name()
    button.setStyleSheet(
        f"QPushButton {{ background: {colour.name()}; color: {text_on(colour).name()};"
        f" border: 2px solid {outline}; border-radius: 6px; font-weight: 700; }}"
        f" QPushButton:hover {{ border-color: {palette.color(QPalette.ColorRole.Text).name()}; }}"
    )


def _restyle(label: QLabel, name: str, value: bool) -> None:
    """Set ``label``'s style property ``name`` and let the style sheet see it."""
    label.setProperty(name, value)
    label.style().unpolish(label)
    label.style().polish(label)
