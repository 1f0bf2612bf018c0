"""Tables of pandas frames: a read-only model that sorts itself, a proxy that filters it,
a ready table view, and the "Export CSV…" button.

As glue's table model, nothing is copied per comparison: the model keeps each column's raw
values and display texts in small per-column caches, made when first asked for, sorts by
reordering its rows once (a Python sort of the column's keys, then ``layoutChanged``) and the
proxy matches its filter once per row text. Five thousand rows and more sort and filter at
once; a ``lessThan`` called from C++ for every comparison would take seconds.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype
from PySide6.QtCore import (
    QAbstractTableModel,
    QDir,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judge_app.errors import JudgeAppError
from judge_app.gui.error_words import error_text
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import is_dark
from judge_app.io.exports import write_csv
from judge_app.numbers import score_text

SORT_ROLE = Qt.ItemDataRole.UserRole
"""The raw value of a cell (None where missing), by which the proxy sorts."""
Formatter = Callable[[Any], str]
"""A cell's text from its raw value; never called with a missing value (shown as "–"). Any:
a column's formatter takes the type of that column's values (a float, a str, ...)."""
MISSING = "–"
MARK = " †"
WARNING_COLOURS = {False: "#a15c00", True: "#f0b35a"}  # on a light, on a dark palette
SAMPLE_ROWS = 200  # rows measured to size the columns of a table
MAX_COLUMN_WIDTH = 420
HEADER_ROOM = 32  # a header's padding and sort indicator
STRETCH_MINIMUM = 120  # pixels at least for the column that takes the room left
CSV_FILTER = "CSV files (*.csv);;All files (*)"

_Index = QModelIndex | QPersistentModelIndex
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


def is_missing(value: object) -> bool:
    """None, NaN, pandas' NA or NaT."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def default_text(value: object) -> str:
    """Floats with four decimals (``judge_app.numbers``), whole numbers with thousands
    separators, the rest as str."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{value:,}"
    if isinstance(value, numbers.Real):
        return score_text(float(value))
    return str(value)


def _natural(text: str) -> list[object]:
    """``"q10"`` after ``"q9"``: text parts case-folded, digit runs as numbers."""
    parts = re.split(r"(\d+)", text.casefold())
    return [int(part) if index % 2 else part for index, part in enumerate(parts)]


def _sort_key(value: object) -> tuple[int, float, list[object]]:
    if isinstance(value, numbers.Real):
        return (0, float(value), [])
    return (1, 0.0, _natural(str(value)))


class FrameModel(QAbstractTableModel):
    """A read-only table of a DataFrame: every column but ``marked``, headers from
    ``headers`` (default: the column name), texts from ``formats`` (default:
    :func:`default_text`), numbers right-aligned. Rows whose bool column ``marked`` is True are
    drawn in a warning colour with "†" after the first cell and ``tooltips[marked]`` as their
    tooltip; ``tooltips`` gives the header tooltips. Change ``headers`` or ``formats`` before
    :meth:`set_frame`, which applies them.

    Row ``r`` of the model is always ``frame.iloc[r]``: :meth:`sort` reorders the frame's
    rows, and a frame set while sorted is sorted the same way."""

    def __init__(
        self,
        frame: pd.DataFrame | None = None,
        *,
        headers: dict[str, str] | None = None,
        formats: Mapping[str, Formatter] | None = None,
        marked: str | None = None,
        tooltips: dict[str, str] | None = None,
        full_text: Iterable[str] = (),
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.full_text = set(full_text)  # columns whose cells show their whole text as a tooltip
        self.headers = dict(headers or {})
        self.formats = dict(formats or {})
        self.tooltips = dict(tooltips or {})
        self.marked = marked
        self.generation = 0  # counts the frames and orders shown: caches are kept per order
        self.sorted_by: tuple[str, Qt.SortOrder] | None = None  # (column, order), if sorted
        self._load(pd.DataFrame() if frame is None else frame)

    def _load(self, frame: pd.DataFrame) -> None:
        self._frame = frame
        self._columns = [column for column in frame.columns if column != self.marked]
        self._numeric = [
            is_numeric_dtype(frame[column].dtype) and not is_bool_dtype(frame[column].dtype)
            for column in self._columns
        ]
        if self.marked is not None and self.marked in frame:
            self._marks = frame[self.marked].fillna(False).astype(bool).tolist()
        else:
            self._marks = [False] * len(frame)
        self._values: dict[int, list[object]] = {}
        self._texts: dict[int, list[str]] = {}
        self.generation += 1
        if self.sorted_by is not None and self.sorted_by[0] in self._columns:
            column, order = self.sorted_by
            self._reorder(self._order(self._columns.index(column), order))

    def set_frame(self, frame: pd.DataFrame) -> None:
        """Show ``frame`` instead (a model reset), in the order it is sorted by, if any."""
        self.beginResetModel()
        self._load(frame)
        self.endResetModel()

    @property
    def frame(self) -> pd.DataFrame:
        """The frame as given (its rows in the order shown, when sorted)."""
        return self._frame

    @property
    def columns(self) -> list[str]:
        """The frame's columns shown, in order."""
        return list(self._columns)

    def row_frame(self, row: int) -> pd.Series:
        """Row ``row`` of the frame (a row of the model, not of a proxy)."""
        return self._frame.iloc[row]

    def column_values(self, column: int) -> list[object]:
        """The raw values of column ``column``, None where missing."""
        values = self._values.get(column)
        if values is None:
            raw = self._frame[self._columns[column]].tolist()
            values = [None if is_missing(value) else value for value in raw]
            self._values[column] = values
        return values

    def column_texts(self, column: int) -> list[str]:
        """The texts shown in column ``column`` (without the mark)."""
        texts = self._texts.get(column)
        if texts is None:
            show = self.formats.get(self._columns[column], default_text)
            values = self.column_values(column)
            texts = [MISSING if value is None else show(value) for value in values]
            self._texts[column] = texts
        return texts

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Reorder the rows by ``column`` (numbers by value, text naturally and ignoring
        case, missing values last in both orders; equal values keep their order); -1 keeps
        the order as it is."""
        if not 0 <= column < len(self._columns):
            self.sorted_by = None
            return
        self.sorted_by = (self._columns[column], order)
        self.layoutAboutToBeChanged.emit()
        order_of_rows = self._order(column, order)
        moved = np.empty(len(order_of_rows), dtype=np.int64)
        moved[order_of_rows] = np.arange(len(order_of_rows))
        persistent = self.persistentIndexList()
        self._reorder(order_of_rows)
        self.changePersistentIndexList(
            persistent,
            [self.index(int(moved[index.row()]), index.column()) for index in persistent],
        )
        self.layoutChanged.emit()

    def _order(self, column: int, order: Qt.SortOrder) -> list[int]:
        values = self.column_values(column)
        present = [row for row, value in enumerate(values) if value is not None]
        keys = {row: _sort_key(values[row]) for row in present}
        present.sort(key=keys.__getitem__, reverse=order == Qt.SortOrder.DescendingOrder)
        return present + [row for row, value in enumerate(values) if value is None]

    def _reorder(self, rows: list[int]) -> None:
        self._frame = self._frame.iloc[rows]
        self._marks = [self._marks[row] for row in rows]
        self._values = {column: [got[row] for row in rows] for column, got in self._values.items()}
        self._texts = {column: [got[row] for row in rows] for column, got in self._texts.items()}
        self.generation += 1

    # Qt ----------------------------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._frame)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            text = self.column_texts(column)[row]
            return text + MARK if column == 0 and self._marks[row] else text
        if role == SORT_ROLE:
            return self.column_values(column)[row]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if self._numeric[column] else _LEFT
        if role == Qt.ItemDataRole.ToolTipRole and self._columns[column] in self.full_text:
            return plain_tip(self.column_texts(column)[row])  # elided in a narrow column
        if self._marks[row]:
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor(WARNING_COLOURS[is_dark(QGuiApplication.palette())]))
            if role == Qt.ItemDataRole.ToolTipRole and self.marked is not None:
                return plain_tip(self.tooltips.get(self.marked))
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers.get(column, str(column))
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self.tooltips.get(column))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if self._numeric[section] else _LEFT
        return None


class SortProxy(QSortFilterProxyModel):
    """Filters a :class:`FrameModel`'s rows by a text, case-insensitive, found in any column
    (``setFilterFixedString``); sorting (a header click, :meth:`sort`) is the model's own
    :meth:`FrameModel.sort`, by ``SORT_ROLE`` values with missing values last."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterKeyColumn(-1)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._matches: tuple[tuple[object, ...], list[bool]] = ((), [])

    def _model(self) -> FrameModel:
        model = self.sourceModel()
        assert isinstance(model, FrameModel), "SortProxy filters a FrameModel"
        return model

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._model().sort(column, order)

    def sortColumn(self) -> int:
        sorted_by = self._model().sorted_by
        return -1 if sorted_by is None else self._model().columns.index(sorted_by[0])

    def sortOrder(self) -> Qt.SortOrder:
        sorted_by = self._model().sorted_by
        return Qt.SortOrder.AscendingOrder if sorted_by is None else sorted_by[1]

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        expression = self.filterRegularExpression()
        if not expression.pattern():
            return True
        model = self._model()
        key = (id(model), model.generation, expression.pattern(), expression.patternOptions())
        if self._matches[0] != key:
            columns = [model.column_texts(column) for column in range(model.columnCount())]
            rows = zip(*columns) if columns else ([] for _row in range(model.rowCount()))
            self._matches = (
                key,
                [expression.match("\n".join(texts)).hasMatch() for texts in rows],
            )
        return self._matches[1][source_row]


