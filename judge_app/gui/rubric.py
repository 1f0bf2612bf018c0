"""The rubric under the judging screen: one button a grade, with its key, title and
description; clicking one grades as its key does."""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import grade_colour, text_on
from judge_app.judging.keys import key_label, keys_of
from judge_app.store.grade_labels import GradeLabel

HEIGHT = {False: 118, True: 66}
"""The rubric's height with each grade's description (False) or its title only (True)."""


class RubricButton(QPushButton):
    """One grade of the rubric: its key, label and description."""

    def __init__(self, label: GradeLabel, key: str) -> None:
        super().__init__()
        self.grade = label.grade
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setObjectName(f"rubricGrade{label.grade}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(3)
        top = QHBoxLayout()
        top.setSpacing(8)
        self.key_label = QLabel()
        self.key_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.key_label.setObjectName("keyCap")
        self.title = QLabel()
        self.title.setObjectName("rubricTitle")
        self.title.setWordWrap(True)
        top.addWidget(self.key_label, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.title, 1, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setObjectName("rubricDescription")
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.description, 1)
        for child in (self.key_label, self.title, self.description):
            child.setTextFormat(PLAIN)  # a rubric's words are the lead's, never HTML
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.set_label(label, key)

    def set_label(self, label: GradeLabel, key: str) -> None:
        colour = grade_colour(label.grade)
        self.key_label.setText(key)
        self.key_label.setStyleSheet(
            f"background:{colour.name()}; color:{text_on(colour).name()}; border-radius:4px;"
            "font-weight:700; padding:1px 7px;"
        )
        self.title.setText(f"{label.grade} · {label.label}" if label.label else str(label.grade))
        self.description.setText(label.description)
        self.setToolTip(plain_tip(f"{label.grade} {label.label}: {label.description} (key {key})"))
        self.setAccessibleName(f"Grade {label.grade}, {label.label}")

    def set_compact(self, compact: bool) -> None:
        """Title only (compact), or title and description."""
        self.description.setVisible(not compact)


class Rubric(QFrame):
    """The six grades in a row. ``graded`` says the grade clicked: a double click, like a
    held-down key, grades once (its second click would grade the next result)."""

    graded = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("rubricPanel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        self.buttons: list[RubricButton] = []
        for grade in range(6):
            button = RubricButton(GradeLabel(grade, "", ""), str(grade))
            button.clicked.connect(lambda _checked=False, g=grade: self._clicked(g))
            layout.addWidget(button, 1)
            self.buttons.append(button)
        self._last_click = 0.0  # when a grade was last clicked (time.monotonic)
        self.set_compact(False)

    def set_scale(self, scale: Sequence[GradeLabel], keymap: dict[str, str]) -> None:
        """Show ``scale``'s labels, each with the first key ``keymap`` binds to its grade."""
        for label, button in zip(scale, self.buttons):
            keys = keys_of(keymap, f"grade{label.grade}")
            button.set_label(label, key_label(keys[0]) if keys else "")

    def set_compact(self, compact: bool) -> None:
        """Each grade's title only (compact), or its title and description."""
        for button in self.buttons:
            button.set_compact(compact)
        self.setFixedHeight(HEIGHT[compact])

    def _clicked(self, grade: int) -> None:
        now = time.monotonic()
        if now - self._last_click < QApplication.doubleClickInterval() / 1000:
            return
        self._last_click = now
        self.graded.emit(grade)
