"""The ranked lists every measure reads: a results file joined to a qrels file, as trec_eval
10.0's ``te_form_res_rels`` forms them, for all evaluated queries at once.

Rows are the retrieved documents of every evaluated query, grouped by query (in trec_eval's
order of query ids, byte order) and, within a query, in rank order: score descending, ties by
document id descending; cut at ``-M`` documents; with ``-J``, the documents not judged
removed and the rest ranked again. Each row carries trec_eval's relevance code: the judged
grade (0 or more), ``NONPOOL`` (-1) for a document the qrels do not list for the query, or
``UNJUDGED`` (-2) for one listed with a negative grade.

The evaluated queries are those of the qrels: with results, or all of them with ``-c`` (a
query without results is then ranked as trec_eval ranks it, with one document no qrels
judges). Queries of the results that the qrels do not judge are never evaluated. What
trec_eval would stop at (a judged query without results, a document twice in a query) is
recorded, not raised: the command decides (see ``commands.trec_eval``).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judge_app.arrow_columns import (
    codes_in,
    first_repeat,
    from_numpy,
    mix,
    same_keys,
    sorted_ids,
    string_hashes,
    to_numpy,
    trec_order,
)
from judge_app.trec_eval.reading import Qrels, Results

NONPOOL = -1
UNJUDGED = -2
BOGUS_DOC = "ceci_nest_pas_un_docno"
"""The document trec_eval ranks, with score 1.0, for a judged query without results (``-c``)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    """trec_eval's evaluation settings: ``-l`` relevance level, ``-M`` documents per query
    (None: all), ``-J`` judged documents only, ``-c`` complete, ``-N`` documents in the
    collection (for ``utility``)."""

    relevance_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    complete: bool = False
    docs_in_collection: int = 0


@dataclass(frozen=True)
class Repeat:
    """A document found twice for one evaluated query (``query``: its index)."""

    source: str  # "qrels" or "results"
    query: int
    doc: str


