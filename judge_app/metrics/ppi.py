"""Prediction-powered inference of a mean (Angelopoulos et al., Science 2023), power-tuned as
PPI++ (Angelopoulos, Duchi & Zrnic, 2023), and the classical interval beside it.

``y`` are the values humans give on ``n`` labelled units (a query's NDCG@k by human grades),
``yhat`` an automatic judge's values on the same units and ``yhat_unlabeled`` its values on
``N`` other units. The estimate ``λ·mean(yhat_unlabeled) + mean(y − λ·yhat)`` is unbiased for
the mean of ``y`` however wrong the judge is, provided the labelled units are a random sample
of all; its normal interval is valid as n and N grow. ``λ`` minimises the estimate's variance
(clipped to [0, 1]; 0 is the classical estimate, 1 plain PPI). The numbers equal the
``ppi-python`` package's ``ppi_mean_pointestimate``/``ppi_mean_ci`` and ``classical_mean_ci``
(tested against it).

The design-weighted form (``active_estimate``) is the active-inference estimator of Zrnic &
Candès (ICML 2024): units are labelled with known probabilities, and each labelled residual is
weighted by the inverse of its unit's probability, which keeps the estimate unbiased for any
probabilities; the queue order of ``metrics.active_order`` draws such a sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
"""The level of every interval here."""


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile of ``confidence`` (1.96 at 95%)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class Estimate:
    """A mean with its normal ``confidence`` interval ``mean ± z·se``; ``n`` labelled units,
    ``unlabeled`` units the judge alone graded, ``lam`` the weight of the judge (None for an
    estimate that uses no judge)."""

    mean: float
    se: float
    n: int
    unlabeled: int = 0
    lam: float | None = None
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        return z_value(self.confidence) * self.se

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high


def _array(values: np.ndarray | list[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def classical(y: np.ndarray | list[float], confidence: float = CONFIDENCE) -> Estimate:
    """The mean of ``y`` with its CLT interval (standard deviation with divisor n, as
    ``ppi_py.classical_mean_ci``); NaN for no values."""
    y = _array(y)
    if not len(y):
        return Estimate(math.nan, math.nan, 0, confidence=confidence)
    return Estimate(
        float(y.mean()), float(y.std() / math.sqrt(len(y))), len(y), 0, None, confidence
    )


def power_tuning(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray) -> float:
    """The λ in [0, 1] minimising the variance of the prediction-powered mean (PPI++):
    cov(y, yhat) / ((1 + n/N)·var(yhat over all units)); 0 where the judge's values do not
    vary."""
    n, big_n = len(y), len(yhat_unlabeled)
    if n == 0 or big_n == 0:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    everything = np.concatenate([yhat, yhat_unlabeled])
    variance = float(np.var(everything, ddof=1)) if len(everything) > 1 else 0.0
    if variance <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def prediction_powered(
    y: np.ndarray | list[float],
    yhat: np.ndarray | list[float],
    yhat_unlabeled: np.ndarray | list[float],
    *,
    lam: float | None = None,
    confidence: float = CONFIDENCE,
) -> Estimate:
    """The prediction-powered mean of ``y`` (``lam`` None: power-tuned) with its interval.
    With no unlabelled unit it is the classical estimate."""
    y, yhat, yhat_unlabeled = _array(y), _array(yhat), _array(yhat_unlabeled)
    if len(y) != len(yhat):
        raise ValueError("y and yhat must be of the same units")
    if not len(y) or not len(yhat_unlabeled):
        return classical(y, confidence)
    if lam is None:
        lam = power_tuning(y, yhat, yhat_unlabeled)
    n, big_n = len(y), len(yhat_unlabeled)
    mean = float(lam * yhat_unlabeled.mean() + (y - lam * yhat).mean())
    imputed = float((lam * yhat_unlabeled).std() / math.sqrt(big_n))
    rectifier = float((y - lam * yhat).std() / math.sqrt(n))
    return Estimate(mean, math.hypot(imputed, rectifier), n, big_n, float(lam), confidence)


def active_estimate(
    y: np.ndarray | list[float],
    yhat_all: np.ndarray | list[float],
    labeled: np.ndarray | list[bool],
    probability: np.ndarray | list[float],
    *,
    lam: float = 1.0,
    confidence: float = CONFIDENCE,
) -> Estimate:
    """The mean over all units when the ``labeled`` ones (``y`` in their order) were drawn
    with inclusion ``probability`` each: ``mean(λ·yhat + (y − λ·yhat)·labeled/probability)``,
    with the normal interval of that mean (Zrnic & Candès's active inference)."""
    yhat_all, labeled = _array(yhat_all), np.asarray(labeled, dtype=bool).reshape(-1)
    probability = _array(probability)
    y = _array(y)
    if len(y) != int(labeled.sum()):
        raise ValueError("y must hold one value per labelled unit")
    if np.any(probability[labeled] <= 0):
        raise ValueError("a labelled unit needs a positive probability")
    terms = lam * yhat_all.copy()
    terms[labeled] += (y - lam * yhat_all[labeled]) / probability[labeled]
    units = len(terms)
    if not units:
        return Estimate(math.nan, math.nan, 0, confidence=confidence)
    se = float(terms.std() / math.sqrt(units))
    return Estimate(float(terms.mean()), se, len(y), units - len(y), lam, confidence)


def equivalent_labels(humans: Estimate, corrected: Estimate) -> float:
    """How many labelled units the classical estimate would need for ``corrected``'s
    interval width (widths shrink as 1/√n): n·(se_humans / se_corrected)²; NaN if either is
    undefined."""
    if not (humans.se > 0 and corrected.se > 0) or humans.n == 0:
        return math.nan
    return humans.n * (humans.se / corrected.se) ** 2
