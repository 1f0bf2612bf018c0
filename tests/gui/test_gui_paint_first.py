"""A start paints the window before SQLAlchemy and the store are loaded (issue 29, item 13):
``judge-app gui DB --rater NAME`` shows the judging page saying that the database is being
opened, and the database and the rater's queue arrive from workers afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from judge_app.cli import main
from judge_app.store import open_database
from judge_app.store.models import JudgmentEvent

# the command line, what the window's first paint showed noted, its event loop replaced by
# passes that run until the rater's queue has arrived
START = """
import json, sys, time
from judge_app.cli import main
from judge_app.gui.window import MainWindow
from PySide6.QtWidgets import QApplication

first = {}
painting = MainWindow.paintEvent

def noting(window, event):
    if not first:
        first.update({
            "store loaded": "judge_app.store.database" in sys.modules,
            "sqlalchemy loaded": any(name.split(".")[0] == "sqlalchemy" for name in sys.modules),
            "heading": window.judging.header.text.text(),
            "database": window.database is not None,
            "focus": window.focusWidget() is window.judging.results.view,
        })
    painting(window, event)

def loop(app):
    from PySide6.QtTest import QTest

    (window,) = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    app.processEvents()
    QTest.keyClicks(window.focusWidget(), "3")  # a rater's key before the queue has come
    deadline = time.monotonic() + 60
    while window.judging.session is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    session = window.judging.session
    print(json.dumps({"first": first, "rater": session and session.rater_name,
                      "status": window.status_text(),
                      "find": window.judging.queue.search.text()}))
    window.close()
    return 0

MainWindow.paintEvent = noting
QApplication.exec = loop
sys.exit(main(["gui", sys.argv[1], "--rater", sys.argv[2]]))
"""


def history(path: Path) -> int:
    """The judgment events the database holds."""
    with open_database(path) as database, database.reading() as session:
        return session.scalar(select(func.count()).select_from(JudgmentEvent))


def test_the_window_paints_before_the_store_loads_and_the_queue_arrives_after(tmp_path: Path):
    path = tmp_path / "judging.sqlite"
    assert main(["demo", str(path)]) == 0
    before = history(path)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               JUDGE_APP_SETTINGS=str(tmp_path / "settings.ini"))  # fmt: skip
    done = subprocess.run([sys.executable, "-c", START, str(path), "ana"], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    complaints = [line for line in done.stderr.splitlines()
                  if line and not line.startswith("This plugin does not support")]  # fmt: skip
    assert complaints == []  # no worker reporting to a window that has gone
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["first"] == {
        "store loaded": False,
        "sqlalchemy loaded": False,
        "heading": "Opening judging.sqlite…",
        "database": False,
        "focus": True,  # a key pressed before the queue comes does nothing, in the results
    }
    assert shown["find"] == "" and history(path) == before  # no grade given, none searched
    assert shown["rater"] == "ana"
    assert shown["status"].startswith("Judging as ana: ")
