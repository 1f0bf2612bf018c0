"""The prediction-powered interval built from ``ppi-python``'s own point estimates: the
jackknife over the labelled units (ppi-python's estimate without each, λ tuned again), plus
the unlabelled units' part, with scipy's Student t quantile of n − 1 degrees of freedom."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from judge_app.metrics import ppi


def point(y, yhat, unlabeled, lam=None) -> float:
    import ppi_py

    return float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, unlabeled, lam=lam)))


def on_scale(mean: float, se: float, n: int, low: float, high: float) -> tuple[float, float]:
    """The 95% t interval ``mean ± t·se`` built on the logit of the mean's place in [low,
    high] (for [−1, 1]: Fisher's z), written here with scipy's logit and expit."""
    from scipy.special import expit, logit

    half = stats.t.ppf(0.975, n - 1) * se
    if not (math.isfinite(low) and math.isfinite(high)):
        return mean - half, mean + half
    width = high - low
    share = (mean - low) / width
    spread = half / (width * share * (1 - share))
    return tuple(low + width * expit(logit(share) + side * spread) for side in (-1, 1))


def jackknife_interval(
    y, yhat, unlabeled, lam=None, bounds=(-math.inf, math.inf)
) -> tuple[float, float]:
    """The 95% t interval of the (power-tuned, for ``lam`` None) prediction-powered mean, on
    the scale of ``bounds``."""
    y, yhat, unlabeled = (np.asarray(values, dtype=float) for values in (y, yhat, unlabeled))
    n = len(y)
    mean = point(y, yhat, unlabeled, lam)
    left_out = np.array(
        [point(np.delete(y, i), np.delete(yhat, i), unlabeled, lam) for i in range(n)]
    )
    weight = ppi.power_tuning(y, yhat, unlabeled) if lam is None else lam
    variance = (n - 1) / n * np.sum((left_out - left_out.mean()) ** 2)
    variance += weight**2 * np.var(unlabeled, ddof=1) / len(unlabeled)
    return on_scale(mean, math.sqrt(variance), n, *bounds)
