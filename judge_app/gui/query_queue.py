"""The judging screen's queue pane: the rater's queries with their progress, a search field
(Ctrl+F) and a switch to show only the queries with results left to judge."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QTableView, QToolButton, QWidget

from judge_app.gui.delegates import TwoLineDelegate
from judge_app.gui.models import QueueModel, Role
from judge_app.gui.panes import captioned

if TYPE_CHECKING:
    from judge_app.gui.models import Queued


class QueueFilter(QSortFilterProxyModel):
    """The queue as shown: the queries whose id or text holds the search text, all of them or
    only those with results left to judge; the open query always stays in sight."""

    def __init__(self, queue: QueueModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSourceModel(queue)
        self._text = ""
        self._unfinished_only = False
        self._current = -1

    def set_text(self, text: str) -> None:
        self._refilter(lambda: setattr(self, "_text", text.strip().casefold()))

    def set_unfinished_only(self, unfinished_only: bool) -> None:
        self._refilter(lambda: setattr(self, "_unfinished_only", unfinished_only))

    def set_current(self, row: int) -> None:
        """The open query's row of the queue: shown whatever the filter. Only the rows that
        stop and start being the open one are filtered again (as a change of their data is):
        every row of a queue of 25,000 queries took 65 ms a query opened."""
        before, self._current = self._current, row
        if row != before:
            queue = self.sourceModel()
            assert isinstance(queue, QueueModel)
            queue.query_changed(before)
            queue.query_changed(row)

    def _refilter(self, change: Callable[[], None]) -> None:
        """Make ``change`` to the filter and show its rows again."""
        if hasattr(self, "endFilterChange"):  # Qt 6.10 and later
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateRowsFilter()

    def first_match(self) -> int | None:
        """The queue row of the first query shown other than the open one, else the open one."""
        rows = [self.mapToSource(self.index(row, 0)).row() for row in range(self.rowCount())]
        others = [row for row in rows if row != self._current]
        first = others or rows
        return first[0] if first else None

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:  # type: ignore[override]
        if source_row == self._current:
            return True
        index = self.sourceModel().index(source_row, 0, source_parent)
        if self._unfinished_only and index.data(Role.COMPLETE):
            return False
        if not self._text:
            return True
        shown = f"{index.data(Qt.ItemDataRole.DisplayRole)} {index.data(Role.PROGRESS)}"
        return self._text in shown.casefold()


class QueuePane(QWidget):
    """The queue under its caption. ``chosen`` gives the queue row of a query clicked,
    ``found`` that of the first query the search finds (Enter in the search field, which then
    clears: a query found is a search done); ``left`` says the search field was left (Enter
    or Esc); ``unmatched`` that Enter found nothing."""

    chosen = Signal(int)
    found = Signal(int)
    left = Signal()
    unmatched = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QueueModel(parent=self)
        self.filter = QueueFilter(self.model, self)
        # a one-column table, not a QListView: QListView lays out every row again on each
        # dataChanged (O(queue) per grade), a table repaints the one row
        self.view = QTableView()
        self.view.setObjectName("queueList")
        self.view.setModel(self.filter)
        self.view.setItemDelegate(TwoLineDelegate(Role.PROGRESS, Role.COMPLETE, self))
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.view.horizontalHeader().hide()
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.clicked.connect(self._clicked)

        bar = QWidget()
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(0, 0, 0, 0)
        bar_layout.setSpacing(4)
        self.search = QLineEdit()
        self.search.setObjectName("queueSearch")
        self.search.setPlaceholderText("Find (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter.set_text)
        self.search.installEventFilter(self)
        self.unfinished_only = QToolButton()
        self.unfinished_only.setObjectName("unfinishedOnly")
        self.unfinished_only.setText("To do")
        self.unfinished_only.setCheckable(True)
        self.unfinished_only.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.unfinished_only.setToolTip("Show only the queries with results left to judge")
        self.unfinished_only.toggled.connect(self.filter.set_unfinished_only)
        bar_layout.addWidget(self.search, 1)
        bar_layout.addWidget(self.unfinished_only)

        pane = captioned("Queue", bar, self.view)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(pane)

    def set_session(self, session: Queued | None) -> None:
        self.model.set_session(session)
        self.filter.set_current(-1)

    def show_open(self, row: int) -> None:
        """Mark queue row ``row`` as the open query, in sight whatever the filter."""
        self.filter.set_current(row)
        self.model.query_changed(row)
        shown = self.filter.mapFromSource(self.model.index(row))
        if shown.isValid():
            self.view.selectionModel().setCurrentIndex(
                shown, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.view.scrollTo(shown)
        else:
            self.view.selectionModel().clearSelection()

    def focus_search(self) -> None:
        """Ctrl+F: to the search field, its text selected."""
        self.search.setFocus()
        self.search.selectAll()

    def _clicked(self, index: QModelIndex) -> None:
        self.search.clear()  # a query found is a search done: the whole queue again
        self.chosen.emit(self.filter.mapToSource(index).row())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """In the search field, Enter opens the first query found and Esc clears the search;
        both leave the field."""
        if watched is self.search and isinstance(event, QKeyEvent):
            if event.type() == QEvent.Type.KeyPress and self._search_key(event.key()):
                return True
        return super().eventFilter(watched, event)

    def _search_key(self, key: int) -> bool:
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            found = self.filter.first_match()
            if found is None:
                self.unmatched.emit()
                return True
            self.search.clear()
            self.left.emit()
            self.found.emit(found)
            return True
        if key == Qt.Key.Key_Escape:
            self.search.clear()
            self.left.emit()
            return True
        return False
