"""The judging window, driven from the keyboard on the demo database (pytest-qt, offscreen)."""

from __future__ import annotations

import shutil
import sqlite3

import pandas as pd
import pytest
from failure_support import hold_writes
from gui_support import own_state, press, written
from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, QEvent, QModelIndex, Qt
from PySide6.QtGui import QDesktopServices, QKeyEvent
from PySide6.QtWidgets import QApplication
from sqlalchemy import func, select, text

from judge_app.gui import preferences
from judge_app.gui.models import Role
from judge_app.judging.changes import NOTHING_TO_UNDO
from judge_app.judging.keys import SKIP_REASONS
from judge_app.store import StoreError, open_database, reads
from judge_app.store import judgments as store_judgments
from judge_app.store.judgments import set_note
from judge_app.store.models import JudgmentEvent, Rater, RepeatJudgment
from judge_app.store.people import find_rater
from judge_app.store.rater_queue import PoolSettings, set_pool_settings
from judge_app.store.settings import QualitySettings, set_quality_settings

ROLES = [*range(0, 14), *range(int(Qt.ItemDataRole.UserRole), int(Qt.ItemDataRole.UserRole) + 16)]


def current_item(window):
    return window.judging.session.items[window.judging.current_row]


def all_model_values(window):
    """Every value of every cell and role of every model in the window."""
    values = []
    for model in window.findChildren(QAbstractItemModel):
        stack = [QModelIndex()]
        while stack:
            parent = stack.pop()
            columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(parent)
            for row in range(model.rowCount(parent)):
                for column in range(columns):
                    index = model.index(row, column, parent)
                    values += [model.data(index, role) for role in ROLES]
                    if columns > 1 and column == 0 and model.rowCount(index):
                        stack.append(index)
            for column in range(columns):
                values += [model.headerData(column, Qt.Orientation.Horizontal, r) for r in ROLES]
    return values


# ---------------------------------------------------------------------------------------------


def test_window_has_the_named_parts_and_opens_on_the_first_query(window):
    for name in (
        "queryText",
        "resultList",
        "documentView",
        "rubricPanel",
        "queryProgress",
        "overallProgress",
    ):
        assert window.findChild(object, name) is not None, name  # fmt: skip
    assert window.judging.header.text.text() == "best pizza recipes"
    assert QApplication.focusWidget() is window.judging.results.view
    assert "0 / 12" in window.judging.header.query_progress.text()
    assert window.judging.header.overall_progress.maximum() == 160
    html = window.judging.document.view.toHtml()
    assert "background-color:#fff1a8" in html  # the query terms are marked


def test_keyboard_only_session_commits_every_grade_at_once(qtbot, window_anywhere, demo_anywhere):
    window, demo_db = window_anywhere, demo_anywhere
    judging = window.judging
    items = list(judging.session.items)
    for number, item in enumerate(items):
        assert current_item(window).document_id == item.document_id
        grade = number % 6
        press(qtbot, window, getattr(Qt.Key, f"Key_{grade}"))
        assert own_state(demo_db, "dan", "q01", item.external_id) == (grade, False, None)
        assert window.status_text().startswith(f"Saved: grade {grade} (")
        assert item.external_id in window.status_text()
    assert f"{len(items)} / {len(items)}" in judging.header.query_progress.text()
    assert judging.header.overall_progress.value() == len(items)
    press(qtbot, window, Qt.Key.Key_K)  # move up, regrade: the row stays, nothing moves on
    row = judging.current_row
    press(qtbot, window, Qt.Key.Key_5)
    assert own_state(demo_db, "dan", "q01", judging.session.items[row].external_id)[0] == 5
    press(qtbot, window, Qt.Key.Key_Return)
    assert judging.header.text.text() == "best hiking boots for rocky trails"
    assert judging.current_row == 0
    press(qtbot, window, Qt.Key.Key_J)
    press(qtbot, window, Qt.Key.Key_Down)
    assert judging.current_row == 2
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    assert judging.session.query.external_id == "q02"  # asked once: 7 results not graded
    assert "not graded yet" in judging.results.cue.text()
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    assert judging.header.text.text() == "best pizza recipes"
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert judging.session.query.external_id == "q02"
    press(qtbot, window, Qt.Key.Key_Backspace)  # clearing an ungraded result changes nothing
    assert window.status_text().startswith("Unchanged")


