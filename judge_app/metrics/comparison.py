"""Paired comparison of two runs' per-query scores: bootstrap interval, t-test, randomization test.

Runs A and B are compared on the queries both have. The randomization test is the two-sided
sign-flip test of the mean difference, estimated by Monte Carlo (Smucker, Allan & Carterette,
CIKM 2007); it is the test :meth:`Comparison.describe` bases its verdict on, and the interval
it shows beside the verdict is that test's own: the shifts of the mean difference the test
does not reject (:func:`randomization_interval`), so the words and the interval always agree.
The bootstrap interval of the difference is kept for machine output.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judge_app.numbers import signed_text

CONFIDENCE = 0.95
"""Confidence level of the interval :func:`compare_scores` puts on the mean difference."""
ALPHA = 1 - CONFIDENCE
"""Significance level of the comparison's verdict: the interval excludes 0 exactly when the
test's p-value is below it."""
TEST_NAME = "randomization test"
"""The test the comparison's verdict and its interval come from."""

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
    randomization_interval: MeanInterval
    """The shifts of the mean difference the randomization test does not reject at ALPHA."""

    @property
    def significant(self) -> bool:
        """Does the randomization test reject "no difference" at ALPHA?"""
        return self.randomization_p_value < ALPHA

    def describe(self, digits: int = 4) -> str:
        """Plain English: who beats whom by how much, then the randomization test's verdict
        with its own interval (the two agree), then whether the paired t-test agrees."""
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
        verdict = "significant" if self.significant else "not significant"
        interval = self.randomization_interval
        ci = (
            f"{CONFIDENCE:.0%} interval {bound_text(interval.low, digits)} to "
            f"{bound_text(interval.high, digits)}"
        )
        excludes = "excludes" if self.significant else "includes"
        t_significant = self.t_p_value < ALPHA
        t_words = (
            "agrees"
            if t_significant == self.significant
            else (
                f"disagrees (by it the difference is {'' if t_significant else 'not '}significant)"
            )
        )
        return (
            f"{self._headline(digits)} {over}: {_count(self.wins, 'win', 'wins')}, "
            f"{_count(self.losses, 'loss', 'losses')}, {_count(self.ties, 'tie', 'ties')}. "
            f"By the paired {TEST_NAME} {p_text(self.randomization_p_value, digits)} "
            f"({self.permutations:,} permutations) the difference is {verdict} at {ALPHA:g}: "
            f"its {ci} {excludes} 0; the paired t-test {p_text(self.t_p_value, digits)} "
            f"{t_words}."
        )

    def _headline(self, digits: int) -> str:
        """Who beats whom by how much."""
        difference = signed_text(self.mean_difference, digits)
        if self.mean_difference == 0:
            return (
                f"{self.other} matches {self.baseline} on mean {self.measure} "
                f"(difference {difference})"
            )
        verb = "beats" if self.mean_difference > 0 else "trails"
        return f"{self.other} {verb} {self.baseline} on {self.measure} by {difference}"


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
    unvaried = _unvaried(x)
    if unvaried is not None:
        return unvaried
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
    return _percentile_interval(x, means, confidence)


