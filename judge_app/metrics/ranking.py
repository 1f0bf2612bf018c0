"""Ranking metrics of one run against graded judgments, for every query at once.

Definitions are DESIGN section 3, equal to trec_eval's wherever trec_eval defines them:
a file run is ordered by score descending, ties by document id descending; position i is
discounted by 1 / log2(i + 1); IDCG is the DCG of the ideal ordering of every judged document
of the query (``ideal="judged"``) or of the documents in the list (``"retrieved"``); a
negative grade means "in the pool, not judged": gain 0 and never in the ideal ordering.
Unlike trec_eval, real-valued grades (a mean of raters) are used as they are, not truncated.

Everything is vectorised over queries, with no Python loop per query, on integer codes
(``metrics.codes``: ids are coded once, where they are read): rows are ordered and summed per
query by numpy. Nothing here imports pandas unless a DataFrame is asked for: evaluating files
starts without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.measure_names import SUM, aggregate_of
from judge_app.option_declarations import CUTOFF, GAIN, IDEAL, UNJUDGED

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.metrics.codes import Frame


@dataclass(frozen=True)
class Settings:
    """How to evaluate. ``ks`` are cut-offs; None stands for "all" (no cut-off)."""

    ks: tuple[int | None, ...] = (CUTOFF.default,)
    gain: str = GAIN.default
    ideal: str = IDEAL.default
    unjudged: str = UNJUDGED.default
    threshold: float = 1.0
    complete: bool = False

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("gain", self.gain, GAIN.choices),
            ("ideal", self.ideal, IDEAL.choices),
            ("unjudged", self.unjudged, UNJUDGED.choices),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        for k in self.ks:
            if k is not None and (not isinstance(k, (int, np.integer)) or k < 1):
                raise ValueError(f"k must be a positive whole number or all, not {k!r}")


def k_label(k: int | None) -> str:
    """``10`` or ``all``: the suffix of a measure's key (``ndcg@10``, ``ndcg@all``)."""
    return "all" if k is None else str(k)


@dataclass
class Evaluation:
    """Per-query values of the evaluated queries (in string order of query id), the queries
    left out and why, and the settings used.

    ``values`` maps each measure (``ndcg@10``, ``rr``, ...) to one number per query of
    ``query_ids``; ``idcg_zero`` marks queries with no relevant judged document.
    """

    settings: Settings
    query_ids: list[str]
    values: dict[str, np.ndarray]
    idcg_zero: np.ndarray
    run_only: list[str] = field(default_factory=list)
    judged_only: list[str] = field(default_factory=list)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def per_query(self) -> pd.DataFrame:
        """``query_id``, every measure and ``idcg_zero``: one row per evaluated query."""
        import pandas as pd

        query_ids = pd.Series(self.query_ids, dtype="str")
        return pd.DataFrame({"query_id": query_ids, **self.values, "idcg_zero": self.idcg_zero})

    def means(self) -> dict[str, float]:
        """The arithmetic mean of every measure over the evaluated queries (NaN if none): what
        runs are compared on. A run's value of a measure, which outputs show, is
        :meth:`summary`'s."""
        return {
            name: float(column.mean()) if len(column) else math.nan
            for name, column in self.values.items()
        }

    def summary(self) -> dict[str, float]:
        """The run's value of every measure, as trec_eval's summary line and ir_measures give
        it (:func:`~judge_app.metrics.measure_names.aggregate_of`): a count's values summed
        over the evaluated queries, any other measure's mean (NaN if no query)."""
        means = self.means()
        return {
            name: float(column.sum()) if aggregate_of(name) == SUM else means[name]
            for name, column in self.values.items()
        }


def gain_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """Gains of grades: the grade (linear) or 2^grade − 1; 0 for negative or missing."""
    grades = np.where(np.isnan(grades) | (grades < 0), 0.0, grades)
    return grades if gain == "linear" else np.exp2(grades) - 1.0


