"""A lead's tools: Assign…, Rubric… and Pooling… write the database; the judging screen follows."""

from __future__ import annotations

from campaign_support import planted_campaign
from gui_support import press
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judge_app.gui import assign_dialog
from judge_app.gui.models import Role
from judge_app.store import open_database
from judge_app.store.assignments import current_assignments
from judge_app.store.bulk import query_ids
from judge_app.store.errors import StoreError
from judge_app.store.people import add_rater, find_rater
from judge_app.store.rater_queue import (
    PoolSettings,
    pool_settings,
    pooled_pair_count,
    query_items,
    rater_queue,
)
from judge_app.store.settings import scale


def check_only(widget, names):
    for row in range(widget.count()):
        item = widget.item(row)
        item.setCheckState(
            Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
        )


def assignments_by_name(path, names=("ana", "ben", "chloe", "dan")):
    with open_database(path) as database, database.reading() as session:
        raters = {name: find_rater(session, name) for name in names}
        assigned = current_assignments(session)
    return {name: assigned.get(rater.id, set()) for name, rater in raters.items() if rater}


def test_assign_every_query_to_two_raters_from_the_rater_chooser(qtbot, open_window, demo_db):
    with open_database(demo_db) as database, database.transaction() as session:
        add_rater(session, "lead")  # a name that judged nothing: no rater
    window = open_window(demo_db, None)  # opened for a lead: the chooser offers the tools
    qtbot.mouseClick(window.chooser.lead_buttons["assign"], Qt.MouseButton.LeftButton)
    dialog = window.lead_dialog
    assert dialog.objectName() == "assignDialog" and dialog.isVisible()
    listed = [dialog.raters.item(row).text() for row in range(dialog.raters.count())]
    assert listed == ["ana", "ben", "chloe"]
    refusals = {
        "D an": "rater 'D an' differs from the rater 'dan' only by case or spaces: use 'dan'",
        "Adjudicated": "'Adjudicated' is where a lead's adjudicated grades are kept, not a rater",
    }
    for typed in ("dan", "  DAN ", "D an", "Adjudicated", " Ben"):
        dialog.new_rater.setText(typed)
        qtbot.keyClick(dialog.new_rater, Qt.Key.Key_Return)
        assert dialog.error.isVisible() is (typed in refusals)
        assert dialog.error.text().startswith(refusals.get(typed, ""))
    listed = [dialog.raters.item(row).text() for row in range(dialog.raters.count())]
    assert listed == ["ana", "ben", "chloe", "dan"]  # dan is new: added when assigned
    check_only(dialog.raters, {"ana", "ben", "dan"})
    dialog.copies.setValue(2)
    dialog.replace.setChecked(True)
    assert dialog.summary.text() == "Each of the 16 queries judged by 2 raters; 10–11 per rater."
    preview = {
        dialog.preview.item(row, 0).text(): dialog.preview.item(row, 1).text()
        for row in range(dialog.preview.rowCount())
    }
    assert sorted(preview) == ["ana", "ben", "dan"] and sorted(preview.values()) == [
        "10",
        "11",
        "11",
    ]
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        pass
    assigned = assignments_by_name(demo_db)
    assert sorted(len(assigned[name]) for name in ("ana", "ben", "dan")) == [10, 11, 11]
    assert len(assigned["chloe"]) == 16  # not chosen: unchanged
    every = [q for name in ("ana", "ben", "dan") for q in assigned[name]]
    assert all(every.count(query) == 2 for query in set(every)) and len(set(every)) == 16
    assert window.status_text() == "Assigned: 32 queries to 3 raters"
    window.chooser.raters.setCurrentText("dan")
    qtbot.mouseClick(window.chooser.start, Qt.MouseButton.LeftButton)
    assert {query.id for query in window.judging.session.queue} == assigned["dan"]


def test_assign_a_share_to_all_and_the_rest_to_one_each(qtbot, open_window, demo_db):
    window = open_window(demo_db, "ana")
    dialog = window.show_dialog("assign")
    dialog.by_share.setChecked(True)
    dialog.share.setValue(25)
    dialog.replace.setChecked(True)
    assert dialog.summary.text().startswith("4 of 16 queries judged by all 3 raters, the other 12")
    dialog.accept_button.click()
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        pass
    assigned = assignments_by_name(demo_db)
    shared = assigned["ana"] & assigned["ben"] & assigned["chloe"]
    assert len(shared) == 4 and all(len(assigned[n]) == 8 for n in ("ana", "ben", "chloe"))
    assert len(window.judging.session.queue) == 8  # ana's queue was read again


