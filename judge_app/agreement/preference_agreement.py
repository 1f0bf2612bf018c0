"""Agreement between raters on preferences, and each rater's intransitive triples.

A unit is a query and an unordered pair of its documents; its values are the raters' choices
``a``, ``b``, ``equal`` and ``neither`` (``skipped`` is a missing value). Agreement is the
share of agreeing pairs of choices over the units two or more raters chose on, and
Krippendorff's alpha at the nominal level (the choices have no order: ``equal`` is not between
``a`` and ``b`` when ``neither`` is a choice too), both by the coefficients the grades use.

An intransitive triple is three documents of a query that one rater ordered in a cycle
(x over y, y over z, z over x); ties take no part. Its share of the rater's triples whose three
pairs the rater ordered says how consistent the rater is with themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judge_app.agreement.coefficients import Estimate, krippendorff_alpha, percent_agreement

VALUES = ("a", "b", "equal", "neither")
"""The choices that are values of a unit (``skipped`` is none)."""


@dataclass(frozen=True)
class PreferenceAgreement:
    """Agreement on preferences: the ``units`` chosen on by two or more raters, the share of
    agreeing pairs of choices and Krippendorff's nominal alpha."""

    units: int
    share: Estimate
    alpha: Estimate


def choice_counts(frame: pd.DataFrame) -> np.ndarray:
    """``counts[unit, value]``: how many raters made each choice of ``VALUES`` on each unit
    (query, doc_a, doc_b) of ``frame`` (``skipped`` left out)."""
    chosen = frame[frame["choice"].isin(VALUES)]
    units = pd.MultiIndex.from_frame(chosen[["query_id", "doc_a", "doc_b"]]).factorize()[0]
    values = pd.Categorical(chosen["choice"], categories=VALUES).codes
    n_units = int(units.max()) + 1 if len(units) else 0
    counts = np.bincount(units * len(VALUES) + values, minlength=n_units * len(VALUES))
    return counts.reshape(n_units, len(VALUES))


def preference_agreement(frame: pd.DataFrame) -> PreferenceAgreement:
    """Agreement between the raters of ``frame`` (``query_id, doc_a, doc_b, rater, choice``,
    one row per rater and unit)."""
    counts = choice_counts(frame)
    shared = int(np.count_nonzero(counts.sum(axis=1) >= 2))
    values = np.arange(len(VALUES))
    return PreferenceAgreement(
        shared, percent_agreement(counts), krippendorff_alpha(counts, "nominal", values)
    )


def intransitive_triples(frame: pd.DataFrame) -> pd.DataFrame:
    """Per rater: ``cyclic`` triples, ``triples`` whose three pairs the rater ordered (one
    better than the other), and ``share`` (cyclic / triples; NaN with none)."""
    strict = frame[frame["choice"].isin(("a", "b"))]
    rows = []
    for rater, mine in strict.groupby("rater", sort=True):
        cyclic = triples = 0
        for _, query in mine.groupby("query_id", sort=False):
            winner = np.where(query["choice"] == "a", query["doc_a"], query["doc_b"])
            loser = np.where(query["choice"] == "a", query["doc_b"], query["doc_a"])
            docs, codes = np.unique(np.concatenate([winner, loser]), return_inverse=True)
            beats = np.zeros((len(docs), len(docs)))
            beats[codes[: len(winner)], codes[len(winner) :]] = 1
            ordered = beats + beats.T
            cyclic += round(np.trace(beats @ beats @ beats) / 3)
            triples += round(np.trace(ordered @ ordered @ ordered) / 6)
        rows.append((rater, cyclic, triples, cyclic / triples if triples else np.nan))
    return pd.DataFrame(rows, columns=["rater", "cyclic", "triples", "share"])
