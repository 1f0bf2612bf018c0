"""A database deleted or read-only, and errors no code caught, are said in the window, which
stays open: no grade is reported saved that is not, and a defect's traceback goes to a log."""

from __future__ import annotations

import sys

import pytest
from failure_support import deleted, plain, unwritable
from gui_support import own_state, press
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from judge_app.gui import failure, preferences
from judge_app.gui.models import Role
from judge_app.judging.changes import READ_ONLY


@pytest.fixture
def hooked():
    """The window's hook for uncaught errors, put back afterwards."""
    installed = []

    def install(window):
        installed.append(failure.install(window))

    yield install
    for previous in installed:
        sys.excepthook = previous


def current_item(window):
    return window.judging.session.items[window.judging.current_row]


@pytest.mark.qt_no_exception_capture
def test_a_database_deleted_while_judging_is_said_and_grades_stay_unsaved(
    qtbot, open_window, demo_db, hooked
):
    window = open_window(demo_db)
    hooked(window)
    judging = window.judging
    press(qtbot, window, Qt.Key.Key_3)
    assert window.status_text().startswith("Saved: grade 3")
    deleted(demo_db)
    row = judging.current_row
    press(qtbot, window, Qt.Key.Key_2)
    assert window.status_text().startswith("Not saved: grade 2")
    assert f"The database file was deleted or moved: {demo_db}." in judging.error_banner.text()
    assert judging.error_banner.isVisible()
    assert judging.results.model.index(row, 3).data(Role.UNSAVED) == "grade 2"
    # reading the next query fails too: said on the banner, by the window's hook
    press(qtbot, window, Qt.Key.Key_Return)  # asks once: results are left ungraded
    QTimer.singleShot(0, lambda: qtbot.keyClick(judging.results.view, Qt.Key.Key_Return))
    qtbot.waitUntil(lambda: window.status_text().startswith("The database file was deleted"))
    assert judging.error_banner.text().startswith("<b>The database file was deleted or moved")
    assert window.isVisible() and plain(window.status_text())
    assert judging.results.model.index(row, 3).data(Role.UNSAVED) == "grade 2"


def test_a_read_only_database_opens_read_only_and_refuses_grades_at_once(
    qtbot, open_window, demo_db
):
    with unwritable(demo_db):
        window = open_window(demo_db, "chloe")  # a rater the database knows: none is added
        judging = window.judging
        assert window.database.read_only
        assert judging.error_banner.isVisible()
        assert judging.error_banner.text().startswith(f"<b>{READ_ONLY}.</b> {demo_db}")
        item = current_item(window)
        press(qtbot, window, Qt.Key.Key_4)
        assert window.status_text().startswith(f"{READ_ONLY}: {demo_db} cannot be written to")
        assert judging.in_flight == 0 and current_item(window) == item
        judging.rubric.buttons[5].click()  # the mouse is refused as the keys are
        assert judging.in_flight == 0 and current_item(window) == item
        press(qtbot, window, Qt.Key.Key_Down)  # looking through the queue still works
        assert judging.current_row == 1
        window.grab().save(str(demo_db.parent / "read-only.png"))
    query = window.judging.session.query.external_id
    assert own_state(demo_db, "chloe", query, item.external_id) == (
        None if item.grade is None else (item.grade, item.skipped, item.note)
    )


@pytest.mark.qt_no_exception_capture
def test_an_unexpected_error_in_a_slot_is_shown_and_logged(qtbot, open_window, demo_db, hooked):
    window = open_window(demo_db)
    hooked(window)

    def broken() -> None:
        raise KeyError("grade")

    QTimer.singleShot(0, broken)
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "failureDialog") is not None)
    dialog = window.findChild(QMessageBox, "failureDialog")
    log = preferences.data_folder() / "errors.log"
    assert dialog.isVisible() and str(log) in dialog.text()
    assert "unexpected problem" in dialog.text() and "KeyError" not in dialog.text()
    assert "KeyError: 'grade'" in log.read_text(encoding="utf-8")
    assert "in broken" in log.read_text(encoding="utf-8")  # the traceback
    assert window.status_text().startswith("judge_app met an unexpected problem and carried on")
    dialog.close()
    press(qtbot, window, Qt.Key.Key_1)  # the window carries on
    assert window.status_text().startswith("Saved: grade 1")
