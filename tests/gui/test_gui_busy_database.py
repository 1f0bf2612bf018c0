"""The judging window while another program writes a million judgments into the same file:
every key is taken at once, and every grade is written, in order, once the other program's
transaction ends. (How fast keys are painted meanwhile is printed, not asserted: a loaded
machine is no failure of ours; benchmarks/bench_judging.py times keys.)"""

from __future__ import annotations

import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gui_support import written
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from judge_app.store import open_database
from judge_app.store.models import Document, JudgmentEvent, Query, Rater

IMPORT_ROWS = 1_000_000
PRESSES = 50
BETWEEN_KEYS_S = 0.06  # a quick rater


@pytest.fixture(scope="module")
def million_judgments(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("import") / "million.csv"
    grades = np.random.default_rng(3).integers(0, 6, IMPORT_ROWS)
    pd.DataFrame(
        {
            "query_id": [f"bulk{i // 100}" for i in range(IMPORT_ROWS)],
            "doc_id": [f"bulk-doc{i}" for i in range(IMPORT_ROWS)],
            "rater": "importer",
            "grade": grades,
        }
    ).to_csv(path, index=False)
    return path


def _writing(path: Path) -> bool:
    """Whether another program holds the file's write lock now."""
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        probe.close()


def _timed_key(view, key) -> float:
    """Milliseconds from a key press to the window painted."""
    start = time.perf_counter()
    QTest.keyClick(view, key)
    QApplication.processEvents()
    return 1000 * (time.perf_counter() - start)


@pytest.mark.reliability
def test_fifty_grades_during_a_million_row_import_are_all_written_in_order(
    qtbot, open_window, demo_db, million_judgments
):
    window = open_window(demo_db, "dan")
    judging, view = window.judging, window.judging.results.view
    importer = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "import", str(demo_db), "--judgments",
         str(million_judgments)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _writing(demo_db):  # the import has read its file and begun writing
            assert importer.poll() is None, importer.communicate()
            assert time.monotonic() < deadline, "the import never began writing"
            qtbot.wait(20)  # the window's event loop runs meanwhile, as a real one does
        expected, paint_ms, open_ms = [], [], []
        while len(expected) < PRESSES:
            session = judging.session
            if session.query_progress().done == len(session.items):
                open_ms.append(_timed_key(view, Qt.Key.Key_Return))  # the next query
                continue
            item = session.items[judging.current_row]
            grade = len(expected) % 6
            expected.append((session.query.external_id, item.external_id, grade))
            paint_ms.append(_timed_key(view, getattr(Qt.Key, f"Key_{grade}")))
            qtbot.wait(int(BETWEEN_KEYS_S * 1000))
        assert importer.poll() is None, "the import ended before the keys: nothing was shown"
        assert judging.in_flight > 0  # waiting for the import's transaction
        waiting = window.status_text()
        out, err = importer.communicate(timeout=300)
    finally:
        if importer.poll() is None:
            importer.kill()
    assert importer.returncode == 0, err
    written(qtbot, window, timeout=120_000)
    with open_database(demo_db) as database, database.reading() as session:
        history = session.execute(
            JudgmentEvent.__table__.select()
            .with_only_columns(Query.external_id, Document.external_id, JudgmentEvent.new_grade)
            .join(Rater, Rater.id == JudgmentEvent.rater_id)
            .join(Query, Query.id == JudgmentEvent.query_id)
            .join(Document, Document.id == JudgmentEvent.document_id)
            .where(Rater.name == "dan")
            .order_by(JudgmentEvent.id)
        ).all()
    assert [tuple(row) for row in history] == expected
    print(
        f"\n{PRESSES} grades during a {IMPORT_ROWS:,}-row import: key to paint median "
        f"{statistics.median(paint_ms):.1f} ms, max {max(paint_ms):.1f} ms; opening a query "
        f"max {max(open_ms):.1f} ms; status while waiting: {waiting!r}"
    )
    assert waiting.startswith("Waiting for the database: another program is writing to it")
