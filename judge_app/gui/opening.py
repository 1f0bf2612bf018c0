"""How the window comes to a database: the start page (open, create, the demo, the recent
databases), a file or URL opened (at a start, on a worker once the window has painted, so that
the window shows at once), a new database, and the demo built. Who judges next is the
window's to ask."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QThreadPool, QTimer
from PySide6.QtWidgets import QStackedWidget

from judge_app.errors import JudgeAppError
from judge_app.gui.error_words import error_text
from judge_app.gui.workers import Worker
from judge_app.store.errors import SimilarRaterError

if TYPE_CHECKING:
    from judge_app.gui.judging import JudgingScreen
    from judge_app.gui.rater_chooser import RaterChooser
    from judge_app.gui.start import StartPage
    from judge_app.gui.workspace import Workspace
    from judge_app.store import Database

DATABASE_FILTER = "judge_app databases (*.sqlite *.db *.judge);;All files (*)"
UNPAINTED_START_MS = 1000
"""A start's work waits for the window's first paint, or this long for a window not painted."""
DemoBuilder = Callable[[], Path]
"""Builds the demo database where the user keeps judge_app's files; returns its path."""


class AfterPaint(QObject):
    """Parts of a start (opening the database, reading a queue) run on a pool thread once
    the window has painted (``painted``): the work would slow its first paint."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._running: set[Worker] = set()  # kept until finished
        self._painted = False
        self._waiting: list[Worker] = []

    def run(
        self,
        work: Callable[[Worker], object],
        returned: Callable[..., None],
        errored: Callable[[BaseException], None],
    ) -> None:
        """``work`` on a worker, now if the window has painted, else after it has."""
        worker = Worker(work)
        worker.signals.returned.connect(returned)
        worker.signals.errored.connect(errored)
        worker.signals.finished.connect(lambda: self._running.discard(worker))
        self._running.add(worker)
        if self._painted:
            QThreadPool.globalInstance().start(worker)
            return
        self._waiting.append(worker)
        # a window that does not paint (started minimised, never shown) starts it anyway
        QTimer.singleShot(UNPAINTED_START_MS, self._start)

    def painted(self) -> None:
        """The window painted: what waited starts once the frame is on the screen."""
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self._start)

    def _start(self) -> None:
        waiting, self._waiting = self._waiting, []
        for worker in waiting:
            QThreadPool.globalInstance().start(worker)


class OpeningWindow(Protocol):
    """What opening a database needs of the window (``gui.window.MainWindow``)."""

    workspace: Workspace
    pages: QStackedWidget
    judging: JudgingScreen
    chooser: RaterChooser
    after_paint: AfterPaint

    @property
    def database(self) -> Database | None: ...

    def set_database(self, database: Database) -> None: ...

    def start_judging(self, *, in_background: bool = False) -> None: ...

    def choose_rater(
        self,
        name: str,
        create: bool = False,
        similar_ok: bool = False,
        *,
        in_background: bool = False,
    ) -> None: ...

    def show_chooser(self) -> None: ...

    def show_message(self, text: str, error: bool = False) -> None: ...

    def follow_page(self) -> None: ...


class Opening(QObject):
    """The start page and the ways to a database, for ``window``; the demo where ``demo``
    can build it."""

    def __init__(self, window: OpeningWindow, demo: DemoBuilder | None, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window
        self.demo = demo
        self._start_page: StartPage | None = None  # built when first shown

    @property
    def start_page(self) -> StartPage:
        """The start page, built the first time it is asked for (a start on a database
        never needs it)."""
        if self._start_page is None:
            from judge_app.gui.start import StartPage

            page = StartPage(demo_available=self.demo is not None)
            page.openRequested.connect(self.ask_open_database)
            page.newRequested.connect(self.ask_new_database)
            page.demoRequested.connect(self.open_demo)
            page.recentChosen.connect(self.open_path)
            self.window.pages.addWidget(page)
            self._start_page = page
        return self._start_page

    def start_page_shown(self) -> bool:
        """Whether the start page is the page shown."""
        page = self._start_page
        return page is not None and self.window.pages.currentWidget() is page

    def show_start_page(self, error: str | None = None) -> None:
        """The start page: open, create, the demo, the recent databases; ``error`` on top."""
        self.start_page.refresh(error)
        self.window.pages.setCurrentWidget(self.start_page)
        self.window.follow_page()
        if error:
            self.window.show_message("The database could not be opened: see above", error=True)
        else:
            self.window.show_message("Open a database to start")

    def open_path(
        self,
        path: str | Path,
        *,
        create: bool = False,
        rater: str | None = None,
        in_background: bool = False,
    ) -> bool:
        """Open the database at ``path`` (a file or a URL) and start judging on it: as
        ``rater`` (added if the database lacks them), else as the rater last chosen there, else
        after asking who is judging. False, with the error shown, if it cannot be opened.

        With ``in_background`` (a start) the window paints first: the database is opened and
        the rater's queue read on workers while the judging page says so, and an error is
        shown when it comes (True then says only that the opening began)."""
        if in_background:
            self.window.judging.show_opening(
                f"Opening {short_name(str(path))}…", "Checking the database."
            )
            self.window.pages.setCurrentWidget(self.window.judging)
            self.window.after_paint.run(
                lambda _worker: _open_database(path, create),
                lambda database: self._opened(database, rater),
                self._cannot_open,
            )
            return True
        try:
            database = _open_database(path, create)
        except JudgeAppError as error:
            self._cannot_open(error)
            return False
        self.window.set_database(database)
        if rater is None:
            self.window.start_judging()
        else:
            self.window.choose_rater(rater, create=True)
        return True

    def _opened(self, database: Database, rater: str | None) -> None:
        """A database opened at start: judge as ``rater`` (or the rater last chosen there),
        their queue read on a worker; a name the database refuses is asked about in the
        rater chooser."""
        self.window.set_database(database)
        if rater is None:
            self.window.start_judging(in_background=True)
            return
        try:
            self.window.choose_rater(rater, create=True, in_background=True)
        except JudgeAppError as error:
            self.window.show_chooser()
            if isinstance(error, SimilarRaterError):
                self.window.chooser.show_all()  # the question is asked beside the other raters
                self.window.chooser.ask_similar(rater, error.similar)
            else:
                self.window.chooser.show_error(error_text(error))

    def _cannot_open(self, error: BaseException) -> None:
        message = f"Cannot open the database: {error_text(error)}"
        if self.window.database is None or self.start_page_shown():
            self.show_start_page(message)
        else:
            self.window.show_message(message, error=True)

    def ask_open_database(self) -> None:
        self.window.workspace.choose_file("Open database", DATABASE_FILTER, self.open_path)

    def ask_new_database(self) -> None:
        self.window.workspace.choose_file(
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
            if (
                self._start_page is not None
                and self.window.pages.currentWidget() is self._start_page
            ):
                self._start_page.refresh(message)
            self.window.show_message(message, error=True)
            return
        self.open_path(path, create=True)

    def open_demo(self) -> None:
        """Build the demo database in the user's data folder (once, off the UI thread) and
        open it."""
        if self.demo is None or self.window.workspace.busy():
            return
        build = self.demo
        self.window.show_message("Preparing the demo database…")
        task = self.window.workspace.run_task(
            "Preparing the demo", lambda _worker: build(), cancellable=False
        )
        task.returned.connect(lambda path: self.open_path(path))
        task.errored.connect(
            lambda error: self.show_start_page(f"Cannot build the demo database: {error}")
        )


def _open_database(path: str | Path, create: bool) -> Database:
    """The database at ``path``, for writing if this process can (imported here: a start
    paints the window before SQLAlchemy and the store are loaded)."""
    import judge_app.commands.raters
    import judge_app.judging.session  # noqa: F401 (what judging on it needs: not on the UI thread)
    from judge_app.store.database import open_writable_if_possible
    from judge_app.store.team import access

    database = open_writable_if_possible(path, create=create)
    try:
        access(database)  # who is connected, read here once: the window asks on its thread
    except BaseException:
        database.close()
        raise
    return database


def short_name(described: str) -> str:
    """A database as a title shows it: the file name, or the URL."""
    return described if "://" in described else Path(described).name
