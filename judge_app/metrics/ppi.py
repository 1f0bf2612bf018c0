"""A mean from a few human values and an automatic judge's values of every unit: prediction-
powered inference (Angelopoulos et al., Science 2023), power-tuned as PPI++ (Angelopoulos,
Duchi & Zrnic, 2023); its design-weighted form for units drawn with known probabilities
(Zrnic & Candès's active inference, ICML 2024); and the humans-only estimates beside them.

``y`` are the values humans give on ``n`` labelled units (a query's NDCG@k by human grades),
``yhat`` an automatic judge's values on the same units and ``yhat_unlabeled`` its values on
``N`` other units. The estimate ``λ·mean(yhat_unlabeled) + mean(y − λ·yhat)`` is unbiased for
the mean of ``y`` however wrong the judge is, provided the labelled units are a random sample
of all; ``λ`` minimises its variance (clipped to [0, 1]; 0 is humans alone, 1 plain PPI). The
point estimates equal the ``ppi-python`` package's (tested against it).

Intervals hold at the eight to forty labelled queries campaigns have, where ppi-python's normal
interval with population variances does not (``tests/ppi_simulation.py``: at 8 labelled
queries it covered 80% of the time): every interval here is ``mean ± t·se`` with the Student t
quantile of n − 1 degrees of freedom (n labelled units); the humans-only standard error uses
the sample variance (divisor n − 1); the power-tuned one is the jackknife's over the labelled
units, λ tuned again without each unit (so the error of tuning λ on few units is in it), plus
the unlabelled units' part; the design-weighted ones use the variance of a fixed-size draw with
unequal probabilities (Hájek's approximation, the residuals centred), plus the spread of the
values themselves. Intervals are built on the scale of the measure's range
(``Estimate.bounds``; ``intervals.bounded``), which they never leave.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from judge_app.metrics.intervals import (
    CONFIDENCE,
    UNBOUNDED,
    MeanInterval,
    Range,
    bounded,
    t_quantile,
)

HUMANS = "t"
"""The name of the humans-only interval."""
CORRECTED = "prediction-powered t"
"""The name of the interval of humans corrected by a judge."""
WEIGHTED = "design-weighted t"
"""The name of the intervals of a sample drawn with unequal probabilities."""


@dataclass(frozen=True)
class Estimate:
    """A mean with its ``confidence`` interval ``mean ± t·se`` (t of ``n − 1`` degrees of
    freedom) on the scale of ``bounds`` (``intervals.bounded``), by ``method``; ``n``
    labelled units, ``unlabeled`` units the judge alone graded, ``lam`` the weight of the
    judge (None for an estimate that uses no judge). NaN ``se``: no interval."""

    mean: float
    se: float
    n: int
    unlabeled: int = 0
    lam: float | None = None
    confidence: float = CONFIDENCE
    bounds: Range = UNBOUNDED
    method: str = HUMANS

    @property
    def half_width(self) -> float:
        return t_quantile(self.n, self.confidence) * self.se

    @property
    def interval(self) -> tuple[float, float]:
        """``mean ± t·se`` on the scale of ``bounds`` (``intervals.bounded``)."""
        return bounded(self.mean, self.se, self.half_width, self.bounds)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    @property
    def defined(self) -> bool:
        return not math.isnan(self.half_width)

    def as_interval(self) -> MeanInterval:
        """The estimate as the interval tables show."""
        return MeanInterval(self.mean, self.low, self.high, self.n, self.method, self.confidence)

    def without_interval(self) -> Estimate:
        """The mean alone (too few labelled units for the method)."""
        return Estimate(
            self.mean, math.nan, self.n, self.unlabeled, self.lam, self.confidence, self.bounds,
            self.method,
        )  # fmt: skip


def _array(values: np.ndarray | list[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def classical(
    y: np.ndarray | list[float], confidence: float = CONFIDENCE, bounds: Range = UNBOUNDED
) -> Estimate:
    """The mean of ``y`` with its Student t interval; NaN for no values (no interval for
    one)."""
    y = _array(y)
    if not len(y):
        return Estimate(math.nan, math.nan, 0, confidence=confidence, bounds=bounds)
    se = float(y.std(ddof=1) / math.sqrt(len(y))) if len(y) > 1 else math.nan
    return Estimate(float(y.mean()), se, len(y), 0, None, confidence, bounds, HUMANS)


def power_tuning(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray) -> float:
    """The λ in [0, 1] minimising the variance of the prediction-powered mean (PPI++, as
    ppi-python tunes it): cov(y, yhat) / ((1 + n/N)·var(yhat over all units)); 0 where the
    judge's values do not vary."""
    n, big_n = len(y), len(yhat_unlabeled)
    if n == 0 or big_n == 0:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    everything = np.concatenate([yhat, yhat_unlabeled])
    variance = float(np.var(everything, ddof=1)) if len(everything) > 1 else 0.0
    if variance <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def _point(y: np.ndarray, yhat: np.ndarray, unlabeled: np.ndarray, lam: float | None) -> float:
    if lam is None:
        lam = power_tuning(y, yhat, unlabeled)
    return float(lam * unlabeled.mean() + (y - lam * yhat).mean())


