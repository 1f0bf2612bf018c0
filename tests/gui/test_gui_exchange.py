"""File ▸ Import… and File ▸ Export… with other tools' formats: the import dialog says which
format it recognised, both run off the UI thread, and a bad value is listed with its item."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from snapshots import snapshot

FORMATS = Path(__file__).parents[1] / "io" / "formats"


def wait_for_task(qtbot, window):
    task = window.task
    assert task is not None
    with qtbot.waitSignal(task.finished, timeout=30_000):
        pass
    assert window.task is None


def test_a_quepid_book_is_recognised_and_imported(qtbot, open_window, tmp_path):
    window = open_window(tmp_path / "new.sqlite", "ana")
    dialog = window.show_dialog("import")
    assert not dialog.format.isEnabled() and dialog.found.isHidden()
    dialog.source.edit.setText(str(FORMATS / "quepid_book.json"))
    assert dialog.found.text() == "Recognised: Quepid book JSON"
    assert dialog.import_button.isEnabled() and dialog.format.isEnabled()
    dialog.import_button.click()
    wait_for_task(qtbot, window)
    assert window.import_dialog is None
    assert "9 judgments added" in window.status_text()
    assert "not kept: book scorer (1)" in window.status_text()


def test_an_unrecognised_file_says_so_and_a_named_format_is_used(qtbot, open_window, tmp_path):
    path = tmp_path / "train.data"
    path.write_text("1 qid:7 # d3 a query\n")
    window = open_window(tmp_path / "new.sqlite", "ana")
    dialog = window.show_dialog("import")
    dialog.source.edit.setText(str(tmp_path / "README"))
    assert dialog.found.text() == "File not found"
    dialog.source.edit.setText(str(FORMATS / "README.md"))
    assert dialog.found.text().startswith("Not recognised by its shape")
    assert "name it with --format" in dialog.found.toolTip()
    dialog.source.edit.setText(str(path))
    dialog.format.setCurrentIndex(dialog.format.findData("ranklib"))
    assert dialog.found.isHidden()
    dialog.rater.setText("lead")
    assert dialog.options().format == "ranklib" and dialog.options().rater == "lead"
    dialog.import_button.click()
    wait_for_task(qtbot, window)
    assert "1 judgments added" in window.status_text()


def test_a_bad_rating_is_listed_with_its_item_and_nothing_changes(qtbot, open_window, demo_db):
    book = json.loads((FORMATS / "quepid_book.json").read_text())
    book["query_doc_pairs"][3]["judgements"][0]["rating"] = 10.0
    path = demo_db.parent / "book.json"
    path.write_text(json.dumps(book))
    window = open_window(demo_db, "ana")
    before = snapshot(window.database)
    dialog = window.show_dialog("import")
    dialog.source.edit.setText(str(path))
    dialog.import_button.click()
    wait_for_task(qtbot, window)
    assert dialog.isVisible() and dialog.problems_box.isVisible()
    file, line, column, reason = dialog.problem_rows()[0]
    assert (file, line, column) == ("book.json", "1 (query_doc_pairs[3].judgements[0])", "rating")
    assert reason.startswith("grade 10.0 is outside 0–5")
    assert snapshot(window.database) == before


def test_export_for_quepid(qtbot, open_window, demo_db, tmp_path):
    window = open_window(demo_db, "ana")
    dialog = window.show_dialog("export")
    assert not dialog.format.isEnabled()
    dialog.as_format.setChecked(True)
    assert dialog.format.isEnabled() and dialog.method.isEnabled()
    dialog.format.setCurrentIndex(dialog.format.findData("quepid-csv"))
    dialog.method.setCurrentIndex(dialog.method.findData("majority"))
    out = tmp_path / "ratings.csv"
    dialog.path.setText(str(out))
    dialog.export_button.click()
    wait_for_task(qtbot, window)
    assert window.status_text().startswith(f"Exported {out}: ")
    with out.open(newline="") as handle:
        assert next(csv.reader(handle)) == ["query", "docid", "rating"]
