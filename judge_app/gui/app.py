"""Starting the window: the application object, the database and rater to open."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from judge_app.gui import preferences
from judge_app.gui.window import MainWindow
from judge_app.store import Database, open_database
from judge_app.store.people import add_rater, find_rater


def application() -> QApplication:
    """The running QApplication, created if there is none."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("judge-app")
        app.setOrganizationName("judge_app")
    assert isinstance(app, QApplication)
    return app


def create_main_window(database: str | Path | Database, rater: str | None = None) -> MainWindow:
    """The main window on a database (a path, a URL or an open Database), not shown yet.

    With ``rater`` the window opens judging as that rater (created if the database does not
    know the name, as ``--rater NAME`` does); without, it opens for a lead and asks inline who
    is judging. It never runs a modal dialog.
    """
    application()
    if not isinstance(database, Database):
        database = open_database(database)
    preferences.add_recent_database(database.describe())
    window = MainWindow(database)
    if rater is None:
        window.show_chooser()
    else:
        with database.transaction() as session:
            if find_rater(session, rater) is None:
                add_rater(session, rater)
        window.choose_rater(rater)
    return window


def run(database: str | Path, rater: str | None = None) -> int:
    """Show the window on ``database`` until it is closed, judging as ``rater`` or as the
    rater last chosen on this database; the exit code."""
    app = application()
    opened = open_database(database)
    window = create_main_window(opened, rater or preferences.last_rater(opened.describe()))
    window.show()
    window.raise_()
    try:
        return app.exec()
    finally:
        opened.close()