def test_clear_removes_the_grade(qtbot, window, demo_db):
    document = current_item(window).external_id
    press(qtbot, window, Qt.Key.Key_4)
    press(qtbot, window, Qt.Key.Key_Up)
    press(qtbot, window, Qt.Key.Key_Backspace)
    assert own_state(demo_db, "dan", "q01", document) is None
    assert window.status_text().startswith("Saved: grade cleared")
    assert window.judging.results.model.index(0, 3).data(Role.GRADE) is None


def test_undo_and_redo_several_steps_from_the_store_history(qtbot, window_anywhere, demo_anywhere):
    window, demo_db = window_anywhere, demo_anywhere
    documents = [item.external_id for item in window.judging.session.items[:3]]
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):
        press(qtbot, window, key)
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.status_text().startswith("Undone: now not judged")
    assert [own_state(demo_db, "dan", "q01", d) for d in documents] == [
        (1, False, None),
        None,
        None,
    ]
    assert window.judging.current_row == 1  # the undone result is selected
    assert window.judging.results.model.index(1, 3).data(Role.GRADE) is None
    press(qtbot, window, Qt.Key.Key_Z, ctrl | shift)
    assert window.status_text().startswith("Redone: now grade 2")
    assert own_state(demo_db, "dan", "q01", documents[1]) == (2, False, None)
    press(qtbot, window, Qt.Key.Key_Return)  # leaving ungraded results: asked once
    press(qtbot, window, Qt.Key.Key_Return)  # an undo reaching back opens the earlier query
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.judging.session.query.external_id == "q01"
    assert own_state(demo_db, "dan", "q01", documents[0]) is None
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.status_text() == NOTHING_TO_UNDO


def test_undo_reaches_only_this_sessions_changes(qtbot, open_window, demo_db):
    """Ctrl+Z after a restart leaves yesterday's grades; today's are undone, and only they."""
    window = open_window(demo_db)
    first = window.judging.session.items[window.judging.current_row].external_id
    press(qtbot, window, Qt.Key.Key_4)
    window.close()
    window = open_window(demo_db)  # the next session of dan
    ctrl = Qt.KeyboardModifier.ControlModifier
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.status_text() == NOTHING_TO_UNDO
    assert own_state(demo_db, "dan", "q01", first) == (4, False, None)
    second = window.judging.session.items[window.judging.current_row].external_id
    assert second != first
    press(qtbot, window, Qt.Key.Key_2)
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.status_text().startswith("Undone: now not judged")
    assert own_state(demo_db, "dan", "q01", second) is None
    press(qtbot, window, Qt.Key.Key_Z, ctrl)
    assert window.status_text() == NOTHING_TO_UNDO
    assert own_state(demo_db, "dan", "q01", first) == (4, False, None)


def test_skip_is_one_key_and_its_reason_never_takes_grade_keys(qtbot, window, demo_db):
    judging = window.judging
    first, second, third = (item.external_id for item in judging.session.items[:3])
    press(qtbot, window, Qt.Key.Key_S)
    assert own_state(demo_db, "dan", "q01", first) == (None, True, None)  # committed at once
    assert current_item(window).external_id == second  # and moved on, as a grade does
    assert judging.document.skip_strip.isVisible() and not judging.document.note_box.isVisible()
    assert QApplication.focusWidget() is judging.results.view
    for key in (Qt.Key.Key_3, Qt.Key.Key_J):  # "3j" grades and moves: nothing captured them
        press(qtbot, window, key)
    assert own_state(demo_db, "dan", "q01", second) == (3, False, None)
    assert current_item(window).external_id != second
    press(qtbot, window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)  # a preset reason
    assert own_state(demo_db, "dan", "q01", first) == (None, True, SKIP_REASONS[1])
    assert not judging.document.skip_strip.isVisible()
    assert "1 skipped" in judging.header.query_progress.text()
    judging.select_row(2)
    press(qtbot, window, Qt.Key.Key_N)  # a note before a grade: shown, saved with the grade
    qtbot.keyClicks(judging.document.note_edit, "check the recipe again")
    press(qtbot, window, Qt.Key.Key_Return)
    assert own_state(demo_db, "dan", "q01", third) is None
    assert "check the recipe again" in judging.document.view.toPlainText()
    press(qtbot, window, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier)  # asks to leave
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    assert judging.session.query.external_id == "q01"  # the note came along
    judging.select_row(2)
    assert judging.results.model.index(2, 3).data(Role.NOTE) == "check the recipe again"
    press(qtbot, window, Qt.Key.Key_4)
    assert own_state(demo_db, "dan", "q01", third) == (4, False, "check the recipe again")
    judging.select_row(2)
    press(qtbot, window, Qt.Key.Key_N)
    qtbot.keyClicks(judging.document.note_edit, " and more")
    press(qtbot, window, Qt.Key.Key_Escape)  # Esc leaves the note as it was
    assert own_state(demo_db, "dan", "q01", third)[2] == "check the recipe again"
    press(qtbot, window, Qt.Key.Key_S)  # a skip keeps the old note
    assert own_state(demo_db, "dan", "q01", third) == (None, True, "check the recipe again")


