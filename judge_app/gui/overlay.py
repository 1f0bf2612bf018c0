"""The shortcut overlay: every key of the active key map, over the window, not modal."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QHideEvent, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from judge_app.judging.keys import ACTIONS, KEYMAP_TITLES, key_label, keys_of

Groups = Sequence[tuple[str, Sequence[tuple[Sequence[str], str]]]]
"""Shortcut groups: a heading, then rows of (the keys, what they do)."""

GROUPS = (
    ("Grading", ["grade0", "grade1", "grade2", "grade3", "grade4", "grade5", "clear", "skip",
                 "skip_reason1", "skip_reason2", "skip_reason3", "skip_reason4", "note"]),
    ("Moving", ["next", "previous", "first", "last", "next_unfinished", "next_query",
                "previous_query", "find_query", "scroll_down", "scroll_up"]),
    ("More", ["open_url", "undo", "redo", "help"]),
)  # fmt: skip


class ShortcutOverlay(QWidget):
    """A dimmed layer over its parent with a card listing the shortcuts; any key closes it."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._host = parent
        self.setObjectName("shortcutOverlay")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.card = QFrame(self)
        self.card.setObjectName("shortcutCard")
        self._layout = QVBoxLayout(self.card)
        self._layout.setContentsMargins(28, 22, 28, 22)
        self._layout.setSpacing(12)
        parent.installEventFilter(self)
        self._return_focus: QWidget | None = None  # had the focus before the card was shown
        self.hide()

    def show_keymap(self, name: str, keymap: dict[str, str], grade_labels: list[str]) -> None:
        """Fill the card for ``keymap`` and show it over the parent."""
        groups = []
        for group, actions in GROUPS:
            rows = []
            for action in actions:
                text = ACTIONS[action].title
                if action.startswith("grade"):
                    grade = int(action[5:])
                    text = f"Grade {grade} · {grade_labels[grade]}"
                labels = dict.fromkeys(key_label(key) for key in keys_of(keymap, action))
                rows.append((list(labels)[:2], text))
            groups.append((group, rows))
        self.show_groups(
            "Keyboard shortcuts",
            f"Key map: {KEYMAP_TITLES[name]}  ·  change it in View ▸ Key map",
            groups,
            "A grade moves on to the next ungraded result. Held-down keys do not repeat a "
            "grade. Press any key to close.",
        )

    def show_groups(
        self, title: str, subtitle: str, groups: Groups, hint: str, columns_at_most: int = 2
    ) -> None:
        """Fill the card with ``groups`` of (keys, what they do) in ``columns_at_most``
        columns of about equal length (a group is never split), and show it."""
        _clear(self._layout)
        heading_label = QLabel(title)
        heading_label.setObjectName("overlayTitle")
        subtitle_label = QLabel(subtitle)
        subtitle_label.setObjectName("overlaySubtitle")
        self._layout.addWidget(heading_label)
        self._layout.addWidget(subtitle_label)
        columns = QGridLayout()
        columns.setHorizontalSpacing(36)
        columns.setVerticalSpacing(6)
        lengths = [0] * min(columns_at_most, len(groups))
        stacks: list[QVBoxLayout] = []
        for column in range(len(lengths)):
            stack = QVBoxLayout()
            stack.setSpacing(14)
            columns.addLayout(stack, 0, column, Qt.AlignmentFlag.AlignTop)
            stacks.append(stack)
        for index, (group, rows) in enumerate(groups):  # then below the shortest column
            column = index if index < len(lengths) else lengths.index(min(lengths))
            lengths[column] += len(rows) + 1
            grid = QGridLayout()
            grid.setHorizontalSpacing(14)
            grid.setVerticalSpacing(7)
            heading = QLabel(group.upper())
            heading.setObjectName("overlayHeading")
            grid.addWidget(heading, 0, 0, 1, 2)
            for row, (keys, text) in enumerate(rows, start=1):
                caps = QHBoxLayout()
                caps.setSpacing(4)
                caps.addStretch(1)
                for key in keys:
                    cap = QLabel(key)
                    cap.setObjectName("overlayKeys")
                    cap.setTextFormat(Qt.TextFormat.PlainText)
                    caps.addWidget(cap)
                label = QLabel(text)
                label.setObjectName("overlayAction")
                grid.addLayout(caps, row, 0)
                grid.addWidget(label, row, 1)
            stacks[column].addLayout(grid)
        self._layout.addLayout(columns)
        hint_label = QLabel(hint)
        hint_label.setObjectName("overlaySubtitle")
        hint_label.setWordWrap(True)
        self._layout.addWidget(hint_label)
        self._place()
        focused = QApplication.focusWidget()
        if focused is not None and focused is not self:
            self._return_focus = focused
        self.show()
        self.raise_()
        self.setFocus()

    def hideEvent(self, event: QHideEvent) -> None:
        """The focus goes back where it was (the results, mostly), never to the next widget
        in line (the queue's search field would take the next grade key)."""
        super().hideEvent(event)
        target, self._return_focus = self._return_focus, None
        if target is not None and isValid(target) and target.isVisible():
            target.setFocus(Qt.FocusReason.OtherFocusReason)

    def _place(self) -> None:
        self.setGeometry(self._host.rect())
        width = min(self.card.sizeHint().width(), self.width() - 48)
        height = min(self._layout.heightForWidth(width), self.height() - 48)
        if height <= 0:
            height = min(self.card.sizeHint().height(), self.height() - 48)
        self.card.setGeometry(
            (self.width() - width) // 2, (self.height() - height) // 2, width, height
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize:
            if self.isVisible():
                self._place()
        return super().eventFilter(watched, event)

    def paintEvent(self, _event: object) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(0, 0, 0, 120))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        event.accept()
        self.hide()

    def mousePressEvent(self, event: object) -> None:
        self.hide()


def _clear(layout: QLayout) -> None:
    """Empty ``layout``: its widgets deleted, its nested layouts emptied."""
    while (child := layout.takeAt(0)) is not None:
        if (widget := child.widget()) is not None:
            widget.deleteLater()
        elif (inner := child.layout()) is not None:
            _clear(inner)
