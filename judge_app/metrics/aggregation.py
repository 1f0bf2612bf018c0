"""Rater aggregation: one grade per (query, document) from several raters' judgments."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("mean", "median", "majority", "max", "min")


def parse_method(text: str) -> str:
    """Check an aggregation name: one of METHODS or ``rater:NAME``; ValueError otherwise."""
    if text in METHODS or (text.startswith("rater:") and text[len("rater:") :].strip()):
        return text
    raise ValueError(f"unknown aggregation {text!r}: use {', '.join(METHODS)} or rater:NAME")


def aggregate_grades(judgments: pd.DataFrame, method: str = "mean") -> pd.DataFrame:
    """``query_id, doc_id, grade`` from judgments (``query_id, doc_id, rater, grade,
    skipped``): skipped judgments are left out; ``majority`` breaks ties toward the lower
    grade; ``rater:NAME`` takes that rater's grades alone. Grades may come out real (mean)."""
    method = parse_method(method)
    graded = judgments[~judgments["skipped"].astype(bool) & judgments["grade"].notna()]
    graded = graded.assign(grade=graded["grade"].astype("float64"))
    keys = ["query_id", "doc_id"]
    if method.startswith("rater:"):
        rows = graded[graded["rater"] == method[len("rater:") :]]
        result = rows[keys + ["grade"]]
    elif method == "majority":
        counts = graded.groupby(keys + ["grade"]).size().rename("votes").reset_index()
        counts = counts.sort_values(keys + ["votes", "grade"], ascending=[True, True, False, True])
        result = counts.drop_duplicates(keys)[keys + ["grade"]]
    else:
        result = graded.groupby(keys, as_index=False)["grade"].agg(method)
    result = result.sort_values(keys).reset_index(drop=True)
    return result.assign(grade=result["grade"].astype(np.float64))
