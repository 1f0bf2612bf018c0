"""The judging screen's results pane: the open query's results with their grades, under a cue
that says the keys, what leaving the query would leave ungraded, or that it is done."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QHeaderView, QStyleOptionViewItem, QTableView, QVBoxLayout, QWidget

from judge_app.gui.delegates import GradeBadgeDelegate, TwoLineDelegate
from judge_app.gui.models import Column, ResultsModel, Role
from judge_app.gui.panes import as_list, banner, captioned
from judge_app.judging.keys import key_label, keys_of
from judge_app.numbers import count_text

CUE_PADDING = 16
"""The cue is two lines high (and this padding), whatever it says."""
GRADE_WIDTH = {False: 172, True: 116}
"""The grade column's width beside a full rubric (False) or a compact one (True)."""


class ResultView(QTableView):
    """The result list: every key press goes to ``handle_key`` first (True: it was one of
    the screen's); a change of height keeps the current result in sight (``resized``)."""

    def __init__(self, handle_key: Callable[[QKeyEvent], bool], resized: Callable[[], None]):
        super().__init__()
        self._handle_key = handle_key
        self._resized = resized

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._handle_key(event):
            event.accept()
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._resized()


class ResultsPane(QWidget):
    """The cue above the results (always there, of one height, so that what it says never
    moves the results) and the results."""

    def __init__(self, handle_key: Callable[[QKeyEvent], bool]) -> None:
        super().__init__()
        self.model = ResultsModel(parent=self)
        self.view = ResultView(handle_key, self.keep_in_view)
        self.view.setObjectName("resultList")
        self.view.setModel(self.model)
        self.view.setItemDelegateForColumn(Column.TITLE, TwoLineDelegate(Role.URL, parent=self))
        self.view.setItemDelegateForColumn(Column.GRADE, GradeBadgeDelegate(self))
        self.view.setColumnHidden(Column.URL, True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(Column.POSITION, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(Column.GRADE, QHeaderView.ResizeMode.Fixed)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setHighlightSections(False)
        self.view.setColumnWidth(Column.POSITION, 40)
        self.view.setColumnWidth(Column.GRADE, GRADE_WIDTH[False])
        as_list(self.view, self.row_height())
        self.view.doubleClicked.connect(lambda _index: self.view.setFocus())
        self.cue = banner("cueBanner")
        self.cue.setTextFormat(Qt.TextFormat.RichText)
        self.cue.show()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(captioned("Results", self.cue, self.view))

    def row_height(self) -> int:
        """The height of a result's two lines (title and address)."""
        return two_line_height(self.view)

    @property
    def current_row(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else -1

    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.view.selectionModel().setCurrentIndex(
                self.model.index(row, Column.TITLE),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.keep_in_view()

    def keep_in_view(self) -> None:
        """Scroll the current result into sight with the one after it (a row of look-ahead),
        where the view has room for both."""
        row = self.current_row
        if row < 0:
            return
        if row + 1 < self.model.rowCount():
            self.view.scrollTo(self.model.index(row + 1, 0))
        self.view.scrollTo(self.model.index(row, 0))

    def set_compact(self, compact: bool) -> None:
        self.view.setColumnWidth(Column.GRADE, GRADE_WIDTH[compact])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.cue.setFixedHeight(2 * self.cue.fontMetrics().lineSpacing() + CUE_PADDING)

    def show_cue(self, text: str, *, state: str) -> None:
        """Say ``text`` above the results: the keys (``state`` ""), the query ``done``, or a
        ``warning`` of what needs care."""
        if self.cue.property("state") != state:
            self.cue.setProperty("state", state)
            self.cue.style().unpolish(self.cue)
            self.cue.style().polish(self.cue)
        self.cue.setText(text)
        self.cue.setToolTip(text)


def keys_cue(keymap: dict[str, str]) -> str:
    """The keys a rater needs most, in ``keymap``, for the cue's quiet state."""

    def key(action: str) -> str:
        keys = keys_of(keymap, action)
        return f"<b>{html.escape(key_label(keys[0]))}</b>" if keys else "–"

    return (
        f"{key('grade0')}–{key('grade5')} grade and go on  ·  {key('skip')} skip  ·  "
        f"{key('note')} note  ·  {key('next_unfinished')} next query  ·  {key('help')} every key"
    )


def leave_cue(left: int, going: str) -> str:
    """What leaving the open query to ``going`` would leave ungraded (``left`` results)."""
    results = count_text(left, "result is", "results are")
    return (
        f"<b>{results} not graded yet.</b> Press the same key again to {going} anyway, or grade "
        f"{'it' if left == 1 else 'them'} first."
    )


def done_cue(results: int, queries: int, keymap: dict[str, str], all_done: bool) -> str:
    """What the cue says once every result of the open query is judged: with ``all_done``,
    the ``results`` of the rater's ``queries``; else the key to the next unfinished query."""
    if all_done:
        return (
            f"<b>✓ All done:</b> the {results} results of your {queries} queries are judged. "
            "Thank you!"
        )
    keys = keys_of(keymap, "next_unfinished")
    enter = html.escape(key_label(keys[0])) if keys else "Enter"
    return f"<b>✓ Query done.</b> Press <b>{enter}</b> for the next unfinished query."


def two_line_height(view: QTableView) -> int:
    """The height of a row of two lines (a title and a line under it) in ``view``."""
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    return TwoLineDelegate(Role.URL).sizeHint(option, QModelIndex()).height()
