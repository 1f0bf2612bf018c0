"""The main window: menus, the rater chooser, the judging screen, the status bar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QThreadPool
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.adjudicate import adjudicator, disputed_item
from judge_app.commands.export import ExportOptions
from judge_app.commands.importing import ImportOptions
from judge_app.commands.raters import rater_for
from judge_app.errors import JudgeAppError
from judge_app.gui import preferences
from judge_app.gui.analysis import Analysis
from judge_app.gui.judging import JudgingScreen
from judge_app.gui.lead import AssignDialog, PoolDialog, RubricDialog
from judge_app.gui.overlay import ShortcutOverlay
from judge_app.gui.start import StartPage
from judge_app.gui.theme import THEMES, apply_theme, stylesheet
from judge_app.gui.transfer import (
    ExportDialog,
    ImportDialog,
    describe_error,
    export_work,
    import_work,
    problems_summary,
)
from judge_app.gui.workers import Task
from judge_app.judging.keys import KEYMAP_TITLES, KEYMAPS, key_label, keys_of
from judge_app.judging.session import JudgingSession
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.store import Database, open_database
from judge_app.store.assignments import current_assignments
from judge_app.store.people import all_query_ids
from judge_app.store.queue import (
    active_rater_names,
    active_raters,
    all_rater_names,
    pool_settings,
    run_names,
)
from judge_app.store.settings import scale

WINDOW_SIZE = (1280, 800)
DATABASE_FILTER = "judge_app databases (*.sqlite *.db *.judge);;All files (*)"
# builds the demo database where the user keeps judge_app's files; returns its path
DemoBuilder = Callable[[], Path]
_INPUT_EVENTS = (
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
)


class RaterChooser(QWidget):
    """Who is judging: pick a rater of the database or add one. Inline, never a dialog."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.setObjectName("raterChooser")
        outer = QGridLayout(self)
        card = QFrame()
        card.setObjectName("chooserCard")
        card.setFixedWidth(460)
        outer.addWidget(card, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        title = QLabel("Who is judging?")
        title.setObjectName("chooserTitle")
        self.database_label = QLabel()
        self.database_label.setObjectName("chooserText")
        self.database_label.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(self.database_label)
        layout.addSpacing(8)
        self.raters = QComboBox()
        self.raters.setObjectName("raterCombo")
        self.start = QPushButton("Start judging")
        self.start.setObjectName("startJudging")
        self.start.setDefault(True)
        self.start.clicked.connect(self._start)
        pick = QHBoxLayout()
        pick.addWidget(self.raters, 1)
        pick.addWidget(self.start)
        layout.addLayout(pick)
        layout.addSpacing(6)
        other = QLabel("New rater")
        other.setObjectName("chooserText")
        layout.addWidget(other)
        self.new_name = QLineEdit()
        self.new_name.setObjectName("newRaterName")
        self.new_name.setPlaceholderText("Name of the new rater")
        self.new_name.returnPressed.connect(self._add)
        self.add = QPushButton("Add and start")
        self.add.setObjectName("addRater")
        self.add.clicked.connect(self._add)
        create = QHBoxLayout()
        create.addWidget(self.new_name, 1)
        create.addWidget(self.add)
        layout.addLayout(create)
        self.error = QLabel()
        self.error.setObjectName("statusError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        layout.addSpacing(10)
        rule = QFrame()
        rule.setObjectName("chooserRule")
        rule.setFixedHeight(1)
        layout.addWidget(rule)
        layout.addSpacing(4)
        lead = QHBoxLayout()
        lead.setSpacing(4)
        lead_label = QLabel("Leading the work?")
        lead_label.setObjectName("chooserText")
        lead.addWidget(lead_label)
        lead.addStretch(1)
        self.lead_buttons: dict[str, QPushButton] = {}
        for name, title, slot in (
            ("assign", "Assign…", window.show_assign_dialog),
            ("rubric", "Rubric…", window.show_rubric_dialog),
            ("pool", "Pooling…", window.show_pool_dialog),
        ):
            button = QPushButton(title)
            button.setObjectName(f"lead_{name}")
            button.setProperty("class", "link")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _checked=False, open_=slot: open_())
            lead.addWidget(button)
            self.lead_buttons[name] = button
        layout.addLayout(lead)

    def refresh(self, names: list[str], preferred: str | None, database: str) -> None:
        self.database_label.setText(
            f"Judging in {database}. Your grades stay yours: nobody sees them while judging, "
            "and you see no one else's."
        )
        self.raters.clear()
        self.raters.addItems(names)
        if preferred in names:
            self.raters.setCurrentText(preferred)
        self.start.setEnabled(bool(names))
        self.error.hide()
        (self.raters if names else self.new_name).setFocus()

    def _start(self) -> None:
        if self.raters.currentText():
            self._window.choose_rater(self.raters.currentText())

    def _add(self) -> None:
        name = self.new_name.text().strip()
        try:
            self._window.choose_rater(name, create=True)
        except JudgeAppError as error:
            self.error.setText(str(error))
            self.error.show()


class MainWindow(QMainWindow):
    """judge_app's window: the start page, then the judging of one database at a time."""

    def __init__(self, demo: DemoBuilder | None = None) -> None:
        super().__init__()
        self.database: Database | None = None  # set_database() opens the window on one
        self.demo = demo
        self.file_dialog: QFileDialog | None = None  # the open file dialog, if any
        self.task: Task | None = None  # the background work under way, if any
        self.import_dialog: ImportDialog | None = None  # open dialogs, for tests and scripts
        self.export_dialog: ExportDialog | None = None
        self.lead_dialog: AssignDialog | RubricDialog | PoolDialog | None = None
        self.setObjectName("mainWindow")
        self.resize(*WINDOW_SIZE)
        self.pages = QStackedWidget()
        self.start_page = StartPage(self, demo_available=demo is not None)
        self.chooser = RaterChooser(self)
        self.judging = JudgingScreen()
        self.pages.addWidget(self.start_page)
        self.pages.addWidget(self.chooser)
        self.pages.addWidget(self.judging)
        self.analysis = Analysis(self)
        self.pages.addWidget(self.analysis.evaluation_view)
        self.pages.addWidget(self.analysis.agreement_view)
        self.analysis.agreement_view.adjudicate.connect(self.adjudicate)
        self.pages.currentChanged.connect(
            lambda _index: (self._update_actions(), self._set_title())
        )
        self.setCentralWidget(self.pages)
        self.overlay = ShortcutOverlay(self.pages)
        self.status_label = QLabel()
        self.status_label.setObjectName("statusMessage")
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().setSizeGripEnabled(False)
        self.judging.message.connect(self.show_message)
        self.judging.helpRequested.connect(self.toggle_shortcuts)
        self.keymap_name = preferences.keymap_name()
        self.judging.set_keymap(KEYMAPS[self.keymap_name])
        self._build_menus()
        self.set_theme(preferences.theme_name())
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        self.show_start_page()

    # menus -----------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        menus = self.menuBar()
        file = menus.addMenu("&File")
        self._add(file, "&Open database…", self.ask_open_database, QKeySequence.StandardKey.Open)
        self._add(file, "&New database…", self.ask_new_database, QKeySequence.StandardKey.New)
        if self.demo is not None:
            self._add(file, "Open the &demo", self.open_demo)
        file.addSeparator()
        self.import_action = self._add(file, "&Import…", self.show_import_dialog, "Ctrl+I")
        self.export_action = self._add(file, "&Export…", self.show_export_dialog, "Ctrl+E")
        self.report_action = self._add(
            file, "Export &report…", lambda: self.analysis.ask_report(), "Ctrl+Shift+E"
        )
        file.addSeparator()
        self.close_database_action = self._add(file, "C&lose database", self.close_database)
        file.addSeparator()
        self._add(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        judge = menus.addMenu("&Judge")
        self.judge_actions: dict[str, QAction] = {}
        for grade in range(6):
            self._judge_action(judge, f"grade{grade}", f"Grade &{grade}")
        judge.addSeparator()
        for name, title in (
            ("clear", "C&lear grade"),
            ("skip", "&Skip (cannot judge)…"),
            ("note", "&Note…"),
        ):
            self._judge_action(judge, name, title)  # fmt: skip
        judge.addSeparator()
        self._judge_action(judge, "undo", "&Undo")
        self._judge_action(judge, "redo", "&Redo")
        judge.addSeparator()
        for name, title in (
            ("next", "Next result"),
            ("previous", "Previous result"),
            ("next_query", "Next &query"),
            ("previous_query", "Pre&vious query"),
        ):
            self._judge_action(judge, name, title)  # fmt: skip
        judge.addSeparator()
        self.judge_actions["change_rater"] = self._add(judge, "Change &rater…", self.show_chooser)

        lead = menus.addMenu("&Lead")
        self.lead_actions = {
            "assign": self._add(lead, "&Assign queries…", self.show_assign_dialog),
            "rubric": self._add(lead, "&Rubric…", self.show_rubric_dialog),
            "pool": self._add(lead, "&Pooling…", self.show_pool_dialog),
        }

        view = menus.addMenu("&View")
        self.page_actions = {
            "judging": self._add(view, "&Judging", self.show_judging, "Ctrl+1"),
            "evaluation": self._add(
                view, "&Evaluation (NDCG)", lambda: self.analysis.show_evaluation(), "Ctrl+2"
            ),
            "agreement": self._add(
                view, "&Agreement", lambda: self.analysis.show_agreement(), "Ctrl+3"
            ),
        }
        view.addSeparator()
        self._judge_action(view, "help", "&Keyboard shortcuts")
        keys = view.addMenu("Key &map")
        group = QActionGroup(self)
        self.keymap_actions: dict[str, QAction] = {}
        for name, title in KEYMAP_TITLES.items():
            action = keys.addAction(title)
            action.setCheckable(True)
            action.setChecked(name == self.keymap_name)
            action.triggered.connect(lambda _checked=False, n=name: self.set_keymap(n))
            group.addAction(action)
            self.keymap_actions[name] = action
        themes = view.addMenu("&Theme")
        theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for name in THEMES:
            action = themes.addAction(name.capitalize())
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, n=name: self.set_theme(n))
            theme_group.addAction(action)
            self.theme_actions[name] = action

    def _add(self, menu, title: str, slot, shortcut=None) -> QAction:  # type: ignore[no-untyped-def]
        action = menu.addAction(title)
        action.triggered.connect(lambda _checked=False: slot())
        if shortcut is not None:
            action.setShortcut(shortcut)
        return action

    def _judge_action(self, menu, name: str, title: str) -> None:  # type: ignore[no-untyped-def]
        """A menu entry for a keyboard action; the key is shown, the key map handles it."""
        action = menu.addAction(title)
        action.triggered.connect(
            lambda _checked=False, n=name: (
                self.toggle_shortcuts() if n == "help" else self.judging.run_action(n)
            )
        )
        self.judge_actions[name] = action
        self._label_action(name)

    def _label_action(self, name: str) -> None:
        action = self.judge_actions[name]
        title = action.text().split("\t")[0]
        keys = keys_of(KEYMAPS[self.keymap_name], name)
        action.setText(f"{title}\t{key_label(keys[0])}" if keys else title)

    # state -----------------------------------------------------------------------------------

    def set_keymap(self, name: str) -> None:
        self.keymap_name = name
        preferences.set_keymap_name(name)
        self.keymap_actions[name].setChecked(True)
        self.judging.set_keymap(KEYMAPS[name])
        for action in self.judge_actions:
            self._label_action(action)
        self.show_message(f"Key map: {KEYMAP_TITLES[name]}")

    def set_theme(self, name: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        self.setStyleSheet(stylesheet(name))
        self.theme = name
        preferences.set_theme_name(name)
        self.theme_actions[name].setChecked(True)
        self.judging.apply_palette()

    def show_message(self, text: str, error: bool = False) -> None:
        self.status_label.setObjectName("statusError" if error else "statusMessage")
        self.status_label.setStyleSheet(self.status_label.styleSheet())
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)
        self.status_label.setText(text)

    def status_text(self) -> str:
        return self.status_label.text()

    def toggle_shortcuts(self) -> None:
        if self.overlay.isVisible():
            self.overlay.hide()
            self.judging.result_view.setFocus()
            return
        session = self.judging.session
        labels = (
            [label.label for label in session.scale]
            if session
            else [label.label for label in _scale(self.database)]
        )
        self.overlay.show_keymap(self.keymap_name, KEYMAPS[self.keymap_name], labels)

    # raters ----------------------------------------------------------------------------------

    def show_chooser(self) -> None:
        assert self.database is not None
        with self.database.reading() as session:
            names = active_rater_names(session)
        described = self.database.describe()
        self.chooser.refresh(names, preferences.last_rater(described), described)
        self.judging.set_session(None)
        self.pages.setCurrentWidget(self.chooser)
        self.show_message("Choose who is judging")

    def choose_rater(self, name: str, create: bool = False) -> None:
        """Start judging as ``name``; with ``create``, a rater the database lacks is added."""
        assert self.database is not None

        rater_id, rater_name = rater_for(self.database, name, create)
        preferences.remember_rater(self.database.describe(), rater_name)
        self.judging.set_session(JudgingSession(self.database, rater_id, rater_name))
        self.pages.setCurrentWidget(self.judging)
        self._set_title()
        session_ = self.judging.session
        assert session_ is not None
        overall = session_.overall_progress()
        self.show_message(
            f"Judging as {rater_name}: {overall.done} of {overall.total} results judged in "
            f"{len(session_.queue)} queries. Press ? for the shortcuts."
        )
        self.judging.result_view.setFocus()

    # databases -------------------------------------------------------------------------------

    def _set_title(self) -> None:
        if self.database is None:
            self.setWindowTitle("judge_app")
            return
        title = f"judge_app — {_short_name(self.database.describe())}"
        session = self.judging.session
        current = self.pages.currentWidget()
        if session is not None and current is self.judging:
            title += f" — judging as {session.rater_name}"
        elif current is self.analysis.evaluation_view:
            title += " — evaluation"
        elif current is self.analysis.agreement_view:
            title += " — agreement"
        self.setWindowTitle(title)

    def _update_actions(self) -> None:
        idle = self.task is None
        judging = self.pages.currentWidget() is self.judging and self.judging.session is not None
        for action in self.judge_actions.values():
            action.setEnabled(judging)
        has_database = self.database is not None and idle
        self.judge_actions["change_rater"].setEnabled(has_database)
        for action in (
            self.close_database_action,
            self.import_action,
            self.export_action,
            self.report_action,
            *self.lead_actions.values(),
            *self.page_actions.values(),
        ):
            action.setEnabled(has_database)

    def show_start_page(self, error: str | None = None) -> None:
        """The start page: open, create, the demo, the recent databases; ``error`` on top."""
        self.start_page.refresh(error)
        self.pages.setCurrentWidget(self.start_page)
        self._set_title()
        self._update_actions()
        if error:
            self.show_message("The database could not be opened: see above", error=True)
        else:
            self.show_message("Open a database to start")

    def set_database(self, database: Database) -> None:
        """Work on ``database`` from now on (the one open before is closed)."""
        if self.database is not None and self.database is not database:
            self.judging.set_session(None)
            self.database.close()
        self.analysis.forget()
        self.database = database
        preferences.add_recent_database(database.describe())
        self._set_title()
        self._update_actions()

    def open_path(self, path: str | Path, *, create: bool = False) -> bool:
        """Open the database at ``path`` (a file or a URL) and start judging on it: as the rater
        last chosen there, or after asking who is judging. False, with the error shown, if it
        cannot be opened."""
        try:
            database = open_database(path, create=create)
        except JudgeAppError as error:
            message = f"Cannot open the database: {error}"
            if self.pages.currentWidget() is self.start_page or self.database is None:
                self.show_start_page(message)
            else:
                self.show_message(message, error=True)
            return False
        self.set_database(database)
        self.start_judging()
        return True

    def start_judging(self) -> None:
        """Judge as the rater last chosen on this database, or ask who is judging."""
        assert self.database is not None
        last = preferences.last_rater(self.database.describe())
        with self.database.reading() as session:
            names = active_rater_names(session)
        if last in names:
            self.choose_rater(last)
        else:
            self.show_chooser()

    def show_judging(self) -> None:
        """View ▸ Judging: back to the judging screen, or to the rater chooser."""
        if self.database is None:
            return
        if self.judging.session is None:
            self.start_judging()
            return
        self.pages.setCurrentWidget(self.judging)
        self._set_title()
        self.judging.result_view.setFocus()

    def adjudicate(self, query_id: str, doc_id: str) -> None:
        """Judge a disputed document as the rater ``adjudicated``: the lead's grade is stored
        as that rater's own judgment, never over a rater's; aggregation can prefer it."""
        assert self.database is not None
        grades = self.analysis.grades_of(query_id, doc_id)

        rater_id = adjudicator(self.database)
        query, document = disputed_item(self.database, query_id, doc_id)
        self.judging.set_session(
            JudgingSession(self.database, rater_id, ADJUDICATED),
            query_id=query,
            document_id=document,
        )
        self.pages.setCurrentWidget(self.judging)
        self._set_title()
        given = ", ".join(f"{rater} {grade}" for rater, grade in grades.items())
        self.show_message(
            f"Adjudicating {query_id} · {doc_id}"
            + (f" (raters gave {given})" if given else "")
            + ": your grade is stored as the rater “adjudicated”. Ctrl+3 goes back."
        )
        self.judging.result_view.setFocus()

    def close_database(self) -> None:
        """Close the database and go back to the start page."""
        if self.database is None:
            return
        self.judging.set_session(None)
        self.analysis.forget()
        self.database.close()
        self.database = None
        self._update_actions()
        self.show_start_page()

    def ask_open_database(self) -> None:
        self.choose_file("Open database", DATABASE_FILTER, self.open_path)

    def ask_new_database(self) -> None:
        self.choose_file(
            "New database",
            "judge_app databases (*.sqlite)",
            self._create_database,
            save=True,
            suffix="sqlite",
            default="judging.sqlite",
        )

    def _create_database(self, path: str) -> None:
        if Path(path).exists():
            message = f"{path} already exists: open it with Open database…, or choose a new name"
            if self.pages.currentWidget() is self.start_page:
                self.start_page.refresh(message)
            self.show_message(message, error=True)
            return
        self.open_path(path, create=True)

    def choose_file(  # type: ignore[no-untyped-def]
        self,
        title: str,
        name_filter: str,
        chosen,
        *,
        save: bool = False,
        suffix: str | None = None,
        default: str | None = None,
        parent: QWidget | None = None,
    ) -> QFileDialog:
        """A file dialog, open but not modal to the code (``open()``, never ``exec()``);
        ``chosen(path)`` runs when the user picks a file."""
        dialog = QFileDialog(parent or self, title)
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

    def open_demo(self) -> None:
        """Build the demo database in the user's data folder (once, off the UI thread) and
        open it."""
        if self.demo is None or self.busy():
            return
        build = self.demo
        self.show_message("Preparing the demo database…")
        task = self.run_task("Preparing the demo", lambda _worker: build(), cancellable=False)
        task.returned.connect(lambda path: self.open_path(path))
        task.errored.connect(
            lambda error: self.show_start_page(f"Cannot build the demo database: {error}")
        )

    # import and export -------------------------------------------------------------------------

    def show_import_dialog(self) -> ImportDialog | None:
        """File ▸ Import…: the dialog, open (not modal to the code) over the window."""
        if self.database is None or self.busy():
            return None
        return self._open_dialog("import_dialog", ImportDialog(self))

    def start_import(self, request: ImportOptions) -> Task | None:
        """Import in the background; the queue and progress are read again once it is done."""
        if self.database is None or self.busy():
            return None
        names = ", ".join(path.name for path in request.files)
        task = self.run_task("Importing", import_work(self.database_url(), request))
        self.show_message(f"Importing {names}…")
        task.returned.connect(self._imported)
        task.errored.connect(
            lambda error: self.show_message(
                f"Nothing was imported: {problems_summary(error)}", error=True
            )
        )
        task.cancelled.connect(
            lambda: self.show_message("Import cancelled: nothing was written", error=True)
        )
        return task

    def _imported(self, summary: str) -> None:
        self.refresh_judging()
        self.show_message("Imported: " + "; ".join(summary.splitlines()))

    def show_export_dialog(self) -> ExportDialog | None:
        """File ▸ Export…: judgments CSV or aggregated qrels."""
        if self.database is None or self.busy():
            return None
        with self.database.reading() as session:
            raters = all_rater_names(session)
        return self._open_dialog("export_dialog", ExportDialog(self, raters))

    def _dialog_closed(self, name: str, dialog: QWidget) -> None:
        if getattr(self, name) is dialog:
            setattr(self, name, None)
        dialog.deleteLater()

    def start_export(self, request: ExportOptions) -> Task | None:
        if self.database is None or self.busy():
            return None
        task = self.run_task("Exporting", export_work(self.database_url(), request))
        task.returned.connect(lambda text: self.show_message(text))
        task.errored.connect(
            lambda error: self.show_message(f"Nothing was exported: {_first_line(error)}", True)
        )
        task.cancelled.connect(lambda: self.show_message("Export cancelled", error=True))
        return task

    # lead tools --------------------------------------------------------------------------------

    def show_assign_dialog(self) -> AssignDialog | None:
        """Lead ▸ Assign queries…: every query to N raters, or a share to all of them."""
        if self.database is None or self.busy():
            return None
        with self.database.reading() as session:
            raters = active_raters(session)
            queries = all_query_ids(session)
            assigned = current_assignments(session)
        return self._open_dialog("lead_dialog", AssignDialog(self, raters, queries, assigned))

    def show_rubric_dialog(self) -> RubricDialog | None:
        """Lead ▸ Rubric…: the labels and descriptions of the six grades."""
        if self.database is None or self.busy():
            return None
        return self._open_dialog("lead_dialog", RubricDialog(self, _scale(self.database)))

    def show_pool_dialog(self) -> PoolDialog | None:
        """Lead ▸ Pooling…: depth, runs, and the order results are shown in."""
        if self.database is None or self.busy():
            return None
        with self.database.reading() as session:
            pool, runs = pool_settings(session), run_names(session)
        return self._open_dialog("lead_dialog", PoolDialog(self, pool, runs))

    def _open_dialog(self, name: str, dialog):  # type: ignore[no-untyped-def]
        """Show ``dialog`` with ``open()`` (not modal to the code), kept as ``self.<name>``
        until it closes."""
        setattr(self, name, dialog)
        dialog.finished.connect(lambda _result: self._dialog_closed(name, dialog))
        dialog.open()
        return dialog

    def database_url(self) -> str:
        """The database for a worker to open on its own (with its password, if any)."""
        assert self.database is not None
        return self.database.url.render_as_string(hide_password=False)

    def refresh_judging(self) -> None:
        """Read the queue, progress, rubric and pool again (after an import or a lead's
        change), staying on the same query and result where they still exist; once the
        changes on their way are written, so that what is read holds them."""
        if self.database is None:
            return
        if self.judging.in_flight:
            self.judging.idle.connect(self.refresh_judging, Qt.ConnectionType.SingleShotConnection)
            return
        if self.pages.currentWidget() is self.chooser:
            self.show_chooser()
            return
        session = self.judging.session
        if session is None:
            return
        query_id = session.query.id if session.query else None
        row = self.judging.current_row
        document_id = session.items[row].document_id if 0 <= row < len(session.items) else None
        fresh = JudgingSession(self.database, session.rater_id, session.rater_name)
        self.judging.set_session(fresh, query_id=query_id, document_id=document_id)
        self._update_actions()

    # background work ---------------------------------------------------------------------------

    def busy(self) -> bool:
        """Is background work under way? One at a time: the others wait for it."""
        if self.task is not None and self.task.running:
            self.show_message(f"Wait for “{self.task.title}” to finish", error=True)
            return True
        return False

    def run_task(self, title: str, work, *, cancellable: bool = True) -> Task:  # type: ignore[no-untyped-def]
        """Run ``work(worker)`` off the UI thread with a progress dialog after 600 ms. The
        evaluation and agreement pages take no input meanwhile; judging goes on (its grades
        queue behind the work's transaction, if it has one)."""
        task = Task(self, title, work, cancellable=cancellable)
        task.finished.connect(lambda: self._task_done(task))
        self.task = task
        self._analysis_enabled(False)
        self._update_actions()
        return task.start()

    def _analysis_enabled(self, enabled: bool) -> None:
        for page in (self.analysis.evaluation_view, self.analysis.agreement_view):
            page.setEnabled(enabled)

    def _task_done(self, task: Task) -> None:
        if self.task is task:
            self.task = None
        self._analysis_enabled(True)
        self._update_actions()
        if self.pages.currentWidget() is self.judging:
            self.judging.result_view.setFocus()
        elif self.pages.currentWidget() is self.analysis.evaluation_view:
            self.analysis.evaluation_view.table.setFocus()

    # events ----------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in _INPUT_EVENTS:
            self.judging.timer.touch()
        elif kind == QEvent.Type.KeyRelease:
            self.judging.key_released(event)  # type: ignore[arg-type]
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange:
            active = self.isActiveWindow()
            self.judging.timer.set_active(active)
            if not active:
                self.judging.keys.reset()  # the keys' releases go to another window
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Close once the background work has stopped and every change asked for is
        written: a grade on its way is never dropped."""
        if self.task is not None and self.task.running:
            self.task.cancel()
            self.task.finished.connect(self.close)  # close once it stopped
            event.ignore()
            return
        if self.judging.in_flight:
            count = self.judging.in_flight
            self.show_message(f"Saving {count} change{'s' if count != 1 else ''} before closing…")
            self.judging.closing = True
            self.judging.idle.connect(self.close, Qt.ConnectionType.SingleShotConnection)
            event.ignore()
            return
        self.judging.writes.close()
        QThreadPool.globalInstance().waitForDone()  # workers past their last signal
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        super().closeEvent(event)


def _scale(database: Database):  # type: ignore[no-untyped-def]
    with database.reading() as session:
        return scale(session)


def _first_line(error: BaseException) -> str:
    return describe_error(error).splitlines()[0]


def _short_name(described: str) -> str:
    """A database as a title shows it: the file name, or the URL."""
    return described if "://" in described else Path(described).name
