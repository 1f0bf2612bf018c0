"""The application type-checks: mypy, configured in pyproject.toml, finds nothing in judge_app.

Tests and benchmarks are not checked: pytest runs every line of them, and typing their
fixtures and narrowing their Optionals for mypy would add annotations that find nothing more.
pandas, pyarrow and scipy are read as untyped (their stub packages refuse calls that these
versions accept); PySide6, SQLAlchemy, numpy, matplotlib and tqdm (types-tqdm) are typed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the configuration's paths are the checkout's
    report, errors, status = api.run(
        ["--config-file", "pyproject.toml", "--cache-dir", str(ROOT / ".mypy_cache")]
    )
    assert status == 0, report + errors
