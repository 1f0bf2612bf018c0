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

from judge_app.arrow_columns import from_numpy, to_numpy
from judge_app.metrics.measure_names import MeasureName
from judge_app.metrics.ranking import Frame, Settings, evaluate, k_label, table_of

if TYPE_CHECKING:
    from judge_app.trec_eval import Ranked

OURS = ("nDCG", "Judged")
"""The families :mod:`judge_app.metrics.ranking` computes."""


def named_values(
    run: Frame,
    qrels: Frame,
    measures: Sequence[MeasureName],
    query_ids: Sequence[str],
    complete: bool = False,
) -> dict[str, np.ndarray]:
    """Each measure's value for each of ``query_ids`` (NaN where it evaluates no such query),
    by the name ir_measures writes: ``run`` (``query_id, doc_id`` and ``score`` or ``rank``)
    against ``qrels`` (``query_id, doc_id, grade``); ``complete`` scores judged queries
    missing from the run (trec_eval's ``-c``)."""
    run, qrels = table_of(run), table_of(qrels)
    named: dict[str, np.ndarray] = {}
    lists: dict[tuple[int, bool], Ranked] = {}  # ranked once per relevance level and -J
    for measure in measures:
        if measure.family in OURS:
            ids, values = _ours(run, qrels, measure, complete)
        else:
            key = (measure.relevance, measure.judged_only)
            if key not in lists:
                lists[key] = _ranked(run, qrels, *key, complete)
            ids, values = lists[key].queries, _trec(lists[key], measure)
        place = {query: row for row, query in enumerate(ids)}
        rows = np.fromiter((place.get(q, -1) for q in query_ids), np.int64, len(query_ids))
        aligned = np.full(len(query_ids), np.nan)
        aligned[rows >= 0] = values[rows[rows >= 0]]
        named[str(measure)] = aligned
    return named


def _ours(
    run: pa.Table, qrels: pa.Table, measure: MeasureName, complete: bool
) -> tuple[list[str], np.ndarray]:
    """nDCG (its gains, ``dcg``, ``judged_only``) or Judged, by the ranking metrics."""
    gains = measure.param("gains") if measure.family == "nDCG" else None
    if gains:
        grade = to_numpy(qrels["grade"], np.float64)
        mapped = grade.copy()
        for given, gain in gains.items():  # type: ignore[attr-defined]
            mapped[grade == given] = gain
        qrels = qrels.set_column(qrels.schema.get_field_index("grade"), "grade", from_numpy(mapped))
    exponential = measure.family == "nDCG" and measure.param("dcg") == "exp-log2"
    settings = Settings(
        ks=(measure.cutoff,),  # type: ignore[arg-type]
        gain="exponential" if exponential else "linear",
        unjudged="condensed" if measure.judged_only else "zero",
        complete=complete,
    )
    evaluation = evaluate(run, qrels, settings)
    key = "ndcg" if measure.family == "nDCG" else "judged"
    return evaluation.query_ids, evaluation.values[f"{key}@{k_label(measure.cutoff)}"]  # type: ignore[arg-type]


def _trec(ranked: Ranked, measure: MeasureName) -> np.ndarray:
    """Any other family, by trec_eval's engine, on the lists ranked at its level and -J."""
    from judge_app.trec_eval import compute, parse

    spec = parse(measure.trec_spec())
    return np.asarray(compute(ranked, [spec])[spec.names[0]], dtype=np.float64)


def _ranked(
    run: pa.Table, qrels: pa.Table, level: int, judged_only: bool, complete: bool
) -> Ranked:
    """trec_eval's ranked lists of ``run``: grades truncated to whole numbers as trec_eval
    reads them, a run with ranks given scores that keep its order."""
    from judge_app.trec_eval import Settings as TrecSettings
    from judge_app.trec_eval import rank
    from judge_app.trec_eval.reading import Qrels, Results

    grade = to_numpy(qrels["grade"], np.float64)
    judged = pa.table(
        {
            "query": qrels["query_id"],
            "doc": qrels["doc_id"],
            "rel": from_numpy(np.trunc(grade).astype(np.int64)),
        }
    )
    if "score" in run.column_names:
        sim = run["score"]
    else:
        sim = pc.negate(run["rank"].cast(pa.float64()))
    results = pa.table({"query": run["query_id"], "doc": run["doc_id"], "sim": sim})
    settings = TrecSettings(relevance_level=level, judged_only=judged_only, complete=complete)
    return rank(Qrels("qrels", judged), Results("run", results, "run"), settings)


def named_values_of_codes(
    queries: np.ndarray,
    docs: np.ndarray,
    run: tuple[np.ndarray, np.ndarray, np.ndarray],
    qrels: tuple[np.ndarray, np.ndarray, np.ndarray],
    measures: Sequence[MeasureName],
    query_ids: Sequence[str],
    complete: bool = False,
) -> dict[str, np.ndarray]:
    """:func:`named_values` of a run (query, document codes, rank) and qrels (query,
    document codes, grade) coded with the names ``queries`` and ``docs`` (-1: a query or
    document no judgment names; each such document is its own)."""
    run_query, run_doc, ranks = run
    judged_query = run_query >= 0  # a query no judgment names is never evaluated
    run_query, run_doc, ranks = run_query[judged_query], run_doc[judged_query], ranks[judged_query]
    names = pa.array(docs, pa.string())
    unnamed = run_doc < 0
    doc_ids = names.take(from_numpy(np.where(unnamed, 0, run_doc)))
    if unnamed.any():  # a name no judged document has: NUL is in no imported id
        own = pa.array([f"\x00{row}" for row in np.flatnonzero(unnamed)], pa.string())
        doc_ids = pc.replace_with_mask(doc_ids, from_numpy(unnamed), own)
    query_names = pa.array(queries, pa.string())
    run_table = pa.table(
        {
            "query_id": query_names.take(from_numpy(run_query)),
            "doc_id": doc_ids,
            "rank": from_numpy(ranks.astype(np.int64)),
        }
    )
    qrels_query, qrels_doc, grades = qrels
    qrels_table = pa.table(
        {
            "query_id": query_names.take(from_numpy(qrels_query)),
            "doc_id": names.take(from_numpy(qrels_doc)),
            "grade": from_numpy(np.asarray(grades, dtype=np.float64)),
        }
    )
    return named_values(run_table, qrels_table, measures, query_ids, complete)
