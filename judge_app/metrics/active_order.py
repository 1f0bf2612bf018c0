"""What to judge next: a queue order of queries for human raters that shrinks the interval of
the prediction-powered means fastest (active inference, Zrnic & Candès, ICML 2024).

Each query gets a predicted scale ``u_q`` of its residual, the human value of NDCG@k minus the
automatic judge's. The residual is linearised in the grades: a document ``d`` at rank ``i`` of
run ``r``'s top k weighs ``w_rd = 1/log2(i + 1) / IDCG_q`` (linear gain, the evaluation's
discount; ``IDCG_q`` the judge's, DESIGN section 3, the change of the human IDCG left out), and
the human grade of a pair the judge graded ``ĝ`` varies by ``σ²(ĝ)`` (``GradeVariance``). A
run's residual then varies by ``V_rq = Σ_d w_rd² σ²_d``, a difference of two runs' by
``V_(r−s)q = Σ_d (w_rd − w_sd)² σ²_d``, and ``u_q² = Σ_r V_rq + Σ_(r<s) V_(r−s)q``: large where
the judge is unsure of the grades that count, and where the runs rank differently.

Drawing queries with probability proportional to ``u_q`` minimises the sum of those variances
at a given number of queries (Cauchy–Schwarz). Sequential Poisson sampling (Ohlsson 1998) turns
that into an order: each query's seeded uniform ``U_q`` over ``u_q``, ascending; the first n
queries of it are close to a Poisson sample with inclusion probability ``π_q = min(1, n·u_q /
Σu)`` (capped, ``inclusion_probabilities``) whatever n the raters reach, which the
design-weighted estimate (``ppi.active_estimate``) needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_app.metrics.intervals import t_quantile

UNIFORM_VARIANCE = 35 / 12
"""The variance of a grade drawn uniformly from 0 … 5: what a human grade varies by where
nothing is known of it (no pair both humans and the judge graded, or the judge gave none)."""

SHRINKAGE = 10.0
"""Pairs a variance is worth before its own pairs: ``n`` pairs weigh ``n / (n + SHRINKAGE)``."""

FLOOR_SHARE = 0.1
"""The smallest scale, as a share of the mean scale: every query can be drawn, and a query
the judge was sure of but wrong about weighs at most ten times what uniform sampling gives."""

IDCG_FLOOR = 1.0
"""The smallest IDCG the weights divide by: one document of grade 1 at the top. A query the
judge found nothing relevant in would otherwise weigh without bound."""

GRADES = 6  # 0 … 5


def _shrunk(variance: float, pairs: int, towards: float) -> float:
    return (pairs * variance + SHRINKAGE * towards) / (pairs + SHRINKAGE)


@dataclass(frozen=True)
class GradeVariance:
    """How much a human grade varies given the judge's grade, rounded to a whole grade
    (``by_grade[g]``); ``unjudged`` for a pair the judge did not grade; from ``shared`` pairs
    both humans and the judge graded."""

    by_grade: tuple[float, ...]
    unjudged: float = UNIFORM_VARIANCE
    shared: int = 0

    def of(self, judge_grades: np.ndarray) -> np.ndarray:
        """σ² of each pair from the judge's grade (NaN: not graded by the judge)."""
        grades = np.asarray(judge_grades, dtype=np.float64)
        missing = np.isnan(grades)
        bins = np.clip(np.rint(np.where(missing, 0, grades)), 0, GRADES - 1).astype(np.int64)
        return np.where(missing, self.unjudged, np.asarray(self.by_grade)[bins])