def test_blind_no_model_holds_another_raters_grade_note_or_a_score(open_window, demo_db):
    with open_database(demo_db) as database:
        with database.transaction() as session:
            ana = find_rater(session, "ana").id
            for query_id, document_id in _pairs_graded_by(session, ana):
                set_note(session, ana, query_id, document_id, "ANA-ONLY")
        with database.reading() as session:
            results = reads.results_frame(session)
    window = open_window(demo_db, "dan")
    scores = {f"{score:g}" for score in results["score"]} | {str(s) for s in results["score"]}
    for query in range(len(window.judging.session.queue)):
        window.judging.open_query(query)
        values = all_model_values(window)
        texts = [str(value) for value in values if value is not None]
        assert not any("ANA-ONLY" in text for text in texts)
        assert not any(text in scores for text in texts)
        model = window.judging.results.model
        grades = [model.index(row, 3).data(Role.GRADE) for row in range(model.rowCount())]
        assert grades == [None] * model.rowCount()  # dan graded nothing; ana, ben, chloe did
        assert "ANA-ONLY" not in window.judging.document.view.toPlainText()


def test_blind_no_model_holds_an_automatic_judges_grade_or_failure(open_window, demo_db):
    """An automatic judge graded every pooled pair (2.71828, a grade no person gives) and
    failed one: no model of a rater's window, for any query, shows either or the judge."""
    from sqlalchemy import select

    from judge_app.store import automatic
    from judge_app.store.models import Result

    with open_database(demo_db) as database, database.transaction() as session:
        judge = automatic.add_judge(session, "oracle-llm", method="llm", model="m")
        pairs = session.execute(select(Result.query_id, Result.document_id).distinct()).all()
        grades = [automatic.AutoGrade(q, d, 2.71828, answer="E-ANSWER") for q, d in pairs]
        grades[0] = automatic.AutoGrade(*pairs[0], None, failure="E-FAILURE")
        automatic.write_grades(session, judge.rater_id, grades)
    window = open_window(demo_db, "dan")
    for query in range(len(window.judging.session.queue)):
        window.judging.open_query(query)
        texts = [str(value) for value in all_model_values(window) if value is not None]
        assert not any(
            marker in text
            for text in texts
            for marker in ("2.718", "E-ANSWER", "E-FAILURE", "oracle-llm")
        )
        model = window.judging.results.model
        grades_shown = [model.index(row, 3).data(Role.GRADE) for row in range(model.rowCount())]
        assert grades_shown == [None] * model.rowCount()
        assert "2.718" not in window.judging.document.view.toPlainText()


def _pairs_graded_by(session, rater_id):
    from sqlalchemy import select

    from judge_app.store.models import Judgment

    return session.execute(
        select(Judgment.query_id, Judgment.document_id).where(Judgment.rater_id == rater_id)
    ).all()


def test_shuffled_order_is_stable_per_rater(open_window, demo_db):
    with open_database(demo_db) as database, database.transaction() as session:
        set_pool_settings(session, PoolSettings(order="shuffle", seed=11))

    def order(rater):
        window = open_window(demo_db, rater)
        return [item.external_id for item in window.judging.session.items]

    first = order("dan")
    assert order("dan") == first
    assert order("eve") != first and sorted(order("eve")) == sorted(first)


