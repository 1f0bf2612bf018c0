"""What the judging and adjudication screens share to write: each change handed to an ordered
write queue that commits it off the UI thread, settled back on the UI thread, and a database
that keeps a change waiting said in words (a banner and the status bar), never felt as a
frozen window."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from judge_app.gui.panes import banner
from judge_app.numbers import count_text
from judge_app.store.write_queue import WriteQueue

if TYPE_CHECKING:  # a start paints the judging screen before SQLAlchemy is loaded
    from sqlalchemy.orm import Session

    from judge_app.store import Database

WAIT_NOTICE_MS = 500
"""A change written for longer than this is shown as waiting for the database."""


class ScreenWrites(QObject):
    """A screen's changes on their way to the database, in the order asked.

    ``settled`` gives (what was asked, what its write returned, the error or None) on the UI
    thread, once ``in_flight`` counts it no more; ``idle`` follows when nothing is on its way;
    ``waiting`` gives the status bar's words while the database keeps a change waiting, which
    ``banner`` shows above the screen's work."""

    settled = Signal(object, object, object)
    idle = Signal()
    waiting = Signal(str)
    _written = Signal(object, object, object)  # from the write queue's thread

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.queue = WriteQueue()
        self.in_flight = 0  # changes asked for and not yet settled
        self.closing = False  # the window closes once the changes on their way are written
        self.banner: QLabel = banner("waitBanner")
        self._written.connect(self._settle)
        self._timer = QTimer(self)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._say_waiting)

    def submit(self, database: Database, write: Callable[[Session], Any], asked: object) -> None:
        """Write ``write`` after every change asked before it; ``asked`` comes back with the
        outcome in ``settled``."""
        self.in_flight += 1
        if not self._timer.isActive():
            self._timer.start()
        self.queue.submit(
            database, write, lambda value, error: self._written.emit(asked, value, error)
        )

    def close(self) -> None:
        """Stop the write queue's thread (once nothing is in flight)."""
        self.queue.close()

    def _settle(self, asked: object, value: object, error: BaseException | None) -> None:
        self.in_flight -= 1
        self.settled.emit(asked, value, error)
        if self.in_flight == 0:
            self._timer.stop()
            self.banner.hide()
            self.idle.emit()

    def _say_waiting(self) -> None:
        waited = self.queue.busy_seconds()
        if self.in_flight == 0 or waited * 1000 < WAIT_NOTICE_MS:
            return
        queued = count_text(self.in_flight, "change")
        then = (
            "saved as soon as it is free, then the window closes"
            if self.closing
            else "each saved in order as soon as it is free"
        )
        self.banner.setText(
            f"<b>Waiting for the database</b> ({waited:.0f} s): another program is writing to "
            f"it. Keep judging: {queued} queued, {then}."
        )
        self.banner.show()
        self.waiting.emit(
            f"Waiting for the database: another program is writing to it, {waited:.0f} s. "
            f"{queued} queued, {then}."
        )
