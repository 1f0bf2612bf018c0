"""File ▸ Import… and File ▸ Export… run in a worker thread with a late progress dialog."""

from __future__ import annotations

import threading
from contextlib import redirect_stdout
from importlib import resources
from io import StringIO
from typing import Any

import pytest
from gui_support import press
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from snapshots import snapshot

from judge_app.cli import main as cli
from judge_app.commands.importing import ImportOptions, import_files
from judge_app.gui.workers import PROGRESS_DELAY_MS, Cancelled
from judge_app.io import records
from judge_app.io.errors import ImportFileError
from judge_app.store import bulk, open_database, reads
from judge_app.store.judgments import set_grade
from judge_app.store.people import add_rater

DEMO = resources.files("judge_app.resources") / "demo"


def wait_for_task(qtbot, window):
    task = window.task
    assert task is not None
    with qtbot.waitSignal(task.finished, timeout=30_000):
        pass
    assert window.task is None


def counts(path):
    with open_database(path) as database, database.reading() as session:
        return reads.table_counts(session)


def test_import_runs_in_the_background_and_the_queue_refreshes(qtbot, open_window, tmp_path):
    path = tmp_path / "new.sqlite"
    window = open_window(path, "ana")
    assert window.judging.header.text.text() == "Nothing to judge"
    dialog = window.show_dialog("import")
    assert dialog.isVisible() and not dialog.import_button.isEnabled()
    with resources.as_file(DEMO) as folder:
        dialog.queries.edit.setText(str(folder / "queries.csv"))
        dialog.documents.edit.setText(str(folder / "documents.jsonl"))
        dialog.run.edit.setText(str(folder / "runs" / "bm25.txt"))
        dialog.judgments.edit.setText(str(folder / "judgments.csv"))
        dialog.import_button.click()
        assert not dialog.isEnabled() and window.judging.isEnabled()  # judging goes on
        assert not window.analysis.evaluation_view.isEnabled()  # its numbers wait
        wait_for_task(qtbot, window)
    assert window.import_dialog is None  # closed on success
    assert window.analysis.evaluation_view.isEnabled()
    stored = counts(path)
    assert (stored["queries"], stored["documents"], stored["runs"]) == (16, 161, 1)
    assert stored["judgments"] == 458
    session = window.judging.session
    assert len(session.queue) == 16 and window.judging.header.text.text() == "best pizza recipes"
    assert window.judging.header.overall_progress.maximum() == session.overall_progress().total > 0
    assert window.status_text().startswith("Imported: ")
    assert "458 judgments added" in window.status_text()


def test_a_refused_import_lists_every_problem_and_writes_nothing(qtbot, open_window, demo_db):
    queries = demo_db.parent / "queries.csv"
    queries.write_text("query_id,text\nq1,hello\n,no id\nq3,ok\nq3,twice\n", encoding="utf-8")
    run = demo_db.parent / "run.txt"
    run.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d3 2\n", encoding="utf-8")
    with pytest.raises(ImportFileError) as expected, open_database(demo_db) as database:
        import_files(
            database, ImportOptions(queries=queries, run=run)
        )  # the oracle: what the store reports
    window = open_window(demo_db, "ana")
    before = snapshot(window.database)
    dialog = window.show_dialog("import")
    dialog.queries.edit.setText(str(queries))
    dialog.run.edit.setText(str(run))
    dialog.import_button.click()
    wait_for_task(qtbot, window)
    assert window.import_dialog is dialog and dialog.isVisible() and dialog.isEnabled()
    assert dialog.problems_box.isVisible()
    assert dialog.problem_rows() == [
        (problem.file.rsplit("/", 1)[-1], str(problem.line), problem.column or "", problem.reason)
        for problem in expected.value.problems
    ]
    assert ("queries.csv", "3", "query_id", "empty query id") in dialog.problem_rows()
    assert dialog.problems_title.text() == (
        f"Nothing was imported: {expected.value.total} problems in queries.csv, run.txt."
    )
    assert snapshot(window.database) == before
    assert window.status_text() == (
        f"Nothing was imported: {expected.value.total} problems in queries.csv, run.txt"
    )


