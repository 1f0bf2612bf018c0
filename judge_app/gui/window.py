"""The main window: it composes the start page, the rater chooser, the judging screen, the
evaluation, agreement and raters pages, the menus, the shortcut overlay and the status bar
around one Workspace (the open database, the background work, the messages). Dialogs and pages
are given the workspace, never the window, and none of them imports this module."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QEvent, QObject, Qt, QThreadPool
from PySide6.QtGui import (
    QCloseEvent,
    QKeyEvent,
    QPaintEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
)

from judge_app.errors import JudgeAppError
from judge_app.gui import geometry, preferences
from judge_app.gui.analysis import Analysis
from judge_app.gui.error_words import error_text
from judge_app.gui.judging import JudgingScreen
from judge_app.gui.opening import AfterPaint, DemoBuilder, Opening, short_name
from judge_app.gui.overlay import ShortcutOverlay
from judge_app.gui.pair_page import PairPage
from judge_app.gui.rater_chooser import RaterChooser
from judge_app.gui.theme import apply_theme, stylesheet
from judge_app.gui.window_menus import WindowMenus
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace
from judge_app.judging.keys import KEYMAP_TITLES, KEYMAPS
from judge_app.store.errors import SimilarRaterError

if TYPE_CHECKING:
    # imported where used: a start paints the window before SQLAlchemy and the store are
    # loaded (on a worker), and a rater's start never loads imports, exports or lead tools
    from judge_app.commands.export import ExportOptions
    from judge_app.commands.importing import ImportOptions
    from judge_app.gui.adjudication import AdjudicationScreen
    from judge_app.gui.lead_dialog import LeadDialog
    from judge_app.gui.pair_screen import PairScreen
    from judge_app.gui.transfer import ExportDialog, ImportDialog
    from judge_app.judging.session import JudgingSession
    from judge_app.store import Database

DIALOGS = {
    "import": ("transfer", "ImportDialog", "import files", "import_dialog"),
    "export": ("transfer", "ExportDialog", "export the judgments", "export_dialog"),
    "assign": ("assign_dialog", "AssignDialog", "assign queries", "lead_dialog"),
    "rubric": ("rubric_dialog", "RubricDialog", "change the rubric", "lead_dialog"),
    "pool": ("pool_dialog", "PoolDialog", "change the pooling", "lead_dialog"),
    "gold": ("gold_dialog", "GoldDialog", "open the gold items", "lead_dialog"),
    "quality": ("quality_dialog", "QualityDialog", "change the quality checks", "lead_dialog"),
    "autojudge": (
        "autojudge_dialog",
        "AutojudgeDialog",
        "grade with an automatic judge",
        "lead_dialog",
    ),
    "ensemble": ("ensemble_dialog", "EnsembleDialog", "combine automatic judges", "lead_dialog"),
    "fetch": ("fetch_dialog", "FetchDialog", "fetch results from a search engine", "lead_dialog"),
}
"""The window's dialogs, by name: their modules in ``judge_app.gui`` (imported when first
opened: a rater's start never needs them), their classes, what they do (in words, for a rater's
login that may not), and the attribute that keeps the one open."""
AnyDialog = TypeVar("AnyDialog", bound=QDialog)
_INPUT_EVENTS = (
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
)


class MainWindow(QMainWindow):
    """judge_app's window: the start page, then the judging of one database at a time."""

    def __init__(self, demo: DemoBuilder | None = None) -> None:
        super().__init__()
        self.demo = demo
        self.after_paint = AfterPaint(self)  # a start's work waits for the first paint
        self.import_dialog: ImportDialog | None = None  # open dialogs, for tests and scripts
        self.export_dialog: ExportDialog | None = None
        self.lead_dialog: LeadDialog | None = None
        self._adjudication: AdjudicationScreen | None = None  # built when a lead opens it
        self.pair_page = PairPage(self, self)  # its screen built when a rater compares pairs
        self.setObjectName("mainWindow")
        self.workspace = Workspace(self)
        self._build_pages()
        self.opening = Opening(self, demo, self)
        self._build_status_bar()
        self.keymap_name = preferences.keymap_name()
        self.judging.set_keymap(KEYMAPS[self.keymap_name])
        self.menus = WindowMenus(self, self.menuBar(), self)
        self.set_theme(preferences.theme_name())
        self._connect_parts()
        geometry.restore(self, self.splitters())
        self._watching_input = False
        self._watch_input(True)

    def _build_pages(self) -> None:
        self.pages = QStackedWidget()
        self.chooser = RaterChooser()
        self.judging = JudgingScreen()
        self.analysis = Analysis(self.workspace, self.pages)
        for page in (self.chooser, self.judging):
            self.pages.addWidget(page)  # the analysis adds its pages when they are first shown
        self.setCentralWidget(self.pages)
        self.overlay = ShortcutOverlay(self.pages)

    def _build_status_bar(self) -> None:
        self.status_label = QLabel()
        self.status_label.setObjectName("statusMessage")
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().setSizeGripEnabled(False)

    def _connect_parts(self) -> None:
        """What the parts ask for or say, and what the window does about it. (The analysis
        connected to the workspace first: its pages are enabled before the focus returns.)"""
        workspace = self.workspace
        workspace.message.connect(self.show_message)
        workspace.databaseChanged.connect(self.follow_page)
        workspace.campaignChanged.connect(self.refresh_judging)
        workspace.taskStarted.connect(lambda _task: self._update_actions())
        workspace.taskFinished.connect(lambda _task: self._task_finished())
        self.pages.currentChanged.connect(self._page_changed)
        self.chooser.raterChosen.connect(self._rater_chosen)
        self.chooser.leadToolRequested.connect(self.show_dialog)
        self.judging.message.connect(self.show_message)
        self.judging.helpRequested.connect(self.toggle_shortcuts)
        self.judging.placeChanged.connect(self._remember_place)
        self.judging.outOfStep.connect(self._caught_up)
        self.analysis.adjudicate.connect(self.adjudicate)
        self.analysis.qualitySettingsRequested.connect(lambda: self.show_dialog("quality"))
        self.analysis.gradeWithJudgeRequested.connect(lambda: self.show_dialog("autojudge"))

    def splitters(self) -> dict[str, QSplitter]:
        """The splitters whose sizes are remembered with the window's place, by name."""
        splitters = {"judging": self.judging.splitter}
        if self._adjudication is not None:
            splitters["adjudication"] = self._adjudication.splitter
        return splitters

    # the workspace, as tests and scripts reach it ----------------------------------------------

    @property
    def database(self) -> Database | None:
        """The open database, if any."""
        return self.workspace.database

    @property
    def task(self) -> Task | None:
        """The background work under way, if any."""
        return self.workspace.task

    def run_task(
        self, title: str, work: Callable[[Worker], object], *, cancellable: bool = True
    ) -> Task:
        """Background work with its progress dialog (``Workspace.run_task``)."""
        return self.workspace.run_task(title, work, cancellable=cancellable)

    # menus -----------------------------------------------------------------------------------

    def show_queue(self, shown: bool) -> None:
        """Show or hide the judging screen's queue pane (View ▸ Queue pane)."""
        queue = self.judging.splitter.widget(0)
        assert queue is not None
        queue.setVisible(shown)

    def set_compact_rubric(self, compact: bool) -> None:
        """View ▸ Compact rubric."""
        self.judging.set_compact_rubric(compact)

    def run_key_action(self, name: str) -> None:
        """A key map action chosen in a menu, as its key would do it."""
        if name == "help":
            self.toggle_shortcuts()
        else:
            self.judging.run_action(name)

    def refused(self, what: str) -> bool:
        """Whether the open database's login is a rater's, which cannot do ``what`` (a
        lead's work): then the status bar says so."""
        if self.database is None:
            return False
        from judge_app.store.team import access

        reason = access(self.database).refusal(what)
        if reason is not None:
            self.show_message(reason, error=True)
        return reason is not None

    def _update_actions(self) -> None:
        judging = self.pages.currentWidget() is self.judging and self.judging.session is not None
        self.menus.update(judging, self.database is not None and self.task is None)

    # state -----------------------------------------------------------------------------------

    def set_keymap(self, name: str) -> None:
        self.keymap_name = name
        preferences.set_keymap_name(name)
        self.menus.keymap_actions[name].setChecked(True)
        self.judging.set_keymap(KEYMAPS[name])
        self.menus.label_keys()
        self.show_message(f"Key map: {KEYMAP_TITLES[name]}")

    def set_theme(self, name: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        self.setStyleSheet(stylesheet(name))
        self.theme = name
        preferences.set_theme_name(name)
        self.menus.theme_actions[name].setChecked(True)
        self.judging.apply_palette()
        if self._adjudication is not None:
            self._adjudication.apply_palette()

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
            self._focus_page()
            return
        if self._adjudication is not None and self.pages.currentWidget() is self._adjudication:
            self.overlay.show_groups(
                "Adjudication shortcuts",
                "Each decision is stored as the rater “adjudicated”, never over a rater's grade",
                self._adjudication.shortcut_groups(),
                "A decision moves on to the next undecided disagreement. Press any key to close.",
            )
            return
        pairs = self.pair_page.built
        if pairs is not None and self.pages.currentWidget() is pairs:
            self.overlay.show_groups(
                "Comparing pairs",
                "Which of the two results better answers the query? Sides are shuffled",
                pairs.shortcut_groups(),
                "Each choice is saved at once and the next pair follows. Press any key to close.",
            )
            return
        session = self.judging.session
        if session is not None:
            labels = [label.label for label in session.scale]
        else:
            from judge_app.store.settings import scale

            with self.workspace.reading() as reading:
                labels = [label.label for label in scale(reading)]
        self.overlay.show_keymap(self.keymap_name, KEYMAPS[self.keymap_name], labels)

    def _set_title(self) -> None:
        if self.database is None:
            self.setWindowTitle("judge_app")
            return
        title = f"judge_app — {short_name(self.database.describe())}"
        session = self.judging.session
        shown = self.analysis.shown_page()
        if session is not None and self.pages.currentWidget() is self.judging:
            title += f" — judging as {session.rater_name}"
        elif self._adjudication is not None and self.pages.currentWidget() is self._adjudication:
            title += " — adjudicating"
        elif shown is not None:
            title += f" — {shown}"
        self.setWindowTitle(title)

    # raters ----------------------------------------------------------------------------------

    def show_chooser(self) -> None:
        from judge_app.commands.raters import rater_choice

        assert self.database is not None
        described = self.database.describe()
        choice = rater_choice(self.database, preferences.last_rater(described))
        self.chooser.refresh(choice.names, choice.own, described)
        self.judging.set_session(None)
        self.pages.setCurrentWidget(self.chooser)
        self.show_message("Choose who is judging")

    def choose_rater(
        self,
        name: str,
        create: bool = False,
        similar_ok: bool = False,
        *,
        in_background: bool = False,
    ) -> None:
        """Start judging as ``name`` (however typed); with ``create``, a rater the database
        lacks is added (one only spaces away from a rater's with ``similar_ok``). With
        ``in_background`` (a start: the window paints first) the rater's queue is read on a
        worker while the judging page says so; a failure then shows the rater chooser."""
        from judge_app.commands.raters import rater_for
        from judge_app.judging.session import JudgingSession

        database = self.database
        assert database is not None
        rater_id, rater_name = rater_for(database, name, create, similar_ok=similar_ok)
        if not in_background:
            self._judge(JudgingSession(database, rater_id, rater_name))
            return
        self.judging.show_opening(
            f"Opening {rater_name}'s queue…", "Reading the queries and your grades."
        )
        self.pages.setCurrentWidget(self.judging)
        self.after_paint.run(
            lambda _worker: JudgingSession(database, rater_id, rater_name),
            self._judge,
            self._not_opened,
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.after_paint.painted()

    def _judge(self, session: JudgingSession) -> None:
        """Judge ``session``'s queue from where its rater last was."""
        if session.database is not self.database:
            return  # read for a database closed meanwhile
        described = session.database.describe()
        preferences.remember_rater(described, session.rater_name)
        place = preferences.last_place(described, session.rater_name) or (None, None)
        self.judging.set_session(session, query_id=place[0], document_id=place[1])
        self.pages.setCurrentWidget(self.judging)
        self._set_title()
        overall = session.overall_progress()
        self.show_message(
            f"Judging as {session.rater_name}: {overall.done} of {overall.total} results "
            f"judged in {len(session.queue)} queries. Press ? for the shortcuts."
        )
        self.judging.results.view.setFocus()

    def _not_opened(self, error: BaseException) -> None:
        """The queue read at start failed: who is judging is asked again, with why."""
        if self.database is None:
            return
        self.show_chooser()
        self.chooser.show_error(error_text(error))

    def _rater_chosen(self, name: str, create: bool, similar_ok: bool) -> None:
        """The chooser's choice; a refusal is shown there, and a new name only spaces away
        from a rater's asked about."""
        try:
            self.choose_rater(name, create, similar_ok)
        except SimilarRaterError as error:
            self.chooser.ask_similar(name, error.similar)
        except JudgeAppError as error:
            self.chooser.show_error(error_text(error))

    def _remember_place(self, query_id: int, document_id: int) -> None:
        """Where the rater is, so that the next start reopens there."""
        session = self.judging.session
        if self.database is not None and session is not None:
            preferences.remember_place(
                self.database.describe(), session.rater_name, query_id, document_id
            )

    def start_judging(self, *, in_background: bool = False) -> None:
        """Judge as the rater last chosen on this database (their queue read on a worker
        with ``in_background``), or ask who is judging."""
        from judge_app.commands.raters import rater_choice

        assert self.database is not None
        own = rater_choice(self.database, preferences.last_rater(self.database.describe())).own
        if own is not None:
            self.choose_rater(own, in_background=in_background)
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
        self.judging.results.view.setFocus()

    @property
    def adjudication(self) -> AdjudicationScreen:
        """The adjudication screen, built the first time a lead opens it."""
        if self._adjudication is None:
            from judge_app.gui.adjudication import AdjudicationScreen

            screen = AdjudicationScreen(self.workspace)
            screen.message.connect(self.show_message)
            screen.helpRequested.connect(self.toggle_shortcuts)
            screen.backRequested.connect(self.analysis.show_agreement)
            self.pages.addWidget(screen)
            geometry.restore_splitters({"adjudication": screen.splitter})
            self._adjudication = screen
        return self._adjudication

    def adjudicate(self, query_id: str, doc_id: str) -> None:
        """The adjudication screen at a disputed document: the lead's grade is stored as the
        rater ``adjudicated``'s own judgment, never over a rater's."""
        if self.database is None:
            return
        screen = self.adjudication
        self.pages.setCurrentWidget(screen)
        self._focus_page()  # the lead's next key decides: it goes to the list at once
        self.show_message(
            f"Adjudicating {query_id} · {doc_id}: a number key accepts that rater's grade, "
            "G then 0–5 gives your own. Press ? for the keys."
        )
        screen.open_at(query_id, doc_id)

    def _caught_up(self) -> None:
        """Another window of the rater changed their judgments: show what the store holds."""
        self.refresh_judging()
        self.show_message("Updated with the changes made in another window of yours")

    def refresh_judging(self) -> None:
        """Read the queue, progress, rubric and pool again (after an import or a lead's
        change), staying on the same query and result where they still exist; once the
        changes on their way are written, so that what is read holds them."""
        from judge_app.judging.session import JudgingSession

        if self.database is None:
            return
        self.pair_page.refresh()
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
        fresh = JudgingSession(
            self.database,
            session.rater_id,
            session.rater_name,
            undo_after=session.undo_after,
            opened_at=session.opened_at,
        )
        fresh.early_notes = session.early_notes  # notes waiting for their grades come along
        self.judging.set_session(fresh, query_id=query_id, document_id=document_id)
        self._update_actions()

    # databases -------------------------------------------------------------------------------

    def set_database(self, database: Database) -> None:
        """Work on ``database`` from now on (the one open before is closed)."""
        if self.database is not None and self.database is not database:
            self.judging.set_session(None)  # before its database is closed
        self.workspace.set_database(database)
        preferences.add_recent_database(database.describe())

    def follow_page(self) -> None:
        """The title and the menus say what is shown now."""
        self._set_title()
        self._update_actions()

    def close_database(self) -> None:
        """Close the database and go back to the start page."""
        if self.database is None:
            return
        self.judging.set_session(None)
        self.pair_page.close()
        self.workspace.close_database()
        self.opening.show_start_page()

    # dialogs -----------------------------------------------------------------------------------

    def show_dialog(self, name: str) -> QDialog | None:
        """A dialog of ``DIALOGS`` (File ▸ Import…, Lead ▸ Rubric…, …), open over the window,
        not modal to the code; None while it cannot open (``_open_dialog`` says why)."""
        module, dialog, what, kept_as = DIALOGS[name]
        found = importlib.import_module(f"judge_app.gui.{module}")
        return self._open_dialog(kept_as, getattr(found, dialog), what)

    def start_import(self, options: ImportOptions) -> Task | None:
        """What File ▸ Import… starts, without the dialog."""
        from judge_app.gui.transfer import start_import

        return start_import(self.workspace, options)

    def start_export(self, options: ExportOptions) -> Task | None:
        """What File ▸ Export… starts, without the dialog."""
        from judge_app.gui.transfer import start_export

        return start_export(self.workspace, options)

    def _open_dialog(
        self, name: str, make: Callable[[Workspace], AnyDialog], what: str
    ) -> AnyDialog | None:
        """The dialog ``make`` builds on the workspace (none while there is no database or
        work is under way, or when the login is a rater's: ``what`` it does is a lead's
        work), shown with ``open()`` (not modal to the code) and kept as ``self.<name>``
        until it closes."""
        if not self.workspace.ready() or self.refused(what):
            return None
        dialog = make(self.workspace)
        setattr(self, name, dialog)
        dialog.finished.connect(lambda _result: self._dialog_closed(name, dialog))
        dialog.open()
        return dialog

    def _dialog_closed(self, name: str, dialog: QDialog) -> None:
        if getattr(self, name) is dialog:
            setattr(self, name, None)
        dialog.deleteLater()

    # events ----------------------------------------------------------------------------------

    def _page_changed(self, _index: int) -> None:
        self._update_actions()
        self._set_title()
        current = self.pages.currentWidget()
        self._watch_input(current is self.judging or current is self.pair_page.built)

    def _watch_input(self, on: bool) -> None:
        """Watch every event of the application (``eventFilter``: the rater's activity and key
        releases) only while judging: each event would call into Python, waiting for the GIL
        while a lead page's worker computes, and the page would stutter."""
        app = QApplication.instance()
        if app is None or on == self._watching_input:
            return
        if on:
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)
        self._watching_input = on

    def _task_finished(self) -> None:
        self._update_actions()
        self._focus_page()

    def _focus_page(self) -> None:
        """The keys go to the judging screen's results, the adjudication list or the pair
        screen, whichever is shown."""
        current = self.pages.currentWidget()
        if current is self.judging:
            self.judging.results.view.setFocus()
        elif self._adjudication is not None and current is self._adjudication:
            self._adjudication.list_view.setFocus()
        elif current is self.pair_page.built and current is not None:
            current.setFocus()  # the pair screen reads the keys itself

    def _keyed_screens(self) -> tuple[JudgingScreen | PairScreen, ...]:
        """The screens that read the rater's keys and time their work."""
        pairs = self.pair_page.built
        return (self.judging,) if pairs is None else (self.judging, pairs)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        screens = self._keyed_screens()
        if kind in _INPUT_EVENTS:
            for screen in screens:
                screen.timer.touch()
        elif kind == QEvent.Type.KeyRelease and isinstance(event, QKeyEvent):
            for screen in screens:
                screen.key_released(event)
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange:
            active = self.isActiveWindow()
            self.judging.step_watch.set_active(active)
            for screen in self._keyed_screens():
                screen.timer.set_active(active)
                if not active:
                    screen.keys.reset()  # the keys' releases go to another window
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Close once the background work has stopped and every change asked for is
        written: a grade on its way is never dropped."""
        task = self.workspace.task
        if task is not None and task.running:
            task.cancel()
            task.finished.connect(self.close)  # close once it stopped
            event.ignore()
            return
        if self.judging.in_flight:
            count = self.judging.in_flight
            self.show_message(f"Saving {count} change{'s' if count != 1 else ''} before closing…")
            self.judging.writes.closing = True
            self.judging.idle.connect(self.close, Qt.ConnectionType.SingleShotConnection)
            event.ignore()
            return
        others = [s for s in (self._adjudication, self.pair_page.built) if s is not None]
        for screen in others:
            if screen.in_flight:
                self.show_message("Saving the last choices before closing…")
                screen.writes.closing = True
                screen.idle.connect(self.close, Qt.ConnectionType.SingleShotConnection)
                event.ignore()
                return
        self.judging.writes.close()
        for screen in others:
            screen.writes.close()
        geometry.save(self, self.splitters())
        QThreadPool.globalInstance().waitForDone()  # workers past their last signal
        self._watch_input(False)
        super().closeEvent(event)
