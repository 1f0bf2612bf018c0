"""File ▸ Import… and File ▸ Export…: the dialogs, and the work they hand to a worker thread.

The work functions run on a pool thread with their own Database (opened from the workspace's
URL) and never touch a widget. An import is one transaction: cancelling it, or a problem in
any file, writes nothing. An export is written whole or not at all (``io.outputs``), so a
cancelled or failed export leaves no half-written file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.export import ExportOptions, export
from judge_app.commands.importing import ImportOptions, import_files, recognised_format
from judge_app.errors import JudgeAppError
from judge_app.gui.error_words import error_text
from judge_app.gui.workers import Task, TaskDialog, Worker
from judge_app.gui.workspace import Workspace
from judge_app.io.errors import ImportFileError, Problem
from judge_app.io.exchange.format_names import SUFFIXES, TITLES
from judge_app.store.rater_queue import all_rater_names

TABLE_FILTER = "Tables (*.csv *.tsv *.jsonl);;All files (*)"
RUN_FILTER = "Runs (*.csv *.tsv *.jsonl *.txt *.run);;All files (*)"
JUDGMENT_FILTER = "Judgments (*.csv *.tsv *.jsonl *.txt *.qrels);;All files (*)"
SOURCE_FILTER = "Other tools' files (*.csv *.json *.txt *.tsv);;All files (*)"


# the work -------------------------------------------------------------------------------------


def import_work(url: str, options: ImportOptions) -> Callable[[Worker], str]:
    """The import as work for a worker (``commands.importing``); returns the summary. Raises
    ImportFileError with the problems; cancelling (at a chunk's progress report) rolls it
    all back."""

    def work(worker: Worker) -> str:
        worker.report("checking the files", 0, 0)
        return str(import_files(url, options, progress=worker.report))

    return work


def export_work(url: str, options: ExportOptions) -> Callable[[Worker], str]:
    """The export as work for a worker (``commands.export``); returns what it wrote."""

    def work(worker: Worker) -> str:
        return f"Exported {export(url, options, step=lambda name: worker.report(name, 0, 0))}"

    return work


def start_import(workspace: Workspace, options: ImportOptions) -> Task | None:
    """Import in the background; the judging screen reads its queue again once it is done.
    None if work cannot start now (the status bar says why)."""
    if not workspace.ready():
        return None
    names = ", ".join(path.name for path in options.files)
    task = workspace.run_task("Importing", import_work(workspace.database_url(), options))
    workspace.show_message(f"Importing {names}…")
    task.returned.connect(lambda summary: _imported(workspace, summary))
    task.errored.connect(
        lambda error: workspace.show_message(
            f"Nothing was imported: {problems_summary(error)}", error=True
        )
    )
    task.cancelled.connect(
        lambda: workspace.show_message("Import cancelled: nothing was written", error=True)
    )
    return task


def _imported(workspace: Workspace, summary: str) -> None:
    workspace.campaignChanged.emit()
    workspace.show_message("Imported: " + "; ".join(summary.splitlines()))


def start_export(workspace: Workspace, options: ExportOptions) -> Task | None:
    """Export in the background. None if work cannot start now (the status bar says why)."""
    if not workspace.ready():
        return None
    task = workspace.run_task("Exporting", export_work(workspace.database_url(), options))
    task.returned.connect(lambda text: workspace.show_message(text))
    task.errored.connect(
        lambda error: workspace.show_message(
            f"Nothing was exported: {error_text(error).splitlines()[0]}", True
        )
    )
    task.cancelled.connect(lambda: workspace.show_message("Export cancelled", error=True))
    return task


def problems_of(error: BaseException) -> tuple[list[Problem], int]:
    """The problems to list for a failed import (and how many there are in all)."""
    if isinstance(error, ImportFileError):
        return list(error.problems), error.total
    return [Problem("", None, None, error_text(error))], 1


def problems_summary(error: BaseException) -> str:
    """A failed import in a line: ``3 problems in queries.csv, run.txt``."""
    problems, total = problems_of(error)
    if not isinstance(error, ImportFileError):
        return problems[0].reason.splitlines()[0]
    files = sorted({problem.file for problem in problems if problem.file})
    where = f" in {', '.join(Path(name).name for name in files)}" if files else ""
    return f"{total} problem{'s' if total != 1 else ''}{where}"


def _where(problem: Problem) -> str:
    """A problem's line, and the item of a JSON document it is in: ``1 (pairs[3])``."""
    line = "" if problem.line is None else str(problem.line)
    return f"{line} ({problem.item})".strip() if problem.item else line


# the dialogs ----------------------------------------------------------------------------------


class FileField(QWidget):
    """A path with a Browse… button."""

    def __init__(
        self, dialog: QDialog, workspace: Workspace, name: str, title: str, filter_: str
    ) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.edit = QLineEdit()
        self.edit.setObjectName(f"{name}Path")
        self.edit.setPlaceholderText("no file")
        self.edit.setClearButtonEnabled(True)
        browse = QPushButton("Browse…")
        browse.setObjectName(f"{name}Browse")
        browse.setAutoDefault(False)
        browse.clicked.connect(
            lambda: workspace.choose_file(title, filter_, self.edit.setText, parent=dialog)
        )
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)

    def path(self) -> Path | None:
        text = self.edit.text().strip()
        return Path(text).expanduser() if text else None


