"""Lead ▸ Gold items… imports, removes and exports gold items off the UI thread, saying why
nothing was marked; the adjudication screen marks a decided pair gold with Ctrl+G. Neither
touches a rater's judgment nor adds a rater."""

from __future__ import annotations

import csv

from PySide6.QtCore import QItemSelectionModel, Qt
from sqlalchemy import delete

from judge_app.store import open_database, reads
from judge_app.store.gold_items import gold_frame
from judge_app.store.models import GoldItem
from judge_app.store.rater_queue import all_rater_names


def gold_items(path):
    with open_database(path) as database, database.reading() as session:
        frame = gold_frame(session)
    return list(zip(frame["query_id"], frame["doc_id"], frame["grade"].astype(int)))


def titles(path, doc_ids):
    with open_database(path) as database, database.reading() as session:
        return reads.document_titles(session, doc_ids)


def settled(qtbot, window):
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)


def choose_in_dialog(window, path):
    """Pick ``path`` in the open file dialog, as a user does."""
    dialog = window.workspace.file_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(path))
    dialog.accept()


def without_gold(path):
    """The demo with none of its gold items: these tests mark their own."""
    with open_database(path) as database, database.transaction() as session:
        session.execute(delete(GoldItem))


def shown(dialog):
    model = dialog.model
    return [
        tuple(model.index(row, column).data() for column in range(3))
        for row in range(model.rowCount())
    ]


def test_the_dialog_imports_removes_and_exports(qtbot, qtmodeltester, window, demo_db, tmp_path):
    without_gold(demo_db)
    dialog = window.show_dialog("gold")
    settled(qtbot, window)
    assert dialog.objectName() == "goldDialog" and dialog.isVisible()
    assert shown(dialog) == [] and dialog.count.text() == "0 gold items"
    assert not dialog.remove_button.isEnabled()

    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,doc_id,grade\nq01,d0108,3\nq99,d0101,2\n", encoding="utf-8")
    dialog.import_button.click()
    choose_in_dialog(window, bad)
    settled(qtbot, window)
    assert dialog.error.isVisible()
    assert dialog.error.text() == (
        f"Nothing was marked: {bad} line 3, column query_id: unknown query 'q99'"
    )
    assert shown(dialog) == [] and gold_items(demo_db) == []

    good = tmp_path / "gold.csv"
    good.write_text(
        "query_id,doc_id,grade\nq02,d0208,4\nq15,d1510,2\nq01,d0108,3\n", encoding="utf-8"
    )
    dialog.import_button.click()
    choose_in_dialog(window, good)
    settled(qtbot, window)
    assert not dialog.error.isVisible()
    expected = [("q01", "d0108", 3), ("q02", "d0208", 4), ("q15", "d1510", 2)]
    assert gold_items(demo_db) == expected
    named = titles(demo_db, ["d0108", "d0208", "d1510"])
    assert shown(dialog) == [(q, named[d], str(g)) for q, d, g in expected]
    assert dialog.count.text() == "3 gold items"
    report = dialog.report.text().splitlines()
    assert (
        report[0]
        == f"{good}: 3 gold items marked: 3 new, 0 new grades for known items, 0 unchanged"
    )
    assert report[1].startswith("1 gold item outside the pool") and report[1].endswith("q15:d1510")
    assert window.status_text().startswith("Gold items: ")
    qtmodeltester.check(dialog.model)

    selection = dialog.view.selectionModel()
    for row in (0, 2):
        selection.select(
            dialog.model.index(row, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )
    assert dialog.remove_button.isEnabled()
    dialog.remove_button.click()
    settled(qtbot, window)
    assert gold_items(demo_db) == [("q02", "d0208", 4)]
    assert shown(dialog) == [("q02", named["d0208"], "4")]
    assert dialog.report.text() == "2 gold items removed"

    out = tmp_path / "exported.csv"
    dialog.export_button.click()
    choose_in_dialog(window, out)
    settled(qtbot, window)
    with out.open(encoding="utf-8", newline="") as handle:
        assert list(csv.reader(handle)) == [["query_id", "doc_id", "grade"], ["q02", "d0208", "4"]]
    assert dialog.report.text() == f"{out}: 1 gold item"
    dialog.reject()


def test_mark_as_gold_in_the_adjudication_takes_the_decided_grade(qtbot, window, demo_db):
    without_gold(demo_db)
    with open_database(demo_db) as database, database.reading() as session:
        raters = all_rater_names(session)
        judgments = reads.judgments_frame(session)
    window.analysis.adjudicate.emit("q05", "d0509")
    screen = window.adjudication
    qtbot.waitUntil(lambda: screen.adjudication is not None and window.task is None, timeout=30_000)

    def key(name, modifier=Qt.KeyboardModifier.NoModifier):
        qtbot.keyClick(screen.list_view, name, modifier)
        qtbot.waitUntil(lambda: screen.in_flight == 0 and window.task is None, timeout=30_000)

    assert not screen.dispute.gold_button.isEnabled()
    key(Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)  # undecided: nothing to mark
    assert window.status_text() == "q05 · d0509 cannot be marked gold yet: decide it first"
    assert gold_items(demo_db) == []

    key(Qt.Key.Key_2)  # ben's grade, 4; the screen moves on to the next undecided
    assert not screen.dispute.gold_button.isEnabled()
    key(Qt.Key.Key_K)  # back to the decided one
    item = screen.adjudication.items[screen.current_row]
    assert (item.query_id, item.doc_id) == ("q05", "d0509")
    assert screen.dispute.gold_button.isEnabled()
    key(Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert gold_items(demo_db) == [("q05", "d0509", 4)]
    assert window.status_text() == "Gold: q05 · d0509 marked with grade 4"

    key(Qt.Key.Key_G)  # the lead's own grade, 1, then gold again with it
    key(Qt.Key.Key_1)
    key(Qt.Key.Key_K)
    screen.dispute.gold_button.click()
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)
    assert gold_items(demo_db) == [("q05", "d0509", 1)]

    with open_database(demo_db) as database, database.reading() as session:
        assert all_rater_names(session) == sorted([*raters, "adjudicated"])  # the decisions
        after = reads.judgments_frame(session)
    raters_only = after[after["rater"] != "adjudicated"].reset_index(drop=True)
    assert raters_only.equals(judgments.reset_index(drop=True))
