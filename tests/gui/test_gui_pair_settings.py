"""Lead ▸ Pooling…'s preference pairs: the results compared per query and the pairs per rater,
with what they cost, set from the keyboard and written through the settings' use case."""

from __future__ import annotations

from automatic_support import grade_automatically
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judge_app.store import open_database
from judge_app.store.pair_queue import PairSettings, pair_settings
from judge_app.store.rater_queue import pool_settings


def typed(qtbot, box, text):
    """Replace what the spin box ``box`` holds by ``text``, as a user types it."""
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(box, text)


def test_pair_settings_are_typed_saved_and_shown_again(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    with open_database(demo_db) as database, database.reading() as session:
        pool = pool_settings(session)
    dialog = window.show_dialog("pool")
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    assert (dialog.pairs_top.value(), dialog.pairs_budget.value()) == (6, 10)
    assert (
        dialog.pairs_cost.text() == "At most 10 of the 15 pairs of 6 results per rater and query."
    )
    assert (dialog.pairs_top.minimum(), dialog.pairs_top.maximum()) == (2, 20)
    assert dialog.pairs_budget.minimum() == 1
    typed(qtbot, dialog.pairs_top, "8")
    qtbot.keyClick(dialog.pairs_top, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is dialog.pairs_budget
    qtbot.keyClick(dialog.pairs_budget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.pairs_budget, "40")
    assert dialog.pairs_cost.text() == "All 28 pairs of 8 results per rater and query."
    qtbot.keyClick(dialog.pairs_budget, Qt.Key.Key_Down)  # 39
    for _ in range(2):
        qtbot.keyClick(dialog.pairs_budget, Qt.Key.Key_Backspace)
    qtbot.keyClicks(dialog.pairs_budget, "12")
    assert (
        dialog.pairs_cost.text() == "At most 12 of the 28 pairs of 8 results per rater and query."
    )
    with qtbot.waitSignal(dialog.finished, timeout=30_000):  # written off the UI thread
        qtbot.keyClick(dialog.pairs_budget, Qt.Key.Key_Return)
    assert not dialog.isVisible()
    with open_database(demo_db) as database, database.reading() as session:
        assert pair_settings(session) == PairSettings(top=8, budget=12)
        assert pool_settings(session) == pool  # the pooling saved as it was
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)  # the save's task ends
    again = window.show_dialog("pool")
    assert (again.pairs_top.value(), again.pairs_budget.value()) == (8, 12)
    again.reject()


def test_the_spin_boxes_keep_typed_values_in_range(qtbot, open_window, demo_db):
    """What the settings would refuse cannot be typed: the spin boxes hold 2–20 results and
    at least one pair."""
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("pool")
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    typed(qtbot, dialog.pairs_top, "25")  # the 5 is refused: 25 is past 20
    assert dialog.pairs_top.value() == 2
    typed(qtbot, dialog.pairs_budget, "0")
    assert dialog.pairs_budget.value() == 10  # no pairs is no value: the box keeps its own
    qtbot.keyClick(dialog.pairs_budget, Qt.Key.Key_Tab)  # and shows it again once left
    assert dialog.pairs_budget.text() == "at most 10 pairs per rater"
    assert dialog.pairs_cost.text() == "The one pair of 2 results per rater and query."
    dialog.reject()


def test_pair_settings_are_saved_with_an_active_sample_too(qtbot, open_window, demo_db):
    grade_automatically(demo_db, "llm", 0)
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("pool")
    with qtbot.waitSignal(dialog.expected, timeout=30_000):
        dialog.active_order.setChecked(True)
    dialog.pairs_top.setValue(4)
    dialog.pairs_budget.setValue(3)
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    with open_database(demo_db) as database, database.reading() as session:
        assert pool_settings(session).query_order == "active"
        assert pair_settings(session) == PairSettings(top=4, budget=3)
