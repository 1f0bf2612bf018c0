"""Everything a database holds, as plain values: to prove that a refused import changed nothing."""

from __future__ import annotations

import pandas as pd

from judge_app.store import Database, reads


def rows(frame: pd.DataFrame) -> list[dict[str, object]]:
    """A frame's rows with every missing value (None, NaN, NaT, NA) as None."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def snapshot(db: Database) -> tuple:
    """Counts and the full content of every table a user can see."""
    with db.reading() as session:
        return (
            reads.table_counts(session),
            rows(reads.queries_frame(session)),
            rows(reads.documents_frame(session)),
            rows(reads.results_frame(session)),
            rows(reads.judgments_frame(session)),
            rows(reads.history_frame(session)),
        )
