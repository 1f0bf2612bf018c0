"""Fixtures and helpers of the GUI tests: the demo database, windows, key presses (the
fixtures are asked for by name: tests/conftest.py imports them)."""

from __future__ import annotations

import json
import shutil
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from automatic_support import JUDGE
from PySide6.QtCore import QEvent, Qt, QThreadPool
from PySide6.QtWidgets import QApplication

from judge_app.cli import main as cli
from judge_app.gui import create_main_window
from judge_app.gui.page_loading import STACKS, import_all, stack_of
from judge_app.store import open_database, reads

# What the lead pages stand on, imported before any test: each page is then built at once, as
# in a session whose first page has loaded (that first load: tests/gui/test_gui_lead_loading.py)
import_all(stack_of([STACKS]))


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
    return path


@pytest.fixture
def demo_db(demo_template, tmp_path) -> Path:
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_template, path)
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def demo_anywhere(request, demo_db) -> str:
    """The demo campaign in a SQLite file (its path) or on the test PostgreSQL server (a URL
    of a database of its own)."""
    if request.param == "sqlite":
        return str(demo_db)
    url = request.getfixturevalue("pg_url")
    with redirect_stdout(StringIO()):
        assert cli(["demo", url]) == 0
    return url


@pytest.fixture
def open_window(qtbot):
    windows = []

    def opener(database, rater="dan", demo=None):
        window = create_main_window(database, rater, demo=demo)
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield opener
    assert QThreadPool.globalInstance().waitForDone(30_000), "a worker is still running"
    for window in windows:
        window.close()
        if window.database is not None:
            window.database.close()
        window.deleteLater()  # closed windows would slow every later theme change down
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def window(open_window, demo_db):
    return open_window(demo_db)


@pytest.fixture
def window_anywhere(open_window, demo_anywhere):
    """A window judging the demo as dan, on SQLite and on PostgreSQL."""
    return open_window(demo_anywhere)


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key sent to whatever has the focus, as a user's key press is; returns once what it
    changed is written (or failed)."""
    # the window's own focus where it is not the active window (another test's may be)
    target = QApplication.focusWidget() or window.focusWidget() or window.judging.results.view
    qtbot.keyClick(target, key, modifier)
    written(qtbot, window)


def written(qtbot, window, timeout=20_000):
    """Wait until every change the window's judging screen was asked for is settled."""
    qtbot.waitUntil(lambda: window.judging.in_flight == 0, timeout=timeout)


def own_state(path, rater, query, document):
    """The rater's judgment of (query, document) as read back from the database file."""
    with open_database(path) as database, database.reading() as session:
        frame = reads.judgments_frame(session, raters=[rater])
    rows = frame[(frame["query_id"] == query) & (frame["doc_id"] == document)]
    if rows.empty:
        return None
    row = rows.iloc[0]
    grade = None if pd.isna(row["grade"]) else int(row["grade"])
    return grade, bool(row["skipped"]), None if pd.isna(row["note"]) else row["note"]


def calibrated_json(path: Path, judge: str = JUDGE) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["calibrate", str(path), "--judge", judge, "--format", "json"]) == 0
    return json.loads(out.getvalue())


def shown_calibration(qtbot, window):
    """View ▸ Automatic judges, once it has shown_calibration what it computed."""
    window.menus.page_actions["calibration"].trigger()
    view = window.analysis.calibration_view
    qtbot.waitUntil(
        lambda: window.task is None and (view.report is not None or bool(view.shown_message())),
        timeout=60_000,
    )
    return view
