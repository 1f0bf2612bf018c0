"""An evaluation as ``eval --format`` writes it (:func:`as_text`): trec_eval's format, JSON,
CSV, a table to read at a glance, and LaTeX and Markdown for a paper (``paper_tables``). Each
run's mean comes with its one interval, named where it is shown (``95% t interval``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.intervals import MeanInterval
from judge_app.metrics.measure_names import MEAN, SUM, aggregate_note, aggregate_of
from judge_app.metrics.ranking import Evaluation, k_label
from judge_app.writers import preferences as writers_preferences
from judge_app.writers.json_document import json_document
from judge_app.writers.tables import text_table

if TYPE_CHECKING:
    from judge_app.evaluation.preferences import PreferenceEvaluation
    from judge_app.evaluation.result import EvaluationResult

TABLE_DIGITS = 4
"""Digits of the numbers in tables for people; machine formats carry full precision."""

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


def trec_text(
    runs: dict[str, Evaluation],
    ndcg_ks: tuple[int | None, ...],
    digits: int = 4,
    preferences: PreferenceEvaluation | None = None,
) -> str:
    """What ``trec_eval -q`` prints for each run: per query in string order, then ``all``.

    NDCG is printed at ``ndcg_cut_K`` for ``ndcg_ks``; P and recall at those and at 5 and 10
    (the evaluations must hold them); then each measure of ``preferences`` (``Compat``), on
    the queries it scores, its ``all`` the mean over them.
    """
    measures = _trec_measures(ndcg_ks)
    lines = []
    for name, evaluation in runs.items():
        lines.append(f"{'runid':<22}\tall\t{name}")
        lines.append(f"{'num_q':<22}\tall\t{evaluation.n_queries}")
        columns = [(f"{measure:<22}", evaluation.values[key].tolist()) for measure, key in measures]
        more = {} if preferences is None else writers_preferences.trec_lines(preferences, name)
        rows = dict(zip(evaluation.query_ids, range(evaluation.n_queries)))
        queries = sorted(rows.keys() | more.keys() - {"all"}) if more else evaluation.query_ids
        for query_id in queries:  # in string order
            row = rows.get(query_id)
            if row is not None:
                for measure, values in columns:
                    lines.append(f"{measure}\t{query_id}\t{values[row]:.{digits}f}")
            for measure, value in more.get(query_id, ()):
                lines.append(f"{measure:<22}\t{query_id}\t{value:.{digits}f}")
        summary = evaluation.summary()
        for measure, key in measures:
            lines.append(f"{measure:<22}\tall\t{summary[key]:.{digits}f}")
        for measure, value in more.get("all", ()):
            lines.append(f"{measure:<22}\tall\t{value:.{digits}f}")
    return "\n".join(lines) + "\n"


def _rounded(value: float, digits: int | None) -> float | None:
    """``value`` rounded to ``digits`` (None: as it is); None for NaN (JSON has no NaN)."""
    if value is None or math.isnan(value):
        return None
    return float(value) if digits is None else round(float(value), digits)


def json_text(result: EvaluationResult, digits: int | None = None) -> str:
    """The evaluation as one JSON document (see ``judge-app eval --help``), numbers in full
    unless rounded to ``digits``: the settings; each run's value of every measure under
    ``mean``, or ``sum`` for a count (``aggregate_of``), its mean NDCG at the leading k with
    its one ``interval`` (method and level named), its queries' values; the per-rater means,
    the runs compared (``comparisons``: each against the first run; ``significance``: every
    pair, as ``writers.verdicts.as_document`` gives it) and the means corrected by a
    judge (``judge``, and each run's ``estimates``, ``ppi_mean`` and ``ppi_interval``), where
    asked for."""
    from judge_app.writers import corrected as corrected_writer
    from judge_app.writers import verdicts as compared

    document: dict = {
        "settings": result.options.record(),
        "runs": [],
        "skipped": {},
        "comparisons": [],
    }
    if result.per_rater is not None:
        raters = result.per_rater
        document["per_rater"] = (raters if digits is None else raters.round(digits)).to_dict(
            "records"
        )
    measure = f"ndcg@{k_label(result.options.k)}"
    for name, evaluation in result.evaluations.items():
        document["runs"].append(
            {
                "run": name,
                "n_queries": evaluation.n_queries,
                **_by_aggregate(evaluation, digits),
                "interval": interval_record(result.interval(name), measure, digits),
                "queries": _query_records(evaluation, digits),
                "idcg_zero": _flagged(evaluation),
                "run_only": evaluation.run_only,
                "judged_only": evaluation.judged_only,
            }
        )
    for kind in ("run_only", "judged_only"):  # over all runs; each run's own are in its record
        document["skipped"][kind] = sorted({q for run in document["runs"] for q in run[kind]})
    significance = result.significance
    if significance is not None:
        shown = TABLE_DIGITS if digits is None else digits
        first = significance.baseline or significance.runs[0]
        document["comparisons"] = [
            compared.rounded(compared.pair_record(significance, pair), digits)
            | {"summary": compared.describe(significance, pair, shown)}
            for pair in significance.pairs
            if pair.baseline == first
        ]
        document["significance"] = compared.as_document(significance, digits)
    corrected = result.corrected
    if corrected is not None:
        document["judge"] = corrected_writer.document(corrected, digits)
        for record in document["runs"]:
            estimates = corrected_writer.record(corrected.runs[record["run"]], digits)
            record["estimates"] = estimates
            record.update({key: estimates[key] for key in ("ppi_mean", "ppi_interval")})
    if result.preferences is not None:
        document["preferences"] = writers_preferences.document(result.preferences, digits)
    return json_document(document)


def interval_record(interval: MeanInterval, measure: str, digits: int | None) -> dict:
    """An interval as machine formats give it: what it is of, its method, level and bounds."""
    return {
        "measure": measure,
        "method": interval.method,
        "confidence": interval.confidence,
        "mean": _rounded(interval.mean, digits),
        "low": _rounded(interval.low, digits),
        "high": _rounded(interval.high, digits),
    }


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


def csv_text(
    runs: dict[str, Evaluation],
    digits: int | None = None,
    preferences: PreferenceEvaluation | None = None,
) -> str:
    """One row per run and query (``all`` rows hold each run's value: the sum for a count,
    as trec_eval's ``all`` line, else the mean), a column per measure (those of
    ``preferences`` too, empty where a query has none), numbers in full unless rounded to
    ``digits``, text cells inert."""
    import pandas as pd

    from judge_app.io import exports

    frames = []
    for name, evaluation in runs.items():
        per_query = evaluation.per_query.drop(columns="idcg_zero")
        summary = evaluation.summary()
        more = None if preferences is None else preferences.evaluations.get(name)
        if more is not None:
            scored = more.per_query.drop(columns="idcg_zero")
            per_query = per_query.merge(scored, on="query_id", how="outer")
            summary |= more.summary()
        summary_row = pd.DataFrame([summary]).assign(query_id="all")
        frames.append(pd.concat([per_query, summary_row]).assign(run=name))
    table = pd.concat(frames)
    columns = ["run", "query_id"] + [c for c in table.columns if c not in ("run", "query_id")]
    return exports.csv_text(table[columns], float_format=None if digits is None else f"%.{digits}f")


def _corrected_csv(result: EvaluationResult, digits: int | None) -> str:
    """The means corrected by a judge (``writers.corrected``), a row per run and difference,
    then a row per run and preference measure."""
    import pandas as pd

    from judge_app.io import exports
    from judge_app.writers import corrected as corrected_writer

    assert result.corrected is not None
    frame = corrected_writer.frame(result.corrected)
    if result.preferences is not None:
        more = pd.DataFrame(writers_preferences.mean_rows(result.preferences))
        counts = [*frame.select_dtypes("integer"), *more.select_dtypes("integer")]
        frame = pd.concat([frame, more], ignore_index=True)
        frame = frame.astype(dict.fromkeys(counts, "Int64"))  # whole, empty where none
    return exports.csv_text(frame, float_format=None if digits is None else f"%.{digits}f")


def summary_table(
    runs: dict[str, Evaluation],
    ks: tuple[int | None, ...],
    intervals: dict[tuple[str, int | None], MeanInterval],
    digits: int = 4,
    per_query: bool = False,
    named: tuple[str, ...] = (),
    preferences: PreferenceEvaluation | None = None,
) -> str:
    """One row per run: at each of ``ks`` its mean NDCG with its interval of ``intervals``
    (by run and k; the column names its method), P and coverage; queries, MRR, MAP and the
    run's value of each ``named`` measure (a count's sum, else the mean), its values of the
    measures of ``preferences``, and notes. Without pandas (its import alone is a third of a
    second), unless ``per_query`` tables are asked for."""
    method = next(iter(intervals.values()))
    text = text_table(summary_rows(runs, ks, intervals, digits, named, preferences))
    summed = aggregate_note(named)
    notes = [] if summed is None else [summed]
    notes.append(INTERVAL_NOTE.format(method.confidence))
    if preferences is not None:
        notes.append(writers_preferences.note(preferences))
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
            table = evaluation.per_query.drop(columns="idcg_zero")
            scored = None if preferences is None else preferences.evaluations.get(name)
            if scored is not None:
                more = scored.per_query.drop(columns="idcg_zero")
                table = table.merge(more, on="query_id", how="outer")
            text += f"\n\n{name}\n" + table.round(digits).to_string(index=False)
    return text + ("\n\n" + "\n".join(notes) if notes else "") + "\n"


def summary_rows(
    runs: dict[str, Evaluation],
    ks: tuple[int | None, ...],
    intervals: dict[tuple[str, int | None], MeanInterval],
    digits: int = 4,
    named: tuple[str, ...] = (),
    preferences: PreferenceEvaluation | None = None,
) -> list[dict[str, str]]:
    """The rows of :func:`summary_table`, cells as people read them (the report prints these):
    the leading preference measure's beside NDCG at the leading k, any other's after the
    named measures."""
    method = next(iter(intervals.values()))
    heading = f"({method.confidence:.0%} {method.method})"
    rows = []
    for name, evaluation in runs.items():
        summary = evaluation.summary()
        row = {"run": name, "queries": str(evaluation.n_queries)}
        for k in ks:
            label = k_label(k)
            row[f"ndcg@{label} {heading}"] = interval_text(intervals[(name, k)], digits)
            if preferences is not None and k == ks[0]:
                row.update(writers_preferences.summary_cells(preferences, name, digits))
            row[f"p@{label}"] = f"{summary[f'p@{label}']:.{digits}f}"
            row[f"judged@{label}"] = f"{100 * summary[f'judged@{label}']:.1f}%"
        row["mrr"] = f"{summary['rr']:.{digits}f}"
        row["map"] = f"{summary['ap']:.{digits}f}"
        row.update({name: f"{summary[name]:.{digits}f}" for name in named})
        if preferences is not None:
            row.update(writers_preferences.more_cells(preferences, name, digits))
        rows.append(row)
    return rows


INTERVAL_NOTE = (
    "Each mean NDCG has its {:.0%} Student t interval over the queries, on the logit scale so "
    "that it stays within [0, 1]; a run of one query has none."
)


def interval_text(interval: MeanInterval, digits: int) -> str:
    """``0.8524 [0.8041, 0.9004]``; the mean alone where the interval is undefined."""
    mean = f"{interval.mean:.{digits}f}"
    if not interval.defined:
        return mean
    return f"{mean} [{interval.low:.{digits}f}, {interval.high:.{digits}f}]"


def as_text(
    result: EvaluationResult, output: str, digits: int | None = None, per_query: bool = False
) -> str:
    """The evaluation as ``eval --format`` prints it: ``trec`` (as ``trec_eval -q``, 4 digits
    as it prints them), ``json`` and ``csv`` (full precision unless ``digits``; with the runs
    compared, the CSV is a row per pair of runs and measure compared; corrected by a judge, a
    row per run and difference), ``table``, and each run's means for a paper, ``latex`` and
    ``markdown`` (4 digits unless ``digits``; significance marks from the comparison's
    verdict). Each shows the measures of preference judgments (``Compat``) where asked, as it
    shows the others."""
    from judge_app.writers import corrected as corrected_writer
    from judge_app.writers import verdicts as compared

    evaluations, ks, significance = result.evaluations, result.options.ks, result.significance
    found = result.preferences
    shown = TABLE_DIGITS if digits is None else digits
    if output in ("latex", "markdown"):
        from judge_app.writers import paper_tables

        typeset = paper_tables.latex_table if output == "latex" else paper_tables.markdown_table
        return typeset(evaluations, ks, significance, shown, result.options.measures, found)
    if output == "trec":
        return trec_text(evaluations, ks, shown, found)
    corrected = result.corrected
    if output == "csv":
        if corrected is not None:
            return _corrected_csv(result, digits)
        if significance is not None:
            more = [] if found is None or found.significance is None else [found.significance]
            return compared.csv_text([significance, *more], digits)
        return csv_text(evaluations, digits, found)
    if output == "json":
        return json_text(result, digits)
    intervals = {(run, k): result.interval(run, k) for run in evaluations for k in ks}
    named = result.options.measures
    text = summary_table(evaluations, ks, intervals, shown, per_query, named, found)
    if result.per_rater is not None:
        text += "\nEach rater's own mean NDCG (over the queries they judged)\n"
        text += result.per_rater.round(shown).to_string(index=False) + "\n"
    if corrected is not None:
        text += "\n" + corrected_writer.table_text(corrected, shown)
    if significance is not None:
        text += "\n" + compared.table_text(significance, shown)
    if found is not None and found.significance is not None:
        text += "\n" + compared.table_text(found.significance, shown)
    return text