def _left_out_points(
    y: np.ndarray, yhat: np.ndarray, unlabeled: np.ndarray, lam: float | None
) -> np.ndarray:
    """The point estimate without each labelled unit in turn (λ tuned again without it
    when ``lam`` is None), each as :func:`_point` computes it, all at once from sums."""
    n, big_n = len(y), len(unlabeled)
    rest = n - 1
    y_mean = (y.sum() - y) / rest
    yhat_mean = (yhat.sum() - yhat) / rest
    if lam is None:
        covariance = ((y * yhat).sum() - y * yhat) / rest - y_mean * yhat_mean
        count = rest + big_n
        total = yhat.sum() + unlabeled.sum() - yhat
        squares = (yhat**2).sum() + (unlabeled**2).sum() - yhat**2
        variance = (squares - total**2 / count) / (count - 1) if count > 1 else np.zeros(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = covariance / ((1 + rest / big_n) * variance)
        weight = np.where(variance > 0, np.clip(tuned, 0.0, 1.0), 0.0)
    else:
        weight = np.full(n, float(lam))
    return weight * unlabeled.mean() + y_mean - weight * yhat_mean


def prediction_powered(
    y: np.ndarray | list[float],
    yhat: np.ndarray | list[float],
    yhat_unlabeled: np.ndarray | list[float],
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
    bounds: Range = UNBOUNDED,
) -> Estimate:
    """The prediction-powered mean of ``y`` (``lam`` None: power-tuned) with its interval:
    the jackknife's variance over the labelled units (λ tuned again without each), plus
    λ²·var(yhat_unlabeled)/N. With no unlabelled unit it is :func:`classical`."""
    y, yhat, unlabeled = _array(y), _array(yhat), _array(yhat_unlabeled)
    if len(y) != len(yhat):
        raise ValueError("y and yhat must be of the same units")
    if not len(y) or not len(unlabeled):
        return classical(y, confidence, bounds)
    n, big_n = len(y), len(unlabeled)
    weight = power_tuning(y, yhat, unlabeled) if lam is None else lam
    mean = _point(y, yhat, unlabeled, weight)
    if n < 2:
        return Estimate(mean, math.nan, n, big_n, weight, confidence, bounds, CORRECTED)
    left_out = _left_out_points(y, yhat, unlabeled, lam)
    labelled_variance = (n - 1) / n * float(np.sum((left_out - left_out.mean()) ** 2))
    unlabelled_variance = weight**2 * float(np.var(unlabeled, ddof=1)) / big_n if big_n > 1 else 0
    se = math.sqrt(labelled_variance + unlabelled_variance)
    return Estimate(mean, se, n, big_n, weight, confidence, bounds, CORRECTED)


def active_estimate(
    y: np.ndarray | list[float],
    yhat_all: np.ndarray | list[float],
    labeled: np.ndarray | list[bool],
    probability: np.ndarray | list[float],
    *,
    confidence: float = CONFIDENCE,
    bounds: Range = UNBOUNDED,
) -> Estimate:
    """The mean over all units when the ``labeled`` ones (``y`` in their order) were drawn
    with inclusion ``probability`` each (λ = 1): ``mean(yhat + (y − yhat)·labeled/probability)``
    (Zrnic & Candès's active inference), its variance the design's (Hájek's approximation for
    a fixed-size draw: residuals r centred by their probability-weighted mean) plus the values'
    own spread: ``Σ (1 − π)/π²·(r − π·B)² / N² + s²/N``."""
    y, yhat, labeled, probability = _design(y, yhat_all, labeled, probability)
    units = len(yhat)
    if not units:
        return Estimate(math.nan, math.nan, 0, confidence=confidence, bounds=bounds)
    p = probability[labeled]
    residual = y - yhat[labeled]
    mean = float(yhat.mean() + np.sum(residual / p) / units)
    n = len(y)
    if n < 2:
        return Estimate(mean, math.nan, n, units - n, 1.0, confidence, bounds, WEIGHTED)
    centre = float(np.sum((1 - p) * residual / p) / np.sum(1 - p)) if np.any(p < 1) else 0.0
    design = float(np.sum((1 - p) / p**2 * (residual - p * centre) ** 2)) / units**2
    se = math.sqrt(design + _spread(y, p) / units)
    return Estimate(mean, se, n, units - n, 1.0, confidence, bounds, WEIGHTED)


def weighted_humans(
    y: np.ndarray | list[float],
    units: int,
    probability: np.ndarray | list[float],
    *,
    confidence: float = CONFIDENCE,
    bounds: Range = UNBOUNDED,
) -> Estimate:
    """The mean of all ``units`` from humans alone when the labelled ones (``y``) were drawn
    with inclusion ``probability`` each: the Hájek (ratio) estimate ``Σ(y/π) / Σ(1/π)`` —
    Horvitz–Thompson's ``Σ(y/π) / N`` is unbiased too, but on a handful of queries drawn
    with small probabilities its interval is wider than the measure's range — with the
    variance of :func:`active_estimate`'s form."""
    y, p = _array(y), _array(probability)
    if len(y) != len(p):
        raise ValueError("one probability per labelled unit")
    if np.any(p <= 0):
        raise ValueError("a labelled unit needs a positive probability")
    if not len(y):
        return Estimate(math.nan, math.nan, 0, confidence=confidence, bounds=bounds)
    mean = float(np.sum(y / p) / np.sum(1 / p))
    n = len(y)
    if n < 2:
        return Estimate(mean, math.nan, n, units - n, None, confidence, bounds, WEIGHTED)
    estimated = float(np.sum(1 / p))
    design = float(np.sum((1 - p) / p**2 * (y - mean) ** 2)) / estimated**2
    se = math.sqrt(design + _spread(y, p) / max(units, n))
    return Estimate(mean, se, n, units - n, None, confidence, bounds, WEIGHTED)


def _spread(y: np.ndarray, p: np.ndarray) -> float:
    """The variance of the values over all units, estimated from the labelled ``y`` drawn
    with probabilities ``p`` (each weighted by 1/π)."""
    weights = 1 / p
    centre = float(np.sum(weights * y) / np.sum(weights))
    return float(np.sum(weights * (y - centre) ** 2) / np.sum(weights))


def _design(
    y: np.ndarray | list[float],
    yhat_all: np.ndarray | list[float],
    labeled: np.ndarray | list[bool],
    probability: np.ndarray | list[float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    yhat, mask = _array(yhat_all), np.asarray(labeled, dtype=bool).reshape(-1)
    probability, y = _array(probability), _array(y)
    if len(y) != int(mask.sum()):
        raise ValueError("y must hold one value per labelled unit")
    if np.any(probability[mask] <= 0):
        raise ValueError("a labelled unit needs a positive probability")
    return y, yhat, mask, probability


def equivalent_labels(humans: Estimate, corrected: Estimate) -> float:
    """How many labelled units the humans-only estimate would need for ``corrected``'s
    standard error (it shrinks as 1/√n): n·(se_humans / se_corrected)²; NaN if either is
    undefined."""
    if not (humans.se > 0 and corrected.se > 0) or humans.n == 0:
        return math.nan
    return humans.n * (humans.se / corrected.se) ** 2
