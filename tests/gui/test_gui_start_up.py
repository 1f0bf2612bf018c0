"""A rater's start loads only what judging needs: the evaluation, agreement and raters stacks
(pandas, matplotlib, their commands) load when a lead page is first opened, Alembic only when a
database is to be migrated, SQLAlchemy's PostgreSQL dialect only for PostgreSQL, and neither
the start page nor the lead's dialogs when a database is given. Each case runs in a process of
its own, whose modules are its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

from judge_app.cli import main as cli

ANALYSIS_STACK = [
    "numpy",
    "pyarrow",
    "pandas",
    "matplotlib",
    "judge_app.commands.evaluate",
    "judge_app.commands.agree",
    "judge_app.gui.evaluation_view",
    "judge_app.gui.agreement_view",
    "judge_app.commands.rater_quality",
    "judge_app.gui.raters_view",
]
PROGRAM = """
import json, sys
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication
from judge_app.gui import create_main_window

def loaded():
    others = ["alembic", "sqlalchemy.dialects.postgresql", "judge_app.gui.lead_dialog", "judge_app.gui.start"]
    return [name for name in json.loads(sys.argv[2]) + others if name in sys.modules]

window = create_main_window(sys.argv[1], "ana")
window.show()
QApplication.processEvents()
steps = {"judging": loaded()}
for page in ("evaluation", "agreement", "raters"):
    window.menus.page_actions[page].trigger()
    # loaded off the UI thread the first time, its numbers computed there too
    while window.analysis.shown_page() != page or window.task is not None:
        QThreadPool.globalInstance().waitForDone(50)
        QApplication.processEvents()
    steps[page] = loaded()
window.close()
window.database.close()
print(json.dumps(steps))
"""


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
    return path


def test_the_judging_start_loads_neither_the_analysis_stacks_nor_alembic(demo_path, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env["JUDGE_APP_SETTINGS"] = str(tmp_path / "settings.ini")
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(demo_path), json.dumps(ANALYSIS_STACK)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout.splitlines()[-1])
    assert steps["judging"] == []
    # the first lead page loads what every page stands on (on a worker): the others open at once
    assert set(steps["evaluation"]) >= set(ANALYSIS_STACK)
