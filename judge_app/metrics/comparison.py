"""Paired comparison of two runs' per-query scores: t-test and randomization test, each with
the interval of the mean difference that it does not reject.

Runs A and B are compared on the queries both have. The randomization test is the two-sided
sign-flip test of the mean difference, estimated by Monte Carlo (Smucker, Allan & Carterette,
CIKM 2007); inverted, it gives the shifts of the mean difference it does not reject
(:meth:`Comparison.interval`), so a verdict and the interval beside it always agree. The words
that say a comparison live with the other writers (``judge_app.writers``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from judge_app.metrics.intervals import ALPHA, MeanInterval, t_interval

TEST_NAME = "randomization test"
"""The test a pair's verdict comes from when no other is chosen."""
RANDOMIZATION_METHOD = "randomization"
"""The name of the inverted randomization test's interval (``95% randomization interval``)."""

_CHUNK_CELLS = 1 << 20
"""Sign flips held in memory at once."""

_TIE_TOLERANCE = 1e-9
"""Flipped sums within this fraction of sum(|d|) of the observed one count as ties (rounding)."""


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
    t_statistic: float
    t_p_value: float
    randomization_p_value: float
    permutations: int
    wins: int
    losses: int
    ties: int
    differences: np.ndarray = field(repr=False, compare=False)
    flips: _SignFlips | None = field(default=None, repr=False, compare=False)

    @property
    def significant(self) -> bool:
        """Does the randomization test reject "no difference" at ALPHA?"""
        return self.randomization_p_value < ALPHA

    def interval(self, test: str, alpha: float = ALPHA) -> MeanInterval | None:
        """The mean difference with the interval of ``test`` at level 1 − ``alpha``: the
        shifts the randomization test does not reject (``randomization``), or the t interval
        (``t``); None for a test without an interval of the mean (Wilcoxon, sign)."""
        if test == "t":
            return t_interval(self.differences, confidence=1 - alpha)
        if test == "randomization":
            if self.flips is None:
                return MeanInterval(math.nan, math.nan, math.nan, 0, RANDOMIZATION_METHOD)
            return _inverted(self.flips, alpha)
        return None


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
    x, y = _paired(a, b)
    if x.size == 0:
        return math.nan
    return _SignFlips(x - y, permutations, seed).p_value(0.0)


def randomization_interval(
    a: np.ndarray | Sequence[float],
    b: np.ndarray | Sequence[float],
    *,
    alpha: float = ALPHA,
    permutations: int = 10_000,
    seed: int = 0,
) -> MeanInterval:
    """The randomization test inverted: the shifts δ of mean(a − b) whose test of
    ``a − b − δ`` (the same sign flips as :func:`randomization_test` with this seed) gives
    ``p >= alpha``, from the mean outwards to within 1e-12 of the differences' spread.
    Its bounds are infinite where no shift is rejected (too few pairs); no pairs: NaN.
    0 lies inside exactly when ``randomization_test(a, b) >= alpha`` (where the accepted
    shifts are one interval, as they are but for Monte Carlo noise)."""
    x, y = _paired(a, b)
    if x.size == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0, RANDOMIZATION_METHOD)
    return _inverted(_SignFlips(x - y, permutations, seed), alpha)


def _inverted(flips: _SignFlips, alpha: float) -> MeanInterval:
    """The shifts ``flips``' test does not reject at ``alpha`` (see randomization_interval)."""
    d = flips.d
    mean = float(np.mean(d))
    spread = float(np.ptp(d))
    if spread == 0:
        return MeanInterval(mean, mean, mean, int(d.size), RANDOMIZATION_METHOD, 1 - alpha)
    bounds = []
    for side in (-1.0, 1.0):
        far = mean + side * 2 * spread
        if flips.p_value(far) >= alpha:
            bounds.append(side * math.inf)
            continue
        inside, outside = mean, far
        while abs(outside - inside) > 1e-12 * spread:
            middle = (inside + outside) / 2
            if middle in (inside, outside):  # as fine as floats go (d equal but for rounding)
                break
            if flips.p_value(middle) >= alpha:
                inside = middle
            else:
                outside = middle
        bounds.append(inside)
    return MeanInterval(mean, bounds[0], bounds[1], int(d.size), RANDOMIZATION_METHOD, 1 - alpha)