def grade_variance(judge: np.ndarray, human: np.ndarray) -> GradeVariance:
    """``GradeVariance`` from the pairs both graded (``judge`` and ``human`` grades of the
    same pairs, humans' aggregated as evaluation aggregates them). Per rounded judge grade,
    the variance of the human grades (divisor n), shrunk towards the variance of human −
    judge over every shared pair, itself shrunk towards ``UNIFORM_VARIANCE`` (each with
    weight n/(n + SHRINKAGE)): a handful of pairs does not claim certainty."""
    judge = np.asarray(judge, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if len(judge) != len(human):
        raise ValueError("judge and human grades must be of the same pairs")
    if not len(judge):
        return GradeVariance((UNIFORM_VARIANCE,) * GRADES)
    overall = _shrunk(float(np.var(human - judge)), len(judge), UNIFORM_VARIANCE)
    bins = np.clip(np.rint(judge), 0, GRADES - 1).astype(np.int64)
    by_grade = []
    for grade in range(GRADES):
        mine = human[bins == grade]
        own = float(np.var(mine)) if len(mine) else 0.0
        by_grade.append(_shrunk(own, len(mine), overall))
    return GradeVariance(tuple(by_grade), UNIFORM_VARIANCE, len(judge))


def query_scales(
    query: np.ndarray,
    doc: np.ndarray,
    run: np.ndarray,
    rank: np.ndarray,
    variance: np.ndarray,
    ideal: np.ndarray,
    k: int | None,
) -> np.ndarray:
    """Each query's predicted residual scale ``u_q`` (unfloored), from the runs' result rows:
    ``query`` codes (0 … len(ideal) − 1), ``doc`` codes (equal within a query: the same
    document), ``run`` codes, 1-based ``rank``, each row's pair's ``variance`` σ², and each
    query's ``ideal`` (the judge's IDCG@k, floored at ``IDCG_FLOOR``). A run lacking a query
    counts as ranking nothing there."""
    query = np.asarray(query, dtype=np.int64)
    rank = np.asarray(rank, dtype=np.int64)
    keep = rank <= (k if k is not None else np.iinfo(np.int64).max)
    query, doc, run = query[keep], np.asarray(doc)[keep], np.asarray(run)[keep]
    rank, variance = rank[keep], np.asarray(variance, dtype=np.float64)[keep]
    queries = len(ideal)
    runs = len(np.unique(run))
    weight = (
        1.0
        / np.log2(rank + 1.0)
        / np.maximum(np.asarray(ideal, dtype=np.float64)[query], IDCG_FLOOR)
    )
    # per pair d: A = Σ_r w_rd², B = Σ_r w_rd; Σ_(r<s) (w_rd − w_sd)² = R·A − B² over R runs
    width = int(np.max(doc, initial=0)) + 1
    pairs, pair_of = np.unique(query * width + np.asarray(doc, dtype=np.int64), return_inverse=True)
    squares = np.bincount(pair_of, weights=weight**2, minlength=len(pairs))
    sums = np.bincount(pair_of, weights=weight, minlength=len(pairs))
    pair_variance = np.zeros(len(pairs))
    pair_variance[pair_of] = variance
    per_pair = pair_variance * ((runs + 1) * squares - sums**2)
    total = np.bincount(pairs // width, weights=per_pair, minlength=queries)
    return np.sqrt(np.maximum(total, 0.0))


def floored(scales: np.ndarray) -> np.ndarray:
    """``scales`` raised to at least ``FLOOR_SHARE`` of their mean (all 1 if all are 0)."""
    scales = np.asarray(scales, dtype=np.float64)
    mean = float(scales.mean()) if len(scales) else 0.0
    if mean <= 0:
        return np.ones(len(scales))
    return np.maximum(scales, FLOOR_SHARE * mean)


def order_keys(scales: np.ndarray, seed: int) -> np.ndarray:
    """Sequential Poisson sampling's keys ``U_q / u_q`` (``U`` seeded uniform on (0, 1)):
    the queue is in ascending key."""
    scales = np.asarray(scales, dtype=np.float64)
    if np.any(scales <= 0):
        raise ValueError("every scale must be positive: floor them first")
    uniform = np.random.default_rng(seed).uniform(size=len(scales))
    return uniform / scales


def inclusion_probabilities(scales: np.ndarray, n: int) -> np.ndarray:
    """Each query's probability of being among the first ``n`` of the order, ``min(1, n·u_q /
    Σu)``, with the usual capping: queries at 1 are set aside and the rest share what is left
    of ``n``, until none exceeds 1."""
    scales = np.asarray(scales, dtype=np.float64)
    probability = np.zeros(len(scales))
    n = min(max(int(n), 0), len(scales))
    if n == 0:
        return probability
    certain = np.zeros(len(scales), dtype=bool)
    while True:
        rest = ~certain
        probability[certain] = 1.0
        probability[rest] = (n - certain.sum()) * scales[rest] / scales[rest].sum()
        over = rest & (probability >= 1.0)
        if not over.any():
            return probability
        certain |= over


@dataclass(frozen=True)
class ActiveDesign:
    """What the interval of a design-weighted mean is expected to be: the queries' floored
    ``scales`` and the variance of the judge's per-query values, summed over the
    ``estimands`` (each run's mean and each difference of two runs) the scales add up."""

    scales: np.ndarray
    judge_variance: float
    estimands: int = 1

    @property
    def queries(self) -> int:
        return len(self.scales)

    def probabilities(self, n: int) -> np.ndarray:
        """The inclusion probabilities of the first ``n`` queries of the order."""
        return inclusion_probabilities(self.scales, n)

    def half_width(self, n: int, *, uniform: bool = False) -> float:
        """The expected 95% half-width, root-mean-square over the estimands, at ``n``
        queries of the active order (``uniform``: of a uniform random sample of ``n``):
        ``t·sqrt((Σ_q (1/π_q − 1)·u_q² / N² + var(human values) / N) / estimands)``.
        The human values are taken to vary as the judge's plus the residual (uncorrelated
        with them): ``var(judge values) + mean(u²)``; the judge's alone, smoothed by its
        errors, made the prediction a fifth too narrow on a simulated campaign."""
        big_n = self.queries
        if n <= 0 or not big_n:
            return float("nan")
        n = min(n, big_n)
        if uniform:
            probability = np.full(big_n, n / big_n)
        else:
            probability = self.probabilities(n)
        sampling = float(np.sum((1 / probability - 1) * self.scales**2)) / big_n**2
        human_variance = self.judge_variance + float(np.mean(self.scales**2))
        variance = (sampling + human_variance / big_n) / max(self.estimands, 1)
        return t_quantile(n) * float(np.sqrt(variance))
