"""Intervals of means, each named by its method, and the ranges measures keep to.

One question gets one interval wherever it is shown: a run's mean (over queries) gets the
Student t interval (:func:`t_interval`: the sample standard deviation with divisor n − 1 and
the t quantile with n − 1 degrees of freedom, which holds at the eight queries a campaign may
have where a normal interval with the population standard deviation does not); a difference of
two runs gets the interval of the test its verdict comes from (``metrics.significance``).

A measure's values lie in a range (:func:`measure_range`: NDCG, precision, recall, AP and RR in
[0, 1]; their differences in [−1, 1]; counts from 0). An interval is cut to that range: the true
mean lies in it, so the cut interval covers it whenever the whole one did, and no figure shown
is impossible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

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
        low, high = bounds
        if not self.defined:
            return self
        return replace(self, low=min(max(self.low, low), high), high=max(min(self.high, high), low))


def t_quantile(n: int, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student t quantile with ``n − 1`` degrees of freedom (NaN below 2)."""
    if n < 2:
        return math.nan
    from scipy.special import stdtrit

    return float(stdtrit(n - 1, 0.5 + confidence / 2))


def t_interval(
    values: np.ndarray, bounds: Range = (-math.inf, math.inf), confidence: float = CONFIDENCE
) -> MeanInterval:
    """The mean of ``values`` with its Student t interval, cut to ``bounds``: the numbers of
    ``scipy.stats.t.interval(confidence, n − 1, mean, sem)``. Fewer than two values: no
    bounds (NaN); equal values: the value."""
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0, T_METHOD, confidence)
    mean = float(x.mean())
    if n < 2:
        return MeanInterval(mean, math.nan, math.nan, n, T_METHOD, confidence)
    half = t_quantile(n, confidence) * float(x.std(ddof=1)) / math.sqrt(n)
    return MeanInterval(mean, mean - half, mean + half, n, T_METHOD, confidence).within(bounds)


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
