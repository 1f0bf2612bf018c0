"""Long work off the UI thread: a QRunnable with a signals object and a cooperative abort
(superqt's worker), and a task that shows a progress dialog only when the work takes longer
than 600 ms (as Anki does), so quick work does not flash a dialog; quick work a page shows
inline (``dialog=False``: the task's ``progress`` signal) has no dialog at all.

The work is a plain function given the ``Worker``: it reports progress with
``worker.report(step, done, total)`` and checks ``worker.check()``; both raise ``Cancelled``
once the user cancelled, which unwinds the work (a store transaction rolls back). The work
opens its own Database and Session and never touches a widget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QDialog, QProgressDialog, QWidget

PROGRESS_DELAY_MS = 600


class Cancelled(Exception):
    """The user cancelled the work; raised inside the work at its next check."""


class WorkerSignals(QObject):
    """What a worker tells the UI thread (queued across threads)."""

    progress = Signal(str, int, int)  # step, done, total (total 0: unknown)
    returned = Signal(object)  # the work's result
    errored = Signal(object)  # the exception it raised
    cancelled = Signal()
    finished = Signal()  # after one of the three above


class Worker(QRunnable):
    """Runs ``work(worker)`` on a pool thread and reports through ``signals``."""

    def __init__(self, work: Callable[[Worker], Any]) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the task keeps it until finished
        self.signals = WorkerSignals()
        self._work = work
        self._abort = threading.Event()

    def run(self) -> None:
        try:
            result = self._work(self)
        except Cancelled:
            self.signals.cancelled.emit()
        except Exception as error:  # every failure goes to the UI, none is lost in the thread
            self.signals.errored.emit(error)
        else:
            self.signals.returned.emit(result)
        finally:
            self.signals.finished.emit()

    def abort(self) -> None:
        """Ask the work to stop at its next check (cooperative)."""
        self._abort.set()

    @property
    def abort_requested(self) -> bool:
        return self._abort.is_set()

    def check(self) -> None:
        """Raise Cancelled if the user cancelled."""
        if self._abort.is_set():
            raise Cancelled

    def report(self, step: str, done: int, total: int) -> None:
        """Progress of the current step; raises Cancelled if the user cancelled."""
        self.check()
        self.signals.progress.emit(step, done, total)


class Task(QObject):
    """One piece of background work started from a window, with its progress dialog.

    ``finished`` is emitted last, after the outcome signal, once the dialog is gone; tests wait
    for it with ``qtbot.waitSignal``.
    """

    progress = Signal(str, int, int)  # the work's step, done, total (total 0: unknown)
    returned = Signal(object)
    errored = Signal(object)
    cancelled = Signal()
    finished = Signal()

    def __init__(
        self,
        parent: QWidget,
        title: str,
        work: Callable[[Worker], Any],
        *,
        cancellable: bool = True,
        dialog: bool = True,
        pool: QThreadPool | None = None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self.title = title
        self.cancellable = cancellable
        self.inline = not dialog  # shown by a page through ``progress``, never by a dialog
        self.worker = Worker(work)
        self.dialog: QProgressDialog | None = None
        self.running = False
        self._pool = pool or QThreadPool.globalInstance()
        self._label = title
        self._progress = (0, 0)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PROGRESS_DELAY_MS)
        self._timer.timeout.connect(self._show_dialog)
        signals = self.worker.signals
        signals.progress.connect(self._on_progress)
        signals.returned.connect(self.returned)
        signals.errored.connect(self.errored)
        signals.cancelled.connect(self.cancelled)
        signals.finished.connect(self._on_finished)

    def start(self) -> Task:
        self.running = True
        if not self.inline:
            self._timer.start()
        self._pool.start(self.worker)
        return self

    def cancel(self) -> None:
        """Ask the work to stop; what it wrote in its unfinished transaction is rolled back."""
        if self.running and self.cancellable:
            self.worker.abort()
            if self.dialog is not None:
                self.dialog.setLabelText(f"{self.title}: cancelling…")

    def _show_dialog(self) -> None:
        if not self.running:
            return
        dialog = QProgressDialog(self._parent)
        dialog.setObjectName("progressDialog")
        dialog.setWindowTitle(self.title)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setMinimumWidth(420)
        if self.cancellable:
            dialog.canceled.connect(self.cancel)
        else:
            dialog.setCancelButton(None)
        self.dialog = dialog
        self._update_dialog()
        dialog.show()

    def _on_progress(self, step: str, done: int, total: int) -> None:
        self._label = f"{self.title}: {step}"
        self._progress = (done, total)
        self.progress.emit(step, done, total)
        self._update_dialog()

    def _update_dialog(self) -> None:
        if self.dialog is None or self.worker.abort_requested:
            return
        done, total = self._progress
        self.dialog.setLabelText(
            f"{self._label} ({done:,} of {total:,})" if total else f"{self._label}…"
        )
        self.dialog.setRange(0, total)  # 0..0: a busy indicator while the total is unknown
        self.dialog.setValue(min(done, total))

    def _on_finished(self) -> None:
        self.running = False
        self._timer.stop()
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        self.finished.emit()
        self.deleteLater()


class TaskDialog(QDialog):
    """A dialog that hands its work to a Task: disabled while the work runs, accepted when it
    succeeds. Its slots are its own methods, so a task that ends after the dialog was deleted
    reaches nothing (a lambda would call into the deleted dialog)."""

    def wait_for(self, task: Task) -> None:
        self.setEnabled(False)
        task.returned.connect(self._succeeded)
        task.errored.connect(self._failed)
        task.finished.connect(self._work_done)

    def _succeeded(self, _result: object) -> None:
        self.accept()

    def _failed(self, error: BaseException) -> None:
        """Show why the work failed; the dialog stays open."""
        raise NotImplementedError

    def _work_done(self) -> None:
        self.setEnabled(True)
