"""Measures of the retrieved set as a whole (its order does not matter) and counts: num_ret,
num_rel, num_rel_ret, num_nonrel_judged_ret, num_q, set_P, set_recall, set_relative_P,
set_map, set_F and utility; and relstring, the grades of the top documents as text.

Every function takes the :class:`~judge_app.trec_eval.ranked.Ranked` lists (and the
measure's parameters) and returns one array per value, one entry per evaluated query, as
trec_eval 10.0's ``m_<name>.c`` computes it. With ``-M`` the set is the top documents kept;
with ``-J``, the judged ones.
"""

from __future__ import annotations

import numpy as np

from judge_app.trec_eval.ranked import NONPOOL, UNJUDGED, Ranked


def num_ret(ranked: Ranked) -> list[np.ndarray]:
    """num_ret: documents retrieved."""
    return [ranked.num_ret.astype(np.float64)]


def num_rel(ranked: Ranked) -> list[np.ndarray]:
    """num_rel: documents judged relevant (retrieved or not)."""
    return [ranked.num_rel.astype(np.float64)]


def num_rel_ret(ranked: Ranked) -> list[np.ndarray]:
    """num_rel_ret: relevant documents retrieved."""
    return [ranked.num_rel_ret.astype(np.float64)]


def num_nonrel_judged_ret(ranked: Ranked) -> list[np.ndarray]:
    """num_nonrel_judged_ret: documents retrieved and judged not relevant."""
    judged = ranked.num_ret - ranked.num_nonpool - ranked.num_unjudged - ranked.num_rel_ret
    return [judged.astype(np.float64)]


def num_q(ranked: Ranked) -> list[np.ndarray]:
    """num_q: 1 per query; its summary is the number of queries."""
    return [np.ones(ranked.n)]


def set_precision(ranked: Ranked) -> list[np.ndarray]:
    """set_P: relevant retrieved over retrieved."""
    return [_ratio(ranked.num_rel_ret, ranked.num_ret)]


def set_recall(ranked: Ranked) -> list[np.ndarray]:
    """set_recall: relevant retrieved over relevant."""
    return [_ratio(ranked.num_rel_ret, ranked.num_rel)]


def set_relative_precision(ranked: Ranked) -> list[np.ndarray]:
    """set_relative_P: relevant retrieved over min(retrieved, relevant)."""
    both = (ranked.num_ret > 0) & (ranked.num_rel > 0)
    smaller = np.minimum(ranked.num_ret, ranked.num_rel)
    return [np.where(both, _ratio(ranked.num_rel_ret, smaller), 0.0)]


def set_map(ranked: Ranked) -> list[np.ndarray]:
    """set_map: relevant retrieved squared over (retrieved × relevant)."""
    found = ranked.num_rel_ret.astype(np.float64)
    both = (ranked.num_ret * ranked.num_rel).astype(np.float64)
    return [_ratio(found * found, both)]


def set_f(ranked: Ranked, weights: tuple[float, ...]) -> list[np.ndarray]:
    """set_F: (x + 1) P R / (x P + R), x the weight of recall (the first parameter)."""
    x = weights[0]
    found = ranked.num_rel_ret > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = ranked.num_rel_ret / ranked.num_ret
        r = ranked.num_rel_ret / ranked.num_rel
        value = (x + 1.0) * p * r / (x * p + r)
    return [np.where(found, value, 0.0)]


def utility(ranked: Ranked, weights: tuple[float, ...]) -> list[np.ndarray]:
    """utility: a × relevant retrieved + b × non-relevant retrieved + c × relevant missed +
    d × non-relevant missed (``-N`` documents in the collection), for weights a, b, c, d."""
    a, b, c, d = weights
    found, retrieved, relevant = ranked.num_rel_ret, ranked.num_ret, ranked.num_rel
    rest = ranked.settings.docs_in_collection + found - retrieved - relevant
    return [a * found + b * (retrieved - found) + c * (relevant - found) + d * rest]


def relstring(ranked: Ranked, lengths: tuple[float, ...]) -> list[np.ndarray]:
    """relstring: the grades of the top N documents (N the parameter), one character each:
    the grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` judged negative."""
    length = int(lengths[0])
    kept = ranked.position <= length
    codes = ranked.rel[kept]
    characters = np.where(
        codes > 9,
        ord(">"),
        np.where(
            codes >= 0,
            ord("0") + np.clip(codes, 0, 9),
            np.where(codes == NONPOOL, ord("-"), np.where(codes == UNJUDGED, ord("."), ord("<"))),
        ),
    ).astype(np.uint8)
    text = characters.tobytes().decode("ascii")
    bounds = np.searchsorted(ranked.query[kept], np.arange(ranked.n + 1))
    return [
        np.array([text[start:end] for start, end in zip(bounds[:-1], bounds[1:])], dtype=object)
    ]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator as doubles, 0 where the denominator is 0."""
    return np.divide(
        numerator.astype(np.float64),
        denominator.astype(np.float64),
        out=np.zeros(len(numerator)),
        where=denominator != 0,
    )