def test_cancelling_an_import_writes_nothing(qtbot, open_window, demo_db, monkeypatch):
    monkeypatch.setattr(records, "CHUNK_ROWS", 50)  # progress every 50 rows
    judgments = demo_db.parent / "more.csv"
    rows = [f"q{q:02d},x{q}-{d},zoe,{d % 6}" for q in range(1, 17) for d in range(40)]
    judgments.write_text("query_id,doc_id,rater,grade\n" + "\n".join(rows) + "\n")
    window = open_window(demo_db, "ana")
    before = snapshot(window.database)
    dialog = window.show_dialog("import")
    dialog.judgments.edit.setText(str(judgments))
    dialog.import_button.click()
    task = window.task
    seen = []

    def cancel_at_first_rows(step, done, total):  # in the worker's thread: at once
        if step == "judgments" and not seen:
            seen.append(done)
            task.worker.abort()  # what the progress dialog's Cancel asks for

    task.worker.signals.progress.connect(cancel_at_first_rows, Qt.ConnectionType.DirectConnection)
    with qtbot.waitSignal(task.cancelled, timeout=30_000):
        pass
    assert seen and seen[0] < len(rows)  # cancelled half-way through writing
    qtbot.waitUntil(lambda: window.task is None)
    assert snapshot(window.database) == before
    assert window.status_text() == "Import cancelled: nothing was written"
    assert dialog.isEnabled() and not dialog.problems_box.isVisible()


