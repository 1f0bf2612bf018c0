"""Screenshots of the real window under a window manager, as a user sees it: the judging,
adjudication, evaluation, agreement and raters screens, and on a campaign with a lenient
automatic judge (``campaign_support.judged_by_machine``) the evaluation corrected by it and the
automatic judges page, at 1024×768, 1280×800 and 1920×1080, at 100% and 150% scaling, light
and dark (84 PNGs of the whole screen).

    python tests/screenshots_window.py [FOLDER]   (default /tmp/judge_app_window)

Needs Xvfb and openbox (``apt-get install -y xvfb openbox``): each screen size gets an X
server of its own with the window manager, and each (scale, theme) a process of its own, so
that the window opens where a first start puts it. The window is driven by its keys. The
light 1280×800 screens, the dark 1280×800 raters page and the dark 1024×768 judging screen
are also saved in docs/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

from paths import DOCS

SCREENS = ((1024, 768), (1280, 800), (1920, 1080))
SCALES = ("1", "1.5")
THEMES = ("light", "dark")
FIRST_DISPLAY = 90
DOCS_SHOTS = {  # shot: its name in docs/ (the README shows them)
    "1280x800-100-light-judging.png": "judging.png",
    "1280x800-100-light-evaluation.png": "evaluation.png",
    "1280x800-100-light-agreement.png": "agreement.png",
    "1280x800-100-light-adjudication.png": "adjudication.png",
    "1280x800-100-light-raters.png": "raters.png",
    "1280x800-100-dark-raters.png": "raters-dark.png",
    "1024x768-100-dark-judging.png": "judging-1024-dark.png",
    "1280x800-100-light-evaluation-corrected.png": "evaluation-corrected.png",
    "1280x800-100-light-automatic-judges.png": "automatic-judges.png",
}


def main(folder: Path) -> None:
    for tool in ("Xvfb", "openbox"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed: apt-get install -y xvfb openbox")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        template = Path(scratch) / "demo.sqlite"
        from judge_app.cli import main as cli

        with redirect_stdout(StringIO()):
            cli(["demo", str(template)])
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from campaign_support import judged_by_machine

        judged = judged_by_machine(Path(scratch) / "judged.sqlite", Path(scratch))
        _take(folder, template, judged, Path(scratch))
    for name, docs_name in DOCS_SHOTS.items():
        _crop_to_window(folder / name, DOCS / docs_name)
        print(f"saved {DOCS / docs_name}")


def _take(folder: Path, template: Path, judged: Path, scratch: Path) -> None:
    """Every (screen, scale, theme): an X server per screen size, a process per window."""
    for number, (width, height) in enumerate(SCREENS, start=FIRST_DISPLAY):
        display = f":{number}"
        server = subprocess.Popen(
            ["Xvfb", display, "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1)
        manager = subprocess.Popen(
            ["openbox"], env={**os.environ, "DISPLAY": display}, stderr=subprocess.DEVNULL
        )
        time.sleep(1)
        try:
            for scale in SCALES:
                for theme in THEMES:
                    name = f"{width}x{height}-{round(float(scale) * 100)}-{theme}"
                    database = scratch / f"{name}.sqlite"
                    shutil.copy(template, database)
                    judged_copy = scratch / f"{name}-judged.sqlite"
                    shutil.copy(judged, judged_copy)
                    environment = {
                        **os.environ,
                        "DISPLAY": display,
                        "QT_QPA_PLATFORM": "xcb",
                        "QT_SCALE_FACTOR": scale,
                        "JUDGE_APP_SETTINGS": str(scratch / f"{name}.ini"),
                    }
                    command = [sys.executable, __file__, "--one", str(database), theme,
                               str(folder / name), str(judged_copy)]  # fmt: skip
                    subprocess.run(command, env=environment, check=True)
                    print(f"saved {folder / name}-*.png")
        finally:
            for process in (manager, server):
                process.terminate()
                process.wait()


def _crop_to_window(shot: Path, saved: Path) -> None:
    """The window and its frame, without the empty screen around it."""
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    rows = [y for y in range(image.height()) if image.pixelColor(image.width() // 2, y).value()]
    columns = [x for x in range(image.width()) if image.pixelColor(x, image.height() // 2).value()]
    image.copy(columns[0], rows[0], columns[-1] - columns[0] + 1, rows[-1] - rows[0] + 1).save(
        str(saved)
    )


def one(database: str, theme: str, prefix: str, judged: str) -> None:
    """In this process: the window on ``database``, then on ``judged`` (a campaign with the
    automatic judge ``lenient``), each screen saved as ``prefix-NAME.png``."""
    from PySide6.QtCore import Qt, QThreadPool
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from judge_app.commands.adjudicate import read_disputes
    from judge_app.gui import create_main_window
    from judge_app.gui.charts_canvas import ChartCanvas

    window = create_main_window(database, "dan")
    window.set_theme(theme)
    window.show()
    window.raise_()
    window.activateWindow()
    QTest.qWait(800)

    def drawn() -> bool:
        """The page loaded (its stack, the first time), its charts drawn (on workers)."""
        charts = window.findChildren(ChartCanvas)
        loading = window.analysis.loader.waiting is not None
        return not loading and all(chart.drawn or not chart.isVisible() for chart in charts)

    def settle(page_ready=lambda: True) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            QTest.qWait(100)
            task = window.task
            if (task is None or not task.running) and not window.judging.in_flight:
                if page_ready() and drawn():
                    break
        QThreadPool.globalInstance().waitForDone(30_000)
        QTest.qWait(500)

    def save(name: str) -> None:
        screen = QGuiApplication.primaryScreen()
        screen.grabWindow(0).save(f"{prefix}-{name}.png")

    view = window.judging.results.view
    for key in (Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_1, Qt.Key.Key_S, Qt.Key.Key_2):
        QTest.keyClick(view, key)
    QTest.keyClick(view, Qt.Key.Key_N)
    QTest.keyClicks(window.judging.document.note_edit, "recipe, but for a pizza oven")
    QTest.keyClick(window.judging.document.note_edit, Qt.Key.Key_Return)
    settle()
    save("judging")
    window.analysis.show_evaluation()
    settle()
    save("evaluation")
    window.analysis.show_agreement()
    settle()
    save("agreement")
    assert window.database is not None
    disputes = read_disputes(window.database)
    if disputes.items:
        first = disputes.items[0]
        window.adjudicate(first.query_id, first.doc_id)
        settle()
        save("adjudication")
    window.analysis.show_raters()
    settle()
    window.analysis.raters_view.choose_rater("chloe")  # the demo's rater who is often too fast
    settle()
    save("raters")
    window.close()
    window = create_main_window(judged, "ana")
    window.set_theme(theme)
    window.show()
    window.raise_()
    window.activateWindow()
    QTest.qWait(800)
    window.analysis.show_evaluation()
    settle()
    grades = window.analysis.evaluation_view.grades
    grades.setCurrentIndex(grades.findData("corrected:lenient"))
    settle(lambda: window.analysis.evaluation_view.evaluation.corrected is not None)
    save("evaluation-corrected")
    window.analysis.show_calibration()
    settle()
    save("automatic-judges")
    window.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        from judge_app.gui.app import application

        application()
        one(*sys.argv[2:6])
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/judge_app_window"))
