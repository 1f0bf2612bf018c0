"""Everything Qt: the judging window. The only package that imports PySide6."""

from __future__ import annotations

import gc

# Importing the window makes objects that live as long as the process (modules, classes): the
# garbage collector is off meanwhile, as it would walk them again and again for nothing.
_collecting = gc.isenabled()
gc.disable()
try:
    # The core the window stands on (SQLAlchemy, the store, a rater's session) comes before
    # Qt: once PySide6 is loaded it reads the source of every module imported after it (for
    # its ``__feature__`` switches), which would add tens of milliseconds to a start.
    import judge_app.judging.session  # noqa: F401
    from judge_app.gui.binding import check_binding

    check_binding()  # before any Qt call: a release known to crash on this Python is refused

    from judge_app.gui.app import create_main_window, run
finally:
    if _collecting:
        gc.enable()

__all__ = ["create_main_window", "run"]
