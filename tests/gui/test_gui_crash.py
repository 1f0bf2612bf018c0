"""A judging process killed with SIGKILL loses no grade its status bar confirmed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import redirect_stdout
from io import StringIO

import pytest

from judge_app.cli import main as cli
from judge_app.store import open_database, reads

CHILD = """
import sys, time
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from judge_app.gui import create_main_window
window = create_main_window(sys.argv[1], "kim")
window.show()
view = window.judging.results.view
for number in range(int(sys.argv[2])):
    session = window.judging.session
    item = session.items[window.judging.current_row]
    grade = number % 6
    QTest.keyClick(view, getattr(Qt.Key, f"Key_{grade}"))
    while window.judging.in_flight:  # the status bar says "Saved" once it is written
        QApplication.processEvents()
        time.sleep(0.001)
    if window.status_text().startswith("Saved:"):
        print("CONFIRMED", session.query.external_id, item.external_id, grade, flush=True)
    if window.judging.session.query_progress().done == len(session.items):
        QTest.keyClick(view, Qt.Key.Key_Return)
print("WAITING", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_every_confirmed_grade_survives_sigkill(tmp_path):
    database = tmp_path / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(database)]) == 0
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "JUDGE_APP_SETTINGS": str(tmp_path / "settings.ini"),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(database), "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    confirmed = {}
    try:
        for line in child.stdout:
            if line.startswith("WAITING"):
                break
            _, query, document, grade = line.split()
            confirmed[(query, document)] = int(grade)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert len(confirmed) == 20 and len({query for query, _ in confirmed}) == 2
    with open_database(database) as reopened, reopened.reading() as session:
        frame = reads.judgments_frame(session, raters=["kim"])
    stored = {(row.query_id, row.doc_id): int(row.grade) for row in frame.itertuples()}
    assert stored == confirmed
