"""Screenshots of the judging window at 1280×800, light and dark, for a person to look at.

    python tests/screenshots.py [FOLDER]   (default /tmp/judge_app_screens)

Builds the demo database in a temporary folder, judges a few results from the keyboard as a
new rater, and saves the rater chooser, the judging screen and the shortcut overlay.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from judge_app.cli import main as cli  # noqa: E402


def take(folder: Path) -> list[Path]:
    from judge_app.gui import create_main_window
    from judge_app.gui.app import application

    app = application()
    saved = []
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["JUDGE_APP_SETTINGS"] = str(Path(scratch, "settings.ini"))
        database = Path(scratch, "demo.sqlite")
        with redirect_stdout(StringIO()):
            cli(["demo", str(database)])
        for theme in ("light", "dark"):
            chooser = create_main_window(database)
            chooser.set_theme(theme)
            chooser.resize(1280, 800)
            chooser.show()
            app.processEvents()
            saved.append(_save(chooser, folder / f"rater-chooser-{theme}.png"))
            chooser.close()

            window = create_main_window(database, rater=f"sam-{theme}")
            window.set_theme(theme)
            window.resize(1280, 800)
            window.show()
            app.processEvents()
            view = window.judging.result_view
            for key in (Qt.Key.Key_4, Qt.Key.Key_2, Qt.Key.Key_5, Qt.Key.Key_0):
                QTest.keyClick(view, key)
            QTest.keyClick(view, Qt.Key.Key_S)
            window.judging.note_edit.setText("page is in Polish")
            QTest.keyClick(window.judging.note_edit, Qt.Key.Key_Return)
            QTest.keyClick(view, Qt.Key.Key_3)
            app.processEvents()
            saved.append(_save(window, folder / f"judging-{theme}.png"))
            QTest.keyClick(view, Qt.Key.Key_Question)
            app.processEvents()
            saved.append(_save(window, folder / f"shortcuts-{theme}.png"))
            window.close()
            window.database.close()
    return saved


def _save(window, path: Path) -> Path:  # type: ignore[no-untyped-def]
    window.grab().save(str(path))
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/judge_app_screens")
    target.mkdir(parents=True, exist_ok=True)
    for path in take(target):
        print(path)