class ImportDialog(TaskDialog):
    """Which files to import; lists the problems when the import is refused."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace.dialog_parent)
        self.workspace = workspace
        self.setObjectName("importDialog")
        self.setWindowTitle("Import files")
        self.setMinimumWidth(720)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 18)
        layout.setSpacing(12)
        heading = QLabel("Import files")
        heading.setObjectName("dialogTitle")
        intro = QLabel(
            "Every file is checked before anything is written; a problem in any of them "
            "imports nothing. CSV, TSV and JSONL files; a run or judgments file with another "
            "extension is read as TREC. Another tool's file (Quepid, RRE, RankLib, BEIR, "
            "Label Studio, OpenSearch) is recognised by its shape."
        )
        intro.setObjectName("dialogText")
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout.addWidget(heading)
        layout.addWidget(intro)

        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        self.queries = FileField(self, workspace, "queries", "Queries file", TABLE_FILTER)
        self.documents = FileField(self, workspace, "documents", "Documents file", TABLE_FILTER)
        self.run = FileField(self, workspace, "run", "Run file", RUN_FILTER)
        self.judgments = FileField(self, workspace, "judgments", "Judgments file", JUDGMENT_FILTER)
        self.run_name = QLineEdit()
        self.run_name.setObjectName("runName")
        self.run_name.setPlaceholderText("from the file: its TREC tag, or its name")
        self.rater = QLineEdit()
        self.rater.setObjectName("qrelsRater")
        self.rater.setPlaceholderText("for a qrels file or another tool's file without raters")
        self.source = FileField(self, workspace, "source", "Another tool's file", SOURCE_FILTER)
        self.source.edit.setPlaceholderText("a file, or a BEIR folder")
        self.format = QComboBox()
        self.format.setObjectName("sourceFormat")
        self.format.addItem("Recognised by its shape", None)
        for key, title in TITLES.items():
            self.format.addItem(title, key)
        self.found = QLabel()
        self.found.setObjectName("dialogText")
        self.found.setWordWrap(True)
        self.grade_map = QLineEdit()
        self.grade_map.setObjectName("gradeMap")
        self.grade_map.setPlaceholderText("only for grades outside 0–5, e.g. 1=0,2=0,3=1,…,10=5")
        rows = [
            ("Queries", self.queries, "query_id, text[, description]"),
            ("Documents", self.documents, "doc_id[, title, url, body]"),
            ("Run", self.run, "query_id, doc_id, rank[, score], or a TREC run"),
            ("Run name", self.run_name, None),
            ("Judgments", self.judgments, "query_id, doc_id, rater, grade[, note], or qrels"),
            ("Rater", self.rater, None),
            ("Other tool", self.source, "Quepid CSV or book, RRE, RankLib/LETOR, BEIR folder, "
             "Label Studio tasks, OpenSearch judgments"),
            ("Format", self.format, None),
            ("", self.found, None),
            ("Grade map", self.grade_map, None),
        ]  # fmt: skip
        for row, (label, field, hint) in enumerate(rows):
            name = QLabel(label)
            name.setObjectName("fieldLabel" if hint else "fieldSubLabel")
            grid.addWidget(name, row, 0)
            grid.addWidget(field, row, 1)
            if hint:
                field.setToolTip(hint)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.strict = QCheckBox("Refuse queries and documents the database does not know yet")
        self.strict.setObjectName("strictImport")
        layout.addWidget(self.strict)

        self.problems_box = QFrame()
        self.problems_box.setObjectName("problemsBox")
        problems_layout = QVBoxLayout(self.problems_box)
        problems_layout.setContentsMargins(12, 10, 12, 12)
        problems_layout.setSpacing(8)
        self.problems_title = QLabel()
        self.problems_title.setObjectName("problemsTitle")
        self.problems_title.setWordWrap(True)
        self.problems = QTableWidget(0, 4)
        self.problems.setObjectName("problemList")
        self.problems.setHorizontalHeaderLabels(["File", "Line", "Column", "Problem"])
        self.problems.verticalHeader().hide()
        self.problems.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.problems.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.problems.setWordWrap(True)
        self.problems.setShowGrid(False)
        self.problems.setAlternatingRowColors(True)
        header = self.problems.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.problems.setMinimumHeight(180)
        self.problems_more = QLabel()
        self.problems_more.setObjectName("dialogText")
        copy = QPushButton("Copy the list")
        copy.setObjectName("copyProblems")
        copy.setAutoDefault(False)
        copy.clicked.connect(self._copy_problems)
        more_row = QHBoxLayout()
        more_row.addWidget(self.problems_more, 1)
        more_row.addWidget(copy)
        problems_layout.addWidget(self.problems_title)
        problems_layout.addWidget(self.problems, 1)
        problems_layout.addLayout(more_row)
        self.problems_box.hide()
        layout.addWidget(self.problems_box, 1)

        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton(
            "Import", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setObjectName("startImport")
        self.import_button.setDefault(True)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        for field in (self.queries, self.documents, self.run, self.judgments, self.source):
            field.edit.textChanged.connect(self._update_button)
        self.source.edit.textChanged.connect(self._show_format)
        self.format.currentIndexChanged.connect(self._show_format)
        self._update_button()
        self._show_format()

    def options(self) -> ImportOptions:
        source = self.source.path()
        return ImportOptions(
            queries=self.queries.path(),
            documents=self.documents.path(),
            run=self.run.path(),
            run_name=self.run_name.text().strip() or None,
            judgments=self.judgments.path(),
            rater=self.rater.text().strip() or None,
            strict=self.strict.isChecked(),
            source=source,
            format=self.format.currentData() if source else None,
            grade_map=(self.grade_map.text().strip() or None) if source else None,
        )

    def _show_format(self) -> None:
        """Say which format the other tool's file has: the one chosen, or its shape's."""
        path = self.source.path()
        named = self.format.currentData()
        self.format.setEnabled(path is not None)
        self.grade_map.setEnabled(path is not None)
        if path is None or named:
            self.found.setText("")
            self.found.setVisible(False)
            return
        try:
            text, why = f"Recognised: {recognised_format(path)}", ""
        except ImportFileError as error:
            why = "\n".join(problem.reason for problem in error.problems)
            text = "Not recognised by its shape: choose its format (the tooltip says why)"
            if "not found" in why or "is not a folder" in why:
                text = why[:1].upper() + why[1:]
        self.found.setText(text)
        self.found.setToolTip(why)
        self.found.setVisible(True)

    def _update_button(self) -> None:
        self.import_button.setEnabled(bool(self.options().files))

    def start(self) -> None:
        """Run the import in the background; the dialog waits, disabled, for its outcome."""
        task = start_import(self.workspace, self.options())
        if task is not None:
            self.wait_for(task)

    def _failed(self, error: BaseException) -> None:
        self.show_problems(error)

    def show_problems(self, error: BaseException) -> None:
        problems, total = problems_of(error)
        self.problems_title.setText(f"Nothing was imported: {problems_summary(error)}.")
        self.problems.setRowCount(len(problems))
        for row, problem in enumerate(problems):
            cells = (
                Path(problem.file).name if problem.file else "",
                _where(problem),
                problem.column or "",
                problem.reason,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0 and problem.file:
                    item.setToolTip(problem.file)
                self.problems.setItem(row, column, item)
        self.problems.resizeRowsToContents()
        shown = len(problems)
        self.problems_more.setText(
            f"The first {shown} of {total} are listed." if total > shown else ""
        )
        self.problems_box.show()
        self.adjustSize()

    def problem_rows(self) -> list[tuple[str, str, str, str]]:
        """The problems listed: (file, line, column, reason), as shown."""

        def text(row: int, column: int) -> str:
            item = self.problems.item(row, column)
            assert item is not None  # show_problems fills every cell
            return item.text()

        return [
            (text(row, 0), text(row, 1), text(row, 2), text(row, 3))
            for row in range(self.problems.rowCount())
        ]

    def _copy_problems(self) -> None:
        lines = [self.problems_title.text()]
        for file, line, column, reason in self.problem_rows():
            where = ", ".join(part for part in (file, line and f"line {line}", column) if part)
            lines.append(f"{where}: {reason}" if where else reason)
        QGuiApplication.clipboard().setText("\n".join(lines))


class ExportDialog(TaskDialog):
    """Judgments as CSV, qrels with the raters' grades aggregated (by one rater's, too), or
    the history of the judgments as CSV."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace.dialog_parent)
        self.workspace = workspace
        with workspace.reading() as session:
            raters = all_rater_names(session)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export")
        self.setMinimumWidth(720)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 18)
        layout.setSpacing(12)
        heading = QLabel("Export judgments")
        heading.setObjectName("dialogTitle")
        layout.addWidget(heading)
        self.as_csv = QRadioButton("Judgments as CSV: one row per rater judgment")
        self.as_csv.setObjectName("exportCsv")
        csv_text = QLabel(
            "Query and document ids and texts, rater, grade, skipped, note, time; "
            "imports back without loss."
        )
        self.as_qrels = QRadioButton("Qrels for trec_eval: one grade per query and document")
        self.as_qrels.setObjectName("exportQrels")
        qrels_text = QLabel("The raters' grades of each pair combined into one.")
        self.as_format = QRadioButton("For another tool:")
        self.as_format.setObjectName("exportFormat")
        self.format = QComboBox()
        self.format.setObjectName("exportFormatName")
        for key, title in TITLES.items():
            self.format.addItem(title, key)
        format_text = QLabel(
            "Each rater's judgments where it holds them, else the grades combined as below."
        )
        self.as_history = QRadioButton("History as CSV: every change of every judgment")
        self.as_history.setObjectName("exportHistory")
        history_text = QLabel(
            "From what grade to what, when, and the database login that made the change."
        )
        group = QButtonGroup(self)
        for button in (self.as_csv, self.as_qrels, self.as_format, self.as_history):
            group.addButton(button)
        self.as_csv.setChecked(True)
        for widget in (csv_text, qrels_text, history_text, format_text):
            widget.setObjectName("dialogText")
            widget.setWordWrap(True)
            widget.setContentsMargins(26, 0, 0, 0)
        choices = QVBoxLayout()
        choices.setSpacing(2)
        choices.addWidget(self.as_csv)
        choices.addWidget(csv_text)
        choices.addSpacing(10)
        choices.addWidget(self.as_qrels)
        choices.addWidget(qrels_text)
        choices.addSpacing(10)
        format_row = QHBoxLayout()
        format_row.addWidget(self.as_format)
        format_row.addWidget(self.format, 1)
        choices.addLayout(format_row)
        choices.addWidget(format_text)
        choices.addSpacing(6)
        layout.addLayout(choices)
        method_row = QHBoxLayout()
        method_row.setContentsMargins(26, 0, 0, 0)
        method_label = QLabel("Combine by")
        self.method = QComboBox()
        self.method.setObjectName("aggregation")
        for title, method in (
            ("mean grade", "mean"),
            ("median grade", "median"),
            ("majority (ties to the lower grade)", "majority"),
            ("highest grade", "max"),
            ("lowest grade", "min"),
            *((f"only {name}'s grades", f"rater:{name}") for name in raters),
        ):
            self.method.addItem(title, method)
        method_row.addWidget(method_label)
        method_row.addWidget(self.method, 1)
        layout.addLayout(method_row)
        history = QVBoxLayout()
        history.setSpacing(2)
        history.addSpacing(4)
        history.addWidget(self.as_history)
        history.addWidget(history_text)
        history.addSpacing(6)
        layout.addLayout(history)
        self.as_qrels.toggled.connect(self._update)
        self.as_format.toggled.connect(self._update)

        target = QGridLayout()
        target.setHorizontalSpacing(12)
        target.addWidget(QLabel("To file"), 0, 0)
        self.path = QLineEdit()
        self.path.setObjectName("exportPath")
        self.path.setPlaceholderText("where to write it")
        browse = QPushButton("Browse…")
        browse.setObjectName("exportBrowse")
        browse.setAutoDefault(False)
        browse.clicked.connect(self._browse)
        target.addWidget(self.path, 0, 1)
        target.addWidget(browse, 0, 2)
        target.setColumnStretch(1, 1)
        layout.addSpacing(4)
        layout.addLayout(target)
        self.error = QLabel()
        self.error.setObjectName("dialogError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)

        self.buttons = QDialogButtonBox()
        self.export_button = self.buttons.addButton(
            "Export", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.export_button.setObjectName("startExport")
        self.export_button.setDefault(True)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.path.textChanged.connect(self._update)
        self._update()

    def kind(self) -> str:
        """What is chosen: ``judgments``, ``qrels``, ``format`` or ``history``."""
        if self.as_qrels.isChecked():
            return "qrels"
        if self.as_format.isChecked():
            return "format"
        return "history" if self.as_history.isChecked() else "judgments"

    def options(self) -> ExportOptions:
        kind = self.kind()
        return ExportOptions(
            kind=kind,
            path=Path(self.path.text().strip()).expanduser(),
            aggregate=self.method.currentData(),
            format=self.format.currentData() if kind == "format" else None,
        )

    def _update(self) -> None:
        self.method.setEnabled(self.as_qrels.isChecked() or self.as_format.isChecked())
        self.format.setEnabled(self.as_format.isChecked())
        self.export_button.setEnabled(bool(self.path.text().strip()))

    def _browse(self) -> None:
        kind = self.kind()
        if kind == "format":
            name = self.format.currentData()
            suffix = SUFFIXES.get(name, "json")  # a BEIR export is a folder, without one
            self.workspace.choose_file(
                f"Export for {self.format.currentText()}",
                f"{self.format.currentText()} (*.{suffix});;All files (*)"
                if suffix
                else "All files (*)",
                self.path.setText,
                save=True,
                suffix=suffix,
                default=f"{name}.{suffix}" if suffix else name,
                parent=self,
            )
            return
        qrels = kind == "qrels"
        self.workspace.choose_file(
            f"Export {kind}",
            "TREC qrels (*.qrels *.txt);;All files (*)" if qrels else "CSV (*.csv)",
            self.path.setText,
            save=True,
            suffix="qrels" if qrels else "csv",
            default="judgments.qrels" if qrels else f"{kind}.csv",
            parent=self,
        )

    def start(self) -> None:
        options = self.options()
        try:
            options.checked()  # at once, before the database is read
        except JudgeAppError as error:
            self._show_error(error_text(error))
            return
        task = start_export(self.workspace, options)
        if task is not None:
            self.error.hide()
            self.wait_for(task)

    def _failed(self, error: BaseException) -> None:
        self._show_error(error_text(error))

    def _show_error(self, text: str) -> None:
        self.error.setText(f"Nothing was exported: {text}")
        self.error.show()