def test_the_progress_dialog_shows_only_after_600_ms_and_cancels(qtbot, open_window, demo_db):
    window = open_window(demo_db, "ana")
    started, release = threading.Event(), threading.Event()

    def slow(worker):
        started.set()
        while not release.wait(0.01):
            worker.report("working", 3, 10)
        return "done"

    task = window.run_task("Slow work", slow)
    assert started.wait(5)
    qtbot.wait(PROGRESS_DELAY_MS // 2)
    assert task.dialog is None  # quick work never flashes a dialog
    qtbot.waitUntil(lambda: task.dialog is not None and task.dialog.isVisible(), timeout=3000)
    assert task.dialog.labelText() == "Slow work: working (3 of 10)"
    with qtbot.waitSignal(task.cancelled, timeout=5000):
        qtbot.mouseClick(task.dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
    release.set()
    assert window.task is None and window.analysis.agreement_view.isEnabled()


def test_a_worker_error_reaches_the_ui_and_cancelled_is_its_own_outcome(
    qtbot, open_window, demo_db
):
    window = open_window(demo_db, "ana")

    def broken(worker):
        raise OSError("disk full")

    task = window.run_task("Broken", broken)
    with qtbot.waitSignal(task.errored, timeout=5000) as errored:
        pass
    assert str(errored.args[0]) == "disk full"

    def gives_up(worker):
        raise Cancelled

    task = window.run_task("Gives up", gives_up)
    with qtbot.waitSignal(task.cancelled, timeout=5000):
        pass


def test_every_export_matches_the_command_line(qtbot, open_window, demo_db, tmp_path):
    window = open_window(demo_db, "ana")
    press(qtbot, window, Qt.Key.Key_2)  # a change for the history
    exports = (
        ("judgments", None, "j.csv"),
        ("history", None, "h.csv"),
        ("qrels", "rater:ben", "q.qrels"),
    )
    for kind, method, name in exports:
        dialog = window.show_dialog("export")
        choice = {
            "judgments": dialog.as_csv,
            "qrels": dialog.as_qrels,
            "history": dialog.as_history,
        }
        choice[kind].setChecked(True)
        if method:
            dialog.method.setCurrentIndex(dialog.method.findData(method))
        dialog.path.setText(str(tmp_path / name))
        dialog.export_button.click()
        wait_for_task(qtbot, window)
        assert window.export_dialog is None
        expected = tmp_path / f"cli-{name}"
        args = [f"--{kind}", str(expected)]
        args += ["--aggregate", method] if method else []
        with redirect_stdout(StringIO()):
            assert cli(["export", str(demo_db), *args]) == 0
        assert (tmp_path / name).read_bytes() == expected.read_bytes()
    assert (tmp_path / "h.csv").read_text(encoding="utf-8").count(",ana,") == 1
    assert window.status_text().startswith("Exported ") and "(rater:ben)" in window.status_text()
    assert not list(tmp_path.glob("*.part"))


def test_a_refused_export_says_why_and_leaves_no_file(qtbot, open_window, demo_db, tmp_path):
    with open_database(demo_db) as database, database.transaction() as session:
        rater = add_rater(session, "zoe").id
        query = bulk.query_ids(session, ["q01"])["q01"]
        document = bulk.document_ids(session, ["doc with spaces"])["doc with spaces"]
        set_grade(session, rater, query, document, 2)
    window = open_window(demo_db, "ana")
    dialog = window.show_dialog("export")
    dialog.as_qrels.setChecked(True)
    dialog.path.setText(str(tmp_path / "out.qrels"))
    dialog.export_button.click()
    wait_for_task(qtbot, window)
    assert dialog.isVisible() and dialog.error.isVisible()
    assert "contain spaces" in dialog.error.text()
    assert not (tmp_path / "out.qrels").exists() and not list(tmp_path.glob("*.part"))


@pytest.mark.postgres
def test_the_worker_opens_a_postgresql_database_of_its_own(qtbot, open_window, pg_url, tmp_path):
    window = open_window(pg_url, "ana")
    dialog = window.show_dialog("import")
    with resources.as_file(DEMO) as folder:
        dialog.queries.edit.setText(str(folder / "queries.csv"))
        dialog.run.edit.setText(str(folder / "runs" / "bm25.txt"))
        dialog.import_button.click()
        wait_for_task(qtbot, window)
    assert window.import_dialog is None and len(window.judging.session.queue) == 16
    dialog = window.show_dialog("export")
    dialog.path.setText(str(tmp_path / "judgments.csv"))
    dialog.export_button.click()
    wait_for_task(qtbot, window)
    assert (tmp_path / "judgments.csv").read_text().startswith("query_id,query_text,")


def test_the_open_database_is_refused_as_a_file_to_import_or_export_to(
    qtbot, open_window, demo_db, monkeypatch
):
    """Opening the window's own database file as a plain file would drop its SQLite locks."""
    import builtins
    import io

    opened = []
    real_open = io.open

    def recording_open(file: object, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    window = open_window(demo_db, "ana")
    before = snapshot(window.database)
    monkeypatch.setattr(io, "open", recording_open)
    monkeypatch.setattr(builtins, "open", recording_open)
    dialog = window.show_dialog("import")
    dialog.queries.edit.setText(str(demo_db))
    dialog.import_button.click()
    wait_for_task(qtbot, window)
    assert (
        "demo.sqlite",
        "",
        "",
        "is a database this program has open, not a file to read or write",
    ) in dialog.problem_rows()
    dialog.reject()
    dialog = window.show_dialog("export")
    dialog.path.setText(str(demo_db))
    dialog.export_button.click()  # refused at once: no work starts
    assert window.task is None and dialog.isVisible()
    assert "is a database this program has open" in dialog.error.text()
    monkeypatch.undo()
    assert not [name for name in opened if name.startswith(str(demo_db))]
    assert snapshot(window.database) == before


def test_qrels_of_a_rater_without_grades_are_refused_as_on_the_command_line(
    qtbot, open_window, demo_db, tmp_path
):
    window = open_window(demo_db, "dan")  # dan is a rater now, with no grade yet
    dialog = window.show_dialog("export")
    dialog.as_qrels.setChecked(True)
    index = dialog.method.findData("rater:dan")
    assert index >= 0  # offered: dan is a rater of the database
    dialog.method.setCurrentIndex(index)
    out = tmp_path / "dan.qrels"
    dialog.path.setText(str(out))
    dialog.export_button.click()
    wait_for_task(qtbot, window)
    assert dialog.isVisible() and not out.exists()
    assert "has no rater 'dan' (raters it has: ana, ben, chloe)" in dialog.error.text()
    assert cli(["export", str(demo_db), "--qrels", str(out), "--aggregate", "rater:dan"]) == 2