def test_pooling_lists_each_document_of_both_runs_top_d_once(open_window, demo_db):
    with open_database(demo_db) as database:
        with database.transaction() as session:
            set_pool_settings(session, PoolSettings(depth=5))
        with database.reading() as session:
            results = reads.results_frame(session)
    window = open_window(demo_db, "dan")
    for index, query in enumerate(window.judging.session.queue):
        window.judging.open_query(index)
        top = results[(results["query_id"] == query.external_id) & (results["rank"] <= 5)]
        shown = [item.external_id for item in window.judging.session.items]
        assert len(shown) == len(set(shown)) and set(shown) == set(top["doc_id"])
        assert set(top["run"]) == {"bm25", "neural"}


def test_keys_pressed_while_the_database_is_busy_are_queued_for_the_result_each_was_meant_for(
    qtbot, window_anywhere, demo_anywhere
):
    window, demo_db = window_anywhere, demo_anywhere
    judging = window.judging
    documents = [item.external_id for item in judging.session.items[:4]]
    other = hold_writes(demo_db)
    view = judging.results.view
    for key in (Qt.Key.Key_2, Qt.Key.Key_5, Qt.Key.Key_K, Qt.Key.Key_3, Qt.Key.Key_0):
        qtbot.keyClick(view, key)  # 2 → first, 5 → second, up, 3 → second again, 0 → third
    model = judging.results.model
    assert [model.index(row, 3).data(Role.GRADE) for row in range(3)] == [2, 3, 0]
    assert [model.index(row, 3).data(Role.PENDING) for row in range(3)] == [True] * 3
    assert judging.current_row == 3 and judging.in_flight == 4
    qtbot.waitUntil(lambda: window.status_text().startswith("Waiting for the database"))
    assert "another program is writing to it" in window.status_text()
    assert "4 changes queued" in window.status_text()
    assert judging.writes.banner.isVisible() and "Keep judging" in judging.writes.banner.text()
    assert [own_state(demo_db, "dan", "q01", d) for d in documents[:3]] == [None] * 3
    other.commit()
    other.close()
    written(qtbot, window)
    assert [own_state(demo_db, "dan", "q01", d) for d in documents] == [
        (2, False, None),
        (3, False, None),
        (0, False, None),
        None,
    ]
    with open_database(demo_db) as database, database.reading() as session:
        history = (
            session.execute(
                select(JudgmentEvent.new_grade)
                .join(Rater, Rater.id == JudgmentEvent.rater_id)
                .where(Rater.name == "dan")
                .order_by(JudgmentEvent.id)
            )
            .scalars()
            .all()
        )
    assert history == [2, 5, 3, 0]  # written in the order the keys were pressed
    assert [model.index(row, 3).data(Role.PENDING) for row in range(3)] == [False] * 3
    assert window.status_text().startswith("Saved: grade 0")
    assert not judging.writes.banner.isVisible()


def test_a_held_down_key_does_not_grade_twice(qtbot, window, demo_db):
    first, second = (item.external_id for item in window.judging.session.items[:2])
    view = window.judging.results.view
    press(qtbot, window, Qt.Key.Key_3)
    repeat = QKeyEvent(
        QEvent.Type.KeyPress, Qt.Key.Key_3, Qt.KeyboardModifier.NoModifier, "3", True
    )
    QApplication.sendEvent(view, repeat)
    assert own_state(demo_db, "dan", "q01", first) == (3, False, None)
    assert own_state(demo_db, "dan", "q01", second) is None


def _key(kind, key, text, at_ms, repeat=False):
    event = QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text, repeat)
    event.setTimestamp(at_ms)
    return event


def test_a_held_down_key_grades_once_where_the_system_does_not_mark_repeats(qtbot, window, demo_db):
    """Xvfb and VNC repeat a held key as release+press pairs at one moment, or as presses
    without releases, neither marked as auto-repeat."""
    first, second, third = (item.external_id for item in window.judging.session.items[:3])
    view = window.judging.results.view
    press_, release = QEvent.Type.KeyPress, QEvent.Type.KeyRelease
    for event in (
        _key(press_, Qt.Key.Key_3, "3", 1000),  # the finger goes down
        _key(release, Qt.Key.Key_3, "3", 1500),  # the system repeats it: up and down at once
        _key(press_, Qt.Key.Key_3, "3", 1500),
        _key(press_, Qt.Key.Key_3, "3", 1533),  # and again, without an up
        _key(release, Qt.Key.Key_3, "3", 1600),  # the finger lifts
    ):
        QApplication.sendEvent(view, event)
    written(qtbot, window)
    assert own_state(demo_db, "dan", "q01", first) == (3, False, None)
    assert own_state(demo_db, "dan", "q01", second) is None
    QApplication.sendEvent(view, _key(press_, Qt.Key.Key_3, "3", 1700))  # a new press
    QApplication.sendEvent(view, _key(release, Qt.Key.Key_3, "3", 1780))
    written(qtbot, window)
    assert own_state(demo_db, "dan", "q01", second) == (3, False, None)
    assert own_state(demo_db, "dan", "q01", third) is None


