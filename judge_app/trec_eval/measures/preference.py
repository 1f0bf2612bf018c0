"""Measures over judged documents only, for incomplete judgments: bpref, gm_bpref, infAP.

A document the qrels do not list is skipped, one listed with a negative grade ("in the pool,
not judged") is counted apart; the rest are relevant (grade at ``-l`` or above) or not. Each
function takes the :class:`~judge_app.trec_eval.ranked.Ranked` lists and returns one array,
one number per evaluated query, as trec_eval 10.0's ``m_bpref.c``, ``m_gm_bpref.c`` and
``m_infap.c`` compute it.
"""

from __future__ import annotations

import math

import numpy as np

from judge_app.trec_eval.measures.precision import max_geo
from judge_app.trec_eval.ranked import UNJUDGED, Ranked

INFAP_EPSILON = 0.00001


def bpref(ranked: Ranked) -> list[np.ndarray]:
    """bpref: per relevant document, 1 − (judged non-relevant above it, at most R) / min(R,
    judged non-relevant), summed and divided by R."""
    return [_bpref(ranked).copy()]


def geometric_bpref(ranked: Ranked) -> list[np.ndarray]:
    """gm_bpref: log(max(bpref, 0.00001)); its summary is the geometric mean of bpref."""
    return [np.array([math.log(max_geo(value)) for value in _bpref(ranked)])]


def inferred_average_precision(ranked: Ranked) -> list[np.ndarray]:
    """infAP (Yilmaz and Aslam): average precision estimated from a sample of the pool."""
    relevant, nonrelevant = _judged(ranked)
    rows = np.flatnonzero(relevant)  # only the relevant rows add terms
    relevant_above = ranked.within(relevant)[rows]  # itself included
    nonrelevant_above = ranked.within(nonrelevant)[rows]
    unjudged_above = ranked.within(ranked.rel == UNJUDGED)[rows]
    position = ranked.position[rows]
    j = (position - 1).astype(np.float64)
    before = (relevant_above - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        seen = (relevant_above - 1 + nonrelevant_above + unjudged_above) / j
        judged = (relevant_above - 1 + nonrelevant_above) + 2 * INFAP_EPSILON
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * seen * ((before + INFAP_EPSILON) / judged)
    terms = np.zeros(len(ranked.rel))
    terms[rows] = np.where(position == 1, 1.0, term)
    return [_over_relevant(ranked.total(terms), ranked.num_rel)]


def _judged(ranked: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """Per row: judged relevant, judged not relevant."""
    judged = ranked.rel >= 0
    nonrelevant = judged & (ranked.rel < ranked.settings.relevance_level)
    return judged & ~nonrelevant, nonrelevant


def _bpref(ranked: Ranked) -> np.ndarray:
    """bpref's values (made once per lists: gm_bpref takes them too)."""
    return ranked.memoized("bpref", lambda: _bpref_values(ranked))


def _bpref_values(ranked: Ranked) -> np.ndarray:
    relevant, nonrelevant = _judged(ranked)
    level = ranked.settings.relevance_level
    judged_nonrelevant = ranked.count_judged(ranked.judged_rel < level)
    num_rel = ranked.num_rel
    above = ranked.within(nonrelevant)[relevant]
    query = ranked.query[relevant]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.minimum(above, num_rel[query]) / np.minimum(
            judged_nonrelevant[query], num_rel[query]
        )
    terms = np.zeros(len(ranked.rel))
    terms[relevant] = np.where(above > 0, 1.0 - fraction, 1.0)
    return _over_relevant(ranked.total(terms), num_rel)


def _over_relevant(total: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """total / R where R > 0, else total (trec_eval divides only then)."""
    return np.divide(total, num_rel, out=total.copy(), where=num_rel > 0)
