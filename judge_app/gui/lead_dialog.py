"""The frame of a lead's dialogs (assign, rubric, pooling, quality, gold, automatic judges):
a title, a line of text, the content, the buttons; opened with ``open()`` (never ``exec()``),
each writes its change off the UI thread through its use case, and the judging screen is then
read again (the workspace's ``campaignChanged``). Nothing a lead's dialog shows is a rater's
grade: a lead sees counts, not judgments. The small widgets the dialogs share live here too."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.campaign_settings import SettingsChange, change_settings
from judge_app.errors import UsageError
from judge_app.gui.workers import TaskDialog, Worker
from judge_app.gui.workspace import Workspace
from judge_app.store import Database


class LeadDialog(TaskDialog):
    """The frame of a lead's dialog: a title, a line of text, the content, the buttons.
    Each dialog builds its content, calls ``finish_layout()`` and defines ``save()``; one
    without ``accept`` writes each change as it is asked for and has only Close."""

    def __init__(
        self, workspace: Workspace, name: str, title: str, text: str, accept: str | None
    ) -> None:
        super().__init__(workspace.dialog_parent)
        self.workspace = workspace
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(22, 18, 22, 18)
        self.body.setSpacing(12)
        heading = QLabel(title)
        heading.setObjectName("dialogTitle")
        intro = QLabel(text)
        intro.setObjectName("dialogText")
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.body.addWidget(heading)
        self.body.addWidget(intro)
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.buttons = QDialogButtonBox()
        if accept is None:
            self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        else:
            self.accept_button = self.buttons.addButton(
                accept, QDialogButtonBox.ButtonRole.AcceptRole
            )
            self.accept_button.setDefault(True)
            self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)

    def finish_layout(self) -> None:
        """Put the error line and the buttons last; the accept button runs ``save()``."""
        self.body.addStretch(1)
        self.body.addWidget(self.error)
        self.body.addWidget(self.buttons)
        self.buttons.accepted.connect(self.save)

    def save(self) -> None:
        """Check and write what the dialog shows: each dialog's own."""
        raise NotImplementedError

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter in a field presses the accept button, as a default button would: once Tab
        has been through the buttons, Qt makes the last of them (Cancel) the default."""
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        accept = getattr(self, "accept_button", None)
        if enter and accept is not None and not isinstance(self.focusWidget(), QAbstractButton):
            if accept.isEnabled():
                accept.click()
            return
        super().keyPressEvent(event)

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def run(self, title: str, work: Callable[[Database], object]) -> None:
        """Run ``work`` on the open database off the UI thread; the dialog waits."""
        database = self.workspace.database
        if database is None:
            return
        handle = database.share()  # the work's own, should the window close its database

        def task(_worker: Worker) -> object:
            with handle:
                return work(handle)

        self.wait_for(self.workspace.run_task(title, task, cancellable=False))

    def _failed(self, error: BaseException) -> None:
        self.show_error(f"Not saved: {error}")

    def _change(self, title: str, change: SettingsChange) -> None:
        """Write a change of the campaign's settings (``commands.campaign_settings``) off the
        UI thread, or say what is wrong with it."""
        try:
            change = change.checked()
        except UsageError as error:
            self.show_error(f"Not saved: {error}")
            return
        self.run(title, lambda database: change_settings(database, change))

    def saved(self, message: str) -> None:
        """The change is written: the judging screen reads it, the status bar says it."""
        self.workspace.campaignChanged.emit()
        self.workspace.show_message(message)
        self.accept()


class TaskReports:
    """What a lead's long task (an automatic judge, a fetch) tells its progress dialog, as
    the use case asks: ``progress(done, total)``, ``retrying(retries, why, pause)`` (said
    after ``step``) and ``cancelled()`` (whether the lead pressed Cancel)."""

    def __init__(self, worker: Worker, step: str) -> None:
        self._worker, self._step = worker, step
        self._shown: list[object] = [step, 0, 0]  # the text, done and total shown

    def progress(self, done: int, total: int) -> None:
        self._shown[1:] = [done, total]
        self._worker.signals.progress.emit(*self._shown)

    def retrying(self, retries: int, why: str, pause: float) -> None:
        from judge_app.web import retry_words  # httpx's: not loaded with the window

        self._shown[0] = f"{self._step} — {retry_words(retries, why, pause)}"
        self._worker.signals.progress.emit(*self._shown)

    def cancelled(self) -> bool:
        return self._worker.abort_requested


def checkable_list(name: str, entries: list[tuple[str, object]], checked: set) -> QListWidget:
    widget = QListWidget()
    widget.setObjectName(name)
    widget.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    for title, data in entries:
        item = QListWidgetItem(title)
        item.setData(Qt.ItemDataRole.UserRole, data)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if data in checked else Qt.CheckState.Unchecked)
        widget.addItem(item)
    return widget


def checked_items(widget: QListWidget) -> list:
    return [
        widget.item(row).data(Qt.ItemDataRole.UserRole)
        for row in range(widget.count())
        if widget.item(row).checkState() == Qt.CheckState.Checked
    ]


def set_all(widget: QListWidget, checked: bool) -> None:
    state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
    for row in range(widget.count()):
        widget.item(row).setCheckState(state)


# assign ---------------------------------------------------------------------------------------


def caption(text: str) -> QLabel:
    caption = QLabel(text.upper())
    caption.setObjectName("paneCaption")
    return caption


def field(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


def note_label(text: str) -> QWidget:
    label = QLabel(text)
    label.setObjectName("dialogText")
    label.setWordWrap(True)
    label.setContentsMargins(24, 0, 0, 0)
    return label
