"""The application type-checks: mypy, configured in pyproject.toml, finds nothing in judge_app.

Tests and benchmarks are not checked: pytest runs every line of them, and typing their
fixtures and narrowing their Optionals for mypy would add annotations that find nothing more.
pandas, pyarrow and scipy are read as untyped (their stub packages refuse calls that these
versions accept); PySide6, SQLAlchemy, numpy, matplotlib and tqdm (types-tqdm) are typed.

mypy runs in a process of its own, as ruff does in test_lint: ``mypy.api.run`` in this one
would keep its two million objects (500 MB) to the end of the session, whose exit then takes
seconds longer than the check itself.
"""

from __future__ import annotations

import subprocess
import sys

from paths import ROOT


def test_mypy_finds_no_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"],
        cwd=ROOT,  # the configuration's paths, and the cache (.mypy_cache), are the checkout's
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
