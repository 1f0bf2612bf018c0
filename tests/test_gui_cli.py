"""``judge-app gui DB [--rater NAME]`` and ``judge-app`` alone open the judging window."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from judge_app.cli import main
from judge_app.gui import preferences
from judge_app.gui.window import MainWindow
from judge_app.store import open_database
from judge_app.store.people import find_rater


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
        window.database.close()


def test_gui_command_opens_the_window_as_the_rater_and_creates_them(tmp_path, shown_windows):
    path = tmp_path / "judging.sqlite"
    assert main(["demo", str(path)]) == 0
    assert main(["gui", str(path), "--rater", "yuki"]) == 0
    (window,) = shown_windows()
    assert window.judging.session.rater_name == "yuki"
    assert window.judging.query_text.text() == "best pizza recipes"
    with open_database(path) as database, database.reading() as session:
        assert find_rater(session, "yuki") is not None
    assert preferences.recent_databases() == [str(path)]


def test_no_arguments_open_the_demo_in_the_data_folder_then_the_last_database(
    tmp_path, shown_windows, capsys
):
    assert main([]) == 0
    demo = tmp_path / "demo.sqlite"
    assert demo.is_file() and "created the demo database" in capsys.readouterr().err
    (window,) = shown_windows()
    assert window.pages.currentWidget() is window.chooser  # no rater chosen yet
    window.choose_rater("ana")
    window.close()
    window.database.close()
    assert main([]) == 0  # the same database, and the rater chosen last time
    (window,) = shown_windows()
    assert window.database.describe() == str(demo)
    assert window.judging.session.rater_name == "ana"
