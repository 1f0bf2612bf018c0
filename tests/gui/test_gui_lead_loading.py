"""The first lead page of a session paints at once with its busy state and loads what it
stands on off the UI thread (issue 29, item 8). In a fresh interpreter, as a lead's first
Ctrl+2 is: this process has imported the analysis stack long ago."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from judge_app.gui.page_loading import QT, stack_of

PROBE = textwrap.dedent(
    """
    import json, os, sys, tempfile, threading
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["JUDGE_APP_SETTINGS"] = os.path.join(tempfile.mkdtemp(), "settings.ini")
    from PySide6.QtCore import QTimer
    from judge_app.gui import create_main_window
    from judge_app.gui.app import application

    app = application()
    window = create_main_window(sys.argv[1], "dan")
    window.show()
    on_the_ui_thread = []
    seen = {}

    def heard(event, args):
        if event == "import" and threading.current_thread() is threading.main_thread():
            on_the_ui_thread.append(args[0])

    def ask() -> None:
        sys.addaudithook(heard)
        window.menus.page_actions[sys.argv[2]].trigger()
        seen["first"] = window.pages.currentWidget().objectName()
        seen["menu"] = all(action.isEnabled() for action in window.menus.page_actions.values())
        if len(sys.argv) > 3:  # the lead moves on before the first page has loaded
            window.menus.page_actions[sys.argv[3]].trigger()
        poll.start()

    def shown() -> None:
        if window.analysis.shown_page() is not None:
            app.quit()

    poll = QTimer()  # the real event loop (app.exec), as a user's window runs
    poll.setInterval(20)
    poll.timeout.connect(shown)
    QTimer.singleShot(50, ask)
    QTimer.singleShot(240_000, app.quit)
    app.exec()
    heavy = [
        name for name in on_the_ui_thread
        if name.split(".")[0] in ("pandas", "scipy", "statsmodels", "matplotlib", "judge_app")
    ]
    seen.update(shown=window.analysis.shown_page(), heavy=heavy)
    print(json.dumps(seen))
    window.close()
    """
)


def probe(database, *actions: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(database), *actions],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_lead_page_paints_at_once_and_loads_off_the_ui_thread(demo_template):
    seen = probe(demo_template, "evaluation")
    assert seen["first"] == "loadingPage" and seen["menu"]  # shown at once, the menus live
    assert seen["shown"] == "evaluation"
    assert seen["heavy"] == []  # pandas, scipy, matplotlib, the use cases, the page: off it


def test_a_page_asked_for_while_another_loads_is_the_one_shown(demo_template):
    seen = probe(demo_template, "evaluation", "agreement")
    assert seen["shown"] == "agreement" and seen["heavy"] == []


def test_the_stack_names_every_page_and_no_qt_module():
    stack = stack_of(["judge_app.gui.analysis"])
    for needed in (
        "judge_app.commands.evaluate",
        "judge_app.commands.agree",
        "judge_app.commands.rater_quality",
        "judge_app.commands.calibrate",
        "judge_app.reports.figures",
        "judge_app.gui.evaluation_view",
        "judge_app.gui.calibration_view",
        "pandas",
    ):
        assert needed in stack
    assert not [name for name in stack if name.startswith(QT)]


def test_a_lead_page_does_not_watch_every_event_as_judging_does(qtbot, window, monkeypatch):
    """Judging watches every event of the application (the rater's activity, key releases):
    a lead page does not, so its events never wait for the GIL its worker holds."""
    touched = []
    monkeypatch.setattr(window.judging.timer, "touch", lambda: touched.append(True))
    QTest.keyClick(window.judging.results.view, Qt.Key.Key_Down)
    assert touched
    window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    touched.clear()
    QTest.keyClick(window.analysis.evaluation_view.table, Qt.Key.Key_Down)
    QTest.mouseClick(window.analysis.evaluation_view.table.viewport(), Qt.MouseButton.LeftButton)
    assert touched == []
    window.show_judging()
    QTest.keyClick(window.judging.results.view, Qt.Key.Key_Down)
    assert touched
