"""Paired comparison of two runs' per-query scores: bootstrap interval, t-test, randomization test.

Runs A and B are compared on the queries both have. The randomization test is the two-sided
sign-flip test of the mean difference, estimated by Monte Carlo (Smucker, Allan & Carterette,
CIKM 2007); it is the test :meth:`Comparison.describe` bases its verdict on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
"""Confidence level of the interval :func:`compare_scores` puts on the mean difference."""

_CHUNK_CELLS = 1 << 20
"""Resampled values held in memory at once (bootstrap batches, sign-flip chunks)."""

_TIE_TOLERANCE = 1e-9
"""Flipped sums within this fraction of sum(|d|) of the observed one count as ties (rounding)."""


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its percentile-bootstrap confidence interval over ``n`` values."""

    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class Comparison:
    """Run ``other`` against run ``baseline`` on ``measure`` over their ``n`` common queries.

    Differences are ``other − baseline``; a win is a query where ``other`` scores higher.
    """

    baseline: str
    other: str
    measure: str
    n: int
    mean_baseline: float
    mean_other: float
    mean_difference: float
    difference_interval: MeanInterval
    t_statistic: float
    t_p_value: float
    randomization_p_value: float
    permutations: int
    wins: int
    losses: int
    ties: int

    def describe(self, digits: int = 4, alpha: float = 0.05) -> str:
        """One plain-English sentence; significance is judged by the randomization test."""
        if self.n < 2:
            return (
                f"{self.other} vs {self.baseline} on {self.measure}: too few queries to test "
                f"({_count(self.n, 'query', 'queries')} in common)."
            )
        over = f"over {_count(self.n, 'query', 'queries')}"
        if self.wins == self.losses == 0:
            return (
                f"{self.other} ties {self.baseline} on {self.measure} {over}: "
                "the two runs score the same on every query."
            )
        verdict = "significant" if self.randomization_p_value < alpha else "not significant"
        return (
            f"{self._headline(digits)} {over}: {_count(self.wins, 'win', 'wins')}, "
            f"{_count(self.losses, 'loss', 'losses')}, {_count(self.ties, 'tie', 'ties')}; "
            f"paired t-test {_format_p(self.t_p_value, digits)}, "
            f"randomization test {_format_p(self.randomization_p_value, digits)} "
            f"({self.permutations:,} permutations): "
            f"the difference is {verdict} at {alpha:g}."
        )

    def _headline(self, digits: int) -> str:
        """Who beats whom by how much, with the confidence interval of the difference."""
        interval = self.difference_interval
        difference = f"{self.mean_difference:+.{digits}f}"
        ci = f"{CONFIDENCE:.0%} CI {interval.low:+.{digits}f} to {interval.high:+.{digits}f}"
        if self.mean_difference == 0:
            return (
                f"{self.other} matches {self.baseline} on mean {self.measure} "
                f"(difference {difference}, {ci})"
            )
        verb = "beats" if self.mean_difference > 0 else "trails"
        return f"{self.other} {verb} {self.baseline} on {self.measure} by {difference} ({ci})"


