"""Lead ▸ Gold items…: the pairs whose grade a lead knows, in a table, with Import…, Remove
selected and Export…. Every read and change is ``commands.gold``'s, run off the UI thread;
the dialog shows what it did, or why nothing was done, and stays open.

A gold grade is no rater's judgment: raters do not see it, and nothing the judging screen,
the evaluation or the agreement shows changes, so nothing else is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QWidget,
)

from judge_app.commands.gold import GoldOptions, GoldOutcome, Pair, gold
from judge_app.gui.error_words import error_text
from judge_app.gui.lead_dialog import LeadDialog
from judge_app.gui.plain import plain_tip
from judge_app.gui.workspace import Workspace
from judge_app.numbers import count_text

_Index = QModelIndex | QPersistentModelIndex
QUERY, DOCUMENT, GRADE = range(3)
HEADERS = ("Query", "Document", "Gold grade")
GOLD_FILTER = "Gold items (*.csv *.tsv *.jsonl);;All files (*)"
REFUSED = {
    "list": "Cannot read the gold items",
    "import": "Nothing was marked",
    "remove": "Nothing was removed",
    "export": "Nothing was exported",
}


class GoldModel(QAbstractTableModel):
    """The gold items: the query, the document (its title, else its id) and the gold grade."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, str, str | None, int]] = []

    def set_items(self, items: pd.DataFrame) -> None:
        """Show ``items`` (``query_id, doc_id, doc_title, grade``, as the use case gives)."""
        self.beginResetModel()
        titles = [None if pd.isna(title) else str(title) for title in items["doc_title"]]
        self._rows = list(zip(items["query_id"], items["doc_id"], titles, map(int, items["grade"])))
        self.endResetModel()

    def pair(self, row: int) -> Pair:
        """The (query id, document id) of ``row``."""
        query_id, doc_id, _title, _grade = self._rows[row]
        return query_id, doc_id

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        query_id, doc_id, title, grade = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (query_id, title or doc_id, str(grade))[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(f"{query_id} · {doc_id}" + (f": {title}" if title else ""))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == GRADE:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None


class GoldDialog(LeadDialog):
    """The gold items, imported, removed and exported here."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "goldDialog",
            "Gold items",
            "Pairs whose grade you know. Raters judge them like any result, unaware; their "
            "grades are compared with yours later. A gold grade is no rater's judgment: the "
            "evaluation and the agreement do not change. A file holds query_id, doc_id, grade.",
            None,
        )
        self.setMinimumWidth(720)
        self.action = "list"  # what the work under way does
        self.model = GoldModel(self)
        self.view = QTableView()
        self.view.setObjectName("goldItems")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setShowGrid(False)
        self.view.verticalHeader().hide()
        self.view.setMinimumHeight(260)
        header = self.view.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(QUERY, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DOCUMENT, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(GRADE, QHeaderView.ResizeMode.ResizeToContents)
        self.view.selectionModel().selectionChanged.connect(lambda *_args: self._update())
        self.body.addWidget(self.view, 1)

        row = QHBoxLayout()
        self.count = QLabel()
        self.count.setObjectName("dialogText")
        row.addWidget(self.count, 1)
        self.import_button = self._button("goldImport", "Import…", self.ask_import)
        self.remove_button = self._button("goldRemove", "Remove selected", self.remove_selected)
        self.export_button = self._button("goldExport", "Export…", self.ask_export)
        for button in (self.import_button, self.remove_button, self.export_button):
            row.addWidget(button)
        self.body.addLayout(row)
        self.report = QLabel()
        self.report.setObjectName("previewText")
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.PlainText)
        self.body.addWidget(self.report)
        self.finish_layout()
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self._update()
        self._start("list", GoldOptions())

    def _button(self, name: str, title: str, clicked: Callable[[], None]) -> QPushButton:
        button = QPushButton(title)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(lambda _checked=False: clicked())
        return button

    def selected_pairs(self) -> tuple[Pair, ...]:
        rows = sorted(index.row() for index in self.view.selectionModel().selectedRows())
        return tuple(self.model.pair(row) for row in rows)

    def ask_import(self) -> None:
        """A file dialog; the file chosen is imported (``import_file``)."""
        self.workspace.choose_file("Import gold items", GOLD_FILTER, self.import_file, parent=self)

    def import_file(self, path: str | Path) -> None:
        """Mark the items of the gold file at ``path``: all of them, or none."""
        self._start("import", GoldOptions(import_path=Path(path)))

    def remove_selected(self) -> None:
        """Unmark the selected items."""
        pairs = self.selected_pairs()
        if pairs:
            self._start("remove", GoldOptions(remove=pairs))

    def ask_export(self) -> None:
        """A file dialog; the gold items are written to the file chosen (``export_file``)."""
        self.workspace.choose_file(
            "Export gold items",
            "CSV files (*.csv)",
            self.export_file,
            save=True,
            suffix="csv",
            default="gold.csv",
            parent=self,
        )

    def export_file(self, path: str | Path) -> None:
        """Write the gold items to ``path`` as a file Import… reads back."""
        self._start("export", GoldOptions(export_path=Path(path)))

    def _start(self, action: str, options: GoldOptions) -> None:
        running = self.workspace.task
        if running is not None and running.running:
            self.show_error(f"Wait for “{running.title}” to finish")
            return
        self.action = action
        titles = {"list": "Reading the gold items", "import": "Importing gold items",
                  "remove": "Removing gold items", "export": "Exporting gold items"}  # fmt: skip
        self.run(titles[action], lambda database: gold(database, options))

    def _succeeded(self, outcome: object) -> None:
        assert isinstance(outcome, GoldOutcome)  # what the work of _start returns
        self.model.set_items(outcome.items)
        self.show_error("")
        if self.action != "list":
            self.report.setText("\n".join([outcome.summary, *outcome.warnings]))
            self.workspace.show_message(f"Gold items: {outcome.summary}")
        self._update()

    def _failed(self, error: BaseException) -> None:
        self.report.clear()
        text = error_text(error)
        separator = "\n" if "\n" in text else " "  # a list of problems starts a line of its own
        self.show_error(f"{REFUSED[self.action]}:{separator}{text}")

    def _work_done(self) -> None:
        super()._work_done()
        self._update()

    def _update(self) -> None:
        count = self.model.rowCount()
        self.count.setText(count_text(count, "gold item"))
        self.remove_button.setEnabled(bool(self.selected_pairs()))
