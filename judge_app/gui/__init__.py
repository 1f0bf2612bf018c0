"""Everything Qt: the judging window. The only package that imports PySide6."""

from __future__ import annotations

from judge_app.gui.binding import check_binding

check_binding()  # before any Qt call: a release known to crash on this Python is refused

from judge_app.gui.app import create_main_window, run  # noqa: E402

__all__ = ["create_main_window", "run"]