def test_closing_the_window_waits_for_the_grades_on_their_way(qtbot, window, demo_db):
    document = current_item(window).external_id
    other = hold_writes(demo_db)
    qtbot.keyClick(window.judging.results.view, Qt.Key.Key_4)
    window.close()
    assert window.isVisible() and window.status_text() == "Saving 1 change before closing…"
    other.commit()
    other.close()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=20_000)
    assert own_state(demo_db, "dan", "q01", document) == (4, False, None)


def test_a_failed_write_is_shown_and_kept_as_unsaved(qtbot, window, demo_db, monkeypatch):
    judging = window.judging
    document = current_item(window).external_id

    def broken(*args, **kwargs):
        raise StoreError("disk I/O error")

    monkeypatch.setattr(store_judgments, "set_grade", broken)
    press(qtbot, window, Qt.Key.Key_4)
    index = judging.results.model.index(0, 3)
    assert index.data(Role.UNSAVED) == "grade 4" and index.data() == "Unsaved: grade 4"
    assert judging.error_banner.isVisible() and "disk I/O error" in judging.error_banner.text()
    assert window.status_text().startswith("Not saved") and judging.current_row == 0
    monkeypatch.undo()
    press(qtbot, window, Qt.Key.Key_4)
    assert own_state(demo_db, "dan", "q01", document) == (4, False, None)
    assert index.data(Role.UNSAVED) is None and not judging.error_banner.isVisible()


def test_a_grade_on_a_full_disk_is_refused_in_words_and_saved_once_there_is_room(
    qtbot, open_window, demo_template, tiny_disk
):
    """A real full disk (a small file system, filled up): the grade shows as unsaved with
    the reason, the file stays sound, and the same key saves it once there is room again."""
    database = tiny_disk.path / "demo.sqlite"
    shutil.copy(demo_template, database)
    window = open_window(database)
    judging = window.judging
    document = current_item(window).external_id
    tiny_disk.fill()
    press(qtbot, window, Qt.Key.Key_4)
    assert window.status_text().startswith("Not saved: grade 4")
    assert "the disk is full; nothing of this change was written" in judging.error_banner.text()
    assert judging.results.model.index(0, 3).data(Role.UNSAVED) == "grade 4"
    assert judging.current_row == 0
    tiny_disk.free()
    press(qtbot, window, Qt.Key.Key_4)
    assert window.status_text().startswith("Saved: grade 4")
    assert own_state(database, "dan", "q01", document) == (4, False, None)
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_time_per_judgment_is_recorded(qtbot, window, demo_db):
    press(qtbot, window, Qt.Key.Key_2)
    with open_database(demo_db) as database, database.reading() as session:
        frame = reads.judgments_frame(session, raters=["dan"])
    assert frame["duration_ms"].notna().all() and (frame["duration_ms"] >= 0).all()


