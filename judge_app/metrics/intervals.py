"""Intervals of means, each named by its method, and the ranges measures keep to.

One question gets one interval wherever it is shown: a run's mean (over queries) gets the
Student t interval (:func:`t_interval`: the sample standard deviation with divisor n − 1 and
the t quantile with n − 1 degrees of freedom, which holds at the eight queries a campaign may
have where a normal interval with the population standard deviation does not); a difference of
two runs gets the interval of the test its verdict comes from (``metrics.significance``).

A measure's values lie in a range (:func:`measure_range`: NDCG, precision, recall, AP and RR in
[0, 1]; their differences in [−1, 1]; counts from 0). An interval of a bounded mean is built on
a scale that maps its range onto the whole line and back (:func:`bounded`): the logit for
[0, 1], Fisher's z (artanh) for [−1, 1], the mean ± t·se there with the standard error carried
over by the delta method. It never leaves the range, and it is longer on the side away from
the bound, as a mean near 1 (a good run's NDCG, most queries near 1 and a long tail below) is:
on generated campaigns it covered the true mean 93.7% of the time at 8 queries, where the
plain t interval covered 92.8% (``tests/ppi_simulation.py``). At the bound itself (every value
0, or 1) the mean is its own interval; an estimate outside its range (a corrected mean can be)
gets the plain t interval, cut to the range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
"""The significance level: a p-value of exactly 0.05 is not below it (``1 - 0.95`` would be
0.050000000000000044, and call it significant)."""
CONFIDENCE = 1 - ALPHA
"""The level of every interval of a mean or a difference (0.95 exactly)."""

T_METHOD = "t"
"""The name of the Student t interval, as tables head it (``95% t interval``)."""

COUNT_FAMILIES = ("NumQ", "NumRet", "NumRel", "NumRelRet")
"""Measures (by the names ir_measures writes) that count, from 0 without bound."""
UNBOUNDED_KEYS = ("cg@", "dcg@", "idcg@")
"""Keys of ours whose values grow with the grades: from 0 without bound."""

Range = tuple[float, float]
UNIT: Range = (0.0, 1.0)
SIGNED_UNIT: Range = (-1.0, 1.0)
UNBOUNDED: Range = (-math.inf, math.inf)


@dataclass(frozen=True)
class MeanInterval:
    """A mean (or mean difference) over ``n`` values with its ``confidence`` interval
    [``low``, ``high``] by ``method`` (its name as people read it); NaN bounds where the method
    gives none (too few values)."""

    mean: float
    low: float
    high: float
    n: int
    method: str = T_METHOD
    confidence: float = CONFIDENCE

    @property
    def defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    def excludes(self, value: float = 0.0) -> bool:
        """Does the interval leave ``value`` out (False where it is undefined)?"""
        return self.defined and not self.low <= value <= self.high

    def within(self, bounds: Range) -> MeanInterval:
        """This interval cut to ``bounds`` (the measure's range)."""
        if not self.defined:
            return self
        low, high = bounds
        return MeanInterval(
            self.mean,
            min(max(self.low, low), high),
            max(min(self.high, high), low),
            self.n,
            self.method,
            self.confidence,
        )


def t_quantile(n: int, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student t quantile with ``n − 1`` degrees of freedom (NaN below 2): the
    ``t`` with P(|T| ≤ t) = ``confidence``. Computed here, not by scipy (whose import would be
    a tenth of a second of every evaluation of files): in closed form for 1 and 2 degrees of
    freedom; up to ``EXACT_DEGREES`` by Newton's method on the t distribution's closed form
    for whole degrees of freedom (Abramowitz & Stegun 26.7.3–4), kept inside a bracket; beyond,
    by the Cornish–Fisher expansion (26.7.5), exact there to rounding. It equals
    ``scipy.special.stdtrit(n − 1, (1 + confidence) / 2)`` to 1e-12 (tested)."""
    df = n - 1
    if df < 1:
        return math.nan
    if df == 1:
        return math.tan(math.pi * confidence / 2)
    if df == 2:
        return confidence * math.sqrt(2 / (1 - confidence * confidence))
    x = NormalDist().inv_cdf(0.5 + confidence / 2)
    t = _cornish_fisher(x, df)
    if df > EXACT_DEGREES:
        return t
    low, high = 0.0, math.inf  # P(|T| ≤ low) < confidence ≤ P(|T| ≤ high)
    for _ in range(200):
        gap = confidence - _central(t, df)
        if gap > 0:
            low = t
        else:
            high = t
        step = t + gap / (2 * _density(t, df))
        if not low < step < high:  # Newton left the bracket: halve it, or widen it
            step = 2 * low + 1 if math.isinf(high) else (low + high) / 2
        if abs(step - t) <= 2e-16 * step:
            return step
        t = step
    return t


EXACT_DEGREES = 1000
"""Up to these degrees of freedom the t quantile is solved on the exact distribution; beyond,
the Cornish–Fisher expansion's error (of order 1/df⁵) is below rounding."""


def _central(t: float, df: int) -> float:
    """P(|T| ≤ t) for ``df`` whole degrees of freedom, from θ = arctan(t/√df) (Abramowitz &
    Stegun 26.7.3 for odd, 26.7.4 for even degrees)."""
    theta = math.atan(t / math.sqrt(df))
    sine, cosine = math.sin(theta), math.cos(theta)
    squared = cosine * cosine
    if df % 2:
        j = np.arange(1, (df - 3) // 2 + 1)
        terms = np.cumprod(2 * j / (2 * j + 1) * squared)
        return 2 / math.pi * (theta + sine * cosine * (1 + float(terms.sum())))
    j = np.arange(1, (df - 2) // 2 + 1)
    terms = np.cumprod((2 * j - 1) / (2 * j) * squared)
    return sine * (1 + float(terms.sum()))


def _density(t: float, df: int) -> float:
    """The Student t density at ``t``."""
    log = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - (df + 1) / 2 * math.log1p(t * t / df)
    return math.exp(log) / math.sqrt(df * math.pi)


def _cornish_fisher(x: float, df: int) -> float:
    """The t quantile from the normal one ``x``, to the fourth power of 1/df (26.7.5)."""
    g1 = (x**3 + x) / 4
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
    g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
    g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
    return x + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def bounded(mean: float, se: float, half: float, bounds: Range) -> tuple[float, float]:
    """The interval ``mean ± half`` (``half``: the t quantile times the standard error
    ``se``) of a mean in ``bounds``, built on the scale that maps them onto the whole line:
    the logit for [0, 1], Fisher's z for [−1, 1] (other ranges: as it is, cut to them)."""
    if math.isnan(half):
        return math.nan, math.nan
    low, high = bounds
    width = high - low
    if math.isfinite(width) and low < mean < high and se > 0:
        share = (mean - low) / width  # in (0, 1): the logit of it
        centre = math.log(share / (1 - share))
        spread = half / (width * share * (1 - share))
        return (
            low + width / (1 + math.exp(-(centre - spread))),
            low + width / (1 + math.exp(-(centre + spread))),
        )
    return max(mean - half, low), min(mean + half, high)


def t_interval(
    values: np.ndarray, bounds: Range = UNBOUNDED, confidence: float = CONFIDENCE
) -> MeanInterval:
    """The mean of ``values`` with its Student t interval, on the scale of ``bounds``
    (:func:`bounded`; without bounds the numbers of ``scipy.stats.t.interval(confidence,
    n − 1, mean, sem)``). Fewer than two values: no bounds (NaN); equal values: the value."""
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0, T_METHOD, confidence)
    mean = float(x.mean())
    if n < 2:
        return MeanInterval(mean, math.nan, math.nan, n, T_METHOD, confidence)
    se = float(x.std(ddof=1)) / math.sqrt(n)
    low, high = bounded(mean, se, t_quantile(n, confidence) * se, bounds)
    return MeanInterval(mean, low, high, n, T_METHOD, confidence)


def measure_range(measure: str) -> Range:
    """The values ``measure`` (a key such as ``ndcg@10``, or a name ir_measures writes) can
    take: [0, 1] but for counts and gains, which start at 0 and have no upper bound."""
    family = measure.split("(")[0].split("@")[0]
    if family in COUNT_FAMILIES or measure.startswith(UNBOUNDED_KEYS):
        return (0.0, math.inf)
    return UNIT


def difference_range(measure: str) -> Range:
    """The values a difference of two runs' ``measure`` can take."""
    low, high = measure_range(measure)
    return (low - high, high - low)