@dataclass(frozen=True)
class Ranked:
    """The evaluated queries' ranked lists (see the module's docstring).

    Per row: ``query`` (index into ``queries``), ``position`` (1-based rank), ``rel``
    (trec_eval's relevance code). Rows of query q are ``starts[q]:starts[q + 1]``. Per judged
    document of an evaluated query with a grade of 0 or more: ``judged_query``,
    ``judged_rel``. ``bogus`` marks queries ranked without results (``-c``); ``missing``
    lists the judged queries without results otherwise (trec_eval stops at the first);
    ``repeats`` the first document twice in a query of each file.
    """

    queries: list[str]
    settings: Settings
    runid: str
    query: np.ndarray
    position: np.ndarray
    rel: np.ndarray
    starts: np.ndarray
    judged_query: np.ndarray
    judged_rel: np.ndarray
    bogus: np.ndarray
    missing: list[str]
    repeats: list[Repeat]
    memo: dict[object, object] = field(default_factory=dict, compare=False, repr=False)
    """What measures built from these lists and share (gain tables), by key."""

    @property
    def n(self) -> int:
        """The number of evaluated queries."""
        return len(self.queries)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Per row: relevant at the relevance level."""
        return self.rel >= self.settings.relevance_level

    @cached_property
    def relevant_above(self) -> np.ndarray:
        """Per row: the relevant rows of its query up to it (itself included), which most
        measures count."""
        return self.within(self.relevant)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.starts)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """Judged documents at the relevance level or above, retrieved or not."""
        high = self.judged_rel >= self.settings.relevance_level
        return self.count_judged(high)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return self.count(self.relevant)

    @cached_property
    def num_nonpool(self) -> np.ndarray:
        return self.count(self.rel == NONPOOL)

    @cached_property
    def num_unjudged(self) -> np.ndarray:
        return self.count(self.rel == UNJUDGED)

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """1 + the highest grade judged (0 or more) for the query; 0 if none."""
        levels = np.zeros(self.n, dtype=np.int64)
        np.maximum.at(levels, self.judged_query, self.judged_rel + 1)
        return levels

    def memoized(self, key: object, make: Callable[[], T]) -> T:
        """What ``make`` builds from these lists, built once and kept in ``memo`` for the
        measures that share it."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]  # type: ignore[return-value]

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per query, the number of its rows where ``mask`` holds."""
        return np.bincount(self.query[mask], minlength=self.n).astype(np.int64)

    def count_judged(self, mask: np.ndarray) -> np.ndarray:
        """Per query, the number of its judged documents (grade 0 or more) where ``mask``
        holds."""
        return np.bincount(self.judged_query[mask], minlength=self.n).astype(np.int64)

    def total(self, values: np.ndarray) -> np.ndarray:
        """Per query, the sum of ``values`` over its rows, added in rank order as trec_eval
        adds them (bincount adds in row order)."""
        return group_sums(self.query, values, self.n)

    def within(self, counts: np.ndarray) -> np.ndarray:
        """Per row, the number of rows of its query up to it (itself included) where
        ``counts`` (0/1, or whole numbers) says so: a running count per query."""
        running = np.cumsum(counts, dtype=np.int64)
        before = np.concatenate([[0], running])[self.starts[:-1]]
        return running - before[self.query]

    def at(self, running: np.ndarray, positions: np.ndarray | int) -> np.ndarray:
        """Per query, a running value (one per row, see :meth:`within`) at rank ``positions``
        (one per query, or one for all), or at its last row if it has fewer; 0 where that
        is no row at all."""
        rank = np.minimum(positions, self.num_ret)
        value = np.zeros(self.n, dtype=running.dtype)
        some = rank > 0
        value[some] = running[self.starts[:-1][some] + rank[some] - 1]
        return value

    def tops(self, values: np.ndarray, cutoffs: Sequence[int]) -> list[np.ndarray]:
        """Per cut-off k, per query, the sum of ``values`` over its first k rows, added in
        rank order from 0.0 (as bincount adds: -0.0 is 0.0)."""
        running = self.running_sum(values)
        return [self.at(running, k) + 0.0 for k in cutoffs]

    def running_sum(self, values: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``values`` over the rows of its query up to it, added in rank
        order (the sum trec_eval keeps as it walks down a list), exactly: see
        :func:`running_sums`."""
        return running_sums(values, self.query, self.position, self.starts)


