"""Starting the window: the application object, the database and rater to open."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from judge_app.gui import failure, preferences
from judge_app.gui.opening import DemoBuilder
from judge_app.gui.window import MainWindow

if TYPE_CHECKING:  # a start paints the window before the store is loaded
    from judge_app.store import Database

SWITCH_INTERVAL_S = 0.0002
"""How long a thread that wants the GIL waits before the one holding it must let go (Python's
default: 5 ms). The UI thread calls into Python for each cell it paints and each event a widget
of ours handles, and waits this long each time while a worker computes: a table of 40 rows
painted beside a busy worker took 0.8 s at 5 ms, 0.1 s at 0.2 ms (0.02 s alone). Without a
thread waiting, nothing is interrupted."""


@contextmanager
def long_lived() -> Iterator[None]:
    """Run the block with the garbage collector off, then freeze what it made.

    What a start makes (the window, its pages, the database's engine) lives as long as the
    process: the collector would walk it again and again for nothing, and once more at exit.
    Frozen, later collections and the one at exit skip it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def application() -> QApplication:
    """The running QApplication, created if there is none."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("judge-app")
        app.setOrganizationName("judge_app")
        sys.setswitchinterval(SWITCH_INTERVAL_S)
    assert isinstance(app, QApplication)
    return app


def create_main_window(
    database: str | Path | Database | None = None,
    rater: str | None = None,
    *,
    demo: DemoBuilder | None = None,
    in_background: bool = False,
) -> MainWindow:
    """The main window, not shown yet: on a database (a path, a URL or an open Database), or
    without one on the start page. ``demo`` builds the demo database for the start page's
    "Open the demo".

    With ``rater`` the window opens judging as that rater (created if the database does not
    know the name, as ``--rater NAME`` does); without, it asks inline who is judging (a rater's
    login on a team database judges as its own rater: JudgeAppError for another name). It never
    runs a modal dialog. With ``in_background`` the rater's queue is read on a worker, so that
    the window paints before it is read (a start).
    """
    from judge_app.store.database import Database, open_writable_if_possible

    application()
    if database is None:
        window = MainWindow(demo)
        window.opening.show_start_page()
        return window
    if not isinstance(database, Database):
        database = open_writable_if_possible(database)
    window = MainWindow(demo)
    window.set_database(database)
    from judge_app.store.team import access

    rater = access(database).judging_as(rater)  # a rater's login: its own rater, no chooser
    if rater is None:
        window.show_chooser()
    else:
        window.choose_rater(rater, create=True, in_background=in_background)
    return window


def run(
    database: str | Path | None = None,
    rater: str | None = None,
    *,
    demo: DemoBuilder | None = None,
) -> int:
    """Show the window until it is closed; the exit code.

    On ``database``: judging as ``rater``, or as the rater last chosen there. Without one: the
    most recent database that is still there (an error opening it is shown on the start page);
    on first use, when no database was ever opened, the demo (from ``demo``); else the start
    page. The window paints first: the database is opened and the queue read on workers.
    """
    with long_lived():
        app = application()
        window = MainWindow(demo)
        if database is not None:
            window.opening.open_path(database, rater=rater, in_background=True)
        else:
            from judge_app.gui.start import recent_entry_exists

            known = preferences.recent_databases()
            recent = [name for name in known if recent_entry_exists(name)]
            if recent:
                window.opening.open_path(recent[0], in_background=True)
            elif not known and demo is not None:
                window.opening.open_path(demo(), in_background=True)
            else:
                window.opening.show_start_page()
        failure.install(window)
        window.show()
        window.raise_()
    try:
        return app.exec()
    finally:
        QThreadPool.globalInstance().waitForDone()  # a start's opening, if still under way
        if window.database is not None:
            window.database.close()
