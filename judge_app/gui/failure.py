"""An error no code caught, raised in a slot of the window: said in the window, never lost.

Qt calls ``sys.excepthook`` for an exception a slot raised, then carries on; Python's own hook
prints it to a terminal that a desktop user does not see. ``install`` replaces the hook: an
error of ours (its message is written for the user, such as a database file deleted while
open) is shown in the status bar and on the judging screen's banner; anything else is a defect:
its traceback is appended to ``errors.log`` in the user's data folder and a dialog says, in
plain words, that judge_app carried on and where the details are.
"""

from __future__ import annotations

import html
import re
import sys
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from judge_app.errors import JudgeAppError
from judge_app.gui import preferences
from judge_app.gui.error_words import error_text

if TYPE_CHECKING:
    from judge_app.gui.window import MainWindow

LOG_NAME = "errors.log"
# what PySide puts before the message of an error that went through its calls of our
# overrides (keyPressEvent inside eventFilter…), once per call
_OVERRIDE_PREFIX = re.compile(r"^(Error calling Python override of \S+\(\): )+")
Hook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def log_path() -> Path:
    """Where the tracebacks of unexpected errors are kept: ``errors.log`` in the data folder."""
    return preferences.data_folder() / LOG_NAME


def log_failure(error: BaseException, trace: TracebackType | None) -> Path | None:
    """Append ``error`` with its traceback to the log; the log's path (None if it cannot be
    written: the dialog then says so)."""
    path = log_path()
    text = "".join(traceback.format_exception(type(error), error, trace))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"--- {datetime.now().isoformat(timespec='seconds')}\n{text}\n")
    except OSError:
        return None
    return path


def report(window: MainWindow, error: BaseException, trace: TracebackType | None) -> None:
    """Say in ``window`` that ``error`` happened (and log it, if it is a defect)."""
    if isinstance(error, JudgeAppError):
        text = _OVERRIDE_PREFIX.sub("", error_text(error))
        window.show_message(text, error=True)
        if window.pages.currentWidget() is window.judging:
            window.judging.error_banner.setText(f"<b>{html.escape(text)}</b>")
            window.judging.error_banner.show()
        return
    path = log_failure(error, trace)
    where = f"The details were written to {path}." if path else "The details could not be saved."
    text = (
        "judge_app met an unexpected problem and carried on; what you were doing may not "
        f"have finished. Grades the status bar confirmed are saved. {where}"
    )
    window.show_message(text, error=True)
    dialog = QMessageBox(QMessageBox.Icon.Warning, "judge_app: unexpected problem", text)
    dialog.setObjectName("failureDialog")
    dialog.setParent(window, dialog.windowFlags())
    dialog.setInformativeText(f"Please report it with that file. ({html.escape(str(error))})")
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()


def install(window: MainWindow) -> Hook:
    """Report the errors no code caught in ``window``; returns the hook replaced."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if not issubclass(kind, Exception):  # KeyboardInterrupt, SystemExit: as Python does
            previous(kind, error, trace)
            return
        try:
            report(window, error, trace)
        except Exception:  # the window itself is broken: at least the terminal hears of it
            previous(kind, error, trace)

    sys.excepthook = hook
    return previous
