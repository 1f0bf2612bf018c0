"""Interpolated precision at recall levels: iprec_at_recall and 11pt_avg.

A recall level r of a query with R relevant documents is the cut-off ``lround(r × R)``
relevant documents (trec_eval 10.0; 9.x and earlier truncated r × R + 0.9). The interpolated
precision there is the best precision at that relevant document or any below it. trec_eval
walks up the list from its end, moving to the next cut-off (in the order the parameters
come, from the last) only when the count of relevant documents meets it: cut-offs above the
relevant documents retrieved are skipped (0); a cut-off out of order, or of 0 or less, takes
the precision reached at the top of the walk, as do all after it. Both functions follow that
walk for every query at once, one step per cut-off.
"""

from __future__ import annotations

import numpy as np

from judge_app.trec_eval.ranked import Ranked


def interpolated_precision(ranked: Ranked, levels: tuple[float, ...]) -> list[np.ndarray]:
    """iprec_at_recall_r: the interpolated precision at each recall level."""
    values, _ = _walk(ranked, levels)
    return [value.copy() for value in values]


def eleven_point_average(ranked: Ranked, levels: tuple[float, ...]) -> list[np.ndarray]:
    """11pt_avg: the mean interpolated precision over the recall levels (added from the last
    level to the first, as trec_eval adds them)."""
    values, _ = _walk(ranked, levels)
    total = np.zeros(ranked.n)
    for value in reversed(values):
        total = total + value
    return [total / len(levels)]


def lround(values: np.ndarray) -> np.ndarray:
    """C's lround: to the nearest whole number, halves away from zero."""
    magnitude = np.abs(values)
    whole = np.floor(magnitude)
    return (np.sign(values) * (whole + (magnitude - whole >= 0.5))).astype(np.int64)


def _walk(ranked: Ranked, levels: tuple[float, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each level's value per query, and where each query's walk ended (its top value); made
    once per lists and levels (iprec_at_recall and 11pt_avg share the default levels)."""
    return ranked.memoized(("walk", levels), lambda: _walk_down(ranked, levels))


def _walk_down(ranked: Ranked, levels: tuple[float, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    relevant = ranked.relevant
    rows = np.flatnonzero(relevant)
    count = ranked.relevant_above[rows]  # r: the r-th relevant document of its query
    precision = count / ranked.position[rows]
    found = ranked.count(relevant)  # trec_eval's num_rel_ret
    first = np.zeros(ranked.n, dtype=np.int64)  # index in ``rows`` of each query's first
    first[1:] = np.cumsum(found)[:-1]
    # the walk's top value: the best precision at any relevant document, or (none) RR / ret
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.where(found > 0, _best(precision, first, first + found), found / ranked.num_ret)
    cutoffs = [lround(level * ranked.num_rel) for level in levels]
    values = [np.zeros(ranked.n) for _ in levels]
    started = np.zeros(ranked.n, dtype=bool)  # skipping no more: a cut-off within reach
    stuck = np.zeros(ranked.n, dtype=bool)  # a cut-off the walk cannot meet: top from here
    previous = found.copy()  # the last cut-off met
    for index in reversed(range(len(levels))):
        cutoff = cutoffs[index]
        started |= cutoff <= found
        meets = started & ~stuck & (cutoff >= 1) & (cutoff <= previous)
        stuck |= started & ~meets
        start = np.where(meets, first + cutoff - 1, first)
        values[index] = np.where(
            meets, _best(precision, start, first + found), np.where(stuck, top, 0.0)
        )
        previous = np.where(meets, cutoff, previous)
    return values, top


def _best(values: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per query, the largest of ``values[start:end]`` (0 where the range is empty)."""
    best = np.zeros(len(start))
    some = end > start
    if not some.any():
        return best
    bounds = np.stack([start[some], end[some]], axis=1).ravel()
    padded = np.append(values, 0.0)  # reduceat's indices must be within the array
    best[some] = np.maximum.reduceat(padded, bounds)[::2]
    return best
