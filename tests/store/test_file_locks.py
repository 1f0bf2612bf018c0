"""A grade confirmed by one process survives whatever that process and others do with the file.

On POSIX, closing any descriptor of a file drops every lock the process holds on it (SQLite's
"How To Corrupt An SQLite Database File", section 2.2): a process that reads its own live
database with plain file I/O makes the next program to close the file believe it is the last,
which checkpoints and deletes the WAL under the first one's feet. Each test here runs real
processes: A writes and keeps its pool, opens the same file again in one of the ways the window
and the command line do, another process reads and closes the file, A confirms a grade and is
killed with SIGKILL; the grade must be in the file and the file whole.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge_app.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and POSIX locks")

WRITER = textwrap.dedent(
    """
    import io, sys
    from contextlib import redirect_stdout
    from sqlalchemy import select
    from judge_app.cli import main
    from judge_app.store import open_database
    from judge_app.store.judgments import set_grade
    from judge_app.store.models import Document, Query
    from judge_app.store.people import add_rater

    path, how, folder = sys.argv[1:4]
    database = open_database(path)

    def prepare(session):
        rater = add_rater(session, "lead")
        query = session.scalar(select(Query.id).order_by(Query.id))
        documents = session.scalars(select(Document.id).order_by(Document.id).limit(2)).all()
        set_grade(session, rater.id, query, documents[0], 1)
        return rater.id, query, documents[1]

    rater, query, document = database.write(prepare)  # the pool keeps its connection
    with redirect_stdout(io.StringIO()):  # the same file again, as a page's worker does
        if how == "worker":
            with open_database(path, create=False) as again, again.reading() as session:
                session.scalar(select(Query.id))
        else:
            arguments = {
                "info": ["info", path],
                "export": ["export", path, "--qrels", f"{folder}/out.qrels"],
                "import": ["import", path, "--queries", f"{folder}/queries.csv"],
                "packet": ["packet", "export", path, "--rater", "ana", "--out", f"{folder}/p.judge"],
            }[how]
            assert main(arguments) == 0
    print("OPENED", flush=True)
    sys.stdin.readline()  # another program reads and closes the file meanwhile
    database.write(lambda session: set_grade(session, rater, query, document, 5))
    print("CONFIRMED", flush=True)
    sys.stdin.readline()  # killed here
    """
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    return path


def _other_program_reads_and_closes(path: Path) -> None:
    """Another process opens the file, reads it and closes it, as `judge-app info` does."""
    info = subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "info", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert info.returncode == 0, info.stderr
    reader = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM judgment').fetchall(); c.close()"
    subprocess.run([sys.executable, "-c", reader, str(path)], check=True, timeout=60)


@pytest.mark.parametrize("how", ["worker", "info", "export", "import", "packet"])
def test_a_confirmed_grade_survives_another_open_another_process_and_sigkill(
    demo: Path, tmp_path: Path, how: str
):
    path = tmp_path / "two.db"
    path.write_bytes(demo.read_bytes())  # no process has the demo open
    (tmp_path / "queries.csv").write_text("query_id,text\nq99,a query of its own\n")
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), how, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "OPENED", child.stderr.read()
        _other_program_reads_and_closes(path)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "CONFIRMED", child.stderr.read()
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        grades = connection.execute(
            "SELECT grade FROM judgment JOIN rater ON rater.id = judgment.rater_id "
            "WHERE rater.name = 'lead' ORDER BY grade"
        ).fetchall()
    assert grades == [(1,), (5,)]


WINDOW = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from judge_app.gui import create_main_window
    from judge_app.commands.export import ExportOptions
    from judge_app.commands.importing import ImportOptions

    path, folder = sys.argv[1:3]
    window = create_main_window(path, "lead")
    window.show()

    def settle(done):
        deadline = time.monotonic() + 120
        while not done():
            assert time.monotonic() < deadline, window.status_text()
            QApplication.processEvents()
            time.sleep(0.005)

    idle = lambda: window.task is None
    # every lead page, each with its worker opening the same file again
    window.analysis.show_evaluation()
    settle(idle)
    window.analysis.show_agreement()
    settle(idle)
    window.start_export(ExportOptions("qrels", Path(folder, "out.qrels")))
    settle(idle)
    window.start_import(ImportOptions(queries=Path(folder, "queries.csv")))
    settle(idle)
    window.show_judging()
    print("OPENED", flush=True)
    sys.stdin.readline()  # another program reads and closes the file meanwhile
    judging = window.judging
    item = judging.session.items[judging.current_row]
    QTest.keyClick(judging.results.view, Qt.Key.Key_5)
    settle(lambda: judging.in_flight == 0)
    assert window.status_text().startswith("Saved: grade 5"), window.status_text()
    print("CONFIRMED", judging.session.query.external_id, item.external_id, flush=True)
    sys.stdin.readline()  # killed here
    """
)


def test_a_grade_confirmed_by_the_window_survives_its_pages_another_process_and_sigkill(
    demo: Path, tmp_path: Path
):
    path = tmp_path / "two.db"
    path.write_bytes(demo.read_bytes())
    (tmp_path / "queries.csv").write_text("query_id,text\nq99,a query of its own\n")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "JUDGE_APP_SETTINGS": str(tmp_path / "settings.ini"),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", WINDOW, str(path), str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout.readline().strip() == "OPENED", child.stderr.read()
        _other_program_reads_and_closes(path)
        child.stdin.write("\n")
        child.stdin.flush()
        confirmed = child.stdout.readline().split()
        assert confirmed[:1] == ["CONFIRMED"], child.stderr.read()
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    _, query, document = confirmed
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        grades = connection.execute(
            "SELECT grade FROM judgment JOIN rater ON rater.id = judgment.rater_id "
            "JOIN query ON query.id = judgment.query_id "
            "JOIN document ON document.id = judgment.document_id "
            "WHERE rater.name = 'lead' AND query.external_id = ? AND document.external_id = ?",
            (query, document),
        ).fetchall()
    assert grades == [(5,)]
