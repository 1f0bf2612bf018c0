"""The layers of DESIGN section 1 hold: the import contracts of pyproject.toml
(``[tool.importlinter]``: each package imports only the packages below it, no cycle between
them, Qt in the gui only, even inside a function) are kept, and the core runs without Qt: every
module outside judge_app.gui imports with PySide6 blocked."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import tomllib

import pytest
from paths import ROOT

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
PYPROJECT = ROOT / "pyproject.toml"
CONTRACTS = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"][
    "contracts"
]
LINT = """
import sys
from importlinter.cli import lint_imports
config, contract = sys.argv[1:]
sys.exit(lint_imports(config_filename=config, limit_to_contracts=(contract,), no_cache=True))
"""


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


def test_every_contract_holds_with_no_exception():
    """No import is let through a contract: the reports name no type a use case defines (the
    raters' report is data of the core, ``agreement.quality``)."""
    excepted = {contract["id"]: contract.get("ignore_imports", []) for contract in CONTRACTS}
    assert {name: imports for name, imports in excepted.items() if imports} == {}


@pytest.mark.parametrize("contract", [contract["id"] for contract in CONTRACTS])
def test_import_contract_is_kept(contract):
    """import-linter reads every import, inside functions and under ``TYPE_CHECKING`` too; its
    report names the imports that break the contract."""
    result = subprocess.run(
        [sys.executable, "-c", LINT, str(PYPROJECT), contract],
        capture_output=True,
        text=True,
        cwd=PYPROJECT.parent,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
