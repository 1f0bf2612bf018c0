"""Qt models of the judging screen: the open query's results and the rater's queue.

Both read a JudgingSession, which holds only the rater's own judgments: nothing here can show
another rater's grade or a system score."""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from judge_app.gui.plain import plain_tip
from judge_app.gui.theme import muted_text

if TYPE_CHECKING:  # a start shows these models empty before the store is loaded
    from judge_app.judging.session import JudgingSession
    from judge_app.store.rater_queue import Item, Progress, QueueQuery

USER = int(Qt.ItemDataRole.UserRole)
_Index = QModelIndex | QPersistentModelIndex


class Role(IntEnum):
    GRADE = USER + 1  # the rater's grade, or None
    SKIPPED = USER + 2
    UNSAVED = USER + 3  # what a failed write could not save, or None
    NOTE = USER + 4
    URL = USER + 5
    PROGRESS = USER + 6  # of a queue query: "q01 · 7 / 12"
    COMPLETE = USER + 7  # of a queue query: every result judged
    PENDING = USER + 8  # a change of the result is on its way to the database


class Column(IntEnum):
    POSITION = 0
    TITLE = 1
    URL = 2
    GRADE = 3


HEADERS = {Column.POSITION: "#", Column.TITLE: "Result", Column.URL: "URL", Column.GRADE: "Grade"}


_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_RESULT_ROLES = frozenset(
    int(role)
    for role in (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.TextAlignmentRole,
        *Role,
    )
)


def _muted() -> QColor:
    return QColor(muted_text(QApplication.palette()))


class ResultsModel(QAbstractTableModel):
    """The open query's items: position, title, URL and the rater's own grade."""

    def __init__(self, session: JudgingSession | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._session = session

    def set_session(self, session: JudgingSession | None) -> None:
        self.beginResetModel()
        self._session = session
        self.endResetModel()

    def reload(self) -> None:
        """The session opened another query."""
        self.beginResetModel()
        self.endResetModel()

    def row_changed(self, row: int) -> None:
        if 0 <= row < self.rowCount():
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(Column) - 1))

    def item(self, row: int) -> Item:
        assert self._session is not None
        return self._session.items[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() or self._session is None:
            return 0
        return len(self._session.items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(Column)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> object:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(Column):
            if role == Qt.ItemDataRole.DisplayRole:
                return HEADERS[Column(section)]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        # called a few hundred times per repaint: plain ints, and no work for other roles
        if role not in _RESULT_ROLES or self._session is None or not index.isValid():
            return None
        row, column = index.row(), index.column()
        if not 0 <= row < len(self._session.items):
            return None
        item = self._session.items[row]
        pending = self._session.pending_at(row)
        unsaved = None if pending else self._session.unsaved_at(row)  # being tried again
        if role == _DISPLAY:
            if column == Column.POSITION:
                return str(item.position)
            if column == Column.TITLE:
                return item.title or item.external_id
            if column == Column.URL:
                return item.url or ""
            return self._grade_text(item, unsaved)
        if role == _TOOLTIP:
            if column == Column.GRADE and pending:
                return "Saving…"
            if column == Column.GRADE and item.note:
                return f"Note: {item.note}"
            if column == Column.TITLE:
                return item.url or item.external_id
            return None
        if role == _FOREGROUND and column in (Column.POSITION, Column.URL):
            return _muted()
        if role == _ALIGNMENT and column == Column.POSITION:
            return _RIGHT
        if role == Role.GRADE:
            return item.grade
        if role == Role.SKIPPED:
            return item.skipped
        if role == Role.UNSAVED:
            return unsaved
        if role == Role.PENDING:
            return pending
        if role == Role.NOTE:
            return item.note
        if role == Role.URL:
            return item.url or ""
        return None

    def _grade_text(self, item: Item, unsaved: str | None) -> str:
        assert self._session is not None
        if unsaved:
            return f"Unsaved: {unsaved}"
        if item.skipped:
            return "Skipped"
        if item.grade is None:
            return ""
        return f"{item.grade} {self._session.scale[item.grade].label}"


class Queued(Protocol):
    """A session with a queue of queries and the rater's progress on each (a grading or a
    pair session)."""

    queue: list[QueueQuery]
    progress: dict[int, Progress]


class QueueModel(QAbstractListModel):
    """The rater's queries, with how much of each query they judged."""

    def __init__(self, session: Queued | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._session = session

    def set_session(self, session: Queued | None) -> None:
        self.beginResetModel()
        self._session = session
        self.endResetModel()

    def query_changed(self, index: int) -> None:
        if 0 <= index < self.rowCount():
            self.dataChanged.emit(self.index(index), self.index(index))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() or self._session is None:
            return 0
        return len(self._session.queue)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or self._session is None:
            return None
        if not 0 <= index.row() < len(self._session.queue):
            return None
        query = self._session.queue[index.row()]
        progress = self._session.progress.get(query.id)
        if role == Qt.ItemDataRole.DisplayRole:
            return query.text or query.external_id
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(query.description or query.text or query.external_id)
        if role == Role.PROGRESS:
            if progress is None:
                return f"{query.external_id} · no results"
            return f"{query.external_id} · {progress.done} / {progress.total}"
        if role == Role.COMPLETE:
            return progress is not None and progress.total > 0 and progress.done == progress.total
        return None
