"""Rater aggregation: one grade per (query, document) from several raters' judgments.

A lead's adjudicated grade is stored as the judgment of the rater ``adjudicated`` (never over
a rater's own). It is not a rater's opinion: aggregation either prefers it, where there is one,
over the raters' aggregate, or leaves it out; agreement always leaves it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import quoted
from judge_app.names import normal_id

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("mean", "median", "majority", "max", "min")
ADJUDICATED = "adjudicated"


def parse_method(text: str) -> str:
    """Check an aggregation name: one of METHODS or ``rater:NAME``; ValueError otherwise."""
    if text in METHODS:
        return text
    if text.startswith("rater:") and text[len("rater:") :].strip():
        return f"rater:{normal_id(text[len('rater:') :])}"
    raise ValueError(f"unknown aggregation {quoted(text)}: use {', '.join(METHODS)} or rater:NAME")


def aggregate_grades(
    judgments: pd.DataFrame, method: str = "mean", prefer_adjudicated: bool = True
) -> pd.DataFrame:
    """``query_id, doc_id, grade`` from judgments (``query_id, doc_id, rater, grade,
    skipped``): skipped judgments are left out; ``majority`` breaks ties toward the lower
    grade; ``rater:NAME`` takes that rater's grades alone. The grades of the rater
    ``adjudicated`` replace the raters' aggregate where they exist (``prefer_adjudicated``)
    or are left out. Grades may come out real (mean)."""
    import pandas as pd

    method = parse_method(method)
    graded = judgments[~judgments["skipped"].astype(bool) & judgments["grade"].notna()]
    graded = graded.assign(grade=graded["grade"].astype("float64"))
    keys = ["query_id", "doc_id"]
    if method.startswith("rater:"):
        rows = graded[graded["rater"] == method[len("rater:") :]]
        result = rows[keys + ["grade"]]
    else:
        adjudicated = graded["rater"] == ADJUDICATED
        result = _combined(graded[~adjudicated], method)
        if prefer_adjudicated and adjudicated.any():
            decided = graded.loc[adjudicated, keys + ["grade"]]
            known = pd.MultiIndex.from_frame(decided[keys])
            kept = ~pd.MultiIndex.from_frame(result[keys]).isin(known)
            result = pd.concat([result[kept], decided], ignore_index=True)
    result = result.sort_values(keys).reset_index(drop=True)
    return result.assign(grade=result["grade"].astype(np.float64))


def _combined(graded: pd.DataFrame, method: str) -> pd.DataFrame:
    """One grade per (query, document) of ``graded`` by ``method`` (not ``rater:NAME``)."""
    keys = ["query_id", "doc_id"]
    if method == "majority":
        counts = graded.groupby(keys + ["grade"]).size().rename("votes").reset_index()
        counts = counts.sort_values(keys + ["votes", "grade"], ascending=[True, True, False, True])
        return counts.drop_duplicates(keys)[keys + ["grade"]]
    return graded.groupby(keys, as_index=False)["grade"].agg(method)