def test_home_row_map_is_chosen_and_remembered(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    document = current_item(window).external_id
    window.set_keymap("home-row")
    press(qtbot, window, Qt.Key.Key_D)
    assert own_state(demo_db, "dan", "q01", document) == (2, False, None)
    assert window.judging.rubric.buttons[2].key_label.text() == "d"
    assert preferences.keymap_name() == "home-row"
    again = open_window(demo_db)
    assert again.keymap_name == "home-row" and again.menus.keymap_actions["home-row"].isChecked()
    qtbot.keyClick(again.judging.results.view, Qt.Key.Key_X)  # skip in the home-row map
    assert again.judging.document.skip_strip.isVisible()


def test_numpad_keys_grade(qtbot, window, demo_db):
    document = current_item(window).external_id
    window.set_keymap("numpad")
    qtbot.keyClick(window.judging.results.view, Qt.Key.Key_1, Qt.KeyboardModifier.KeypadModifier)
    written(qtbot, window)
    assert own_state(demo_db, "dan", "q01", document) == (1, False, None)


def test_rubric_buttons_grade_and_show_the_scale(qtbot, window, demo_db):
    document = current_item(window).external_id
    button = window.judging.rubric.buttons[5]
    assert button.title.text() == "5 · Perfect" and button.key_label.text() == "5"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    written(qtbot, window)
    assert own_state(demo_db, "dan", "q01", document) == (5, False, None)
    assert QApplication.focusWidget() is window.judging.results.view


def test_shortcut_overlay_opens_with_question_mark_and_closes_with_any_key(qtbot, window):
    press(qtbot, window, Qt.Key.Key_Question)
    assert window.overlay.isVisible()
    labels = [label.text() for label in window.overlay.card.findChildren(type(window.status_label))]
    assert "Grade 3 · Relevant" in labels and "Ctrl+Z" in labels
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.overlay.isVisible()


def test_without_a_rater_the_window_asks_inline_and_remembers(qtbot, open_window, demo_db):
    window = open_window(demo_db, None)
    assert window.pages.currentWidget() is window.chooser
    assert [window.chooser.raters.itemText(i) for i in range(3)] == ["ana", "ben", "chloe"]
    qtbot.keyClicks(window.chooser.new_name, "zoe")
    qtbot.keyClick(window.chooser.new_name, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.judging
    assert window.judging.session.rater_name == "zoe"
    assert preferences.last_rater(window.database.describe()) == "zoe"
    again = open_window(demo_db, None)
    chooser = again.chooser
    assert chooser.own.isVisible() and not chooser.others.isVisible()  # zoe's name alone
    assert chooser.own_label.text() == "Judging as <b>zoe</b>"
    qtbot.mouseClick(chooser.start_own, Qt.MouseButton.LeftButton)
    assert again.judging.session.rater_name == "zoe"
    again.menus.judge_actions["change_rater"].trigger()  # Judge ▸ Change rater…: still zoe alone
    assert again.pages.currentWidget() is chooser and not chooser.others.isVisible()
    qtbot.mouseClick(chooser.switch, Qt.MouseButton.LeftButton)  # a lead switches
    assert chooser.others.isVisible() and not chooser.own.isVisible()
    names = [chooser.raters.itemText(i) for i in range(chooser.raters.count())]
    assert names == ["ana", "ben", "chloe"]  # zoe has judged nothing yet: no rater to list
    chooser.raters.setCurrentText("ben")
    qtbot.mouseClick(chooser.start, Qt.MouseButton.LeftButton)
    assert again.judging.session.rater_name == "ben"


def test_every_model_passes_the_model_tester(qtmodeltester, window, qtbot):
    press(qtbot, window, Qt.Key.Key_2)
    qtmodeltester.check(window.judging.results.model)
    qtmodeltester.check(window.judging.queue.model)


def test_theme_switch_keeps_the_document_readable(window):
    window.set_theme("dark")
    assert "background-color:#6b5a12" in window.judging.document.view.toHtml()
    assert preferences.theme_name() == "dark"
    window.set_theme("light")


def test_two_windows_of_one_rater_stay_in_step(qtbot, open_window, demo_db):
    first, second = open_window(demo_db), open_window(demo_db)

    def key(window, key):
        qtbot.keyClick(window.judging.results.view, key)
        written(qtbot, window)

    document = current_item(first).external_id
    key(first, Qt.Key.Key_4)
    row = second.judging.session.row_of(first.judging.session.items[0].document_id)

    def caught_up():
        second.judging.step_watch.check()  # as its timer and its activation do
        return second.judging.session.items[row].grade == 4

    qtbot.waitUntil(caught_up, timeout=5000)
    assert "another window" in second.status_text()
    assert second.judging.header.overall_progress.value() == 1
    key(second, Qt.Key.Key_2)  # its own change does not look like another window's
    with qtbot.assertNotEmitted(second.judging.outOfStep, wait=500):
        second.judging.step_watch.check()
    assert own_state(demo_db, "dan", "q01", document) == (2, False, None)


def test_enter_goes_to_the_next_unfinished_query_and_asks_once_before_leaving(
    qtbot, open_window, demo_db
):
    window = open_window(demo_db)
    judging = window.judging
    q02 = judging.session.queue[1].id
    rater = judging.session.rater_id
    documents = [item.document_id for item in _items_of(judging, "q02")]
    window.database.write(  # q02 done in another window
        lambda s: [store_judgments.set_grade(s, rater, q02, d, 3) for d in documents]
    )
    window.refresh_judging()
    press(qtbot, window, Qt.Key.Key_2)  # one of q01's 12 graded
    press(qtbot, window, Qt.Key.Key_Return)
    assert judging.session.query.external_id == "q01"
    assert (
        judging.results.cue.isVisible()
        and "11 results are not graded" in judging.results.cue.text()
    )
    press(qtbot, window, Qt.Key.Key_Return)  # the same key again leaves, past the done q02
    assert judging.session.query.external_id == "q03"
    assert window.status_text().startswith("Query q03: 0 of")
    press(qtbot, window, Qt.Key.Key_End)
    assert judging.current_row == len(judging.session.items) - 1
    press(qtbot, window, Qt.Key.Key_Home)
    assert judging.current_row == 0
    for _ in judging.session.items:
        press(qtbot, window, Qt.Key.Key_1)
    assert judging.results.cue.isVisible() and "Query done" in judging.results.cue.text()
    press(qtbot, window, Qt.Key.Key_Return)  # done: no question
    assert judging.session.query.external_id == "q04"


def _items_of(judging, external_id):
    session = judging.session
    index = next(i for i, q in enumerate(session.queue) if q.external_id == external_id)
    shown = session.query_index
    session.open_query(index)
    items = list(session.items)
    session.open_query(shown)
    return items


def test_the_queue_is_searched_and_filtered_from_the_keyboard(qtbot, window):
    judging = window.judging
    press(qtbot, window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is judging.queue.search
    qtbot.keyClicks(judging.queue.search, "CSV")
    assert judging.queue.filter.rowCount() == 2  # the open query stays in sight
    qtbot.keyClick(judging.queue.search, Qt.Key.Key_Return)
    assert judging.session.query.text == "python read csv file"
    assert QApplication.focusWidget() is judging.results.view
    judging.queue.search.clear()
    judging.queue.unfinished_only.click()
    assert judging.queue.filter.rowCount() == len(judging.session.queue)  # none done yet
    clicked = judging.queue.filter.index(3, 0)
    judging.queue.view.clicked.emit(clicked)  # a click leaves at once, saying so
    assert judging.session.query_index == 3
    assert window.status_text().startswith("Left q08 with 11 results ungraded")


def test_only_the_open_query_is_kept_in_sight_past_the_search(qtbot, window):
    queue = window.judging.queue
    qtbot.keyClicks(queue.search, "CSV")

    def shown() -> set[int]:
        return {
            queue.filter.mapToSource(queue.filter.index(row, 0)).row()
            for row in range(queue.filter.rowCount())
        }

    found = shown() - {0}
    assert len(found) == 1 and 0 in shown()  # the open query, first, stays in sight
    queue.show_open(5)  # another query opened: the first leaves, the fifth shows
    assert shown() == found | {5}
    queue.show_open(next(iter(found)))
    assert shown() == found


def test_o_opens_the_web_page_and_the_rater_comes_back_to_the_same_result(
    qtbot, open_window, demo_db, monkeypatch
):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = open_window(demo_db)
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_J)
    press(qtbot, window, Qt.Key.Key_J)
    place = (window.judging.session.query.id, current_item(window).document_id)
    press(qtbot, window, Qt.Key.Key_O)
    assert [url.toString() for url in opened] == [current_item(window).url]
    window.close()
    again = open_window(demo_db)
    assert (again.judging.session.query.id, current_item(again).document_id) == place


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "FILE:///C:/Windows/System32/calc.exe",
        "http:///no-host",
        "//example.com/no-scheme",
        "smb://server/share/setup.exe",
    ],
)
def test_o_opens_only_a_web_address(qtbot, open_window, demo_db, monkeypatch, url):
    with open_database(demo_db) as database, database.transaction() as session:
        session.execute(text("UPDATE document SET url = :url"), {"url": url})
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda address: opened.append(address) or True)
    window = open_window(demo_db)
    press(qtbot, window, Qt.Key.Key_O)
    assert opened == []
    assert window.status_text() == (
        f"Not opened: {url} is no web address (only http and https addresses open in the browser)"
    )


