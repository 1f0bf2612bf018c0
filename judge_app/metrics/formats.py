"""Evaluation results as text: trec_eval's format, JSON, CSV and a table to read at a glance."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.comparison import Comparison, MeanInterval
from judge_app.metrics.measure_names import MEAN, SUM, aggregate_note, aggregate_of
from judge_app.metrics.ranking import Evaluation, k_label

if TYPE_CHECKING:
    import pandas as pd

TREC_ALWAYS_CUTS = (5, 10)


def _trec_measures(ndcg_ks: tuple[int | None, ...]) -> list[tuple[str, str]]:
    """(trec_eval name, our key) in trec_eval's order: map, recip_rank, P, recall, ndcg."""
    cuts = sorted({*TREC_ALWAYS_CUTS, *(k for k in ndcg_ks if k is not None)})
    measures = [("map", "ap"), ("recip_rank", "rr")]
    measures += [(f"P_{k}", f"p@{k}") for k in cuts]
    measures += [(f"recall_{k}", f"recall@{k}") for k in cuts]
    for k in ndcg_ks:
        measures.append(("ndcg", "ndcg@all") if k is None else (f"ndcg_cut_{k}", f"ndcg@{k}"))
    return measures


def trec_text(runs: dict[str, Evaluation], ndcg_ks: tuple[int | None, ...], digits: int = 4) -> str:
    """What ``trec_eval -q`` prints for each run: per query in string order, then ``all``.

    NDCG is printed at ``ndcg_cut_K`` for ``ndcg_ks``; P and recall at those and at 5 and 10
    (the evaluations must hold them).
    """
    measures = _trec_measures(ndcg_ks)
    lines = []
    for name, evaluation in runs.items():
        lines.append(f"{'runid':<22}\tall\t{name}")
        lines.append(f"{'num_q':<22}\tall\t{evaluation.n_queries}")
        columns = [(f"{measure:<22}", evaluation.values[key].tolist()) for measure, key in measures]
        for row, query_id in enumerate(evaluation.query_ids):  # already in string order
            for measure, values in columns:
                lines.append(f"{measure}\t{query_id}\t{values[row]:.{digits}f}")
        summary = evaluation.summary()
        for measure, key in measures:
            lines.append(f"{measure:<22}\tall\t{summary[key]:.{digits}f}")
    return "\n".join(lines) + "\n"


def _rounded(value: float, digits: int | None) -> float | None:
    """``value`` rounded to ``digits`` (None: as it is); None for NaN (JSON has no NaN)."""
    if value is None or math.isnan(value):
        return None
    return float(value) if digits is None else round(float(value), digits)


def json_text(
    runs: dict[str, Evaluation],
    comparisons: list[Comparison],
    settings: dict,
    digits: int | None = None,
    raters: pd.DataFrame | None = None,
    significance: dict | None = None,
    judge: tuple[dict, dict[str, dict]] | None = None,
) -> str:
    """The evaluation as one JSON document (see ``judge-app eval --help``), numbers in full
    unless rounded to ``digits``; each run's value of a measure under ``mean``, or ``sum`` for
    a count (``aggregate_of``); ``raters`` are the per-rater means, ``significance`` the
    runs compared (as ``commands.significance.as_document`` gives them), ``judge`` the
    prediction-powered estimates (the document's ``judge`` member, and each run's keys to
    add to its record: ``ppi_mean``, ``ppi_interval``, …), if asked for."""
    document: dict = {"settings": settings, "runs": [], "skipped": {}, "comparisons": []}
    if raters is not None:
        shown = raters if digits is None else raters.round(digits)
        document["per_rater"] = shown.to_dict("records")
    for name, evaluation in runs.items():
        document["runs"].append(
            {
                "run": name,
                "n_queries": evaluation.n_queries,
                **_by_aggregate(evaluation, digits),
                "queries": _query_records(evaluation, digits),
                "idcg_zero": _flagged(evaluation),
                "run_only": evaluation.run_only,
                "judged_only": evaluation.judged_only,
            }
        )
    for kind in ("run_only", "judged_only"):  # over all runs; each run's own are in its record
        document["skipped"][kind] = sorted({q for run in document["runs"] for q in run[kind]})
    document["comparisons"] = [_comparison_record(item, digits) for item in comparisons]
    if significance is not None:
        document["significance"] = significance
    if judge is not None:
        document["judge"], per_run = judge
        for record in document["runs"]:
            record["estimates"] = per_run[record["run"]]
            record.update(
                {key: per_run[record["run"]][key] for key in ("ppi_mean", "ppi_interval")}
            )
    return json.dumps(document, ensure_ascii=False) + "\n"


def _by_aggregate(evaluation: Evaluation, digits: int | None) -> dict[str, dict]:
    """The run's value of each measure, rounded if asked, under how it is made of the queries'
    values: ``mean`` (most measures) or ``sum`` (the counts)."""
    grouped: dict[str, dict] = {MEAN: {}, SUM: {}}
    for key, value in evaluation.summary().items():
        grouped[aggregate_of(key)][key] = _rounded(value, digits)
    return grouped


