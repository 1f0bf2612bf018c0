"""Inter-annotator agreement coefficients on arrays: pure functions, no pandas, no I/O.

Most functions take ``counts``: one row per unit, one column per category, each cell the number
of raters who put the unit in that category (Krippendorff's "value counts", Gwet's r_ik).
``values`` are the categories' numeric values in column order (grades 0–5 by default); they
matter for the interval metric and for linear and quadratic weights.

Every coefficient returns an :class:`Estimate`: a value, or None with the reason the statistic
is undefined (one rater, no common units, a single category used). Nothing here raises for an
undefined statistic, and no NaN leaves this module.

Sources of the definitions:
- Krippendorff's alpha: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
  coincidence matrix and the nominal, ordinal and interval difference functions.
- Gwet's AC1 and AC2: K. L. Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed.,
  multiple raters with missing ratings: p_a over the units with two or more ratings, the
  category shares pi_k over all rated units, p_e = T_w * sum pi_k (1 - pi_k) / (q (q - 1)).
- Fleiss' kappa: J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters".
- Cohen's kappa with weights: J. Cohen (1968); weights on category values, as scikit-learn's
  ``cohen_kappa_score(..., labels=range(6), weights=...)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

GRADES = np.arange(6)
LEVELS = ("nominal", "ordinal", "interval")
WEIGHTINGS = ("none", "linear", "quadratic")


@dataclass(frozen=True)
class Estimate:
    """A statistic's value, or None and the reason (plain words) it is undefined."""

    value: float | None
    reason: str | None = None

    @classmethod
    def undefined(cls, reason: str) -> Estimate:
        return cls(None, reason)


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``(low, high)``, or None and the reason there is none."""

    bounds: tuple[float, float] | None
    reason: str | None = None


# --------------------------------------------------------------------------- counts


def grade_counts(grades: np.ndarray, n_values: int = len(GRADES)) -> np.ndarray:
    """``counts[unit, value]`` from ``grades[unit, rater]`` (value indices, -1 where missing)."""
    grades = np.asarray(grades)
    units, raters = np.nonzero(grades >= 0)
    flat = units * n_values + grades[units, raters].astype(np.int64)
    counts = np.bincount(flat, minlength=grades.shape[0] * n_values)
    return counts.reshape(grades.shape[0], n_values)


def _pair_weights(counts: np.ndarray) -> np.ndarray:
    """1 / (m_u - 1) for units with m_u >= 2 ratings, 0 for the others."""
    m = counts.sum(axis=1)
    weights = np.zeros(len(m))
    np.divide(1.0, m - 1, out=weights, where=m >= 2)
    return weights


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix o[c, k] = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)
    over the units with two or more ratings."""
    counts = np.asarray(counts, dtype=np.float64)
    weighted = counts * _pair_weights(counts)[:, None]
    matrix = weighted.T @ counts
    matrix[np.diag_indices_from(matrix)] -= weighted.sum(axis=0)
    return matrix


