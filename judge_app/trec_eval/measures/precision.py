"""Measures of relevant documents counted down a ranking: P, recall, relative_P, success, unj
(at cut-offs), Rprec, Rprec_mult, map, gm_map, map_cut, recip_rank and yaap.

Every function takes the :class:`~judge_app.trec_eval.ranked.Ranked` lists and the measure's
parameters (cut-offs, already sorted as trec_eval sorts them) and returns one array per
value, one number per evaluated query, as trec_eval 10.0 computes it (``m_<name>.c``).
"Relevant" is ``ranked.relevant``: a grade at ``-l`` or above. A cut-off beyond the end of a
list counts the missing documents as not relevant.
"""

from __future__ import annotations

import math

import numpy as np

from judge_app.trec_eval.ranked import NONPOOL, UNJUDGED, Ranked


def precision(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """P_k: relevant documents in the top k, over k."""
    running = ranked.relevant_above
    return [ranked.at(running, k) / k for k in cutoffs]


def recall(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """recall_k: relevant documents in the top k, over all relevant (0 if none)."""
    running = ranked.relevant_above
    return [_ratio(ranked.at(running, k), ranked.num_rel) for k in cutoffs]


def relative_precision(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """relative_P_k: relevant documents in the top k, over the most there could be."""
    running = ranked.relevant_above
    return [_ratio(ranked.at(running, k), np.minimum(k, ranked.num_rel)) for k in cutoffs]


def success(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """success_k: 1 if a relevant document is in the top k."""
    running = ranked.relevant_above
    return [(ranked.at(running, k) > 0).astype(np.float64) for k in cutoffs]


def unjudged(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """unj_k: documents in the top k the qrels do not judge (or judge negatively), over k."""
    running = ranked.within((ranked.rel == NONPOOL) | (ranked.rel == UNJUDGED))
    return [ranked.at(running, k) / k for k in cutoffs]


def r_precision(ranked: Ranked) -> list[np.ndarray]:
    """Rprec: precision at R, the number of relevant documents (0 if none is retrieved or
    there is none)."""
    depth = np.minimum(ranked.num_ret, ranked.num_rel)
    found = ranked.at(ranked.relevant_above, depth)
    return [np.where(depth > 0, _ratio(found, ranked.num_rel), 0.0)]


def r_precision_multiples(ranked: Ranked, multiples: tuple[float, ...]) -> list[np.ndarray]:
    """Rprec_mult_m: precision at m × R documents, the cut-off rounded as trec_eval rounds it
    (m × R + 0.9, truncated); 0 at a cut-off of 0 or less."""
    running = ranked.relevant_above
    values = []
    for multiple in multiples:
        cutoff = np.trunc(multiple * ranked.num_rel + 0.9).astype(np.int64)
        found = ranked.at(running, cutoff)
        values.append(np.where(cutoff > 0, _ratio(found, cutoff), 0.0))
    return values


def average_precision(ranked: Ranked) -> list[np.ndarray]:
    """map: the sum of the precisions at each relevant document, over all relevant."""
    found, total = _precision_sums(ranked)
    return [_where_found(found, total / ranked.num_rel)]


def geometric_average_precision(ranked: Ranked) -> list[np.ndarray]:
    """gm_map: log(max(AP, 0.00001)) per query; its summary is the geometric mean of AP."""
    found, total = _precision_sums(ranked)
    average = _where_found(found, total / ranked.num_rel)
    return [np.array([_c_log(max_geo(value)) for value in average])]


def average_precision_cut(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """map_cut_k: map with only the top k documents retrieved (0 without relevant)."""
    return [_ratio(total, ranked.num_rel) for total in ranked.tops(_precisions(ranked), cutoffs)]


def reciprocal_rank(ranked: Ranked) -> list[np.ndarray]:
    """recip_rank: 1 over the rank of the first relevant document, 0 if none."""
    first = np.full(ranked.n, np.inf)
    relevant = ranked.relevant
    np.minimum.at(first, ranked.query[relevant], ranked.position[relevant].astype(np.float64))
    return [np.where(np.isfinite(first), 1.0 / first, 0.0)]


def yaap(ranked: Ranked) -> list[np.ndarray]:
    """yaap: log((1 + S) / (1 + R − S)), S the sum of precisions at relevant documents."""
    _, total = _precision_sums(ranked)
    ratio = (1.0 + total) / (1.0 + ranked.num_rel.astype(np.float64) - total)
    return [np.array([_c_log(value) for value in ratio])]


def max_geo(value: float) -> float:
    """trec_eval's MAX(value, MIN_GEO_MEAN): 0.00001 for anything not above it (NaN too)."""
    return value if value > 0.00001 else 0.00001


def _precisions(ranked: Ranked) -> np.ndarray:
    """Per row: the precision at it if it is relevant, else 0 (made once per lists)."""
    return ranked.memoized(
        "precisions",
        lambda: np.where(ranked.relevant, ranked.relevant_above / ranked.position, 0.0),
    )


def _precision_sums(ranked: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """Per query: how many relevant documents were retrieved, and the sum of the precisions
    at them (added in rank order; made once per lists)."""
    return ranked.memoized(
        "precision sums",
        lambda: (ranked.count(ranked.relevant), ranked.total(_precisions(ranked))),
    )


def _where_found(found: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(found > 0, values, 0.0)


def _ratio(numerator: np.ndarray, denominator: np.ndarray | int) -> np.ndarray:
    """numerator / denominator as doubles, 0 where the denominator is 0 (trec_eval leaves
    the value at 0 there)."""
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), numerator.shape)
    return np.divide(
        numerator.astype(np.float64),
        denominator,
        out=np.zeros(len(numerator)),
        where=denominator != 0,
    )


def _c_log(value: float) -> float:
    """C's log: -inf at 0, NaN below 0 (where math.log raises)."""
    if value > 0:
        return math.log(value)
    if value == 0:
        return -math.inf
    return value if math.isnan(value) else -math.nan
