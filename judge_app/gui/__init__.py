"""Everything Qt: the judging window. The only package that imports PySide6."""

from __future__ import annotations

from judge_app.gui.app import create_main_window, run

__all__ = ["create_main_window", "run"]