def table_view(model: FrameModel, name: str) -> tuple[QTableView, SortProxy]:
    """A table (object name ``name``) of ``model`` through a :class:`SortProxy`: sortable by
    its headers, alternating rows, one whole row selected at a time, columns fitted to a
    sample of their texts whenever the model is reset. Unsorted until a header is clicked."""
    proxy = SortProxy(model)
    proxy.setSourceModel(model)
    view = QTableView()
    view.setObjectName(name)
    view.setModel(proxy)
    view.setAlternatingRowColors(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setCornerButtonEnabled(False)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 12)
    header = view.horizontalHeader()
    header.setStretchLastSection(True)
    header.setHighlightSections(False)
    header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # the frame's order until clicked
    view.setSortingEnabled(True)
    model.modelReset.connect(lambda: fit_columns(view, model))
    fit_columns(view, model)
    return view, proxy


def fit_columns(
    view: QTableView, model: FrameModel, header_room: int = HEADER_ROOM, cell_room: int = 24
) -> None:
    """Size each column to its header and a sample of its texts (the first rows and a spread
    of the others), never to all rows; ``*_room``: pixels beside the text."""
    rows = model.rowCount()
    step = max(rows // SAMPLE_ROWS, 1)
    sample = sorted(set(range(min(rows, SAMPLE_ROWS))) | set(range(0, rows, step)))
    cells = view.fontMetrics()
    bold = QFont(view.horizontalHeader().font())
    bold.setBold(True)  # headers are often styled bold: measure them so
    heading = QFontMetrics(bold)
    for column in range(model.columnCount()):
        title = str(model.headerData(column, Qt.Orientation.Horizontal))
        width = max(heading.horizontalAdvance(line) for line in title.split("\n")) + header_room
        texts = model.column_texts(column)
        if sample:
            longest = max((texts[row] for row in sample), key=cells.horizontalAdvance)
            extra = MARK if column == 0 else ""
            width = max(width, cells.horizontalAdvance(longest + extra) + cell_room)
        view.setColumnWidth(column, min(width, MAX_COLUMN_WIDTH))


class CsvButton(QPushButton):
    """The "Export CSV…" button: asks where (a Qt file dialog, opened with ``open()`` and
    kept as ``dialog``) and writes the model's frame there."""

    def __init__(
        self,
        parent: QWidget | None,
        model: FrameModel,
        default_name: str,
        on_done: Callable[[str], None] | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__("Export CSV…", parent)
        self.setObjectName("exportCsv")
        self.setAutoDefault(False)
        self.setToolTip("Save this table as a CSV file (every row, whatever the filter)")
        self.model = model
        self.default_name = default_name
        self.on_done = on_done
        self.on_error = on_error
        self.dialog: QFileDialog | None = None
        self.clicked.connect(self.ask)

    def ask(self) -> QFileDialog:
        """Open the file dialog (made once, so it remembers the folder)."""
        if self.dialog is None:
            self.dialog = QFileDialog(self.window(), "Export CSV")
            self.dialog.setObjectName("csvDialog")
            self.dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
            self.dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            self.dialog.setFileMode(QFileDialog.FileMode.AnyFile)
            self.dialog.setNameFilter(CSV_FILTER)
            self.dialog.setDefaultSuffix("csv")
            self.dialog.setDirectory(QDir.homePath())
            self.dialog.selectFile(self.default_name)
            self.dialog.fileSelected.connect(self.write)
        self.dialog.open()
        return self.dialog

    def write(self, path: str) -> None:
        """Write the model's frame to ``path``; say so, or say why not."""
        try:
            write_csv(self.model.frame, path)
        except JudgeAppError as error:
            said = error_text(error)
            message = said[:1].upper() + said[1:]
            if self.on_error is not None:
                self.on_error(message)
            else:
                box = QMessageBox(QMessageBox.Icon.Warning, "Export CSV", message, parent=self)
                box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
                box.open()
            return
        if self.on_done is not None:
            self.on_done(path)


def csv_button(
    parent: QWidget | None,
    model: FrameModel,
    default_name: str,
    on_done: Callable[[str], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> CsvButton:
    """An "Export CSV…" button writing ``model.frame``; ``on_done(path)`` after writing,
    ``on_error(message)`` if it cannot (default: a message box)."""
    return CsvButton(parent, model, default_name, on_done, on_error)


def named_label(text: str, name: str, *, wrap: bool = False) -> QLabel:
    """A label with an object name (its style) that may wrap; its text is shown as it is,
    never read as HTML (``gui.plain``)."""
    label = QLabel(text)
    label.setTextFormat(PLAIN)
    label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


class TablePane(QWidget):
    """A caption, a count, optional tools, the table, its CSV button and a note below."""

    def __init__(
        self,
        caption: str,
        name: str,
        csv_name: str,
        *,
        headers: dict[str, str] | None = None,
        formats: Mapping[str, Formatter] | None = None,
        tooltips: dict[str, str] | None = None,
        marked: str | None = None,
        noun: str = "rows",
        filter_text: str | None = None,
        tools: Iterable[QWidget] = (),
        stretch: int | None = 0,
        full_text: Iterable[str] = (),
        stretch_minimum: int = STRETCH_MINIMUM,
    ) -> None:
        super().__init__()
        self.noun = noun
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        bar = self.bar = QHBoxLayout()  # caption, count, room, tools
        bar.setSpacing(10)
        self.caption = named_label(caption.upper(), "paneCaption")
        bar.addWidget(self.caption)
        self.count = named_label("", "tableCount")
        bar.addWidget(self.count)
        bar.addStretch(1)
        self.filter: QLineEdit | None = None
        if filter_text is not None:
            self.filter = QLineEdit()
            self.filter.setObjectName(f"{name}Filter")
            self.filter.setPlaceholderText(filter_text)
            self.filter.setClearButtonEnabled(True)
            self.filter.setMinimumWidth(110)  # narrower, not wider, in a small window
            self.filter.setMaximumWidth(240)
            self.filter.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.filter.textChanged.connect(self._filter)
            bar.addWidget(self.filter)
        for tool in tools:
            bar.addWidget(tool)
        empty = pd.DataFrame({column: [] for column in headers or {}})
        self.model = FrameModel(
            empty,
            headers=headers,
            formats=formats,
            tooltips=tooltips,
            marked=marked,
            full_text=full_text,
        )
        self.table, self.proxy = table_view(self.model, name)
        self.stretch = stretch
        self.stretch_minimum = stretch_minimum
        if stretch is not None:  # this column takes the room left: the numbers stay together
            self.table.horizontalHeader().setStretchLastSection(False)
            self.table.viewport().installEventFilter(self)
            self.model.modelReset.connect(self.fit_stretch)
        self.csv = csv_button(None, self.model, csv_name)  # parented with the bar, in turn
        bar.addWidget(self.csv)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        self.note = named_label("", "tableHint", wrap=True)
        layout.addWidget(self.note)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self.fit_stretch()
        return super().eventFilter(watched, event)

    def fit_stretch(self) -> None:
        """Give the ``stretch`` column the width the other shown columns leave (at least
        ``stretch_minimum``: its texts are elided, whole in their tooltips where asked), so
        the table fits its width without scrolling sideways."""
        if self.stretch is None or self.stretch >= self.model.columnCount():
            return
        table = self.table
        others = sum(
            table.columnWidth(column)
            for column in range(self.model.columnCount())
            if column != self.stretch and not table.isColumnHidden(column)
        )
        room = table.viewport().width() - others
        table.setColumnWidth(self.stretch, max(room, self.stretch_minimum))

    def set_frame(self, frame: pd.DataFrame, note: str = "") -> None:
        """Show ``frame`` with ``note`` below it (none: the note is hidden)."""
        self.model.set_frame(frame)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self._filter(self.filter.text() if self.filter else "")

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count.setText(
            f"{shown:,} of {total:,} {self.noun}" if text else f"{total:,} {self.noun}"
        )
