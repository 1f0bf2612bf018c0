"""Whether another window of the same rater changed their judgments: asked on a worker when
the window becomes active and every few seconds while it is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from judge_app.gui.workers import Worker

if TYPE_CHECKING:
    from judge_app.judging.session import JudgingSession

STEP_CHECK_MS = 2000
"""How often an active window asks whether another window of its rater changed a grade."""


class StepWatch(QObject):
    """``outOfStep`` says the store holds changes the shown ``session()`` does not, once
    ``busy()`` (a change of this window's on its way, a note being written) is False."""

    outOfStep = Signal()

    def __init__(
        self,
        session: Callable[[], JudgingSession | None],
        busy: Callable[[], bool],
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._busy = busy
        self._check: Worker | None = None  # the check under way
        self._timer = QTimer(self)
        self._timer.setInterval(STEP_CHECK_MS)
        self._timer.timeout.connect(self.check)

    def set_active(self, active: bool) -> None:
        """The window became active (check at once, then every few seconds) or not (stop)."""
        if active:
            self.check()
            self._timer.start()
        else:
            self._timer.stop()

    def check(self) -> None:
        """Ask, on a worker, whether the store moved on from the shown session."""
        session = self._session()
        if session is None or self._check is not None or self._busy():
            return
        check = Worker(lambda _worker: _out_of_step(session))
        check.signals.returned.connect(lambda stale: self._checked(session, stale))
        check.signals.finished.connect(lambda: setattr(self, "_check", None))
        self._check = check
        QThreadPool.globalInstance().start(check)

    def _checked(self, session: JudgingSession, stale: bool) -> None:
        if stale and session is self._session() and not self._busy():
            self.outOfStep.emit()


def _out_of_step(session: JudgingSession) -> bool:
    with session.database.reading() as reading:
        return session.out_of_step(reading)
