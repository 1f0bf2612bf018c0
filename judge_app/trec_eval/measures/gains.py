"""Measures of graded gain: ndcg, dcg, ideal_dcg, ndcg_rel, Rndcg, G, binG, ndcg_cut, rbp and
rbp_resid.

Gains (trec_eval's ``gain_init.c``): a grade's gain is the grade itself unless the measure's
parameters say otherwise (``-m ndcg.1=3,2=9,4=4.5``: grade 1 gains 3, ...; ``p=`` is rbp's
persistence, not a gain). The gains of a query are sorted the way trec_eval sorts them (its
comparison truncates the difference of two gains to a whole number, so gains less than 1
apart keep their order) and the ideal ranking walks them from the top: each level's judged
documents in turn, until a level whose gain is 0 or less. A document the qrels do not list,
or list with a negative grade, gains 0 unless a parameter names its code (-1 or -2).
ndcg_cut alone ignores parameters: its gain is the grade.

Every function takes the :class:`~judge_app.trec_eval.ranked.Ranked` lists (and the
measure's parameters) and returns one array per value, one number per evaluated query, as
trec_eval 10.0's ``m_<name>.c`` computes it. Discounts are ``log2`` of the C library
(``math.log2``), sums are added in rank order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from judge_app.trec_eval.ranked import Ranked, c_sorted, group_sums, log2_table, running_sums
from judge_app.trec_eval.reading import atol

Pairs = tuple[tuple[str, float], ...]
_WHOLE = re.compile(r"[+-]?[0-9]+")
RBP_PERSISTENCE = 0.9


@dataclass(frozen=True)
class Gains:
    """A query's gains as trec_eval sets them up, for every query at once.

    ``row`` is each ranked row's gain; the ideal ranking has one row per position with a
    positive gain: ``ideal_query``, ``ideal_position`` (1-based) and ``ideal_gain``, grouped
    by query; ``top`` is the gain the walk starts at (the highest level's, even without
    documents), ``end`` the gain it stops at (0 or less); ``low`` and ``high`` are the
    smallest and largest gain of a query's levels.
    """

    row: np.ndarray
    row_known: np.ndarray  # the row's code is one of the query's levels
    ideal_query: np.ndarray
    ideal_position: np.ndarray
    ideal_gain: np.ndarray
    top: np.ndarray
    end: np.ndarray
    low: np.ndarray
    high: np.ndarray


def ndcg(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """ndcg: DCG over the ideal DCG of the query's judged documents (0 if that is 0)."""
    dcg, ideal = _dcg(ranked, gains_of(ranked, pairs))
    return [np.divide(dcg, ideal, out=np.zeros(ranked.n), where=ideal > 0)]


