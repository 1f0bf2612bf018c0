"""Rater aggregation: one grade per (query, document) from several raters' judgments.

A lead's adjudicated grade is stored as the judgment of the rater ``adjudicated`` (never over
a rater's own). It is not a rater's opinion: aggregation either prefers it, where there is one,
over the raters' aggregate, or leaves it out; agreement always leaves it out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import quoted
from judge_app.names import ADJUDICATED as ADJUDICATED  # where the role is named
from judge_app.names import normal_id

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("mean", "median", "majority", "max", "min")
MAJORITY_TIE_RULE = "the lower grade"
"""How ``majority`` breaks a tie between equally voted grades."""


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
    grade (MAJORITY_TIE_RULE, told by :func:`majority_tie`); ``rater:NAME`` takes that
    rater's grades alone. The grades of the rater ``adjudicated`` replace the raters'
    aggregate where they exist (``prefer_adjudicated``) or are left out.
    Grades may come out real (mean)."""
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


def majority_tie(grades: Iterable[float]) -> str | None:
    """How ``majority`` broke a tie among one document's grades, in words ("tie 2–2 between
    grades 1 and 3, broken by the lower grade: 1"); None when one grade has the most votes."""
    votes = Counter(int(grade) for grade in grades)
    if not votes:
        return None
    most = max(votes.values())
    tied = sorted(grade for grade, count in votes.items() if count == most)
    if len(tied) < 2:
        return None
    shown = ", ".join(map(str, tied[:-1])) + f" and {tied[-1]}"
    return (
        f"tie {'–'.join([str(most)] * len(tied))} between grades {shown}, "
        f"broken by {MAJORITY_TIE_RULE}: {tied[0]}"
    )


def aggregate_codes(
    pairs: np.ndarray,
    raters: np.ndarray,
    grades: np.ndarray,
    method: str,
    adjudicated: int = -1,
    prefer_adjudicated: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``aggregate_grades`` on integer codes, without pandas: of graded judgments (pair code,
    rater code, integer grade), each pair code once in ascending order and its grade (float64) by
    ``method`` (one of METHODS), the rater ``adjudicated`` preferred or left out as there."""
    decided = raters == adjudicated
    keys, combined = _combined_codes(pairs[~decided], grades[~decided], method)
    if prefer_adjudicated and decided.any():
        kept = ~np.isin(keys, pairs[decided])
        keys = np.concatenate([keys[kept], pairs[decided]])
        combined = np.concatenate([combined[kept], grades[decided].astype(np.float64)])
        order = np.argsort(keys, kind="stable")
        keys, combined = keys[order], combined[order]
    return keys, combined


def _combined_codes(
    pairs: np.ndarray, grades: np.ndarray, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair code once, ascending, and its grades combined by ``method``."""
    order = np.argsort(pairs) if method == "mean" else np.lexsort((grades, pairs))
    pairs, grades = pairs[order], grades[order].astype(np.int64)
    if not len(pairs):
        return pairs, grades.astype(np.float64)
    starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
    counts = np.diff(np.r_[starts, len(pairs)])
    keys = pairs[starts]
    if method == "mean":
        return keys, np.add.reduceat(grades, starts) / counts
    if method == "median":
        low, high = grades[starts + (counts - 1) // 2], grades[starts + counts // 2]
        return keys, (low + high) / 2
    if method == "max":
        return keys, grades[starts + counts - 1].astype(np.float64)
    if method == "min":
        return keys, grades[starts].astype(np.float64)
    # majority: the most votes, ties to the lower grade
    runs = np.flatnonzero(np.r_[True, (pairs[1:] != pairs[:-1]) | (grades[1:] != grades[:-1])])
    votes = np.diff(np.r_[runs, len(pairs)])
    run_pairs, run_grades = pairs[runs], grades[runs]
    best = np.lexsort((run_grades, -votes, run_pairs))
    first = np.r_[True, run_pairs[best][1:] != run_pairs[best][:-1]]
    return keys, run_grades[best][first].astype(np.float64)
