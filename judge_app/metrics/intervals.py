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

import numpy as np

CONFIDENCE = 0.95
"""The level of every interval of a mean or a difference."""

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
    """The two-sided Student t quantile with ``n − 1`` degrees of freedom (NaN below 2)."""
    if n < 2:
        return math.nan
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.5 + confidence / 2))


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
