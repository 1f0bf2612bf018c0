"""Where the tests find the project's files, wherever in tests/ a test lives."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository's root."""
DEMO = ROOT / "resources" / "demo"
"""The demo campaign's files."""
REFERENCE = ROOT / "tests" / "reference"
"""trec_eval's test collections and outputs, and the agreement's golden files."""
DOCS = ROOT / "docs"
"""The user guide and its screenshots."""
TREC_EVAL = REFERENCE / "trec_eval"
"""trec_eval's test collections and its outputs on them (see its README)."""