def group_coincidences(counts: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """One coincidence matrix per group of units: shape (n_groups, V, V)."""
    counts = np.asarray(counts, dtype=np.float64)
    weights = _pair_weights(counts)
    size = counts.shape[1]
    matrices = np.zeros((n_groups, size, size))
    for c in range(size):
        for k in range(c, size):
            pairs = counts[:, c] * (counts[:, k] - (c == k)) * weights
            matrices[:, c, k] = np.bincount(groups, pairs, minlength=n_groups)
            matrices[:, k, c] = matrices[:, c, k]
    return matrices


# --------------------------------------------------------------------------- Krippendorff


def _distances(marginals: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Squared differences delta^2[c, k] (with the batch shape of ``marginals`` for ordinal)."""
    size = len(values)
    if level == "nominal":
        return 1.0 - np.eye(size)
    if level == "interval":
        values = np.asarray(values, dtype=np.float64)
        return np.subtract.outer(values, values) ** 2
    if level == "ordinal":
        # sum of the marginals from c to k, minus half of those of c and k (Krippendorff 2011)
        index = np.arange(size)
        low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
        cumulative = np.cumsum(marginals, axis=-1)
        between = cumulative[..., high] - cumulative[..., low]
        return (between + (marginals[..., low] - marginals[..., high]) / 2) ** 2
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def _alpha_arrays(
    matrices: np.ndarray, values: np.ndarray, level: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Alpha, pairable values n and expected disagreement of each coincidence matrix in a
    batch (..., V, V); alpha is NaN where n = 0 or the expected disagreement is 0."""
    marginals = matrices.sum(axis=-1)
    n = marginals.sum(axis=-1)
    distances = _distances(marginals, values, level)
    observed = (matrices * distances).sum(axis=(-2, -1))
    expected = (marginals[..., :, None] * marginals[..., None, :] * distances).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1) * observed / expected
    alpha = np.where((n > 0) & (expected > 0), alpha, np.nan)
    return alpha, n, expected


def _alpha_reason(matrix: np.ndarray, values: np.ndarray, what: str) -> str:
    marginals = matrix.sum(axis=-1)
    if marginals.sum() == 0:
        return f"no {what} was graded by two or more raters"
    value = _label(values[int(np.argmax(marginals))])
    return (
        f"every grade on the {what}s graded by two or more raters is {value}: "
        "with no variation, alpha is undefined"
    )


def krippendorff_alpha(
    counts: np.ndarray, level: str = "ordinal", values: np.ndarray = GRADES
) -> Estimate:
    """Krippendorff's alpha with missing values, at a level of measurement (nominal, ordinal,
    interval). Equal to ``krippendorff.alpha(reliability_data, level_of_measurement=level)``."""
    return alpha_of_coincidences(coincidences(counts), level, values)


def alpha_of_coincidences(
    matrix: np.ndarray, level: str = "ordinal", values: np.ndarray = GRADES
) -> Estimate:
    """Krippendorff's alpha from the coincidence matrix (:func:`coincidences`), which the
    three levels share."""
    values = np.asarray(values)
    alpha, _, _ = _alpha_arrays(matrix, values, level)
    if np.isnan(alpha):
        return Estimate.undefined(_alpha_reason(matrix, values, "unit"))
    return Estimate(float(alpha))


def krippendorff_alpha_by_group(
    counts: np.ndarray,
    groups: np.ndarray,
    n_groups: int,
    level: str = "ordinal",
    values: np.ndarray = GRADES,
    what: str = "unit",
) -> list[Estimate]:
    """Alpha of each group of units (a query's documents, say), all groups at once."""
    return alphas_of_coincidences(group_coincidences(counts, groups, n_groups), level, values, what)


def alphas_of_coincidences(
    matrices: np.ndarray, level: str = "ordinal", values: np.ndarray = GRADES, what: str = "unit"
) -> list[Estimate]:
    """Alpha of each coincidence matrix of a stack (n, V, V), all at once; ``what`` names
    the units in a reason."""
    values = np.asarray(values)
    alphas, _, _ = _alpha_arrays(matrices, values, level)
    return [
        Estimate(alpha)
        if not math.isnan(alpha)
        else Estimate.undefined(_alpha_reason(matrices[index], values, what))
        for index, alpha in enumerate(alphas.tolist())
    ]


def coincidence_patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The units graded by two or more raters grouped by their grade counts: each pattern's
    coincidences (P, V, V) and how many units have it (P,). Units with the same counts add the
    same coincidences, so ``frequency @ contributions`` is :func:`coincidences` of them all."""
    counts = np.asarray(counts)
    pairable = counts[counts.sum(axis=1) >= 2]
    size = counts.shape[1]
    if len(pairable) == 0:
        return np.zeros((0, size, size)), np.zeros(0, dtype=np.int64)
    base = int(pairable.sum(axis=1).max()) + 1
    keys = pairable.astype(np.int64) @ (base ** np.arange(size, dtype=np.int64))
    _, first, frequency = np.unique(keys, return_index=True, return_counts=True)
    patterns = pairable[first].astype(np.float64)
    contributions = patterns[:, :, None] * patterns[:, None, :]
    contributions[:, np.arange(size), np.arange(size)] -= patterns
    contributions /= (patterns.sum(axis=1) - 1)[:, None, None]
    return contributions, frequency


def alpha_interval(
    counts: np.ndarray,
    level: str = "ordinal",
    values: np.ndarray = GRADES,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of alpha, resampling units with replacement.

    The units graded by two or more raters are resampled (the others add nothing to alpha).
    A resample is a multinomial draw of how often each grade-count pattern occurs (see
    :func:`coincidence_patterns`), so ``resamples`` draws cost one matrix product, whatever
    the number of units. Seeded: the same data and seed give the same interval. Resamples in
    which alpha is undefined (a single grade was drawn) are left out.
    """
    if resamples < 1:
        return Interval(None, "no bootstrap resamples were asked for")
    values = np.asarray(values)
    contributions, frequency = coincidence_patterns(counts)
    matrix = np.tensordot(frequency, contributions, axes=1)
    if np.isnan(_alpha_arrays(matrix, values, level)[0]):
        return Interval(None, _alpha_reason(matrix, values, "unit"))
    units = int(frequency.sum())
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(units, frequency / units, size=resamples)
    size = len(values)
    flat = contributions.reshape(len(frequency), size * size)
    alphas, _, _ = _alpha_arrays((draws @ flat).reshape(-1, size, size), values, level)
    alphas = alphas[~np.isnan(alphas)]
    if len(alphas) == 0:
        return Interval(None, "alpha is undefined in every bootstrap resample")
    tail = (1 - confidence) / 2
    low, high = np.quantile(alphas, [tail, 1 - tail])
    return Interval((float(low), float(high)))


# --------------------------------------------------------------------------- weights


def agreement_weights(values: np.ndarray = GRADES, kind: str = "identity") -> np.ndarray:
    """Agreement weights on category values (1 on the diagonal): ``identity``, ``linear``
    1 - |k - l| / range, ``quadratic`` 1 - (k - l)^2 / range^2 (Gwet 2014, chapter 3), or
    ``within_one`` 1 where |k - l| <= 1."""
    values = np.asarray(values, dtype=np.float64)
    difference = np.abs(np.subtract.outer(values, values))
    spread = values.max() - values.min()
    if kind == "identity":
        return np.eye(len(values))
    if kind == "within_one":
        return (difference <= 1).astype(np.float64)
    if kind == "linear":
        return 1.0 - difference / spread
    if kind == "quadratic":
        return 1.0 - difference**2 / spread**2
    raise ValueError(f"unknown weights {kind!r}")


# --------------------------------------------------------------------------- percent agreement


def unit_agreement(counts: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Each unit's (weighted) share of agreeing pairs of ratings, sum_k r_ik (r*_ik - 1) /
    (r_i (r_i - 1)) with r*_ik = sum_l w_kl r_il; NaN for units with fewer than two ratings."""
    if weights is None:  # identity weights: r*_ik = r_ik, the same whole numbers
        counts = np.asarray(counts)
        agreeing = (counts * (counts - 1)).sum(axis=1)
    else:
        counts = np.asarray(counts, dtype=np.float64)
        agreeing = (counts * (counts @ weights.T - 1)).sum(axis=1)
    m = counts.sum(axis=1)
    shares = np.full(len(m), np.nan)
    np.divide(agreeing, m * (m - 1), out=shares, where=m >= 2)
    return shares


def percent_agreement(counts: np.ndarray, weights: np.ndarray | None = None) -> Estimate:
    """The mean over units with two or more ratings of their share of agreeing pairs of
    ratings (Gwet's p_a; with identity weights, exact agreement; with ``within_one`` weights,
    agreement within one grade). For two raters, the share of common units graded alike."""
    return mean_agreement(unit_agreement(counts, weights))


def mean_agreement(shares: np.ndarray) -> Estimate:
    """:func:`percent_agreement` from the units' shares (:func:`unit_agreement`)."""
    shares = shares[~np.isnan(shares)]
    if len(shares) == 0:
        return Estimate.undefined("no unit was graded by two or more raters")
    return Estimate(float(shares.mean()))


# --------------------------------------------------------------------------- Gwet


def gwet_ac(counts: np.ndarray, weights: np.ndarray, agreement: Estimate | None = None) -> Estimate:
    """Gwet's AC1 (identity weights) or AC2 (other weights) with missing ratings; the
    categories are the columns of ``counts``, all of them (q = number of columns).
    ``agreement``: the weighted percent agreement, when already known."""
    counts = np.asarray(counts, dtype=np.float64)
    q = counts.shape[1]
    if agreement is None:
        agreement = percent_agreement(counts, weights)
    if agreement.value is None:
        return agreement
    m = counts.sum(axis=1)
    rated = counts[m >= 1] / m[m >= 1, None]
    shares = rated.mean(axis=0)
    chance = weights.sum() * (shares * (1 - shares)).sum() / (q * (q - 1))
    if chance >= 1:
        return Estimate.undefined("chance agreement is total")
    return Estimate(float((agreement.value - chance) / (1 - chance)))


# --------------------------------------------------------------------------- Fleiss


def fleiss_kappa(counts: np.ndarray, values: np.ndarray = GRADES) -> Estimate:
    """Fleiss' kappa of units that all have the same number (two or more) of ratings; equal
    to ``statsmodels.stats.inter_rater.fleiss_kappa(counts)``."""
    counts = np.asarray(counts, dtype=np.float64)
    if len(counts) == 0:
        return Estimate.undefined("no unit to compute it on")
    raters = counts.sum(axis=1)
    if np.any(raters != raters[0]):
        raise ValueError("Fleiss' kappa needs the same number of ratings for every unit")
    n = raters[0]
    if n < 2:
        return Estimate.undefined("it needs two or more ratings of each unit")
    shares = counts.sum(axis=0) / counts.sum()
    observed = (((counts**2).sum(axis=1) - n) / (n * (n - 1))).mean()
    chance = (shares**2).sum()
    if chance >= 1 - 1e-12:
        value = _label(np.asarray(values)[int(np.argmax(shares))])
        return Estimate.undefined(
            f"every rating of those units is {value}: chance agreement is total"
        )
    return Estimate(float((observed - chance) / (1 - chance)))


# --------------------------------------------------------------------------- Cohen


def confusion_matrix(a: np.ndarray, b: np.ndarray, n_values: int = len(GRADES)) -> np.ndarray:
    """``matrix[i, j]``: units rater A put in category i and rater B in category j."""
    flat = np.asarray(a, dtype=np.int64) * n_values + np.asarray(b, dtype=np.int64)
    return np.bincount(flat, minlength=n_values * n_values).reshape(n_values, n_values)


def cohen_kappa(
    confusion: np.ndarray, weighting: str = "none", values: np.ndarray = GRADES
) -> Estimate:
    """Cohen's kappa of two raters from their confusion matrix over the categories
    ``values``: unweighted, or with linear or quadratic disagreement weights on the values.
    Equal to ``sklearn.metrics.cohen_kappa_score(a, b, labels=values, weights=...)``."""
    confusion = np.asarray(confusion, dtype=np.float64)
    n = confusion.sum()
    if n == 0:
        return Estimate.undefined("the two raters have no unit in common")
    values = np.asarray(values, dtype=np.float64)
    difference = np.abs(np.subtract.outer(values, values))
    if weighting == "none":
        weights = (difference > 0).astype(np.float64)
    elif weighting == "linear":
        weights = difference
    elif weighting == "quadratic":
        weights = difference**2
    else:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, not {weighting!r}")
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / n
    chance = (weights * expected).sum()
    if chance == 0:
        value = _label(values[int(np.argmax(confusion.sum(axis=1)))])
        return Estimate.undefined(
            f"both raters gave all {int(n)} common units grade {value}: chance agreement is total"
        )
    return Estimate(float(1 - (weights * confusion).sum() / chance))


@dataclass(frozen=True)
class PairFigures:
    """Many pairs of raters at once: each pair's common ``units``, share of them graded
    alike (``agreement``) and Cohen's kappa by weighting."""

    units: np.ndarray
    agreement: np.ndarray
    kappas: dict[str, list[Estimate]]


def cohen_kappas(
    pair: np.ndarray, a: np.ndarray, b: np.ndarray, n_pairs: int, values: np.ndarray = GRADES
) -> PairFigures:
    """``cohen_kappa`` of ``n_pairs`` pairs of raters from their common units: unit ``i``
    belongs to pair ``pair[i]``, which graded it ``a[i]`` (first rater) and ``b[i]``, as
    indexes into ``values``. Every pair shares at least one unit."""
    n_values = len(values)
    units = np.bincount(pair, minlength=n_pairs)
    rows = np.bincount(pair * n_values + a, minlength=n_pairs * n_values).reshape(-1, n_values)
    columns = np.bincount(pair * n_values + b, minlength=n_pairs * n_values).reshape(-1, n_values)
    agreement = np.bincount(pair, weights=a == b, minlength=n_pairs) / units
    values = np.asarray(values, dtype=np.float64)
    difference = np.abs(np.subtract.outer(values, values))
    weights = {"none": (difference > 0).astype(np.float64), "linear": difference,
               "quadratic": difference**2}  # fmt: skip
    modal = values[rows.argmax(axis=1)].tolist()  # the grade named where chance is total
    kappas = {}
    for weighting, weight in weights.items():
        observed = np.bincount(pair, weights=weight[a, b], minlength=n_pairs)
        chance = np.einsum("pi,ij,pj->p", rows, weight, columns) / units
        kappas[weighting] = [
            Estimate(float(1 - seen / expected))
            if expected != 0
            else Estimate.undefined(
                f"both raters gave all {count} common units grade {_label(grade)}: "
                "chance agreement is total"
            )
            for seen, expected, count, grade in zip(
                observed.tolist(), chance.tolist(), units.tolist(), modal
            )
        ]
    return PairFigures(units, agreement, kappas)


def _label(value: float) -> str:
    """A category value as text: ``3`` (or ``2.5``)."""
    return f"{float(value):g}"
