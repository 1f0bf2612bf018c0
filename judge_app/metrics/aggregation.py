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
from judge_app.option_declarations import AGGREGATE

if TYPE_CHECKING:
    from judge_app.metrics.codes import Coded, Graded

METHODS = tuple(AGGREGATE.choices)
MAJORITY_TIE_RULE = "the lower grade"
"""How ``majority`` breaks a tie between equally voted grades."""


def parse_method(text: str) -> str:
    """Check an aggregation name: one of METHODS or ``rater:NAME``; ValueError otherwise."""
    if text in METHODS:
        return text
    if text.startswith("rater:") and text[len("rater:") :].strip():
        return f"rater:{normal_id(text[len('rater:') :])}"
    raise ValueError(f"unknown aggregation {quoted(text)}: use {', '.join(METHODS)} or rater:NAME")


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


def aggregate(graded: Graded, method: str, prefer_adjudicated: bool = True) -> Coded:
    """One grade per (query, document) of ``graded``: (query, document, grade) codes in order
    of query and document. Skipped judgments are not in ``graded``; ``majority`` breaks ties
    toward the lower grade (MAJORITY_TIE_RULE, told by :func:`majority_tie`); ``rater:NAME``
    takes that rater's grades alone (none if there is no such rater). The grades of the rater
    ``adjudicated`` replace the raters' aggregate where they exist (``prefer_adjudicated``) or
    are left out. Grades may come out real (mean); real grades (an automatic judge's) are kept
    as they are."""
    method = parse_method(method)
    width = len(graded.docs)
    pairs = graded.query * width + graded.doc
    if method.startswith("rater:"):
        mine = graded.rater == graded.rater_code(method[len("rater:") :])
        order = np.argsort(pairs[mine], kind="stable")
        keys, grades = pairs[mine][order], graded.grade[mine][order].astype(np.float64)
    else:
        adjudicated = graded.rater_code(ADJUDICATED)
        keys, grades = aggregate_codes(
            pairs, graded.rater, graded.grade, method, adjudicated, prefer_adjudicated
        )
    return keys // width, keys % width, grades


def aggregate_codes(
    pairs: np.ndarray,
    raters: np.ndarray,
    grades: np.ndarray,
    method: str,
    adjudicated: int = -1,
    prefer_adjudicated: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`aggregate` of graded judgments given as (pair code, rater code, grade): each
    pair code once in ascending order and its grade (float64) by ``method`` (one of METHODS),
    the rater ``adjudicated`` preferred or left out as there."""
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
    pairs, grades = pairs[order], grades[order].astype(np.float64)
    if not len(pairs):
        return pairs, grades
    starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
    counts = np.diff(np.r_[starts, len(pairs)])
    keys = pairs[starts]
    if method == "mean":
        return keys, np.add.reduceat(grades, starts) / counts
    if method == "median":
        low, high = grades[starts + (counts - 1) // 2], grades[starts + counts // 2]
        return keys, (low + high) / 2
    if method == "max":
        return keys, grades[starts + counts - 1]
    if method == "min":
        return keys, grades[starts]
    # majority: the most votes, ties to the lower grade
    runs = np.flatnonzero(np.r_[True, (pairs[1:] != pairs[:-1]) | (grades[1:] != grades[:-1])])
    votes = np.diff(np.r_[runs, len(pairs)])
    run_pairs, run_grades = pairs[runs], grades[runs]
    best = np.lexsort((run_grades, -votes, run_pairs))
    first = np.r_[True, run_pairs[best][1:] != run_pairs[best][:-1]]
    return keys, run_grades[best][first]
