"""What the window's parts share: the open database, the one piece of background work at a
time, the status bar's messages and the file dialog.

Dialogs and pages are given the workspace, never the main window, so none of them imports
the window; the window listens to the workspace's signals and updates its menus, title and
pages from them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from judge_app.gui.workers import Task, Worker

if TYPE_CHECKING:  # a start paints the window before SQLAlchemy and the store are loaded
    from sqlalchemy.orm import Session

    from judge_app.store import Database


class Workspace(QObject):
    """The database the window works on, the background work on it, and what to tell the user.

    One piece of work at a time: ``ready()`` is False (and the status bar says why) while one
    runs. The work runs on a pool thread with a Database of its own, opened from
    ``database_url()``; its progress dialog opens over ``dialog_parent``.
    """

    databaseChanged = Signal()  # another database is open, or none is
    campaignChanged = Signal()  # the window's work changed queries, results, rubric or queues
    taskStarted = Signal(object)  # the Task, before it starts
    taskFinished = Signal(object)  # the Task, after its outcome
    message = Signal(str, bool)  # text for the status bar, is it an error

    def __init__(self, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.dialog_parent = dialog_parent  # what dialogs open over: the window
        self._database: Database | None = None
        self.task: Task | None = None  # the background work under way, if any
        self.file_dialog: QFileDialog | None = None  # the open file dialog, if any

    # the database ------------------------------------------------------------------------------

    @property
    def database(self) -> Database | None:
        return self._database

    def set_database(self, database: Database) -> None:
        """Work on ``database`` from now on; the one open before is closed (what showed it
        lets go of it first: the window ends its judging session)."""
        if self._database is not None and self._database is not database:
            self._database.close()
        self._database = database
        self.databaseChanged.emit()

    def close_database(self) -> None:
        if self._database is None:
            return
        self._database.close()
        self._database = None
        self.databaseChanged.emit()

    def reading(self) -> AbstractContextManager[Session]:
        """A read of the open database (there must be one)."""
        assert self._database is not None
        return self._database.reading()

    def database_url(self) -> str:
        """The database for a worker to open on its own (with its password, if any)."""
        assert self._database is not None
        return self._database.url.render_as_string(hide_password=False)

    # background work ---------------------------------------------------------------------------

    def ready(self) -> bool:
        """Can work start: a database is open and no work is under way (if some is, the status
        bar says to wait for it)."""
        return self._database is not None and not self.busy()

    def busy(self) -> bool:
        """Is background work under way? One at a time: the others wait for it."""
        if self.task is not None and self.task.running:
            self.show_message(f"Wait for “{self.task.title}” to finish", error=True)
            return True
        return False

    def run_task(
        self,
        title: str,
        work: Callable[[Worker], Any],
        *,
        cancellable: bool = True,
        inline: bool = False,
    ) -> Task:
        """Run ``work(worker)`` off the UI thread with a progress dialog after 600 ms, or with
        none (``inline``: quick work whose page shows the task's progress itself). The
        evaluation and agreement pages take no input meanwhile; judging goes on (its grades
        queue behind the work's transaction, if it has one)."""
        task = Task(self.dialog_parent, title, work, cancellable=cancellable, dialog=not inline)
        task.finished.connect(lambda: self._task_done(task))
        self.task = task
        self.taskStarted.emit(task)
        return task.start()

    def _task_done(self, task: Task) -> None:
        if self.task is task:
            self.task = None
        self.taskFinished.emit(task)

    # the user ----------------------------------------------------------------------------------

    def show_message(self, text: str, error: bool = False) -> None:
        """Say ``text`` in the status bar."""
        self.message.emit(text, error)

    def choose_file(
        self,
        title: str,
        name_filter: str,
        chosen: Callable[[str], object],
        *,
        save: bool = False,
        suffix: str | None = None,
        default: str | None = None,
        parent: QWidget | None = None,
    ) -> QFileDialog:
        """A file dialog, open but not modal to the code (``open()``, never ``exec()``);
        ``chosen(path)`` runs when the user picks a file."""
        dialog = QFileDialog(parent or self.dialog_parent, title)
        dialog.setObjectName("fileDialog")
        dialog.setNameFilter(name_filter)
        if save:
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setFileMode(QFileDialog.FileMode.AnyFile)
            dialog.setOption(QFileDialog.Option.DontConfirmOverwrite, suffix == "sqlite")
        else:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        if suffix:
            dialog.setDefaultSuffix(suffix)
        if default:
            dialog.selectFile(default)
        dialog.fileSelected.connect(chosen)
        dialog.finished.connect(lambda _result: self._file_dialog_closed(dialog))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _file_dialog_closed(self, dialog: QFileDialog) -> None:
        if self.file_dialog is dialog:
            self.file_dialog = None
        dialog.deleteLater()
