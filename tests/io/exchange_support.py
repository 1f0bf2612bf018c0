"""Helpers of the tests of other tools' formats: a database's judgments as a table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judge_app.commands.export import ExportOptions, export
from judge_app.io.readers import read_judgments

FORMATS = Path(__file__).parent / "formats"  # the tools' documented examples (README.md)
COLUMNS = ["query_id", "doc_id", "rater", "grade", "skipped", "note"]


def judgments_of(database: object, folder: Path) -> pd.DataFrame:
    """Every judgment of ``database``, sorted, as ``COLUMNS`` (its own CSV export, read)."""
    path = folder / f"judgments-{id(database)}.csv"
    export(database, ExportOptions("judgments", path))  # type: ignore[arg-type]
    frame = read_judgments(path)[COLUMNS + ["query_text", "duration_ms", "judged_at"]]
    return frame.sort_values(["query_id", "doc_id", "rater"]).reset_index(drop=True)
