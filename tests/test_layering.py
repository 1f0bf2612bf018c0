"""The core runs without Qt: every module outside judge_app.gui imports with PySide6 blocked,
and the packages below the front ends do not even ask for Qt or the GUI inside a function."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import judge_app

CHECK = """
import importlib, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6'):
            raise ImportError('Qt is blocked in this test: ' + name)
sys.meta_path.insert(0, Block())
for name in sys.argv[1:]:
    importlib.import_module(name)
"""
PACKAGE = Path(judge_app.__file__).parent
CORE_PACKAGES = ["store", "io", "metrics", "agreement", "reports", "judging", "trec_eval", "judges"]
"""Below every front end: none of their modules may import Qt or judge_app.gui, anywhere."""


def core_modules() -> list[str]:
    return [
        info.name
        for info in pkgutil.walk_packages(judge_app.__path__, "judge_app.")
        if not info.name.startswith("judge_app.gui") and "migrations" not in info.name
    ]


def imports_without_qt(modules: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHECK, *modules], capture_output=True, text=True)


def test_core_modules_import_without_qt():
    modules = core_modules()
    assert "judge_app.store.database" in modules and "judge_app.io.readers" in modules
    result = imports_without_qt(modules)
    assert result.returncode == 0, result.stderr


def test_the_logic_the_gui_shows_imports_without_qt():
    """What the judging screen shows (the session, timing, key maps, highlighting) and the
    agreement page's tables are core: they import, and are tested, without a display."""
    moved = [
        "judge_app.judging.session",
        "judge_app.judging.timing",
        "judge_app.judging.keys",
        "judge_app.judging.highlight",
        "judge_app.agreement.tables",
    ]
    assert set(moved) <= set(core_modules())
    result = imports_without_qt(moved)
    assert result.returncode == 0, result.stderr


def test_core_packages_never_import_qt_or_the_gui_even_late():
    """An import inside a function escapes the import test above: read the source too."""
    found = []
    for package in CORE_PACKAGES:
        for path in sorted((PACKAGE / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] in ("PySide6", "shiboken6") or (
                        name == "judge_app.gui" or name.startswith("judge_app.gui.")
                    ):
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {name}")
    assert found == []