def evaluate(run: Frame, qrels: Frame, settings: Settings = Settings()) -> Evaluation:
    """Evaluate ``run`` (``query_id, doc_id`` and ``score`` or ``rank``) against ``qrels``
    (``query_id, doc_id, grade``), each a pandas DataFrame or a pyarrow Table: coded
    (``metrics.codes.code_frames``), then :func:`evaluate_codes`.

    A run with a ``rank`` column is taken in rank order; otherwise it is ordered as trec_eval
    orders a run file. Queries of the run without judgments are left out (``run_only``);
    judged queries missing from the run are left out (``judged_only``) or, with
    ``complete``, scored 0 and counted. A document twice in one query of the run, or judged
    twice for one query, is a ``RepeatedDocument``.
    """
    from judge_app.metrics.aggregation import aggregate
    from judge_app.metrics.codes import code_frames

    graded, results = code_frames(qrels, {"run": run})
    nothing = np.zeros(0, np.int64)
    coded = results.by_run().get("run", (nothing, nothing, nothing))
    return evaluate_codes(list(graded.queries), coded, aggregate(graded, "mean"), settings)


def evaluate_codes(
    queries: list[str],
    run: tuple[np.ndarray, np.ndarray, np.ndarray],
    qrels: tuple[np.ndarray, np.ndarray, np.ndarray],
    settings: Settings = Settings(),
) -> Evaluation:
    """:func:`evaluate` of a run (query, document codes, rank) and qrels (query, document
    codes, grade) given as integers: query codes index ``queries`` (in string order), equal
    document codes are the same document (-1: one no judgment names). The qrels are in order
    of query and document, each pair once, and no document is twice in a query of the run:
    the caller's data guarantee it, so it is not checked."""
    run_query, run_doc, rank = run
    qrels_query, qrels_doc, grades = qrels
    grades = np.asarray(grades, dtype=np.float64)
    width = int(max(run_doc.max(initial=0), qrels_doc.max(initial=0))) + 1
    judged_keys = qrels_query.astype(np.int64) * width + qrels_doc
    keys = run_query.astype(np.int64) * width + run_doc
    run_grade = np.full(len(keys), np.nan)
    if len(judged_keys):
        place = np.minimum(np.searchsorted(judged_keys, keys), len(judged_keys) - 1)
        found = (run_doc >= 0) & (judged_keys[place] == keys)
        run_grade[found] = grades[place[found]]
    order = _rank_order(run_query, rank)
    return _measures(
        queries,
        run_query.astype(np.int32),
        order,
        run_grade[order],
        qrels_query.astype(np.int32),
        grades,
        settings,
    )


def _rank_order(query: np.ndarray, rank: np.ndarray) -> np.ndarray | slice:
    """Row order by query, then rank: every row as it is (a slice: no copy) where they are in
    that order already, as files are coded (a second sort of a million rows spared)."""
    if len(query) > 1:
        keys = query.astype(np.int64) * (int(rank.max()) + 1) + rank
        if np.any(keys[1:] < keys[:-1]):
            return np.lexsort((rank, query))
    return slice(None)