def bootstrap_interval(
    values: np.ndarray | Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> MeanInterval:
    """Mean of ``values`` with a percentile-bootstrap interval: the numbers of
    ``scipy.stats.bootstrap(method="percentile")`` with a ``default_rng(seed)``, drawn the
    same way (batches of resamples of at most ``_CHUNK_CELLS`` values), without importing
    scipy.stats (a second of start-up).

    No values: all NaN. One value, or all equal: ``low == high == mean``.
    """
    x = _as_scores(values)
    if x.size == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0)
    if np.ptp(x) == 0:
        value = float(x[0])
        return MeanInterval(value, value, value, int(x.size))
    rng = np.random.default_rng(seed)
    batch = max(1, _CHUNK_CELLS // x.size)
    # int32 draws are the int64 ones (below 2**32 numpy draws 32 bits either way), in half the
    # memory: a third less time
    index = np.int32 if x.size < 2**31 else np.int64
    means = np.concatenate(
        [
            np.mean(x[rng.integers(0, x.size, (min(batch, resamples - start), x.size), index)], -1)
            for start in range(0, resamples, batch)
        ]
    )
    alpha = np.float64((1 - confidence) / 2)
    low, high = (_linear_quantile(means, p) for p in (alpha, 1 - alpha))
    return MeanInterval(float(np.mean(x)), low, high, int(x.size))


def _linear_quantile(values: np.ndarray, p: np.float64) -> float:
    """The ``p`` quantile of ``values`` as ``scipy.stats.quantile(method="linear")`` computes
    it (Hyndman and Fan's definition 7), to the last bit."""
    ordered = np.sort(values)
    n = ordered.size
    position = float(p * n + (1 - p))
    upper = position // 1
    weight = 0.0 if upper - 1 < 0 else position % 1
    low, high = (int(min(max(index, 0.0), n - 1)) for index in (upper - 1, upper))
    return float((1 - weight) * float(ordered[low]) + weight * float(ordered[high]))


def paired_t_test(
    a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]
) -> tuple[float, float]:
    """``(t, p)`` of the two-sided paired t-test of mean(a − b) = 0: the numbers of
    ``scipy.stats.ttest_rel``, computed as it does them (the t distribution from
    ``scipy.special``, not scipy.stats).

    Fewer than two pairs: ``(nan, nan)``. All differences zero: ``(0.0, 1.0)``. Constant
    non-zero differences have no variance: ``(±inf, 0.0)``.
    """
    x, y = _paired(a, b)
    if x.size < 2:
        return math.nan, math.nan
    if np.array_equal(x, y):
        return 0.0, 1.0
    from scipy.special import stdtr

    d = x - y
    n = np.float64(d.size)
    variance = np.mean((d - np.mean(d, keepdims=True)) ** 2) * (n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.divide(np.mean(d) - 0.0, np.sqrt(variance / n))
    p = 2 * stdtr(n - 1, -np.abs(t))
    return float(t), float(p)


def randomization_test(
    a: np.ndarray | Sequence[float],
    b: np.ndarray | Sequence[float],
    *,
    permutations: int = 10_000,
    seed: int = 0,
) -> float:
    """Two-sided paired randomization (sign-flip) test of mean(a − b), by Monte Carlo.

    ``p = (1 + #{|flipped sum| >= |observed sum|}) / (1 + permutations)``, so ``p >= 1 /
    (1 + permutations)``; always Monte Carlo, even for few pairs. Deterministic for a seed.
    No pairs: NaN.
    """
    if permutations < 1:
        raise ValueError(f"permutations must be at least 1, not {permutations}")
    x, y = _paired(a, b)
    if x.size == 0:
        return math.nan
    d = x - y
    threshold = abs(d.sum()) - _TIE_TOLERANCE * np.abs(d).sum()
    bits = np.random.default_rng(seed).bit_generator
    rows = max(1, _CHUNK_CELLS // d.size)
    extreme = 0
    for start in range(0, permutations, rows):
        signs = _signs(bits, min(rows, permutations - start), d.size)
        extreme += int(np.count_nonzero(np.abs(signs @ d) >= threshold))
    return (1 + extreme) / (1 + permutations)


_SIGN = np.array([-1.0, 1.0])


def _signs(bits: np.random.BitGenerator, rows: int, columns: int) -> np.ndarray:
    """A ``rows × columns`` matrix of ±1: −1 where ``Generator.random()`` would draw below 0.5
    (it draws ``(word >> 11) · 2⁻⁵³`` from one 64-bit word: below 0.5 when the word's top bit is
    0), read from the top bit of the same words, in a third of the time."""
    words = bits.random_raw(rows * columns)
    return _SIGN[(words >> np.uint64(63)).reshape(rows, columns)]


def compare_scores(
    baseline: str,
    other: str,
    measure: str,
    base: np.ndarray,
    oth: np.ndarray,
    *,
    permutations: int = 10_000,
    seed: int = 0,
) -> Comparison:
    """Compare the paired scores ``oth`` of ``other`` against ``base`` of ``baseline`` (one
    pair a query; none is fine: too few to test)."""
    d = oth - base
    t_statistic, t_p_value = paired_t_test(oth, base)
    return Comparison(
        baseline=baseline,
        other=other,
        measure=measure,
        n=int(d.size),
        mean_baseline=_mean(base),
        mean_other=_mean(oth),
        mean_difference=_mean(d),
        difference_interval=bootstrap_interval(d, confidence=CONFIDENCE, seed=seed),
        t_statistic=t_statistic,
        t_p_value=t_p_value,
        randomization_p_value=randomization_test(oth, base, permutations=permutations, seed=seed),
        permutations=permutations,
        wins=int(np.count_nonzero(d > 0)),
        losses=int(np.count_nonzero(d < 0)),
        ties=int(np.count_nonzero(d == 0)),
    )


def _as_scores(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Values as a 1-D float64 array; ValueError if not 1-D or not all finite."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"expected a 1-D sequence of scores, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite (no NaN or infinity)")
    return x


def _paired(
    a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """Paired scores as arrays; ValueError if their lengths differ."""
    x, y = _as_scores(a), _as_scores(b)
    if x.size != y.size:
        raise ValueError(f"paired scores differ in length: {x.size} and {y.size}")
    return x, y


def _mean(x: np.ndarray) -> float:
    """Mean, NaN (without numpy's warning) when empty."""
    return float(np.mean(x)) if x.size else math.nan


def _count(n: int, singular: str, plural: str) -> str:
    """``"1 win"``, ``"3 wins"``."""
    return f"{n} {singular if n == 1 else plural}"


def _format_p(p: float, digits: int) -> str:
    """``p = 0.0123``, or ``p < 0.0001`` when it rounds to zero at ``digits``."""
    floor = 10.0**-digits
    return f"p < {floor:.{digits}f}" if p < floor / 2 else f"p = {p:.{digits}f}"