class _SignFlips:
    """The sign flips of a randomization test of differences ``d``, drawn once: for each,
    the flipped sum of ``d`` and the sum of its signs, so that the test of ``d − δ`` for any
    shift δ costs one pass over the flips."""

    def __init__(
        self, d: np.ndarray, permutations: int, seed: int, drawn: _Drawn | None = None
    ) -> None:
        if permutations < 1:
            raise ValueError(f"permutations must be at least 1, not {permutations}")
        self.d = d
        self.permutations = permutations
        self.flipped, self.signs_sum = drawn or sign_flips(d, permutations, seed)

    @classmethod
    def of_rows(cls, rows: np.ndarray, permutations: int, seed: int) -> list[_SignFlips]:
        """The flips of each row of differences (all of one length), drawn once for all:
        each row gets the signs ``_SignFlips(row, permutations, seed)`` draws."""
        flipped, signs_sum = sign_flips(rows.T, permutations, seed)
        return [
            cls(row, permutations, seed, (flipped[:, index], signs_sum))
            for index, row in enumerate(rows)
        ]

    def p_value(self, shift: float) -> float:
        """The two-sided p-value of the test of ``d − shift``."""
        shifted = self.d - shift
        threshold = abs(shifted.sum()) - _TIE_TOLERANCE * np.abs(shifted).sum()
        sums = self.flipped - shift * self.signs_sum if shift else self.flipped
        extreme = int(np.count_nonzero(np.abs(sums) >= threshold))
        return (1 + extreme) / (1 + self.permutations)


_Drawn = tuple[np.ndarray, np.ndarray]
"""Each sign flip's flipped sum (of each column of differences) and sum of signs."""


def sign_flips(d: np.ndarray, permutations: int, seed: int) -> _Drawn:
    """The flipped sums of ``d`` (a vector, or a column of differences each) under
    ``permutations`` rows of signs of ``default_rng(seed)``, and each row's sum of signs.

    Each chunk's product is a tall, thin one that a single BLAS thread does in the time a
    second one takes to wake (far longer on a busy machine). One column's sums are the same
    bits on one thread as on many; several columns' may differ in the last bits, as they do
    between machines (the tests count ties within a tolerance)."""
    bits = np.random.default_rng(seed).bit_generator
    rows = max(1, _CHUNK_CELLS // max(1, d.shape[0]))
    flipped, signs_sum = [], []
    with threadpool_limits(1, "blas"):
        for start in range(0, permutations, rows):
            signs = _signs(bits, min(rows, permutations - start), d.shape[0])
            flipped.append(signs @ d)
            signs_sum.append(signs.sum(axis=1))
    return np.concatenate(flipped), np.concatenate(signs_sum)


_SIGN_BIT = np.uint64(1 << 63)
_MINUS_ONE = np.uint64(0xBFF0_0000_0000_0000)
"""The bits of the float64 −1.0; with the sign bit flipped, +1.0."""


def _signs(bits: np.random.BitGenerator, rows: int, columns: int) -> np.ndarray:
    """A ``rows × columns`` matrix of ±1: −1 where ``Generator.random()`` would draw below 0.5
    (it draws ``(word >> 11) · 2⁻⁵³`` from one 64-bit word: below 0.5 when the word's top bit is
    0), read from the top bit of the same words: that bit, flipped, made the sign bit of 1.0,
    in place (the words read as float64)."""
    words = bits.random_raw(rows * columns)
    np.bitwise_and(words, _SIGN_BIT, out=words)
    np.bitwise_xor(words, _MINUS_ONE, out=words)
    return words.view(np.float64).reshape(rows, columns)


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
    d = _as_scores(oth - base)
    flips = _SignFlips(d, permutations, seed) if d.size else None
    return _comparison(baseline, other, measure, base, oth, permutations, flips)


def compare_rows(
    names: Sequence[tuple[str, str]],
    base: np.ndarray,
    oth: np.ndarray,
    measure: str,
    *,
    permutations: int = 10_000,
    seed: int = 0,
) -> list[Comparison]:
    """:func:`compare_scores` of many pairs of runs scored on the same queries: pair ``i``,
    ``names[i]`` = (baseline, other), has the scores ``base[i]`` and ``oth[i]`` (rows of one
    length). The sign flips ``compare_scores`` draws for one pair are drawn once and serve
    every pair, so many pairs cost little more than one; the numbers are ``compare_scores``'
    but for the last bits of sums."""
    d = np.asarray(oth, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    if d.ndim != 2 or len(names) != d.shape[0] or not np.isfinite(d).all():
        raise ValueError("expected a row of finite scores for each pair of names")
    flips: list[_SignFlips | None] = (
        list(_SignFlips.of_rows(d, permutations, seed)) if d.shape[1] else [None] * len(names)
    )
    return [
        _comparison(b, o, measure, base[i], oth[i], permutations, flips[i])
        for i, (b, o) in enumerate(names)
    ]


def _comparison(
    baseline: str,
    other: str,
    measure: str,
    base: np.ndarray,
    oth: np.ndarray,
    permutations: int,
    flips: _SignFlips | None,
) -> Comparison:
    """The comparison of ``oth`` against ``base`` from the sign ``flips`` of their
    differences (None when there are none)."""
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
        t_statistic=t_statistic,
        t_p_value=t_p_value,
        randomization_p_value=math.nan if flips is None else flips.p_value(0.0),
        permutations=permutations,
        wins=int(np.count_nonzero(d > 0)),
        losses=int(np.count_nonzero(d < 0)),
        ties=int(np.count_nonzero(d == 0)),
        differences=np.asarray(d, dtype=np.float64),
        flips=flips,
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