def preview_rows(dialog):
    return {
        dialog.preview.item(row, 0).text(): (
            dialog.preview.item(row, 1).text(),
            dialog.preview.item(row, 2).text(),
        )
        for row in range(dialog.preview.rowCount())
    }


def test_add_a_rater_where_grades_differ(qtbot, open_window, tmp_path):
    """The planted campaign (campaign_support.PLANTED): q01, q04, q06, q08 have a document
    graded 2+ apart that no lead decided, q02's alpha is 0.583; chloe has q04-q08, eve q01 and
    q08, fay no queue but a grade (every query is hers already), dan is new. The raters go in
    the list's order (chloe, eve, fay, dan), each query to the first of the least given."""
    path = planted_campaign(tmp_path / "planted.sqlite", tmp_path)
    window = open_window(path, None)
    dialog = window.show_dialog("assign")
    dialog.new_rater.setText("dan")
    qtbot.keyClick(dialog.new_rater, Qt.Key.Key_Return)
    check_only(dialog.raters, {"chloe", "eve", "fay", "dan"})
    assert dialog.survey is None  # read only once this way is chosen
    dialog.by_disputes.click()
    assert dialog.by_disputes.isChecked() and not dialog.accept_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.survey is not None and dialog.isEnabled(), timeout=30_000)
    assert not dialog.replace.isEnabled() and not dialog.max_alpha.isEnabled()
    assert dialog.min_gap.value() == 2 and dialog.accept_button.isEnabled()
    assert dialog.summary.text() == "4 disputed queries, each given to one more rater."
    # queries after, new: chloe q01, eve q04, dan q06 and q08
    expected = {"chloe": ("5", "1"), "eve": ("3", "1"), "fay": ("0", "0"), "dan": ("2", "2")}
    assert preview_rows(dialog) == expected
    check_only(dialog.raters, {"chloe", "eve", "fay"})
    assert dialog.summary.text().startswith(
        "3 disputed queries, each given to one more rater; q08 has no free rater"
    )
    check_only(dialog.raters, {"chloe", "eve", "fay", "dan"})
    dialog.use_alpha.setChecked(True)
    assert dialog.max_alpha.isEnabled()
    dialog.max_alpha.setValue(0.7)  # and q02: to eve, the first of the least given
    assert dialog.summary.text() == "5 disputed queries, each given to one more rater."
    expected = {"chloe": ("5", "1"), "eve": ("4", "2"), "fay": ("0", "0"), "dan": ("2", "2")}
    assert preview_rows(dialog) == expected
    names = ("ana", "ben", "chloe", "dan", "eve", "fay")
    before = assignments_by_name(path, names)
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        pass
    after = assignments_by_name(path, names)
    with open_database(path) as database, database.reading() as session:
        ids = query_ids(session, ["q01", "q02", "q04", "q06", "q08"], create=False)
    assert {name: after[name] - before.get(name, set()) for name in after} == {
        "ana": set(),
        "ben": set(),
        "chloe": {ids["q01"]},
        "dan": {ids["q04"], ids["q08"]},
        "eve": {ids["q02"], ids["q06"]},
        "fay": set(),
    }
    assert window.status_text() == "Assigned: 5 disputed queries, each given to one more rater"


def test_grades_that_cannot_be_read_are_said_and_the_other_ways_still_work(
    qtbot, open_window, demo_db, monkeypatch
):
    def unreadable(_database):
        raise StoreError("the grades are unreadable")

    monkeypatch.setattr(assign_dialog, "read_survey", unreadable)
    window = open_window(demo_db, "ana")
    dialog = window.show_dialog("assign")
    dialog.by_disputes.click()
    qtbot.waitUntil(lambda: dialog.isEnabled() and "Cannot" in dialog.summary.text())
    assert dialog.summary.text() == "Cannot read the grades: the grades are unreadable"
    assert not dialog.accept_button.isEnabled() and dialog.preview.rowCount() == 0
    dialog.by_copies.click()
    assert dialog.accept_button.isEnabled() and dialog.preview.rowCount() == 3


