"""The core runs without Qt: every module outside judge_app.gui imports with PySide6 blocked."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

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


def test_core_modules_import_without_qt():
    modules = [
        info.name
        for info in pkgutil.walk_packages(judge_app.__path__, "judge_app.")
        if not info.name.startswith("judge_app.gui") and "migrations" not in info.name
    ]
    assert "judge_app.store.database" in modules and "judge_app.io.readers" in modules
    result = subprocess.run([sys.executable, "-c", CHECK, *modules], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