def group_sums(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per group of ``n``, the sum of ``values`` over its rows, added in row order (as
    bincount adds); floats even without rows."""
    return np.bincount(group, weights=values, minlength=n).astype(np.float64, copy=False)


def running_sums(
    values: np.ndarray, group: np.ndarray, position: np.ndarray, starts: np.ndarray
) -> np.ndarray:
    """Per row, the running sum of ``values`` within its group, each added in order as a loop
    would: a global cumulative sum less each group's start would round differently. In a
    grid of a row per group when that is small enough, else by loops over positions or over
    groups, whichever are fewer."""
    out = np.empty(len(values))
    if not len(values):
        return out
    whole = np.trunc(values) == values
    if whole.all() and np.abs(values).sum() < 2**53:  # sums of whole numbers are exact
        running = np.cumsum(values.astype(np.int64))
        before = np.concatenate([[0], running])[starts[:-1]]
        return (running - before[group]).astype(np.float64)
    lengths = np.diff(starts)
    width = int(lengths.max())
    if len(lengths) * width <= 2 * len(values):  # a grid not much larger: a row per group
        grid = np.zeros((len(lengths), width))
        cells = group * width + position - 1
        grid.ravel()[cells] = values
        np.cumsum(grid, axis=1, out=grid)  # along a row, one value after the other
        return grid.ravel()[cells]
    if len(lengths) <= width:
        for first, last in zip(starts[:-1], starts[1:]):
            np.cumsum(values[first:last], out=out[first:last])
        return out
    by_position = np.argsort(position, kind="stable")
    bounds = np.searchsorted(position[by_position], np.arange(1, width + 2))
    sums = np.zeros(len(lengths))
    for first, last in zip(bounds[:-1], bounds[1:]):
        rows = by_position[first:last]
        sums[group[rows]] += values[rows]
        out[rows] = sums[group[rows]]
    return out


def c_sorted(items: Sequence[T], compare: Callable[[T, T], float]) -> list[T]:
    """``items`` sorted as the C library's ``qsort`` (glibc's merge sort) sorts them with
    ``compare``: the same order even where ``compare`` is not consistent (NaN scores,
    trec_eval's gains compared as whole numbers)."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = c_sorted(items[:half], compare), c_sorted(items[half:], compare)
    merged: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def rank(qrels: Qrels, results: Results, settings: Settings = Settings()) -> Ranked:
    """The ranked lists of ``results`` judged by ``qrels`` (see the module's docstring)."""
    judged_ids = sorted_ids(qrels.table["query"])
    names = judged_ids.to_pylist()
    judged_code = codes_in(qrels.table["query"], judged_ids).astype(np.int64)
    run = results.table.select(["doc", "sim"])
    run_code = codes_in(results.table["query"], judged_ids)
    if (run_code < 0).any():  # queries the qrels do not judge: never evaluated
        kept = run_code >= 0
        run, run_code = run.filter(from_numpy(kept)), run_code[kept]
    run_code = run_code.astype(np.int64)
    with_results = np.bincount(run_code, minlength=len(names)) > 0
    evaluated = with_results
    if settings.complete:
        run, run_code = _with_bogus(run, run_code, np.flatnonzero(~with_results))
        evaluated = np.ones(len(names), dtype=bool)
    index = np.cumsum(evaluated) - 1  # judged query code -> evaluated query (-1: none)
    index[~evaluated] = -1
    queries = [name for name, keep in zip(names, evaluated) if keep]
    judged_query = index[judged_code]
    judgments = qrels.table.select(["doc", "rel"])
    if (judged_query < 0).any():
        kept_rows = np.flatnonzero(judged_query >= 0)
        judgments, judged_query = judgments.take(from_numpy(kept_rows)), judged_query[kept_rows]
    query, grade, repeats = _ranked_rows(run, index[run_code], judgments, judged_query, settings)
    rel = np.where(np.isnan(grade), NONPOOL, np.where(grade < 0, UNJUDGED, grade)).astype(np.int64)
    if settings.judged_only:
        judged = rel >= 0
        query, rel = query[judged], rel[judged]
    starts = np.searchsorted(query, np.arange(len(queries) + 1))
    grades = to_numpy(judgments["rel"], np.int64)
    graded = grades >= 0
    return Ranked(
        queries=queries,
        settings=settings,
        runid=results.runid,
        query=query,
        position=np.arange(len(query)) - starts[query] + 1,
        rel=rel,
        starts=starts,
        judged_query=judged_query[graded],
        judged_rel=grades[graded],
        bogus=~with_results[evaluated],
        missing=[name for name, has in zip(names, evaluated) if not has],
        repeats=repeats,
    )


def _with_bogus(
    run: pa.Table, run_code: np.ndarray, lacking: np.ndarray
) -> tuple[pa.Table, np.ndarray]:
    """The run (documents and scores) with trec_eval's one document (score 1.0) for each
    judged query lacking results (``-c``)."""
    if not len(lacking):
        return run, run_code
    bogus = pa.table(
        {
            "doc": pa.array([BOGUS_DOC] * len(lacking), run["doc"].type),
            "sim": from_numpy(np.ones(len(lacking))),
        }
    )
    return pa.concat_tables([run, bogus]), np.concatenate([run_code, lacking])


def _ranked_rows(
    run: pa.Table,
    run_query: np.ndarray,
    judgments: pa.Table,
    judged_query: np.ndarray,
    settings: Settings,
) -> tuple[np.ndarray, np.ndarray, list[Repeat]]:
    """The run's rows in rank order, cut at ``-M``: their queries, their grades (NaN: not
    judged), and the first document twice in a query of each file (looked for by ids only
    where hashes of (query, document) meet)."""
    order = _order(run, from_numpy(run_query), run_query)
    query = run_query[order]
    if settings.max_docs is not None:
        starts = np.searchsorted(query, np.arange(int(query.max(initial=-1)) + 2))
        kept = np.arange(len(order)) - starts[query] < settings.max_docs
        order, query = order[kept], query[kept]
    found, twice = _judged_rows(query, run["doc"], order, judged_query, judgments["doc"])
    repeats = []
    if twice["results"]:
        first = first_repeat(from_numpy(query), run["doc"].take(from_numpy(order)))
        repeats += [Repeat("results", *first)] if first is not None else []
    if twice["qrels"]:
        first = first_repeat(from_numpy(judged_query), judgments["doc"])
        repeats += [Repeat("qrels", *first)] if first is not None else []
    grade = np.full(len(query), np.nan)
    matched = found >= 0
    grade[matched] = to_numpy(judgments["rel"], np.float64)[found[matched]]
    return query, grade, repeats


def _judged_rows(
    query: np.ndarray,
    docs: pa.ChunkedArray,
    order: np.ndarray,
    judged_query: np.ndarray,
    judged_docs: pa.ChunkedArray,
) -> tuple[np.ndarray, dict[str, bool]]:
    """For each ranked row (``docs[order]`` of ``query``), the judgment of its query and
    document (-1: none), and whether a pair may be there twice, by source: pairs met by 64-bit
    hashes, every meeting checked on the ids (a hash that met other ids by chance is replaced
    by another)."""
    seed = 0
    while True:
        keys = string_hashes(docs, seed)[order]
        keys ^= mix(query.astype(np.uint64))
        judged_keys = string_hashes(judged_docs, seed) ^ mix(judged_query.astype(np.uint64))
        found, judged_twice, twice = same_keys(mix(judged_keys), mix(keys))
        del keys, judged_keys
        rows = np.flatnonzero(found >= 0)
        met = found[rows]
        ids = pc.equal(docs.take(from_numpy(order[rows])), judged_docs.take(from_numpy(met)))
        if pc.all(ids).as_py() is not False and (judged_query[met] == query[rows]).all():
            return found, {"results": twice, "qrels": judged_twice}
        seed += 1


def _order(run: pa.Table, arrow_query: pa.Array, run_query: np.ndarray) -> np.ndarray:
    """The run's rows in trec_eval's order; a query with a NaN score is sorted as trec_eval's
    C library sorts it (NaN is neither above nor below a number): from its rows in order of
    document id, as trec_eval reads them, by glibc's merge sort."""
    order = trec_order(arrow_query, run["sim"], run["doc"])
    sims = to_numpy(run["sim"], np.float64)
    odd = np.isnan(sims)
    if not odd.any():
        return order
    docs = run["doc"].to_pylist()
    for query in np.unique(run_query[odd]):
        rows = np.flatnonzero(run_query[order] == query)
        read = sorted(order[rows].tolist(), key=lambda row: docs[row].encode())
        order[rows] = c_sorted(
            read, lambda a, b: _compare_results(sims[a], docs[a], sims[b], docs[b])
        )
    return order


def _compare_results(sim_a: float, doc_a: str, sim_b: float, doc_b: str) -> int:
    """trec_eval's ``comp_sim_docno``: score descending, then document id descending."""
    if sim_a > sim_b:
        return -1
    if sim_a < sim_b:
        return 1
    a, b = doc_a.encode(), doc_b.encode()
    return (a < b) - (a > b)


def log2_table(size: int) -> np.ndarray:
    """``log2(i)`` for i = 0 … size - 1 as the C library computes it (``math.log2``; the first
    entry, unused, is -inf)."""
    return np.array([-math.inf] + [math.log2(i) for i in range(1, size)])


def missing_before(ranked: Ranked, query: str) -> int:
    """How many evaluated queries come before ``query`` in trec_eval's order."""
    return bisect.bisect_left([name.encode() for name in ranked.queries], query.encode())
