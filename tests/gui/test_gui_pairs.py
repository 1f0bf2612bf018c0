"""The pair screen driven by the keyboard alone: View ▸ Compare pairs (Ctrl+6), a side chosen
by arrow or number and stored as shown, equal, neither, skip, undo, a note, the next query
by Enter, Esc back to grading; and blind: nothing of another rater or a system is shown."""

from __future__ import annotations

import pytest
from gui_support import written
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judge_app.store import open_database
from judge_app.store.pair_queue import PairSettings, set_pair_settings
from judge_app.store.people import find_rater
from judge_app.store.preferences import preferences_frame, record_preference


def key(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key to the pair screen as a user's key press is; returns once it is written."""
    target = QApplication.focusWidget() or window.pair_page.screen
    qtbot.keyClick(target, key, modifier)
    qtbot.waitUntil(lambda: window.pair_page.screen.in_flight == 0, timeout=20_000)


def open_pairs(qtbot, window):
    written(qtbot, window)
    qtbot.waitUntil(lambda: window.judging.session is not None, timeout=20_000)
    window.menus.page_actions["pairs"].trigger()  # View ▸ Compare pairs (Ctrl+6)
    qtbot.waitUntil(lambda: window.pair_page.screen.session is not None, timeout=20_000)
    assert window.pages.currentWidget() is window.pair_page.screen
    return window.pair_page.screen


def stored(path):
    with open_database(path) as database, database.reading() as session:
        frame = preferences_frame(session)
    return frame[frame["rater"] == "dan"].reset_index(drop=True)


@pytest.fixture
def small_budget(demo_db):
    with open_database(demo_db) as database, database.transaction() as session:
        set_pair_settings(session, PairSettings(top=3, budget=3))
    return demo_db


def test_a_whole_query_compared_by_keyboard_is_stored_as_shown(qtbot, open_window, small_budget):
    window = open_window(small_budget, "dan")
    screen = open_pairs(qtbot, window)
    session = screen.session
    first_query = session.query.external_id
    chosen = []
    for pressed, side in ((Qt.Key.Key_Left, "left"), (Qt.Key.Key_2, "right")):
        shown = session.shown
        assert shown.left.document_id != shown.right.document_id
        assert shown.left.title in screen.left.view.toPlainText()
        assert shown.right.title in screen.right.view.toPlainText()
        key(qtbot, window, pressed)
        winner = shown.left if side == "left" else shown.right
        chosen.append((winner.external_id, shown.left.external_id))
    key(qtbot, window, Qt.Key.Key_N)  # a note, kept for the pair's choice
    qtbot.keyClicks(QApplication.focusWidget(), "close call")
    key(qtbot, window, Qt.Key.Key_Return)
    key(qtbot, window, Qt.Key.Key_3)  # equally good
    assert session.shown is None and screen.pair_or_done.currentIndex() == 1
    assert "This query is done: 3 pairs compared" in screen.done_label.text()
    rows = stored(small_budget)
    assert len(rows) == 3 and set(rows["query_id"]) == {first_query}
    for (winner, left), row in zip(chosen, rows.sort_values("judged_at").itertuples()):
        assert row.shown_left == left
        assert (row.doc_a if row.choice == "a" else row.doc_b) == winner
    assert list(rows.sort_values("judged_at")["note"])[-1] == "close call"
    assert list(rows.sort_values("judged_at")["choice"])[-1] == "equal"

    key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo: shown again
    assert session.shown is not None and len(stored(small_budget)) == 2
    key(qtbot, window, Qt.Key.Key_0)  # neither relevant
    assert list(stored(small_budget).sort_values("judged_at")["choice"])[-1] == "neither"

    key(qtbot, window, Qt.Key.Key_Return)  # the next query with pairs left
    assert session.query.external_id != first_query and session.shown is not None
    key(qtbot, window, Qt.Key.Key_S)  # skip
    assert "skipped" in set(stored(small_budget)["choice"])
    key(qtbot, window, Qt.Key.Key_Escape)  # back to grading
    assert window.pages.currentWidget() is window.judging


def test_blind_the_pair_screen_shows_no_other_raters_choice_grade_or_score(
    qtbot, open_window, demo_db
):
    with open_database(demo_db) as database, database.transaction() as session:
        ana = find_rater(session, "ana").id
        from sqlalchemy import select

        from judge_app.store.models import Result

        pairs = session.execute(
            select(Result.query_id, Result.document_id).where(Result.rank <= 2).distinct()
        ).all()
        by_query: dict[int, list[int]] = {}
        for query_id, document_id in pairs:
            by_query.setdefault(query_id, []).append(document_id)
        for query_id, documents in by_query.items():
            if len(documents) >= 2:
                record_preference(
                    session, ana, query_id, documents[0], documents[1], "a", note="ANA-ONLY"
                )
        scores = {f"{s:g}" for (s,) in session.execute(select(Result.score))}
    window = open_window(demo_db, "dan")
    screen = open_pairs(qtbot, window)
    for index in range(len(screen.session.queue)):
        screen.open_query(index)
        shown = (
            " ".join(pane.view.toPlainText() for pane in (screen.left, screen.right))
            + screen.header.query_progress.text()
        )
        assert "ANA-ONLY" not in shown
        assert not any(f" {score} " in f" {shown} " for score in scores if len(score) > 3)
        assert screen.session.mine == {}  # dan's own choices only: ana's are not his


def test_the_same_key_pressed_again_chooses_again_and_closing_waits_for_the_choices(
    qtbot, open_window, demo_db
):
    """The key's release reaches the pair screen (as it does the grading screen), so a
    second press of the same key is a new choice, not a key held down."""
    window = open_window(demo_db, "dan")
    screen = open_pairs(qtbot, window)
    for _ in range(3):
        key(qtbot, window, Qt.Key.Key_Left)
    assert screen.session.query_progress().done == 3
    qtbot.keyClick(QApplication.focusWidget() or screen, Qt.Key.Key_Right)
    window.close()  # with the last choice perhaps on its way: written before the window goes
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=20_000)
    assert len(stored(demo_db)) == 4


def test_a_change_of_the_campaign_reads_the_pairs_again(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    screen = open_pairs(qtbot, window)
    before = screen.session
    assert before.settings == PairSettings()
    with open_database(demo_db) as database, database.transaction() as session:
        set_pair_settings(session, PairSettings(top=4, budget=2))
    window.workspace.campaignChanged.emit()  # as a lead's dialog or an import says
    qtbot.waitUntil(lambda: screen.session not in (None, before), timeout=20_000)
    assert screen.session.settings == PairSettings(top=4, budget=2)
    assert screen.session.query_progress().total == 2
