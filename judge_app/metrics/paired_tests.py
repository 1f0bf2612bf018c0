"""Paired tests and the standardized effect of per-query differences ``d`` (one run's score
minus another's on the same query): the Wilcoxon signed-rank test, the sign test and Cohen's
d_z with its noncentral-t interval.

Each gives the numbers of its scipy.stats counterpart (``wilcoxon``, ``binomtest``, ``nct``),
computed with scipy.special alone: importing scipy.stats costs a second of start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WILCOXON_EXACT_UP_TO = 50
"""Without zeros or ties, the Wilcoxon p-value is exact up to this many pairs (scipy's)."""
WILCOXON_ENUMERATED_UP_TO = 13
"""With zeros or ties, up to this many pairs the p-value is still exact, over every sign
flip (scipy enumerates them); beyond, the normal approximation with the tie correction."""


def wilcoxon_test(d: np.ndarray) -> tuple[float, float]:
    """``(statistic, p)`` of the two-sided Wilcoxon signed-rank test of differences ``d``,
    as ``scipy.stats.wilcoxon(d)`` gives them: zero differences left out (Wilcox), ties given
    their average rank, the statistic the smaller of the rank sums; p exact (every sign flip
    counted) up to 50 pairs without zeros or ties and up to 13 pairs with them, else from
    the normal approximation with the tie correction and no continuity correction.

    No pairs: ``(nan, nan)``; every difference zero: ``(0.0, 1.0)`` (scipy gives NaN or 1
    depending on the count).
    """
    if d.size == 0:
        return math.nan, math.nan
    nonzero = d[d != 0]
    m = nonzero.size
    if m == 0:
        return 0.0, 1.0
    ranks, ties = _average_ranks(np.abs(nonzero))
    r_plus = float(np.sum(ranks[nonzero > 0]))
    r_minus = m * (m + 1) / 2 - r_plus
    statistic = min(r_plus, r_minus)
    has_ties = bool(np.any(ties > 1))
    exact = d.size <= WILCOXON_ENUMERATED_UP_TO or (
        d.size <= WILCOXON_EXACT_UP_TO and m == d.size and not has_ties
    )
    if exact:
        return statistic, _signed_rank_exact_p(ranks, r_plus)
    from scipy.special import ndtr

    variance = (m * (m + 1) * (2 * m + 1) - np.sum(ties**3 - ties) / 2) / 24
    z = (r_plus - m * (m + 1) * 0.25) / math.sqrt(variance)
    return statistic, float(2 * ndtr(-abs(z)))


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1 … n of ``values``, ties given their average; and the size of each tie group."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.append(starts, values.size))
    average = starts + (sizes + 1) / 2  # 1-based: the mean of ranks start+1 … start+size
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(average, sizes)
    return ranks, sizes.astype(np.float64)


def _signed_rank_exact_p(ranks: np.ndarray, r_plus: float) -> float:
    """Two-sided p of the rank sum ``r_plus`` over all 2^m sign flips of the (average)
    ``ranks``: twice the smaller tail, at most 1. Doubled, the ranks are whole numbers, so
    the distribution of the sum is counted exactly (float64 counts are exact below 2^53)."""
    doubled = np.rint(2 * ranks).astype(np.int64)
    counts = np.zeros(int(doubled.sum()) + 1)
    counts[0] = 1.0
    for rank in doubled:
        counts[rank:] = counts[rank:] + counts[: counts.size - rank]
    observed = int(round(2 * r_plus))
    total = 2.0**ranks.size
    upper = counts[observed:].sum() / total
    lower = counts[: observed + 1].sum() / total
    return float(min(1.0, 2 * min(upper, lower)))


def sign_test(d: np.ndarray) -> tuple[int, float]:
    """``(wins, p)`` of the two-sided sign test of differences ``d``: ties left out, the
    wins (positive differences) among the others tested against Binomial(n, 1/2); the p of
    ``scipy.stats.binomtest(wins, n)``. No difference but ties: p = 1."""
    wins = int(np.count_nonzero(d > 0))
    n = wins + int(np.count_nonzero(d < 0))
    if n == 0:
        return wins, 1.0
    from scipy.special import bdtr

    return wins, float(min(1.0, 2 * bdtr(min(wins, n - wins), n, 0.5)))


@dataclass(frozen=True)
class Effect:
    """Cohen's d_z (mean difference over the differences' standard deviation) with its
    confidence interval from the noncentral t distribution (exact for normal differences;
    Cumming & Finch 2001), over ``n`` pairs."""

    d_z: float
    low: float
    high: float
    n: int


def standardized_effect(d: np.ndarray, confidence: float = 0.95) -> Effect:
    """Cohen's d_z of differences ``d`` and its ``confidence`` interval: the noncentrality
    parameters λ whose noncentral t (n − 1 degrees of freedom) puts the observed t = d_z·√n
    at its upper and lower (1 − confidence)/2 quantiles, divided by √n; as ``scipy.stats.nct``
    inverted. Fewer than two pairs, or differences that do not vary (no spread to
    standardize by): NaN."""
    n = int(d.size)
    if n < 2 or np.ptp(d) == 0:
        return Effect(math.nan, math.nan, math.nan, n)
    d_z = float(np.mean(d) / np.std(d, ddof=1))
    t = d_z * math.sqrt(n)
    tail = (1 - confidence) / 2
    low, high = (_noncentrality(n - 1, p, t) / math.sqrt(n) for p in (1 - tail, tail))
    return Effect(d_z, low, high, n)


def _noncentrality(df: int, p: float, t: float) -> float:
    """The noncentrality λ with P(T ≤ t) = p for T noncentral t (``df``, λ): scipy.special's
    ``nctdtrinc`` (within about 1e-7), then bisection of ``nctdtr`` (decreasing in λ) to
    the last bits."""
    from scipy.special import nctdtr, nctdtrinc

    estimate = float(nctdtrinc(df, p, t))
    step = 1e-6 * max(1.0, abs(estimate))
    low, high = estimate - step, estimate + step
    while nctdtr(df, low, t) < p:
        low -= step
        step *= 2
    while nctdtr(df, high, t) > p:
        high += step
        step *= 2
    while True:
        middle = (low + high) / 2
        if not low < middle < high:
            return middle
        if nctdtr(df, middle, t) > p:
            low = middle
        else:
            high = middle
