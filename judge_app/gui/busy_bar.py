"""Work under way, shown inline on a page instead of in a dialog: a "Computing…" label, a thin
progress bar and a Cancel button, hidden when nothing runs."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QToolButton,
    QWidget,
)

BAR_WIDTH = 120
BAR_HEIGHT = 6


class BusyBar(QWidget):
    """What a page is computing, its progress (a busy indicator while the total is unknown)
    and a Cancel button when the work can be cancelled."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.label = QLabel()
        self.label.setObjectName("busyLabel")
        # a long step's name is cut rather than widening the page, and so the window
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(80)
        self.bar = QProgressBar()
        self.bar.setObjectName("busyProgress")
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(BAR_WIDTH, BAR_HEIGHT)
        self.cancel = QToolButton()
        self.cancel.setObjectName("busyCancel")
        self.cancel.setText("Cancel")
        self.cancel.setAutoRaise(True)
        self.cancel.clicked.connect(self._cancel)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self._on_cancel: Callable[[], None] | None = None
        self.hide()

    def minimumSizeHint(self) -> QSize:
        """No width: work under way never widens its page, and so the window, past the
        screen (a 1024×768 screen at 150%); squeezed, the bar is cut instead."""
        return QSize(0, super().minimumSizeHint().height())

    def start(self, text: str, on_cancel: Callable[[], None] | None = None) -> None:
        """Show ``text`` with a busy indicator; Cancel calls ``on_cancel`` (none: no button)."""
        self._on_cancel = on_cancel
        self.label.setText(text)
        self.bar.setRange(0, 0)
        self.cancel.setVisible(on_cancel is not None)
        self.cancel.setEnabled(True)
        self.show()

    def progress(self, step: str, done: int, total: int) -> None:
        """The work's step and how far it is (``total`` 0: unknown)."""
        self.label.setText(f"{step[:1].upper()}{step[1:]}…")
        self.bar.setRange(0, total)
        self.bar.setValue(min(done, total))

    def stop(self) -> None:
        self._on_cancel = None
        self.hide()

    def _cancel(self) -> None:
        if self._on_cancel is not None:
            self.cancel.setEnabled(False)
            self.label.setText("Cancelling…")
            self._on_cancel()