def _measures(
    queries: list[str],
    run_query: np.ndarray,
    order: np.ndarray | slice,
    run_grade: np.ndarray,
    qrels_query: np.ndarray,
    grades: np.ndarray,
    settings: Settings,
) -> Evaluation:
    """Every measure of every query, from the run's rows (query codes; grades in ``order``)
    and the judged documents' query codes and grades."""
    n_queries = len(queries)
    in_run = np.bincount(run_query, minlength=n_queries) > 0
    judged = np.bincount(qrels_query, minlength=n_queries) > 0
    shown = _Groups(run_query[order], n_queries)
    run_is_judged = run_grade >= 0  # NaN: not judged; negative: pooled, not judged
    if settings.unjudged == "condensed":
        ranked, ranked_grade = (
            _Groups(shown.codes[run_is_judged], n_queries),
            run_grade[run_is_judged],
        )
    else:
        ranked, ranked_grade = shown, run_grade
    gain = gain_of(ranked_grade, settings.gain)
    discounted = gain * _discounts(ranked.position)
    relevant = (ranked_grade >= settings.threshold).astype(float)

    # the ideal ordering: every judged document (or every retrieved one), best gain first
    if settings.ideal == "judged":
        ideal_query, ideal_gain = qrels_query, gain_of(grades, settings.gain)
    else:
        ideal_query, ideal_gain = ranked.codes, gain
    ideal_order = np.lexsort((-ideal_gain, ideal_query))
    ideal = _Groups(ideal_query[ideal_order], n_queries)
    ideal_discounted = ideal_gain[ideal_order] * _discounts(ideal.position)

    total_relevant = np.bincount(
        qrels_query, weights=grades >= settings.threshold, minlength=n_queries
    )
    columns: dict[str, np.ndarray] = {}
    for k in settings.ks:
        label = k_label(k)
        dcg, idcg = ranked.sum(discounted, k), ideal.sum(ideal_discounted, k)
        relevant_top = ranked.sum(relevant, k)
        columns[f"cg@{label}"] = ranked.sum(gain, k)
        columns[f"dcg@{label}"] = dcg
        columns[f"idcg@{label}"] = idcg
        columns[f"ndcg@{label}"] = _ratio(dcg, idcg)
        columns[f"p@{label}"] = _ratio(relevant_top, ranked.sum(None, None) if k is None else k)
        columns[f"recall@{label}"] = _ratio(relevant_top, total_relevant)
        # a query missing from the run shows nothing judged
        columns[f"judged@{label}"] = _ratio(shown.sum(run_is_judged, k), shown.sum(None, k))
    columns["rr"] = _reciprocal_rank(ranked, relevant)
    columns["ap"] = _ratio(_precision_sums(ranked, relevant), total_relevant)
    evaluated = judged & (in_run | settings.complete)
    idcg_zero = columns[f"idcg@{k_label(settings.ks[0])}"] == 0
    return Evaluation(
        settings=settings,
        query_ids=[query for query, keep in zip(queries, evaluated) if keep],
        values={name: column[evaluated] for name, column in columns.items()},
        idcg_zero=idcg_zero[evaluated],
        run_only=[query for query, r, j in zip(queries, in_run, judged) if r and not j],
        judged_only=[query for query, r, j in zip(queries, in_run, judged) if j and not r],
    )


class _Groups:
    """Rows sorted by group (a query's code, of ``n``): where each group starts and each
    row's 1-based position in its group, for sums per group."""

    def __init__(self, codes: np.ndarray, n: int) -> None:
        self.codes, self.n = codes, n
        self.starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else codes
        lengths = np.diff(np.r_[self.starts, len(codes)])
        self.position = np.arange(1, len(codes) + 1) - np.repeat(self.starts, lengths)

    def sum(self, values: np.ndarray | None, k: int | None) -> np.ndarray:
        """Per group: the sum of ``values`` (or the number of rows, for None) over its first
        ``k`` rows (all rows for None)."""
        values = np.ones(len(self.codes)) if values is None else values.astype(float)
        if k is not None:
            values = np.where(self.position <= k, values, 0.0)
        summed = np.zeros(self.n)
        if len(values):
            summed[self.codes[self.starts]] = np.add.reduceat(values, self.starts)
        return summed


def _discounts(position: np.ndarray) -> np.ndarray:
    """1 / log2(position + 1), looked up from a table of the positions present."""
    table = 1.0 / np.log2(np.arange(2, int(position.max(initial=0)) + 2))
    return table[position - 1]


def _ratio(numerator: np.ndarray, denominator: np.ndarray | int) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    denominator = np.broadcast_to(np.asarray(denominator, dtype=float), numerator.shape)
    return np.divide(numerator, denominator, out=np.zeros(len(numerator)), where=denominator > 0)


def _reciprocal_rank(ranked: _Groups, relevant: np.ndarray) -> np.ndarray:
    """1 / position of the first relevant document, 0 if none."""
    first = np.full(ranked.n, np.inf)
    hits = relevant > 0
    np.minimum.at(first, ranked.codes[hits], ranked.position[hits].astype(float))
    return np.where(np.isfinite(first), 1.0 / first, 0.0)


def _precision_sums(ranked: _Groups, relevant: np.ndarray) -> np.ndarray:
    """Per query, the sum of the precision at each relevant document's position."""
    hits = np.cumsum(relevant)
    before = np.repeat(np.r_[0.0, hits][ranked.starts], np.diff(np.r_[ranked.starts, len(hits)]))
    return ranked.sum(relevant * (hits - before) / ranked.position, None)