def test_rubric_edits_reach_the_rubric_panel_and_the_grades(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    press(qtbot, window, Qt.Key.Key_3)
    dialog = window.show_dialog("rubric")
    assert dialog.labels[3].text() == "Relevant"
    dialog.labels[3].setText("Good")
    dialog.descriptions[3].setText("Answers most of what was asked.")
    dialog.labels[1].clear()
    dialog.accept_button.click()
    assert dialog.isVisible() and dialog.error.text() == "Not saved: give grade 1 a label"
    dialog.labels[1].setText("Marginal")
    with qtbot.waitSignal(dialog.finished, timeout=30_000):  # written off the UI thread
        dialog.accept_button.click()
    assert not dialog.isVisible()
    with open_database(demo_db) as database, database.reading() as session:
        labels = scale(session)
    assert (labels[3].label, labels[3].description) == ("Good", "Answers most of what was asked.")
    assert labels[1].label == "Marginal" and labels[0].label == "Irrelevant"
    button = window.judging.rubric.buttons[3]
    assert button.title.text() == "3 · Good"
    assert button.description.text() == "Answers most of what was asked."
    assert window.judging.results.model.index(0, 3).data() == "3 Good"
    assert window.judging.current_row == 1  # the same result stays selected


def test_rubric_defaults_can_be_restored(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("rubric")
    dialog.labels[5].setText("Ideal")
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    dialog = window.show_dialog("rubric")
    assert dialog.labels[5].text() == "Ideal"
    dialog.restore_defaults()
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    assert window.judging.rubric.buttons[5].title.text() == "5 · Perfect"


def test_pooling_settings_are_stored_and_the_items_follow(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    assert len(window.judging.session.items) == 12
    dialog = window.show_dialog("pool")
    assert dialog.depth_box.value() == 10 and dialog.in_run_order.isChecked()
    dialog.depth_box.setValue(5)
    check_only(dialog.runs, {"neural"})
    dialog.shuffled.setChecked(True)
    dialog.seed.setValue(3)
    expected = PoolSettings(depth=5, runs=("neural",), order="shuffle", seed=3)
    with open_database(demo_db) as database, database.reading() as session:
        pairs = pooled_pair_count(session, expected)
    assert dialog.summary.text() == f"A rater who judges every query has {pairs} results to judge."
    check_only(dialog.runs, set())
    assert not dialog.accept_button.isEnabled()
    check_only(dialog.runs, {"neural"})
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    with open_database(demo_db) as database, database.reading() as session:
        assert pool_settings(session) == expected
        dan = find_rater(session, "dan").id
        first = rater_queue(session, dan)[0].id
        items = query_items(session, dan, first)
    session = window.judging.session
    assert [item.external_id for item in session.items] == [item.external_id for item in items]
    assert len(session.items) == 5 and session.pool == expected
    assert window.judging.results.model.index(0, 1).data(Role.URL) == items[0].url


def test_a_lead_opening_the_window_is_no_rater_to_assign_until_they_grade(
    qtbot, open_window, demo_db
):
    window = open_window(demo_db, "lead")  # judge-app gui DB --rater lead
    assert window.judging.session.rater_name == "lead"

    def listed():
        dialog = window.show_dialog("assign")
        rows = [dialog.raters.item(row) for row in range(dialog.raters.count())]
        shown = {item.text(): item.checkState() == Qt.CheckState.Checked for item in rows}
        dialog.reject()
        return shown

    assert listed() == {"ana": True, "ben": True, "chloe": True}  # lead: neither listed nor ticked
    press(qtbot, window, Qt.Key.Key_3)  # written when it returns
    assert listed() == {"ana": True, "ben": True, "chloe": True, "lead": True}  # judges now


def test_enter_in_a_field_saves_after_tab_went_through_the_buttons(qtbot, open_window, demo_db):
    """Enter in a field of a lead's dialog presses its accept button, also once Tab has been
    through the buttons (a focused button takes Enter itself, and Qt then forgets the
    default button)."""
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("pool")
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    dialog.accept_button.setFocus()
    qtbot.keyClick(dialog.accept_button, Qt.Key.Key_Tab)  # on to Cancel, then back to a field
    dialog.depth_box.setFocus()
    qtbot.waitUntil(dialog.depth_box.hasFocus)
    dialog.depth_box.setValue(4)
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    with open_database(demo_db) as database, database.reading() as session:
        assert pool_settings(session).depth == 4