def test_a_double_click_on_the_rubric_grades_once_as_a_held_key_does(qtbot, window, demo_db):
    first, second = (item.external_id for item in window.judging.session.items[:2])
    button = window.judging.rubric.buttons[3]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # within the double-click time
    written(qtbot, window)
    assert own_state(demo_db, "dan", "q01", first) == (3, False, None)
    assert own_state(demo_db, "dan", "q01", second) is None
    assert current_item(window).external_id == second  # moved on once, as the key does


def test_the_status_bar_speaks_of_the_open_query_only(qtbot, window):
    view = window.judging.results.view
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(view, Qt.Key.Key_4)  # written while the rater moves on to q02
    qtbot.keyClick(view, Qt.Key.Key_Right, ctrl)
    qtbot.keyClick(view, Qt.Key.Key_Right, ctrl)
    written(qtbot, window)
    assert window.judging.session.query.external_id == "q02"
    assert "q01" not in window.status_text()
    assert window.status_text().startswith("Query q02: 0 of")


def test_a_hidden_repeat_is_a_new_item_in_every_model_and_keeps_the_first_grade(
    qtbot, open_window, demo_db
):
    """With repeats on, ana's window brings back a share of her earlier pairs: every model
    shows them exactly as a pair nobody judged (no grade, no note); her grade of one is
    stored as the repeat and her first grade stays. The demo's repeats, answered in an
    earlier session, show her judgment again."""
    with open_database(demo_db) as database:
        with database.transaction() as session:
            set_quality_settings(session, QualitySettings(repeat_share=0.2))
            ana = find_rater(session, "ana").id
            for query_id, document_id in _pairs_graded_by(session, ana):
                set_note(session, ana, query_id, document_id, "ANA-FIRST")
            earlier = session.scalar(
                select(func.count())
                .select_from(RepeatJudgment)
                .where(RepeatJudgment.rater_id == ana)
            )
        with database.reading() as session:
            first = reads.judgments_frame(session, raters=["ana"])
    window = open_window(demo_db, "ana")
    judging = window.judging
    assert judging.writes.queue.wait_idle(20)  # the repeats are scheduled off the UI thread
    with open_database(demo_db) as database, database.reading() as session:
        pending = {
            (query, document)
            for query, document in session.execute(
                select(RepeatJudgment.query_id, RepeatJudgment.document_id).where(
                    RepeatJudgment.rater_id == ana, RepeatJudgment.judged_at.is_(None)
                )
            )
        }
    assert earlier > 0 and len(pending) == int(0.2 * first["grade"].notna().sum()) - earlier
    seen = 0
    for index, query in enumerate(judging.session.queue):
        judging.open_query(index)
        model = judging.results.model
        for row, item in enumerate(judging.session.items):
            values = [
                model.index(row, column).data(role)
                for column in range(model.columnCount())
                for role in ROLES
            ]
            if (query.id, item.document_id) in pending:
                seen += 1
                assert model.index(row, 3).data(Role.GRADE) is None
                assert model.index(row, 3).data(Role.NOTE) is None
                assert not any("ANA-FIRST" in str(value) for value in values)
                judging.select_row(row)
                assert "ANA-FIRST" not in judging.document.note_edit.text()
                assert "ANA-FIRST" not in judging.document.view.toPlainText()
            else:  # hers, as she graded it: the demo's answered repeats included
                assert model.index(row, 3).data(Role.NOTE) == "ANA-FIRST"
    assert seen == len(pending)
    # grade one repeat with the keyboard: the repeat holds it, the first judgment is as it was
    query_id, document_id = sorted(pending)[0]
    judging.open_query(judging.session.query_index_of(query_id))
    judging.select_row(judging.session.row_of(document_id))
    press(qtbot, window, Qt.Key.Key_0)
    assert judging.results.model.index(judging.session.row_of(document_id), 3).data(Role.GRADE) == 0
    with open_database(demo_db) as database, database.reading() as session:
        again = session.get(RepeatJudgment, (ana, query_id, document_id))
        assert again is not None and again.grade == 0
        after = reads.judgments_frame(session, raters=["ana"])
    pd.testing.assert_frame_equal(after, first)