def bootstrap_intervals(
    rows: np.ndarray, *, confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> list[MeanInterval]:
    """:func:`bootstrap_interval` of each row of ``rows`` (a row of values each, all of one
    length), drawn at once: every row is resampled with the indices ``bootstrap_interval``
    draws for one of them, and a resample's mean is its counts of each value times the values
    (one matrix product for all the rows). The numbers are ``bootstrap_interval``'s but for
    the last bits of the sums."""
    x = np.asarray(rows, dtype=np.float64)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise ValueError("expected a matrix of finite values, a row for each interval")
    unvaried = [_unvaried(row) for row in x]
    varied = [row for row, interval in enumerate(unvaried) if interval is None]
    column = {row: place for place, row in enumerate(varied)}
    means = _resampled_means(x[varied], resamples, seed) if varied else np.empty((0, 0))
    return [
        interval or _percentile_interval(x[row], means[:, column[row]], confidence)
        for row, interval in enumerate(unvaried)
    ]


def _resampled_means(x: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """A row per resample, a column per row of ``x``: the mean of the row resampled with the
    indices ``bootstrap_interval`` draws (as counts of each value, one matrix product)."""
    width = x.shape[1]
    rng = np.random.default_rng(seed)
    batch = max(1, _CHUNK_CELLS // width)
    index = np.int32 if width < 2**31 else np.int64
    values = np.ascontiguousarray(x.T)
    chunks = []
    for start in range(0, resamples, batch):
        rows = min(batch, resamples - start)
        drawn = rng.integers(0, width, (rows, width), index)
        offsets = (np.arange(rows) * width)[:, None]
        counts = np.bincount((drawn + offsets).ravel(), minlength=rows * width)
        chunks.append(counts.reshape(rows, width) @ values / width)
    return np.concatenate(chunks)


def _unvaried(x: np.ndarray) -> MeanInterval | None:
    """The interval of no values (NaN) or of equal values (the value); None otherwise."""
    if x.size == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0)
    if np.ptp(x) == 0:
        value = float(x[0])
        return MeanInterval(value, value, value, int(x.size))
    return None


def _percentile_interval(x: np.ndarray, means: np.ndarray, confidence: float) -> MeanInterval:
    """The mean of ``x`` with the percentile interval of its resampled ``means``."""
    alpha = np.float64((1 - confidence) / 2)
    ordered = np.sort(means)
    low, high = (_linear_quantile(ordered, p) for p in (alpha, 1 - alpha))
    return MeanInterval(float(np.mean(x)), low, high, int(x.size))


def _linear_quantile(ordered: np.ndarray, p: np.float64) -> float:
    """The ``p`` quantile of the sorted values ``ordered`` as ``scipy.stats.quantile(method=
    "linear")`` computes it (Hyndman and Fan's definition 7), to the last bit."""
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
        return MeanInterval(math.nan, math.nan, math.nan, 0)
    return _inverted(_SignFlips(x - y, permutations, seed), alpha)


def _inverted(flips: _SignFlips, alpha: float) -> MeanInterval:
    """The shifts ``flips``' test does not reject at ``alpha`` (see randomization_interval)."""
    d = flips.d
    mean = float(np.mean(d))
    spread = float(np.ptp(d))
    if spread == 0:
        return MeanInterval(mean, mean, mean, int(d.size))
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
    return MeanInterval(mean, bounds[0], bounds[1], int(d.size))


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
        self.flipped, self.signs_sum = drawn or _flipped(d, permutations, seed)

    @classmethod
    def of_rows(cls, rows: np.ndarray, permutations: int, seed: int) -> list[_SignFlips]:
        """The flips of each row of differences (all of one length), drawn once for all:
        each row gets the signs ``_SignFlips(row, permutations, seed)`` draws."""
        flipped, signs_sum = _flipped(rows.T, permutations, seed)
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


def _flipped(d: np.ndarray, permutations: int, seed: int) -> _Drawn:
    """The flipped sums of ``d`` (a vector, or a column of differences each) under
    ``permutations`` rows of signs of ``default_rng(seed)``, and each row's sum of signs."""
    bits = np.random.default_rng(seed).bit_generator
    rows = max(1, _CHUNK_CELLS // max(1, d.shape[0]))
    flipped, signs_sum = [], []
    for start in range(0, permutations, rows):
        signs = _signs(bits, min(rows, permutations - start), d.shape[0])
        flipped.append(signs @ d)
        signs_sum.append(signs.sum(axis=1))
    return np.concatenate(flipped), np.concatenate(signs_sum)


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
    d = _as_scores(oth - base)
    flips = _SignFlips(d, permutations, seed) if d.size else None
    interval = bootstrap_interval(d, confidence=CONFIDENCE, seed=seed)
    return _comparison(baseline, other, measure, base, oth, permutations, flips, interval)


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
    length). The sign flips and bootstrap resamples ``compare_scores`` draws for one pair are
    drawn once and serve every pair, so many pairs cost little more than one; the numbers
    are ``compare_scores``' but for the last bits of sums."""
    d = np.asarray(oth, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    if d.ndim != 2 or len(names) != d.shape[0] or not np.isfinite(d).all():
        raise ValueError("expected a row of finite scores for each pair of names")
    flips: list[_SignFlips | None] = (
        list(_SignFlips.of_rows(d, permutations, seed)) if d.shape[1] else [None] * len(names)
    )
    intervals = bootstrap_intervals(d, confidence=CONFIDENCE, seed=seed)
    return [
        _comparison(b, o, measure, base[i], oth[i], permutations, flips[i], intervals[i])
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
    difference_interval: MeanInterval,
) -> Comparison:
    """The comparison of ``oth`` against ``base`` from the sign ``flips`` of their
    differences (None when there are none) and the bootstrap interval of their mean."""
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
        difference_interval=difference_interval,
        t_statistic=t_statistic,
        t_p_value=t_p_value,
        randomization_p_value=math.nan if flips is None else flips.p_value(0.0),
        permutations=permutations,
        wins=int(np.count_nonzero(d > 0)),
        losses=int(np.count_nonzero(d < 0)),
        ties=int(np.count_nonzero(d == 0)),
        randomization_interval=(
            MeanInterval(math.nan, math.nan, math.nan, 0)
            if flips is None
            else _inverted(flips, ALPHA)
        ),
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


def bound_text(value: float, digits: int) -> str:
    """``+0.0123``, or ``−∞`` / ``+∞`` for an unbounded side; a bound that is not 0 but
    rounds to 0 at ``digits`` in two significant figures (``+3.1e-06``): an interval that
    excludes 0 never shows a bound of 0."""
    if math.isinf(value):
        return "−∞" if value < 0 else "+∞"
    if value != 0 and round(value, digits) == 0:
        return f"{value:+.2g}"
    return signed_text(value, digits)


def p_text(p: float, digits: int, alpha: float = ALPHA) -> str:
    """``p = 0.0123``, or ``p < 0.0001`` when it rounds to zero at ``digits``; with more
    digits where ``digits`` would round ``p`` across ``alpha`` (0.04996 is ``p = 0.04996``,
    never ``p = 0.0500`` beside "significant at 0.05")."""
    floor = 10.0**-digits
    if p < floor / 2:
        return f"p < {floor:.{digits}f}"
    while (round(p, digits) < alpha) != (p < alpha) and digits < 25:
        digits += 1
    return f"p = {p:.{digits}f}"