def _query_records(evaluation: Evaluation, digits: int | None) -> list[dict]:
    """One record per query: its id and every measure, rounded if asked (None for NaN)."""
    columns = {"query_id": evaluation.query_ids}
    for key, values in evaluation.values.items():
        shown = values if digits is None else np.round(values, digits)
        rounded = shown.astype(object)
        rounded[np.isnan(values)] = None
        columns[key] = rounded.tolist()
    return [dict(zip(columns, row)) for row in zip(*columns.values())]


def _flagged(evaluation: Evaluation) -> list[str]:
    """The queries with no relevant judged document (IDCG 0, so NDCG 0)."""
    return [query for query, zero in zip(evaluation.query_ids, evaluation.idcg_zero) if zero]


def _comparison_record(comparison: Comparison, digits: int | None) -> dict:
    record = asdict(comparison)
    record["summary"] = comparison.describe(4 if digits is None else digits)
    return {
        key: _rounded(value, digits) if isinstance(value, float) else value
        for key, value in _flatten(record).items()
    }


def _flatten(record: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}_"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def csv_text(runs: dict[str, Evaluation], digits: int | None = None) -> str:
    """One row per run and query (``all`` rows hold each run's value: the sum for a count,
    as trec_eval's ``all`` line, else the mean), numbers in full unless rounded to
    ``digits``, text cells inert."""
    import pandas as pd

    from judge_app.io import exports

    frames = []
    for name, evaluation in runs.items():
        per_query = evaluation.per_query.drop(columns="idcg_zero")
        summary = pd.DataFrame([evaluation.summary()]).assign(query_id="all")
        frames.append(pd.concat([per_query, summary]).assign(run=name))
    table = pd.concat(frames)
    columns = ["run", "query_id"] + [c for c in table.columns if c not in ("run", "query_id")]
    return exports.csv_text(table[columns], float_format=None if digits is None else f"%.{digits}f")


def summary_table(
    runs: dict[str, Evaluation],
    ks: tuple[int | None, ...],
    intervals: dict[tuple[str, int | None], MeanInterval],
    digits: int = 4,
    per_query: bool = False,
    named: tuple[str, ...] = (),
) -> str:
    """One row per run: at each of ``ks`` its mean NDCG with the 95% interval of
    ``intervals`` (by run and k), P and coverage; queries, MRR, MAP and the run's value of
    each ``named`` measure (a count's sum, else the mean), and notes. Without pandas (its
    import alone is a third of a second), unless ``per_query`` tables are asked for."""
    rows = []
    for name, evaluation in runs.items():
        summary = evaluation.summary()
        row = {"run": name, "queries": evaluation.n_queries}
        for k in ks:
            label = k_label(k)
            interval = intervals[(name, k)]
            low, high = f"{interval.low:.{digits}f}", f"{interval.high:.{digits}f}"
            row[f"ndcg@{label}"] = f"{interval.mean:.{digits}f} [{low}, {high}]"
            row[f"p@{label}"] = f"{summary[f'p@{label}']:.{digits}f}"
            row[f"judged@{label}"] = f"{100 * summary[f'judged@{label}']:.1f}%"
        row["mrr"] = f"{summary['rr']:.{digits}f}"
        row["map"] = f"{summary['ap']:.{digits}f}"
        row.update({name: f"{summary[name]:.{digits}f}" for name in named})
        rows.append(row)
    text = text_table(rows)
    summed = aggregate_note(named)
    notes = [] if summed is None else [summed]
    for name, evaluation in runs.items():
        flagged = _flagged(evaluation)
        if flagged:
            notes.append(f"{name}: {len(flagged)} queries have no relevant judged document "
                         f"(NDCG 0): {', '.join(flagged[:10])}")  # fmt: skip
        if evaluation.run_only:
            notes.append(f"{name}: {len(evaluation.run_only)} queries without judgments left "
                         f"out: {', '.join(evaluation.run_only[:10])}")  # fmt: skip
        if evaluation.judged_only:
            notes.append(f"{name}: {len(evaluation.judged_only)} judged queries missing from "
                         f"the run left out: {', '.join(evaluation.judged_only[:10])}")  # fmt: skip
    if per_query:
        for name, evaluation in runs.items():  # per_query is a pandas frame already
            table = evaluation.per_query.drop(columns="idcg_zero").round(digits)
            text += f"\n\n{name}\n" + table.to_string(index=False)
    return text + ("\n\n" + "\n".join(notes) if notes else "") + "\n"


def text_table(rows: list[dict[str, object]]) -> str:
    """Rows of cells as pandas' ``DataFrame(rows).to_string(index=False)`` lays out text
    and whole numbers: each column as wide as its header or widest cell, everything
    right-justified, columns one space apart."""
    columns = list(rows[0])
    lines = [columns, *([str(row[column]) for column in columns] for row in rows)]
    widths = [max(len(line[index]) for line in lines) for index in range(len(columns))]
    return "\n".join(
        " ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in lines
    )
