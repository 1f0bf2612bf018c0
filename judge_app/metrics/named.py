"""The values of measures asked for by name (``nDCG@10``, ``P(rel=2)@5``, ``Bpref``, ``infAP``,
``Judged@10`` …; :mod:`judge_app.metrics.measure_names`) for every query of one run.

A name means what ir_measures means by it, which is trec_eval's measure: every family but two
is computed by :mod:`judge_app.trec_eval` at the name's relevance level (``rel``) and with
``judged_only`` as trec_eval's ``-J``, on grades truncated to whole numbers as trec_eval reads
them. ``nDCG`` and ``Judged`` come from :mod:`judge_app.metrics.ranking`, the engine of
``ndcg@k`` itself, so ``nDCG@10`` is exactly the evaluation's ``ndcg@10`` (real-valued grades,
a mean of raters, as they are) and ``dcg='exp-log2'`` is its exponential gain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judge_app.arrow_columns import from_numpy
from judge_app.metrics.measure_names import MeasureName
from judge_app.metrics.ranking import Settings, evaluate_codes, k_label

if TYPE_CHECKING:
    from judge_app.metrics.codes import Coded
    from judge_app.trec_eval import Ranked

OURS = ("nDCG", "Judged")
"""The families :mod:`judge_app.metrics.ranking` computes."""


def named_values(
    queries: np.ndarray,
    docs: np.ndarray,
    run: Coded,
    qrels: Coded,
    measures: Sequence[MeasureName],
    query_ids: Sequence[str],
    complete: bool = False,
) -> dict[str, np.ndarray]:
    """Each measure's value for each of ``query_ids`` (NaN where it evaluates no such query),
    by the name ir_measures writes: a run (query, document codes, rank) against qrels (query,
    document codes, grade; in order of query and document, each pair once), coded with the
    names ``queries`` and ``docs``; ``complete`` scores judged queries missing from the run
    (trec_eval's ``-c``)."""
    named: dict[str, np.ndarray] = {}
    lists: dict[tuple[int, bool], Ranked] = {}  # ranked once per relevance level and -J
    for measure in measures:
        if measure.family in OURS:
            ids, values = _ours(queries, run, qrels, measure, complete)
        else:
            key = (measure.relevance, measure.judged_only)
            if key not in lists:
                lists[key] = _ranked(queries, docs, run, qrels, *key, complete)
            ids, values = lists[key].queries, _trec(lists[key], measure)
        place = {query: row for row, query in enumerate(ids)}
        rows = np.fromiter((place.get(q, -1) for q in query_ids), np.int64, len(query_ids))
        aligned = np.full(len(query_ids), np.nan)
        aligned[rows >= 0] = values[rows[rows >= 0]]
        named[str(measure)] = aligned
    return named


def _ours(
    queries: np.ndarray, run: Coded, qrels: Coded, measure: MeasureName, complete: bool
) -> tuple[list[str], np.ndarray]:
    """nDCG (its gains, ``dcg``, ``judged_only``) or Judged, by the ranking metrics."""
    query, doc, grade = qrels
    gains = measure.param("gains") if measure.family == "nDCG" else None
    if gains:
        mapped = np.asarray(grade, dtype=np.float64).copy()
        for given, gain in gains.items():  # type: ignore[attr-defined]
            mapped[grade == given] = gain
        grade = mapped
    exponential = measure.family == "nDCG" and measure.param("dcg") == "exp-log2"
    settings = Settings(
        ks=(measure.cutoff,),  # type: ignore[arg-type]
        gain="exponential" if exponential else "linear",
        unjudged="condensed" if measure.judged_only else "zero",
        complete=complete,
    )
    evaluation = evaluate_codes([str(q) for q in queries], run, (query, doc, grade), settings)
    key = "ndcg" if measure.family == "nDCG" else "judged"
    return evaluation.query_ids, evaluation.values[f"{key}@{k_label(measure.cutoff)}"]  # type: ignore[arg-type]


def _trec(ranked: Ranked, measure: MeasureName) -> np.ndarray:
    """Any other family, by trec_eval's engine, on the lists ranked at its level and -J."""
    from judge_app.trec_eval import compute, parse

    spec = parse(measure.trec_spec())
    return np.asarray(compute(ranked, [spec])[spec.names[0]], dtype=np.float64)


def _ranked(
    queries: np.ndarray,
    docs: np.ndarray,
    run: Coded,
    qrels: Coded,
    level: int,
    judged_only: bool,
    complete: bool,
) -> Ranked:
    """trec_eval's ranked lists of the run: its ids named back for trec_eval's reader, grades
    truncated to whole numbers as trec_eval reads them, ranks given as scores that keep the
    run's order."""
    from judge_app.trec_eval import Settings as TrecSettings
    from judge_app.trec_eval import rank
    from judge_app.trec_eval.reading import Qrels, Results

    run_query, run_doc, ranks = run
    known = run_query >= 0  # a query no judgment names is never evaluated
    run_query, run_doc, ranks = run_query[known], run_doc[known], ranks[known]
    names = pa.array(docs, pa.string())
    unnamed = run_doc < 0
    doc_ids = names.take(from_numpy(np.where(unnamed, 0, run_doc)))
    if unnamed.any():  # a name no judged document has: NUL is in no imported id
        own = pa.array([f"\\x00{row}" for row in np.flatnonzero(unnamed)], pa.string())
        doc_ids = pc.replace_with_mask(doc_ids, from_numpy(unnamed), own)
    query_names = pa.array(queries, pa.string())
    results = pa.table(
        {
            "query": query_names.take(from_numpy(run_query)),
            "doc": doc_ids,
            "sim": from_numpy(-ranks.astype(np.float64)),
        }
    )
    qrels_query, qrels_doc, grades = qrels
    judged = pa.table(
        {
            "query": query_names.take(from_numpy(qrels_query)),
            "doc": names.take(from_numpy(qrels_doc)),
            "rel": from_numpy(np.trunc(np.asarray(grades, dtype=np.float64)).astype(np.int64)),
        }
    )
    settings = TrecSettings(relevance_level=level, judged_only=judged_only, complete=complete)
    return rank(Qrels("qrels", judged), Results("run", results, "run"), settings)
