"""How many queries a paired t-test needs: Sakai's topic set size design ("Topic set size
design", Information Retrieval Journal 19, 2016) for the two-sided paired t-test, as his Excel
tool (samplesizeTTEST) computes it: start from the normal approximation
``n = ((z_{1-α/2} + z_{1-β}) / (Δ/σ))²`` and move to the smallest n whose power, from the
noncentral t distribution (here exact rather than the tool's approximation of it), reaches
1 − β. σ² is the variance of the per-query differences: :func:`difference_variance` estimates
it from runs' per-query scores.

No pandas and no scipy.stats (a second of start-up): the t and noncentral t distributions of
``scipy.special``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

MIN_QUERIES = 2
"""The fewest queries a paired t-test can run on (one degree of freedom)."""


def paired_t_power(n: int, effect_size: float, alpha: float) -> float:
    """The power of the two-sided paired t-test at level ``alpha`` over ``n`` queries when the
    mean difference is ``effect_size`` standard deviations of the differences: the chance
    that |T| exceeds the critical value when T is noncentral t with n − 1 degrees of freedom
    and noncentrality ``effect_size · √n`` (``statsmodels``' ``TTestPower().power``)."""
    from scipy.special import stdtrit

    if n < MIN_QUERIES:
        raise ValueError(f"a paired t-test needs at least {MIN_QUERIES} queries, not {n}")
    df = n - 1
    critical = float(stdtrit(df, 1 - alpha / 2))
    noncentrality = abs(effect_size) * math.sqrt(n)
    upper, lower = _nct_tails(df, noncentrality, critical)
    return min(1.0, max(0.0, upper + lower))


def _nct_tails(df: int, noncentrality: float, critical: float) -> tuple[float, float]:
    """``(P(T > c), P(T < −c))`` for T noncentral t: from ``scipy.special.nctdtr``, or, where
    it fails (NaN far in a tail: a large noncentrality), from :func:`_nct_tails_integrated`."""
    from scipy.special import nctdtr

    upper = 1 - float(nctdtr(df, noncentrality, critical))
    lower = float(nctdtr(df, noncentrality, -critical))
    if not (0 <= upper <= 1 and 0 <= lower <= 1):  # NaN fails both
        integrated = _nct_tails_integrated(df, noncentrality, critical)
        upper = upper if 0 <= upper <= 1 else integrated[0]
        lower = lower if 0 <= lower <= 1 else integrated[1]
    return upper, lower


def _nct_tails_integrated(df: int, noncentrality: float, critical: float) -> tuple[float, float]:
    """``(P(T > c), P(T < −c))`` for ``T = (Z + δ) / S``, S = √(χ²_df / df), as the
    expectations over S of ``Φ(δ − cS)`` and ``Φ(−δ − cS)``, integrated numerically over the
    range that holds all but 10⁻¹⁷ of S's distribution at either end, each divided by the
    integral of S's density over that range (whose constant, from ``gammaln`` of half a
    large df, is off by some 10⁻⁸ at ten million queries)."""
    from scipy.integrate import quad
    from scipy.special import gammainccinv, gammaincinv, gammaln, ndtr

    half = df / 2
    low = math.sqrt(2 * float(gammaincinv(half, _OUTSIDE)) / df)
    high = math.sqrt(2 * float(gammainccinv(half, _OUTSIDE)) / df)
    # log density of S at s: log(2 df s) + log of the χ²_df density at df·s²
    constant = math.log(2 * df) + (half - 1) * math.log(df) - half * math.log(2) - gammaln(half)

    def density(s: float) -> float:
        if s <= 0:
            return math.sqrt(2 / math.pi) if df == 1 else 0.0
        return math.exp(constant + (df - 1) * math.log(s) - df * s * s / 2)

    points = sorted({p for p in (1.0, noncentrality / critical) if low < p < high}) or None

    def integral(weight: Callable[[float], float]) -> float:
        value, _error = quad(
            lambda s: weight(s) * density(s),
            low,
            high,
            points=points,
            epsabs=1e-13,
            epsrel=1e-10,
            limit=200,
        )
        return float(value)

    total = integral(lambda _s: 1.0)
    upper = integral(lambda s: float(ndtr(noncentrality - critical * s)))
    lower = integral(lambda s: float(ndtr(-noncentrality - critical * s)))
    return upper / total, lower / total


_OUTSIDE = 1e-17
"""The share of S's distribution left outside the integral at either end."""


def normal_approximation(effect_size: float, power: float, alpha: float) -> float:
    """``((z_{1-α/2} + z_{power}) / effect_size)²``: the queries the test would need if the
    differences' variance were known (the start of Sakai's search; it is a little low)."""
    from scipy.special import ndtri

    z = float(ndtri(1 - alpha / 2)) + float(ndtri(power))
    return (z / abs(effect_size)) ** 2


def queries_needed(effect_size: float, power: float, alpha: float) -> int:
    """The fewest queries (at least 2) with which the two-sided paired t-test at level
    ``alpha`` has at least ``power`` to detect a mean difference of ``effect_size`` standard
    deviations of the differences: from the normal approximation, up or down to the smallest
    n that reaches it (power rises with n)."""
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError(f"alpha and power must lie between 0 and 1, not {alpha} and {power}")
    if not (math.isfinite(effect_size) and effect_size != 0):
        raise ValueError(f"the effect size must be finite and not 0, not {effect_size}")

    def enough(n: int) -> bool:
        return paired_t_power(n, effect_size, alpha) >= power

    start = max(MIN_QUERIES, math.ceil(normal_approximation(effect_size, power, alpha)))
    if enough(start):  # the smallest enough n is at most start: step down to it
        high, step = start, 1
        while high - step >= MIN_QUERIES and enough(high - step):
            high -= step
            step *= 2
        low = high - step if high - step >= MIN_QUERIES else MIN_QUERIES - 1
    else:  # gallop up to an n that is enough
        low, step = start, 1
        while not enough(low + step):
            low += step
            step *= 2
        high = low + step
    while high - low > 1:  # low is not enough (or below the fewest), high is
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class VarianceEstimate:
    """The variance of per-query differences between two runs, estimated from runs' scores:
    ``pooled`` over the ``pairs`` of ``runs`` (each pair's differences on the queries both
    scored, with ``df`` degrees of freedom in all), or with one run twice the variance of its
    scores (``pooled`` False: a conservative bound, exact when two runs' scores are
    uncorrelated, larger when they agree as runs of one collection do). ``queries``: the
    queries the estimate used."""

    variance: float
    runs: tuple[str, ...]
    pairs: int
    queries: int
    df: int
    pooled: bool

    @property
    def deviation(self) -> float:
        """The standard deviation σ of the differences."""
        return math.sqrt(self.variance)

    def describe(self) -> str:
        """Where the estimate comes from, in words."""
        queries = f"{self.queries:,} {'query' if self.queries == 1 else 'queries'}"
        if not self.pooled:
            return (
                f"twice the variance of {self.runs[0]}'s per-query scores over {queries} "
                "(one run: a conservative bound)"
            )
        pairs = f"{self.pairs} {'pair' if self.pairs == 1 else 'pairs'}"
        return f"pooled over {pairs} of runs ({', '.join(self.runs)}) on {queries}"


class TooFewQueries(ValueError):
    """The scores leave no degree of freedom to estimate a variance from."""


def difference_variance(runs: Sequence[str], scores: np.ndarray) -> VarianceEstimate:
    """The variance of the per-query differences between ``runs``, from their ``scores``
    (queries × runs; NaN: not scored). Two or more runs: the pooled variance of every
    pair's differences on the queries both scored, ``Σ Σ(d − d̄)² / Σ(n − 1)`` over the pairs
    (when every run scores every query, twice the residual mean square of the two-way ANOVA
    of queries × runs: Sakai's estimate). One run: twice the variance of its scores.
    TooFewQueries when no pair, or the one run, has two queries."""
    scores = np.asarray(scores, dtype=np.float64).reshape(-1, len(runs))
    if not runs:
        raise TooFewQueries("no run to estimate the variance from")
    scored = ~np.isnan(scores)
    if len(runs) == 1:
        values = scores[scored[:, 0], 0]
        if values.size < 2:
            raise TooFewQueries(f"{runs[0]} scores {values.size} queries: a variance needs two")
        return VarianceEstimate(
            2 * float(np.var(values, ddof=1)),
            (runs[0],),
            pairs=0,
            queries=int(values.size),
            df=int(values.size - 1),
            pooled=False,
        )
    squares, df, pairs = 0.0, 0, 0
    used = np.zeros(len(scores), dtype=bool)
    for first in range(len(runs)):
        for second in range(first + 1, len(runs)):
            both = scored[:, first] & scored[:, second]
            count = int(np.count_nonzero(both))
            if count < 2:
                continue
            d = scores[both, second] - scores[both, first]
            squares += float(np.sum((d - d.mean()) ** 2))
            df += count - 1
            pairs += 1
            used |= both
    if df == 0:
        raise TooFewQueries("no two runs score two queries in common: a variance needs two")
    return VarianceEstimate(
        squares / df, tuple(runs), pairs, int(np.count_nonzero(used)), df, pooled=True
    )