def dcg(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """dcg: the discounted cumulative gain of the ranking."""
    return [_dcg(ranked, gains_of(ranked, pairs))[0]]


def ideal_dcg(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """ideal_dcg: the DCG of the ideal ranking of the query's judged documents."""
    return [_dcg(ranked, gains_of(ranked, pairs))[1]]


def ndcg_rel(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """ndcg_rel: NDCG averaged over the documents with a positive gain: at each one
    retrieved, and at the end of the ranking for each one not."""
    gains = gains_of(ranked, pairs)
    running, ideal_running = _runs(ranked, pairs, gains)
    ideal_count = np.bincount(gains.ideal_query, minlength=ranked.n)
    ideal_here = _ideal_at(ranked, gains, ideal_running, ranked.query, ranked.position)
    hits = gains.row > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        total = ranked.total(np.where(hits, running / ideal_here, 0.0))
        final = ranked.at(running, ranked.num_ret)
        ideal_total = _ideal_at(ranked, gains, ideal_running, np.arange(ranked.n), ideal_count)
        total = total + (ideal_count - ranked.count(hits)).astype(np.float64) * final / ideal_total
        value = total / ideal_count
    return [np.where(total > 0.0, value, 0.0)]


def r_ndcg(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """Rndcg: NDCG averaged at the ranks where the ideal gain changes (and at the end of the
    ranking if the ideal one ends before it); 0 without relevant documents."""
    gains = gains_of(ranked, pairs)
    running, ideal_running = _runs(ranked, pairs, gains)
    ideal_count = np.bincount(gains.ideal_query, minlength=ranked.n)
    # the changes along the ideal ranking, at 0-based ranks: a gain unlike the one before
    # (the first against the top gain), and its end (for queries whose walk starts)
    previous = np.where(
        gains.ideal_position > 1, np.roll(gains.ideal_gain, 1), gains.top[gains.ideal_query]
    )
    changed = gains.ideal_gain != previous
    started = np.flatnonzero(gains.top > 0)
    query = np.concatenate([gains.ideal_query[changed], started])
    rank = np.concatenate([gains.ideal_position[changed] - 1, ideal_count[started]])
    extra = started[ideal_count[started] + 1 < ranked.num_ret[started]]
    order = np.lexsort((rank, query))
    query, rank = query[order], rank[order]
    with np.errstate(divide="ignore", invalid="ignore"):
        ideal = _ideal_at(ranked, gains, ideal_running, query, rank)
        found = _running_at(ranked, running, query, np.minimum(rank, ranked.num_ret[query]))
        counted = ideal > 0
        ideal_total = _ideal_at(ranked, gains, ideal_running, extra, ideal_count[extra])
        final = ranked.at(running, ranked.num_ret)[extra]
        extra = extra[ideal_total > 0]
        query = np.concatenate([query[counted], extra])
        ratio = np.concatenate(
            [found[counted] / ideal[counted], (final / ideal_total)[ideal_total > 0]]
        )
        order = np.argsort(query, kind="stable")
        total = group_sums(query[order], ratio[order], ranked.n)
        value = total / np.bincount(query, minlength=ranked.n)
    return [np.where(ranked.num_rel > 0, value, 0.0)]


def g(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """G: each document's gain over log2(2 + the ideal gain so far − the gain so far), the
    ideal gain of a rank counted at least 1; summed, over the ideal ranking's total gain."""
    gains = gains_of(ranked, pairs)
    ideal = np.zeros(len(ranked.rel))
    rows = ranked.starts[gains.ideal_query] + gains.ideal_position - 1
    inside = gains.ideal_position <= ranked.num_ret[gains.ideal_query]
    ideal[rows[inside]] = gains.ideal_gain[inside]
    cost = np.where(ideal >= 1.0, ideal, 1.0)
    gained = ranked.running_sum(gains.row)
    spent = ranked.running_sum(cost)
    base = (2.0 + spent) - gained
    hits = gains.row != 0
    terms = np.zeros(len(ranked.rel))
    terms[hits] = gains.row[hits] / _c_log2(base[hits])
    total = ranked.total(terms)
    ideal_total = group_sums(gains.ideal_query, gains.ideal_gain, ranked.n)
    return [np.divide(total, ideal_total, out=np.zeros(ranked.n), where=ideal_total > 0.0)]


def binary_g(ranked: Ranked) -> list[np.ndarray]:
    """binG: per relevant document, 1 / log2(2 + the non-relevant documents above it);
    summed, over the number of relevant documents."""
    relevant = ranked.relevant
    above = (ranked.position - ranked.relevant_above)[relevant]
    table = log2_table(int(above.max(initial=0)) + 3)
    terms = np.zeros(len(ranked.rel))
    terms[relevant] = 1.0 / table[above + 2]
    total = ranked.total(terms)
    found = ranked.count(relevant)
    with np.errstate(divide="ignore", invalid="ignore"):
        return [np.where(found > 0, total / ranked.num_rel, 0.0)]


def ndcg_cut(ranked: Ranked, cutoffs: tuple[int, ...]) -> list[np.ndarray]:
    """ndcg_cut_k: NDCG of the top k, gains the grades (parameters are cut-offs only)."""
    gain = np.where(ranked.rel > 0, ranked.rel, 0).astype(np.float64)
    discounted = gain / _discount(ranked.position)
    positive = ranked.judged_rel > 0
    order = np.lexsort((-ranked.judged_rel[positive], ranked.judged_query[positive]))
    ideal_query = ranked.judged_query[positive][order]
    ideal_gain = ranked.judged_rel[positive][order].astype(np.float64)
    ideal_starts = np.searchsorted(ideal_query, np.arange(ranked.n))
    ideal_position = np.arange(len(ideal_query)) - ideal_starts[ideal_query] + 1
    ideal_discounted = ideal_gain / _discount(ideal_position)
    values = []
    for k, dcg in zip(cutoffs, ranked.tops(discounted, cutoffs)):
        kept = np.where(ideal_position <= k, ideal_discounted, 0.0)
        ideal = group_sums(ideal_query, kept, ranked.n)
        values.append(np.divide(dcg, ideal, out=dcg.copy(), where=ideal > 0.0))
    return values


def rbp(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """rbp (Moffat and Zobel): (1 − p) × the sum of gain × p^(rank − 1), gains scaled to 0 … 1
    when a query's gains go beyond that."""
    p = _persistence(pairs)
    gains = gains_of(ranked, pairs)
    low, high = gains.low[ranked.query], gains.high[ranked.query]
    scale = (low < 0) | (high > 1)
    known = gains.row_known
    with np.errstate(divide="ignore", invalid="ignore"):
        row = np.where(scale & known, (gains.row - low) / (high - low), gains.row)
    powers = _powers(p, int(ranked.num_ret.max(initial=0)) + 1)
    total = ranked.total(np.where(row != 0, row * powers[ranked.position - 1], 0.0))
    return [(1.0 - p) * total]


def rbp_residual(ranked: Ranked, pairs: Pairs) -> list[np.ndarray]:
    """rbp_resid: how much rbp could rise if every retrieved document the qrels do not judge
    were relevant: p^ret + (1 − p) × the sum of p^(rank − 1) over them (0 if none)."""
    p = _persistence(pairs)
    powers = _powers(p, int(ranked.num_ret.max(initial=0)) + 1)
    unknown = ranked.rel < 0
    total = ranked.total(np.where(unknown, powers[ranked.position - 1], 0.0))
    value = powers[ranked.num_ret] + (1 - p) * total
    return [np.where(ranked.count(unknown) > 0, value, 0.0)]


def gains_of(ranked: Ranked, pairs: Pairs) -> Gains:
    """The gains of every query under the parameters ``pairs`` (made once per lists)."""
    return ranked.memoized(("gains", pairs), lambda: _gains(ranked, pairs))


@dataclass(frozen=True)
class _Level:
    """One entry of trec_eval's gain list: a grade, its gain, and the grade whose judged
    documents it counts (None: a parameter for a grade the query does not have)."""

    level: int
    gain: float
    counts: int | None


def _levels(pairs: Pairs, levels: int) -> list[_Level]:
    """trec_eval's gain list for a query whose highest grade is ``levels`` − 1, sorted as it
    sorts it (ascending; its comparison truncates the difference to a whole number)."""
    entries = [
        _Level(atol(name.encode()), value, None) for name, value in pairs if _WHOLE.fullmatch(name)
    ]
    for grade in range(levels):
        index = next((i for i, entry in enumerate(entries) if entry.level == grade), None)
        if index is None:
            entries.append(_Level(grade, float(grade), grade))
        else:
            entries[index] = _Level(grade, entries[index].gain, grade)

    def compare(a: _Level, b: _Level) -> int:
        difference = a.gain - b.gain
        return 0 if math.isnan(difference) else int(difference)

    return c_sorted(entries, compare)


def _gains(ranked: Ranked, pairs: Pairs) -> Gains:
    n = ranked.n
    counts = _LevelCounts(ranked)
    top, end = np.zeros(n), np.zeros(n)
    low, high = np.zeros(n), np.zeros(n)
    ideal_queries: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    ideal_gains: list[np.ndarray] = [np.zeros(0)]
    distinct = np.unique(ranked.num_rel_levels)
    tables = np.zeros((len(distinct), int(distinct.max(initial=0)) + 2))  # codes -2 … L - 1
    known_tables = np.zeros(tables.shape, dtype=bool)
    for index, levels in enumerate(distinct):
        entries = _levels(pairs, int(levels))
        queries = np.flatnonzero(ranked.num_rel_levels == levels)
        for entry in reversed(entries):  # the first of a level counts, as in get_gain
            if -2 <= entry.level < tables.shape[1] - 2:
                tables[index, entry.level + 2] = entry.gain
                known_tables[index, entry.level + 2] = True
        if not entries:
            continue
        gains = np.array([entry.gain for entry in entries])
        top[queries], low[queries], high[queries] = gains[-1], gains.min(), gains.max()
        # the ideal ranking: from the top level down, each level's documents, until a level
        # with documents and a gain of 0 or less
        walk = entries[::-1]
        number = np.stack([counts.of(queries, entry.counts) for entry in walk], axis=1)
        walk_gain = gains[::-1]
        stops = (number > 0) & (walk_gain <= 0.0)
        stop = np.where(stops.any(axis=1), stops.argmax(axis=1), len(walk))
        end[queries] = np.where(stop < len(walk), walk_gain[np.minimum(stop, len(walk) - 1)], 0.0)
        number[np.arange(len(walk)) >= stop[:, None]] = 0
        if not walk_gain[0] > 0.0:  # the walk does not start
            number[:] = 0
        taken = number.ravel()
        ideal_queries.append(np.repeat(np.repeat(queries, len(walk)), taken))
        ideal_gains.append(np.repeat(np.tile(walk_gain, len(queries)), taken))
    group = np.searchsorted(distinct, ranked.num_rel_levels)[ranked.query]
    row, known = tables[group, ranked.rel + 2], known_tables[group, ranked.rel + 2]
    ideal_query, ideal_gain = np.concatenate(ideal_queries), np.concatenate(ideal_gains)
    order = np.argsort(ideal_query, kind="stable")
    ideal_query, ideal_gain = ideal_query[order], ideal_gain[order]
    starts = np.searchsorted(ideal_query, np.arange(n))
    position = np.arange(len(ideal_query)) - starts[ideal_query] + 1
    return Gains(row, known, ideal_query, position, ideal_gain, top, end, low, high)


class _LevelCounts:
    """How many documents of each grade every query's judgments hold."""

    def __init__(self, ranked: Ranked) -> None:
        self.width = int(ranked.judged_rel.max(initial=0)) + 1
        keys = ranked.judged_query * self.width + ranked.judged_rel
        self.keys, self.counts = np.unique(keys, return_counts=True)

    def of(self, queries: np.ndarray, grade: int | None) -> np.ndarray:
        """The number of documents of ``grade`` (None: none) judged for each of ``queries``."""
        if grade is None or grade >= self.width or not len(self.keys):
            return np.zeros(len(queries), dtype=np.int64)
        wanted = queries * self.width + grade
        place = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return np.where(self.keys[place] == wanted, self.counts[place], 0)


def _discount(position: np.ndarray) -> np.ndarray:
    """log2(rank + 1), as trec_eval discounts rank ``position``."""
    return log2_table(int(position.max(initial=0)) + 2)[position + 1]


def _discounted(ranked: Ranked, gain: np.ndarray) -> np.ndarray:
    return gain / _discount(ranked.position)


def _dcg(ranked: Ranked, gains: Gains) -> tuple[np.ndarray, np.ndarray]:
    """Per query: the DCG of the ranking and of the ideal ranking."""
    dcg = ranked.total(_discounted(ranked, gains.row))
    discounted = gains.ideal_gain / _discount(gains.ideal_position)
    return dcg, group_sums(gains.ideal_query, discounted, ranked.n)


def _runs(ranked: Ranked, pairs: Pairs, gains: Gains) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the DCG down to it; per ideal row, the ideal DCG down to it (made once per
    lists and gains: ndcg_rel and Rndcg share them)."""
    return ranked.memoized(
        ("dcg runs", pairs),
        lambda: (ranked.running_sum(_discounted(ranked, gains.row)), _ideal_running(ranked, gains)),
    )


def _ideal_running(ranked: Ranked, gains: Gains) -> np.ndarray:
    """Per ideal row: the ideal DCG down to it (itself included)."""
    starts = np.searchsorted(gains.ideal_query, np.arange(ranked.n + 1))
    discounted = gains.ideal_gain / _discount(gains.ideal_position)
    return running_sums(discounted, gains.ideal_query, gains.ideal_position, starts)


def _ideal_at(
    ranked: Ranked, gains: Gains, running: np.ndarray, query: np.ndarray, rank: np.ndarray
) -> np.ndarray:
    """The ideal DCG of ``query`` down to ``rank`` (or to the ideal ranking's end)."""
    starts = np.searchsorted(gains.ideal_query, np.arange(ranked.n + 1))
    depth = np.minimum(rank, np.diff(starts)[query])
    value = np.zeros(len(query))
    some = depth > 0
    value[some] = running[starts[query[some]] + depth[some] - 1]
    return value


def _running_at(
    ranked: Ranked, running: np.ndarray, query: np.ndarray, rank: np.ndarray
) -> np.ndarray:
    """A running value (one per row) of ``query`` at ``rank`` (0 at rank 0)."""
    value = np.zeros(len(query))
    some = rank > 0
    value[some] = running[ranked.starts[query[some]] + rank[some] - 1]
    return value


def _c_log2(values: np.ndarray) -> np.ndarray:
    """The C library's log2 of each value (-inf at 0, NaN below)."""
    whole = len(values) and (np.trunc(values) == values).all()
    if whole and 1 <= values.min() and values.max() < 2**20:
        return log2_table(int(values.max()) + 1)[values.astype(np.int64)]
    return np.array([_log2(value) for value in values], dtype=np.float64)


def _log2(value: float) -> float:
    if value > 0:
        return math.log2(value)
    return -math.inf if value == 0 else -math.nan


def _persistence(pairs: Pairs) -> float:
    """rbp's p: the last ``p=`` parameter, else 0.9."""
    found = [value for name, value in pairs if name == "p"]
    return found[-1] if found else RBP_PERSISTENCE


def _powers(p: float, size: int) -> np.ndarray:
    """p^0 … p^(size − 1), each the one before times p (as trec_eval multiplies)."""
    return np.cumprod(np.concatenate([[1.0], np.full(max(size - 1, 0), p)]))
