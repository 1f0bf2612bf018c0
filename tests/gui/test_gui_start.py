"""The start page: open, create, the demo and the recent databases (pytest-qt, offscreen)."""

from __future__ import annotations

import shutil

from fake_postgres import refusing_server
from PySide6.QtCore import Qt

from judge_app.gui import preferences
from judge_app.store import open_database
from judge_app.store.people import add_rater


def choose_in_dialog(window, path):
    """Pick ``path`` in the window's open file dialog, as a user does."""
    dialog = window.workspace.file_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(path))
    dialog.accept()


def test_without_a_database_the_window_shows_the_start_page(open_window, tmp_path):
    window = open_window(None, demo=lambda: tmp_path / "unused.sqlite")
    assert window.pages.currentWidget() is window.opening.start_page
    assert window.opening.start_page.objectName() == "startPage"
    for name in ("startOpen", "startNew", "startDemo", "recentList"):
        assert window.findChild(object, name) is not None, name  # fmt: skip
    assert window.opening.start_page.recent_empty.isVisible()
    assert not window.menus.judge_actions["grade3"].isEnabled()  # nothing to judge yet
    assert not window.menus.close_database_action.isEnabled()
    assert window.windowTitle() == "judge_app"


def test_demo_is_built_off_the_ui_thread_then_opened(qtbot, open_window, demo_template, tmp_path):
    built = tmp_path / "data" / "demo.sqlite"

    def build():
        built.parent.mkdir()
        shutil.copy(demo_template, built)
        return built

    window = open_window(None, demo=build)
    qtbot.mouseClick(window.opening.start_page.demo_button, Qt.MouseButton.LeftButton)
    assert window.task is not None
    with qtbot.waitSignal(window.task.finished, timeout=30_000):
        pass
    assert window.database is not None and window.database.describe() == str(built)
    assert window.pages.currentWidget() is window.chooser  # who is judging?
    assert preferences.recent_databases() == [str(built)]


def test_recent_databases_are_listed_and_open_as_the_last_rater(
    qtbot, open_window, demo_db, tmp_path
):
    gone = tmp_path / "gone.sqlite"
    preferences.add_recent_database(str(gone))
    preferences.add_recent_database(str(demo_db))
    preferences.remember_rater(str(demo_db), "ben")
    window = open_window(None)
    page = window.opening.start_page
    assert page.recent_names() == [str(demo_db), str(gone)]
    missing = page.recent_list.item(1)
    assert not missing.flags() & Qt.ItemFlag.ItemIsEnabled  # shown, not openable
    rect = page.recent_list.visualItemRect(page.recent_list.item(0))
    qtbot.mouseClick(page.recent_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.pages.currentWidget() is window.judging
    assert window.judging.session.rater_name == "ben"
    assert window.windowTitle() == "judge_app — demo.sqlite — judging as ben"
    assert window.menus.judge_actions["grade3"].isEnabled()


def test_a_name_is_the_rater_however_typed_and_one_spaces_away_is_asked_about(open_window, demo_db):
    window = open_window(demo_db, rater=None)
    chooser = window.chooser
    assert window.pages.currentWidget() is chooser
    chooser.new_name.setText("  Ben ")
    chooser.add.click()
    assert window.judging.session.rater_name == "ben"  # not a second rater
    window.menus.judge_actions["change_rater"].trigger()
    chooser.switch.click()
    for answer, judged_as in ((chooser.use_similar, "ben"), (chooser.add_anyway, "B en")):
        chooser.new_name.setText("B en")
        chooser.add.click()  # only a space away from "ben": asked, not added
        assert window.pages.currentWidget() is chooser and chooser.similar.isVisible()
        assert chooser.similar_text.text() == (
            "“B en” differs from the rater “ben” only by spaces or case. Is this the same person?"
        )
        assert (chooser.use_similar.text(), chooser.add_anyway.text()) == (
            "Yes: judge as ben",
            "No: add B en",
        )
        answer.click()
        assert window.judging.session.rater_name == judged_as
        window.show_chooser()
        chooser.switch.click()
    chooser.new_name.setText(" ADJUDICATED")
    chooser.add.click()
    assert chooser.error.isVisible() and "'ADJUDICATED' is where a lead's" in chooser.error.text()


def test_open_database_through_the_file_dialog(open_window, demo_db):
    window = open_window(None)
    window.opening.start_page.open_button.click()
    assert window.workspace.file_dialog is not None and window.workspace.file_dialog.isVisible()
    choose_in_dialog(window, demo_db)
    assert window.database.describe() == str(demo_db)
    assert window.pages.currentWidget() is window.chooser
    assert window.workspace.file_dialog is None


def test_new_database_creates_an_empty_one_and_refuses_an_existing_file(open_window, tmp_path):
    window = open_window(None)
    taken = tmp_path / "notes.sqlite"
    taken.write_text("not a database")
    window.opening.start_page.new_button.click()
    choose_in_dialog(window, taken)
    assert window.database is None and "already exists" in window.opening.start_page.error.text()
    assert window.opening.start_page.error.isVisible()
    fresh = tmp_path / "campaign.sqlite"
    window.opening.start_page.new_button.click()
    choose_in_dialog(window, fresh)
    assert fresh.is_file() and window.database.describe() == str(fresh)
    assert window.pages.currentWidget() is window.chooser
    assert window.chooser.raters.count() == 0


def test_a_file_that_is_no_database_shows_the_error_on_the_start_page(open_window, tmp_path):
    window = open_window(None)
    bad = tmp_path / "photo.sqlite"
    bad.write_bytes(b"\x89PNG not sqlite at all")
    assert not window.opening.open_path(bad)
    assert window.pages.currentWidget() is window.opening.start_page
    assert "not a SQLite database" in window.opening.start_page.error.text()
    assert window.status_text() == "The database could not be opened: see above"


def test_a_refused_password_is_said_on_the_start_page_and_not_kept(open_window, monkeypatch):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    window = open_window(None)
    with refusing_server() as (port, passwords):
        url = f"postgresql+psycopg://ana:typo@127.0.0.1:{port}/campaign"
        assert not window.opening.open_path(url)
    assert passwords == ["typo"]
    assert window.pages.currentWidget() is window.opening.start_page
    assert window.opening.start_page.error.text() == (
        f"Cannot open the database: The PostgreSQL server at 127.0.0.1:{port} refused the "
        "password of ana: a wrong password, or a login that has expired; nothing was changed. "
        "Give the right one in ~/.pgpass or PGPASSWORD, or ask a lead for a new one"
    )
    assert preferences.recent_databases() == []


def test_close_database_returns_to_the_start_page_with_it_listed(open_window, demo_db):
    with open_database(demo_db) as database, database.transaction() as session:
        add_rater(session, "kim")
    window = open_window(demo_db, "kim")
    window.menus.close_database_action.trigger()
    assert window.database is None
    assert window.pages.currentWidget() is window.opening.start_page
    assert window.opening.start_page.recent_names() == [str(demo_db)]
    assert not window.menus.judge_actions["grade0"].isEnabled()
