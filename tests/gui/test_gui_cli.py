"""``judge-app gui DB [--rater NAME]`` and ``judge-app`` alone open the judging window."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from judge_app.cli import main
from judge_app.gui import preferences
from judge_app.gui.window import MainWindow
from judge_app.store import open_database
from judge_app.store.people import find_rater
from judge_app.store.rater_queue import all_rater_names


@pytest.fixture
def shown_windows(tmp_path, monkeypatch, qapp):
    """The windows the command shows; the event loop returns at once instead of running."""
    monkeypatch.setenv(preferences.SETTINGS_ENV, str(tmp_path / "settings.ini"))
    monkeypatch.setattr(type(qapp), "exec", lambda self: 0)

    def windows():
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)
                and w.isVisible()]  # fmt: skip

    yield windows
    for window in windows():
        window.close()
        if window.database is not None:
            window.database.close()


def judging(qtbot, window):
    """The window's session, once its queue is read (at a start: on a worker)."""
    qtbot.waitUntil(lambda: window.judging.session is not None, timeout=30_000)
    return window.judging.session


def opened(qtbot, window):
    """The window's database, once a start has opened it (on a worker, after the first paint)."""
    qtbot.waitUntil(lambda: window.database is not None, timeout=30_000)
    return window.database


def test_gui_command_opens_the_window_as_the_rater_and_creates_them(tmp_path, shown_windows, qtbot):
    path = tmp_path / "judging.sqlite"
    assert main(["demo", str(path)]) == 0
    assert main(["gui", str(path), "--rater", "yuki"]) == 0
    (window,) = shown_windows()
    assert judging(qtbot, window).rater_name == "yuki"
    assert window.judging.header.text.text() == "best pizza recipes"
    with open_database(path) as database, database.reading() as session:
        assert find_rater(session, "yuki") is not None
    assert preferences.recent_databases() == [str(path)]


def test_first_use_opens_the_demo_built_in_the_data_folder(tmp_path, shown_windows, capsys, qtbot):
    demo = tmp_path / "demo.sqlite"  # the data folder: beside JUDGE_APP_SETTINGS
    assert main([]) == 0
    (window,) = shown_windows()
    assert demo.is_file() and "created the demo database" in capsys.readouterr().err
    assert not (tmp_path / "demo.sqlite.part").exists()
    assert opened(qtbot, window).describe() == str(demo)
    assert window.pages.currentWidget() is window.chooser  # no rater chosen yet
    window.choose_rater("ana")
    window.close()
    window.database.close()
    assert main([]) == 0  # the last database, as the rater chosen last time
    (window,) = shown_windows()
    assert opened(qtbot, window).describe() == str(demo)
    assert judging(qtbot, window).rater_name == "ana"


def test_the_start_page_builds_the_demo_off_the_ui_thread(tmp_path, shown_windows, qtbot):
    gone = tmp_path / "gone.sqlite"  # used once, since deleted: the start page, not the demo
    preferences.add_recent_database(str(gone))
    assert main([]) == 0
    (window,) = shown_windows()
    assert window.pages.currentWidget() is window.opening.start_page
    window.opening.start_page.demo_button.click()
    with qtbot.waitSignal(window.task.finished, timeout=30_000):
        pass
    assert window.database.describe() == str(tmp_path / "demo.sqlite")


def test_no_arguments_show_why_the_last_database_cannot_be_opened(tmp_path, shown_windows, qtbot):
    broken = tmp_path / "broken.sqlite"
    broken.write_text("this is not a database")
    preferences.add_recent_database(str(broken))
    assert main([]) == 0
    (window,) = shown_windows()
    qtbot.waitUntil(window.opening.start_page_shown, timeout=30_000)
    assert "not a SQLite database" in window.opening.start_page.error.text()


def test_gui_rater_is_the_rater_however_typed_and_one_spaces_away_is_asked_about(
    tmp_path, shown_windows, qtbot
):
    path = str(tmp_path / "judging.sqlite")
    assert main(["demo", path]) == 0
    assert main(["gui", path, "--rater", "  BEN  "]) == 0
    (window,) = shown_windows()
    assert judging(qtbot, window).rater_name == "ben"  # not a second rater
    window.close()
    window.database.close()
    # the window paints before the database is read: a name it refuses is shown in the
    # rater chooser, which asks about a name only spaces away from a rater's
    assert main(["gui", path, "--rater", "B en"]) == 0
    (window,) = shown_windows()
    qtbot.waitUntil(lambda: window.chooser.similar.isVisible(), timeout=30_000)
    assert window.pages.currentWidget() is window.chooser
    assert window.chooser.similar_text.text().startswith("“B en” differs from the rater “ben”")
    window.close()
    window.database.close()
    assert main(["gui", path, "--rater", "Adjudicated"]) == 0
    (window,) = shown_windows()
    qtbot.waitUntil(lambda: window.chooser.error.isVisible(), timeout=30_000)
    reason = "'Adjudicated' is where a lead's adjudicated grades are kept, not a rater"
    assert reason in window.chooser.error.text()
    assert window.judging.session is None
    with open_database(path) as database, database.reading() as session:
        assert all_rater_names(session) == ["ana", "ben", "chloe"]
