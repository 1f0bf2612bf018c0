"""Agreement between raters on preferences, and each rater's intransitive triples.

A unit is a query and an unordered pair of its documents; its values are the raters' choices
``a``, ``b``, ``equal`` and ``neither`` (``skipped`` is a missing value). Agreement is the
share of agreeing pairs of choices over the units two or more raters chose on, and
Krippendorff's alpha at the nominal level (the choices have no order: ``equal`` is not between
``a`` and ``b`` when ``neither`` is a choice too), both by the coefficients the grades use, each
with a 95% percentile bootstrap interval from the same resamples of the units (with
replacement, seeded), as the grades' alpha has its interval (``coefficients.alpha_interval``).

An intransitive triple is three documents of a query that one rater ordered in a cycle
(x over y, y over z, z over x); ties take no part. Its share of the rater's triples whose three
pairs the rater ordered says how consistent the rater is with themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judge_app.agreement.coefficients import (
    Estimate,
    Interval,
    alpha_interval,
    coincidence_patterns,
    krippendorff_alpha,
    percent_agreement,
)

VALUES = ("a", "b", "equal", "neither")
"""The choices that are values of a unit (``skipped`` is none)."""


CONFIDENCE = 0.95
NO_SHARED_UNIT = "no pair was chosen on by two or more raters"


@dataclass(frozen=True)
class PreferenceAgreement:
    """Agreement on preferences: the ``units`` chosen on by two or more raters, the share of
    agreeing pairs of choices and Krippendorff's nominal alpha, and the 95% bootstrap
    interval of each from ``resamples`` resamples of the units."""

    units: int
    share: Estimate
    alpha: Estimate
    share_interval: Interval
    alpha_interval: Interval
    resamples: int


def choice_counts(frame: pd.DataFrame) -> np.ndarray:
    """``counts[unit, value]``: how many raters made each choice of ``VALUES`` on each unit
    (query, doc_a, doc_b) of ``frame`` (``skipped`` left out)."""
    chosen = frame[frame["choice"].isin(VALUES)]
    units = pd.MultiIndex.from_frame(chosen[["query_id", "doc_a", "doc_b"]]).factorize()[0]
    values = pd.Categorical(chosen["choice"], categories=VALUES).codes
    n_units = int(units.max()) + 1 if len(units) else 0
    counts = np.bincount(units * len(VALUES) + values, minlength=n_units * len(VALUES))
    return counts.reshape(n_units, len(VALUES))


def preference_agreement(
    frame: pd.DataFrame, resamples: int = 1000, seed: int = 0
) -> PreferenceAgreement:
    """Agreement between the raters of ``frame`` (``query_id, doc_a, doc_b, rater, choice``,
    one row per rater and unit), with bootstrap intervals from ``resamples`` resamples of
    the units (0: none), seeded."""
    counts = choice_counts(frame)
    shared = int(np.count_nonzero(counts.sum(axis=1) >= 2))
    if shared == 0:
        none = Estimate.undefined(NO_SHARED_UNIT)
        nowhere = Interval(None, NO_SHARED_UNIT)
        return PreferenceAgreement(0, none, none, nowhere, nowhere, resamples)
    values = np.arange(len(VALUES))
    alpha = krippendorff_alpha(counts, "nominal", values)
    if alpha.value is None:
        alpha = Estimate.undefined(_one_choice(counts))
        alphas = Interval(None, alpha.reason)
    else:
        alphas = alpha_interval(counts, "nominal", values, resamples, seed, CONFIDENCE)
    return PreferenceAgreement(
        shared,
        percent_agreement(counts),
        alpha,
        share_interval(counts, resamples, seed),
        alphas,
        resamples,
    )


def share_interval(counts: np.ndarray, resamples: int = 1000, seed: int = 0) -> Interval:
    """Percentile bootstrap interval of the share of agreeing pairs of choices, from the
    resamples of units ``alpha_interval`` draws with the same ``seed`` (a multinomial draw of
    how often each pattern of choice counts occurs)."""
    if resamples < 1:
        return Interval(None, "no bootstrap resamples were asked for")
    contributions, frequency = coincidence_patterns(counts)
    if len(frequency) == 0:
        return Interval(None, NO_SHARED_UNIT)
    # a pattern's coincidences sum to its m choices, their diagonal to m × its agreeing share
    agreeing = np.trace(contributions, axis1=1, axis2=2) / contributions.sum(axis=(1, 2))
    units = int(frequency.sum())
    draws = np.random.default_rng(seed).multinomial(units, frequency / units, size=resamples)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(draws @ agreeing / units, [tail, 1 - tail])
    return Interval((float(low), float(high)))


def _one_choice(counts: np.ndarray) -> str:
    """Why alpha is undefined where two or more raters chose: they all made one choice."""
    shared = counts[counts.sum(axis=1) >= 2].sum(axis=0)
    made = VALUES[int(np.argmax(shared))]
    return (
        f"every choice on the pairs chosen on by two or more raters is {made!r}: with no "
        "variation, alpha is undefined"
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
