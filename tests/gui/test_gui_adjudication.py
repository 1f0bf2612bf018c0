"""The adjudication screen: opened from the agreement page at a document, keys decide it as
the rater ``adjudicated`` (never touching a rater's judgment), progress and the done state
follow, and the agreement page marks what is decided."""

from __future__ import annotations

from failure_support import hold_writes
from PySide6.QtCore import Qt

from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.store import open_database, reads

# the demo's documents graded two or more apart, in the list's order (query, then spread)
DISPUTED = [("q02", "d0208"), ("q05", "d0509"), ("q10", "d1008"), ("q16", "d1606")]


def opened(qtbot, window, item=("q05", "d0509")):
    """The adjudication screen, opened as the agreement page's list opens it."""
    window.analysis.adjudicate.emit(*item)
    screen = window.adjudication
    qtbot.waitUntil(lambda: screen.adjudication is not None and window.task is None, timeout=30_000)
    return screen


def key(qtbot, screen, name, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(screen.list_view, name, modifier)
    qtbot.waitUntil(lambda: screen.in_flight == 0, timeout=20_000)


def stored(path, raters=None):
    with open_database(path) as database, database.reading() as session:
        frame = reads.judgments_frame(session, raters=raters)
    return frame


def decided(path):
    frame = stored(path, [ADJUDICATED])
    return dict(zip(zip(frame["query_id"], frame["doc_id"]), frame["grade"].astype(int)))


def test_a_rater_key_accepts_that_raters_grade_and_moves_on(qtbot, window, demo_db):
    raters_before = stored(demo_db, ["ana", "ben", "chloe"])
    screen = opened(qtbot, window)
    assert window.pages.currentWidget() is screen
    assert "adjudicating" in window.windowTitle() and "Adjudicating" in window.status_text()
    assert window.judging.session.rater_name == "dan"  # the judging screen is not taken over
    item = screen.adjudication.items[screen.current_row]
    assert (item.query_id, item.doc_id) == ("q05", "d0509")
    assert [card.key.text() for card in screen.dispute.cards] == ["1", "2", "3"]
    assert [card.opinion.rater for card in screen.dispute.cards] == ["ana", "ben", "chloe"]
    assert screen.header.progress_label.text() == "0 of 4 decided"

    key(qtbot, screen, Qt.Key.Key_2)  # ben gave 4
    assert decided(demo_db) == {("q05", "d0509"): 4}
    assert stored(demo_db, ["ana", "ben", "chloe"]).equals(raters_before)
    assert screen.header.progress_label.text() == "1 of 4 decided"
    assert "Saved: q05 · d0509 decided 4 (ben's grade)" in window.status_text()
    moved = screen.adjudication.items[screen.current_row]
    assert (moved.query_id, moved.doc_id) == ("q10", "d1008")  # the next undecided


def test_own_grade_next_undecided_undo_and_the_done_state(qtbot, window, demo_db):
    screen = opened(qtbot, window, DISPUTED[0])
    key(qtbot, screen, Qt.Key.Key_G)
    assert screen.choosing_grade and "0–5" in screen.dispute.own_caption.text()
    key(qtbot, screen, Qt.Key.Key_5)  # the lead's own grade, not rater 5's
    assert decided(demo_db) == {DISPUTED[0]: 5}
    assert not screen.choosing_grade
    assert screen.current_row == 1
    key(qtbot, screen, Qt.Key.Key_N)  # skip q05 for now
    assert screen.current_row == 2
    key(qtbot, screen, Qt.Key.Key_P)
    assert screen.current_row == 1
    key(qtbot, screen, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert decided(demo_db) == {} and screen.current_row == 0
    assert screen.header.progress_label.text() == "0 of 4 decided"

    for _item in DISPUTED:
        key(qtbot, screen, Qt.Key.Key_1)  # ana's grade each time
    assert decided(demo_db) == {DISPUTED[0]: 3, DISPUTED[1]: 3, DISPUTED[2]: 3, DISPUTED[3]: 2}
    assert screen.header.progress_label.text() == "4 of 4 decided"
    assert screen.detail.currentIndex() == 1
    assert screen.done.title.text() == "All 4 disagreements decided"
    assert screen.done.back_button.isVisible()


def test_the_agreement_page_marks_what_is_decided(qtbot, window, demo_db):
    window.menus.page_actions["agreement"].trigger()
    analysis = window.analysis
    qtbot.waitUntil(lambda: analysis.report is not None and window.task is None, timeout=30_000)
    view = analysis.agreement_view
    assert view.adjudication.model.frame["decided"].isna().all()
    screen = opened(qtbot, window, DISPUTED[1])
    key(qtbot, screen, Qt.Key.Key_G)
    key(qtbot, screen, Qt.Key.Key_2)
    screen.header.back_button.click()
    assert window.pages.currentWidget() is view
    qtbot.waitUntil(
        lambda: window.task is None and view.adjudication.model.frame["decided"].notna().any(),
        timeout=30_000,
    )
    frame = view.adjudication.model.frame
    marked = frame[frame["decided"].notna()]
    assert list(zip(marked["query_id"], marked["doc_id"], marked["decided"])) == [(*DISPUTED[1], 2)]
    assert view.cards["to_adjudicate"].value.text() == "3"


def test_opened_while_other_work_runs_it_reads_the_list_once_that_work_ends(qtbot, window):
    window.analysis.show_evaluation()  # its task is under way as the lead opens an item
    assert window.task is not None and window.task.running
    screen = opened(qtbot, window, ("q10", "d1008"))
    item = screen.adjudication.items[screen.current_row]
    assert (item.query_id, item.doc_id) == ("q10", "d1008")


def test_the_keys_are_data_and_a_held_key_decides_once(qtbot, window, demo_db):
    """Issue 33: the screen's keys are a map (``judging.keys.ADJUDICATION_KEYMAP``), as the
    judging screen's are; every action in it does something here, a rater's number held
    down decides once, and moving keys repeat."""
    from PySide6.QtGui import QKeyEvent

    from judge_app.judging.keys import ADJUDICATION_KEYMAP

    screen = opened(qtbot, window, DISPUTED[0])
    acting = {action for action in ADJUDICATION_KEYMAP.values() if not action.startswith("accept")}
    assert acting - {"cancel"} == set(screen._actions)
    held = QKeyEvent(QKeyEvent.Type.KeyPress, Qt.Key.Key_1, Qt.KeyboardModifier.NoModifier,
                     "1", True)  # fmt: skip
    assert screen.handle_key(held) and decided(demo_db) == {}  # an auto-repeat decides nothing
    key(qtbot, screen, Qt.Key.Key_J)
    assert screen.current_row == 1
    key(qtbot, screen, Qt.Key.Key_K)
    assert screen.current_row == 0
    key(qtbot, screen, Qt.Key.Key_Tab)
    assert screen.current_row == 1
    key(qtbot, screen, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert screen.current_row == 0
    key(qtbot, screen, Qt.Key.Key_G)
    key(qtbot, screen, Qt.Key.Key_Escape)
    assert not screen.choosing_grade and decided(demo_db) == {}


def test_a_decision_waiting_for_a_busy_database_is_said_and_saved_when_it_is_free(
    qtbot, window, demo_db
):
    """The adjudication screen writes as the judging screen does: a decision another program
    keeps waiting is said in a banner and the status bar, and written once it may be."""
    screen = opened(qtbot, window)
    other = hold_writes(demo_db)
    try:
        qtbot.keyClick(screen.list_view, Qt.Key.Key_1)  # accept the first rater's grade
        assert screen.in_flight == 1
        qtbot.waitUntil(lambda: screen.writes.banner.isVisible(), timeout=20_000)
        assert "Waiting for the database" in screen.writes.banner.text()
        assert window.status_text().startswith("Waiting for the database")
    finally:
        other.commit()
        other.close()
    qtbot.waitUntil(lambda: screen.in_flight == 0, timeout=60_000)
    assert not screen.writes.banner.isVisible()
    assert ("q05", "d0509") in decided(demo_db)
