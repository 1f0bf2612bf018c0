"""Screenshots of the window at 1280×800, light and dark, for a person to look at.

    python tests/screenshots.py [FOLDER]   (default /tmp/judge_app_screens)

Builds the demo database in a temporary folder and saves: the start page (with recent
databases and with an error), the rater chooser, the judging screen after a few grades from
the keyboard, the shortcut overlay, the import dialog listing a refused file's problems, the
export dialog, the lead's dialogs (assign, rubric, pooling, quality checks), the evaluation
page with a query's drill-down, the agreement page, the raters page on a campaign with
planted raters (one too fast, one inconsistent, one biased: tests/agreement/test_rater_quality.py), and
the automatic judges page on a campaign with a lenient judge (tests/commands/test_calibrate.py). A
dialog is shown over its window, as a user sees it. The light drill-down is also saved in
docs/ (the other pages: tests/screenshots_window.py, in a real window).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from paths import DOCS
from PySide6.QtCore import QPoint, Qt, QThreadPool  # noqa: E402
from PySide6.QtGui import QColor, QPainter, QPixmap  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from judge_app.cli import main as cli  # noqa: E402

if TYPE_CHECKING:
    from judge_app.gui.window import MainWindow

SIZE = (1280, 800)


def take(folder: Path) -> list[Path]:
    from judge_app.gui import create_main_window, preferences
    from judge_app.gui.app import application

    app = application()
    saved = []
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        template = scratch / "demo.sqlite"
        with redirect_stdout(StringIO()):
            cli(["demo", str(template)])
        queries, run = _broken_files(scratch)
        for theme in ("light", "dark"):
            folder_of_theme = scratch / theme  # each theme starts from the demo as built
            folder_of_theme.mkdir()
            os.environ["JUDGE_APP_SETTINGS"] = str(folder_of_theme / "settings.ini")
            preferences.set_theme_name(theme)
            database = folder_of_theme / "demo.sqlite"
            campaign = folder_of_theme / "campaign-2026-q3.sqlite"
            shutil.copy(template, database)
            shutil.copy(template, campaign)
            for name in (folder_of_theme / "pilot.sqlite", campaign, database):
                preferences.add_recent_database(str(name))  # pilot.sqlite does not exist
            start = _shown(create_main_window(None, demo=lambda path=database: path), theme)
            saved.append(_save(start, folder / f"start-{theme}.png"))
            start.opening.open_path(scratch / "notes.txt")  # not there: the error on the start page
            saved.append(_save(start, folder / f"start-error-{theme}.png"))
            start.close()

            chooser = _shown(create_main_window(database), theme)
            saved.append(_save(chooser, folder / f"rater-chooser-{theme}.png"))
            for name in ("assign", "rubric", "pool", "quality"):
                dialog = chooser.show_dialog(name)
                saved.append(_save_dialog(chooser, dialog, folder / f"lead-{name}-{theme}.png"))
                dialog.reject()
            chooser.close()
            chooser.database.close()

            window = _shown(create_main_window(database, rater="sam"), theme)
            view = window.judging.results.view
            for key in (Qt.Key.Key_4, Qt.Key.Key_2, Qt.Key.Key_5, Qt.Key.Key_0):
                QTest.keyClick(view, key)
            QTest.keyClick(view, Qt.Key.Key_S)
            window.judging.document.note_edit.setText("page is in Polish")
            QTest.keyClick(window.judging.document.note_edit, Qt.Key.Key_Return)
            QTest.keyClick(view, Qt.Key.Key_3)
            while window.judging.in_flight:
                app.processEvents()
            judging = _save(window, folder / f"judging-{theme}.png")
            saved.append(judging)
            QTest.keyClick(view, Qt.Key.Key_Question)
            app.processEvents()
            saved.append(_save(window, folder / f"shortcuts-{theme}.png"))
            QTest.keyClick(window.overlay, Qt.Key.Key_Escape)
            saved += _pair_screen(window, folder, theme)

            dialog = window.show_dialog("import")
            dialog.queries.edit.setText(str(queries))
            dialog.run.edit.setText(str(run))
            dialog.import_button.click()
            QThreadPool.globalInstance().waitForDone()
            for _ in range(3):
                app.processEvents()
            saved.append(_save_dialog(window, dialog, folder / f"import-problems-{theme}.png"))
            dialog.reject()
            dialog = window.show_dialog("export")
            dialog.as_qrels.setChecked(True)
            dialog.path.setText(str(Path.home() / "judgments.qrels"))
            saved.append(_save_dialog(window, dialog, folder / f"export-{theme}.png"))
            dialog.reject()
            dialog = window.show_dialog("import")
            dialog.source.edit.setText(
                str(Path(__file__).parent / "io" / "formats" / "quepid_book.json")
            )
            saved.append(_save_dialog(window, dialog, folder / f"import-other-tool-{theme}.png"))
            dialog.reject()
            dialog = window.show_dialog("export")
            dialog.as_format.setChecked(True)
            dialog.path.setText(str(Path.home() / "quepid-ratings.csv"))
            saved.append(_save_dialog(window, dialog, folder / f"export-other-tool-{theme}.png"))
            dialog.reject()
            saved += _analysis_pages(window, folder, theme)
            window.close()
            window.database.close()
            saved += _raters_page(folder_of_theme, folder, theme)
            saved += _calibration_page(folder_of_theme, folder, theme)
    return saved


def _pair_screen(window: MainWindow, folder: Path, theme: str) -> list[Path]:
    """The pair screen after two choices from the keyboard, and its shortcuts; then back to
    grading. The light one is also saved in docs/."""
    app = QApplication.instance()
    window.menus.page_actions["pairs"].trigger()
    screen = window.pair_page.screen
    while screen.session is None:  # read on a worker
        QThreadPool.globalInstance().waitForDone(50)
        app.processEvents()
    for key in (Qt.Key.Key_Left, Qt.Key.Key_3):
        QTest.keyClick(screen, key)
        while screen.in_flight:
            app.processEvents()
    saved = [_save(window, folder / f"pairs-{theme}.png")]
    if theme == "light":
        shutil.copy(saved[0], DOCS / "pairs.png")
    QTest.keyClick(screen, Qt.Key.Key_Question)
    app.processEvents()
    saved.append(_save(window, folder / f"pairs-shortcuts-{theme}.png"))
    QTest.keyClick(window.overlay, Qt.Key.Key_Escape)
    QTest.keyClick(screen, Qt.Key.Key_Escape)
    return saved


def _analysis_pages(window: MainWindow, folder: Path, theme: str) -> list[Path]:
    """The evaluation page (with its drill-down over it) and the agreement page."""
    saved = []
    window.analysis.show_evaluation()
    _finish(window)
    evaluation = _save(window, folder / f"evaluation-{theme}.png")
    saved.append(evaluation)
    view = window.analysis.evaluation_view
    dialog = view.open_query("q03")
    drill_down = _save_dialog(window, dialog, folder / f"drill-down-{theme}.png", fit=False)
    saved.append(drill_down)
    dialog.reject()
    window.analysis.show_agreement()
    _finish(window)
    agreement = _save(window, folder / f"agreement-{theme}.png")
    saved.append(agreement)
    if theme == "light":  # the pages themselves: tests/screenshots_window.py, in a real window
        DOCS.mkdir(exist_ok=True)
        shutil.copy(drill_down, DOCS / "drill-down.png")
        saved.append(DOCS / "drill-down.png")
    return saved


def _raters_page(scratch: Path, folder: Path, theme: str) -> list[Path]:
    """The raters page on the planted campaign, with the rater who judges too fast chosen
    (docs/ shows it on the demo, in a real window: tests/screenshots_window.py)."""
    from campaign_support import plant_raters

    from judge_app.gui import create_main_window

    path, _planted = plant_raters(scratch)
    window = _shown(create_main_window(path), theme)
    window.analysis.show_raters()
    _finish(window)
    window.analysis.raters_view.choose_rater("ben")
    shot = _save(window, folder / f"raters-{theme}.png")
    window.close()
    window.database.close()
    return [shot]


def _calibration_page(scratch: Path, folder: Path, theme: str) -> list[Path]:
    """The automatic judges page with a judge 0.6 grades more lenient than the humans."""
    from automatic_support import lenient_campaign

    from judge_app.gui import create_main_window

    path, _judgments, _grades = lenient_campaign(scratch)
    window = _shown(create_main_window(path), theme)
    window.analysis.show_calibration()
    _finish(window)
    shot = _save(window, folder / f"calibration-{theme}.png")
    window.close()
    window.database.close()
    return [shot]


def _finish(window: MainWindow) -> None:
    """Wait for the window's background work (a page's first load, its numbers, its charts:
    each on a worker) and let it show the outcome."""
    from judge_app.gui.charts_canvas import ChartCanvas

    def busy() -> bool:
        charts = window.findChildren(ChartCanvas)
        drawing = any(chart.isVisible() and not chart.drawn for chart in charts)
        return window.task is not None or window.analysis.loader.waiting is not None or drawing

    while busy():
        QThreadPool.globalInstance().waitForDone(50)
        QApplication.processEvents()
    for _ in range(3):
        QApplication.processEvents()


def _broken_files(folder: Path) -> tuple[Path, Path]:
    """A queries file and a run with the mistakes users make, for the import dialog."""
    queries = folder / "queries.csv"
    queries.write_text(
        "query_id,text,description\n"
        "q101,best espresso grinder,\n"
        ",cheap flights to lisbon,\n"
        "q103,how to descale a kettle,\n"
        "q103,descale kettle vinegar,\n",
        encoding="utf-8",
    )
    run = folder / "bm25-run.txt"
    run.write_text(
        "q101 Q0 d0101 1 12.7 bm25\nq101 Q0 d0102 2 11.9\nq101 Q0 d0103 three 9.4 bm25\n",
        encoding="utf-8",
    )
    return queries, run


def _shown(window: MainWindow, theme: str) -> MainWindow:
    window.set_theme(theme)
    window.resize(*SIZE)
    window.show()
    QApplication.processEvents()
    return window


def _save(window: QWidget, path: Path) -> Path:
    QApplication.processEvents()
    window.grab().save(str(path))
    return path


def _save_dialog(window: QWidget, dialog: QWidget, path: Path, fit: bool = True) -> Path:
    """The window, dimmed as under a window-modal dialog, with the dialog in its middle (sized
    to its contents with ``fit``, else as it opens)."""
    for _ in range(3):
        QApplication.processEvents()
    if fit:
        dialog.adjustSize()
    QApplication.processEvents()
    picture = QPixmap(window.grab())
    painter = QPainter(picture)
    painter.fillRect(picture.rect(), QColor(0, 0, 0, 90))
    shot = dialog.grab()
    corner = QPoint(
        (picture.width() - shot.width()) // 2, max((picture.height() - shot.height()) // 2, 0)
    )
    painter.fillRect(shot.rect().translated(corner).adjusted(-1, -1, 1, 1), QColor(0, 0, 0, 80))
    painter.drawPixmap(corner, shot)
    painter.end()
    picture.save(str(path))
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/judge_app_screens")
    target.mkdir(parents=True, exist_ok=True)
    for saved_path in take(target):
        print(saved_path)
