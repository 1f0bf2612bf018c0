"""Everything Qt: the judging window. The only package that imports PySide6."""

from __future__ import annotations

import gc

# Importing the window makes objects that live as long as the process (modules, classes): the
# garbage collector is off meanwhile, as it would walk them again and again for nothing.
_collecting = gc.isenabled()
gc.disable()
try:
    from judge_app.gui.binding import check_binding

    check_binding()  # before any Qt call: a release known to crash on this Python is refused

    from judge_app.gui.app import create_main_window, run
finally:
    if _collecting:
        gc.enable()

__all__ = ["create_main_window", "run"]
