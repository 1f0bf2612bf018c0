"""The code stays clean: ruff's checks and formatting pass on every source folder."""

from __future__ import annotations

import re
import subprocess
import sys

from paths import ROOT

FOLDERS = ["judge_app", "migrations", "tests", "benchmarks", "docs"]


def test_ruff_check_and_format():
    for command in (["check"], ["format", "--check"]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *command, *FOLDERS],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_tests_mirror_the_packages_and_share_only_support_modules():
    """A test file lives in the folder of the package it tests (or here, for the project as
    a whole), and what tests share is a support module here, never another test file."""
    packages = {path.name for path in (ROOT / "judge_app").iterdir() if path.is_dir()}
    folders = {path.name for path in (ROOT / "tests").iterdir() if path.is_dir()}
    assert folders - {"reference", "__pycache__"} <= packages | {"cli"}
    for test in (ROOT / "tests").rglob("*.py"):
        text = test.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) test_", text, re.MULTILINE), test
