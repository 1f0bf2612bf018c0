"""Everything Qt: the judging window. The only package that imports PySide6."""

from __future__ import annotations

from judge_app.gui.compat import protect_singletons

protect_singletons()  # before any Qt call: see compat.py

from judge_app.gui.app import create_main_window, run  # noqa: E402

__all__ = ["create_main_window", "run"]
