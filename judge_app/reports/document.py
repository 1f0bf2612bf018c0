"""A campaign report as one HTML document: what was judged, the settings, mean NDCG per run
with intervals, the comparison, the charts, the per-query table and the agreement summary.

The HTML is plain enough for Qt's rich-text engine to print it as PDF too: tables with
attributes, little CSS. Where each chart goes is decided by ``image``: a data URI for a
self-contained file, or a resource name for the PDF.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from judge_app.agreement.report import AgreementReport, adjudications
from judge_app.agreement.tables import kappa_matrix
from judge_app.metrics.intervals import MeanInterval
from judge_app.metrics.measure_names import aggregate_note
from judge_app.metrics.ranking import Evaluation, k_label
from judge_app.numbers import MISSING, score_text, share_text, signed_text
from judge_app.reports import charts
from judge_app.reports.significance import significance_html
from judge_app.writers import raters as rater_writer
from judge_app.writers.agreement import KAPPA_MATRIX_NOTE, adjudication_summary, alpha_reading
from judge_app.writers.corrected import assumption, caveat, quality_text, saved_text

if TYPE_CHECKING:
    from judge_app.agreement.quality import RatersReport
    from judge_app.evaluation.corrected import PredictionPowered
    from judge_app.metrics.ppi import Estimate
    from judge_app.metrics.significance import Significance

ImagePlacer = Callable[[Figure, str], str]
"""Given a chart and a short name, the ``src`` of its ``<img>``."""

MARK = "†"  # a query whose top k is not fully judged


@dataclass
class ReportData:
    """Everything a report shows, computed beforehand (see ``judge_app.commands.report``):
    ``intervals`` holds each run's mean NDCG at the leading k with its t interval,
    ``significance`` the runs compared (None: fewer than two runs)."""

    title: str
    source: str
    created: str
    counts: dict[str, int]
    coverage: list[dict]
    settings: dict[str, object]
    evaluations: dict[str, Evaluation]
    intervals: dict[str, MeanInterval]
    curves: dict[str, tuple[list[int], list[float]]]
    significance: Significance | None = None
    agreement: AgreementReport | None = None
    agreement_missing: str = ""
    raters: RatersReport | None = None
    digits: int = 4
    corrected: PredictionPowered | None = None  # each run's mean corrected by a judge


def render_html(data: ReportData, image: ImagePlacer) -> str:
    """The report as one HTML document; charts placed by ``image``."""
    number = _formatter(data.digits)
    label = k_label(next(iter(data.evaluations.values())).settings.ks[0])
    parts = [
        f"<h1>{_e(data.title)}</h1>",
        f"<p class='meta'>{_e(data.source)} · {_e(data.created)}</p>",
        "<h2>What was judged</h2>",
        _table(
            ["queries", "documents", "runs", "raters", "judgments"],
            [
                [
                    f"{data.counts.get(name, 0):,}"
                    for name in ("queries", "documents", "runs", "raters", "judgments")
                ]
            ],
        ),  # fmt: skip
        _coverage(data.coverage),
        "<h2>Settings</h2>",
        _settings(data.settings),
        f"<h2>Mean NDCG@{label} per run</h2>",
        _means(data.evaluations, data.intervals, number),
    ]
    if data.settings.get("grades") == "automatic":
        parts.insert(-1, f"<p class='finding'>{_e(_automatic_note(data.settings))}</p>")
    if data.corrected is not None:
        parts.append(f"<h2>Mean NDCG@{label}: humans corrected by {_e(data.corrected.judge)}</h2>")
        parts.append(_corrected(data.corrected, number, data.digits))
    named = [str(name) for name in data.settings.get("measures") or []]  # type: ignore[attr-defined]
    if named:
        parts.append("<h2>More measures per run</h2>")
        parts.append(_named_values(data.evaluations, named, number))
    if data.significance is not None:
        parts.append(f"<h2>Runs compared on {_e(named[0]) if named else f'NDCG@{label}'}</h2>")
        parts.append(significance_html(data.significance, data.digits))
    parts.append("<h2 class='page'>Charts</h2>")  # on a page of their own in print
    for figure, name in _figures(data, label):
        parts.append(f"<p class='chart'><img src='{image(figure, name)}' alt='{_e(name)}'></p>")
        if name == "kappa":
            parts.append(f"<p class='note'>{_e(KAPPA_MATRIX_NOTE)}</p>")
    parts.append(f"<h2 class='page'>Per query (NDCG@{label})</h2>")
    parts.append(_per_query(data.evaluations, label, number))
    parts.append("<h2>Agreement between raters</h2>")
    if data.agreement is None:
        parts.append(f"<p>{_e(data.agreement_missing)}</p>")
    else:
        parts.append(_agreement(data.agreement, number))
    if data.raters is not None and data.raters.raters:
        parts.append("<h2>Raters</h2>")
        parts.append(_raters(data.raters))
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_e(data.title)}</title><style>{STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


STYLE = """
body { font-family: 'Segoe UI', 'Helvetica Neue', Arial, sans-serif; color: #1f2328;
       max-width: 60em; margin: 2em auto; padding: 0 1em; font-size: 10pt; }
h1 { font-size: 20pt; margin-bottom: 0.2em; }
h2 { font-size: 13pt; margin-top: 1.6em; border-bottom: 1px solid #d0d4da; }
h2.page { page-break-before: always; }
.meta { color: #6b7280; }
table { border-collapse: collapse; margin: 0.6em 0; }
th { text-align: left; background: #f3f4f6; font-weight: 600; }
th, td { padding: 3px 6px; border-bottom: 1px solid #e4e7eb; white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.finding { background: #f3f4f6; padding: 0.6em; }
.chart img { max-width: 100%; }
.note { color: #6b7280; font-size: 9pt; }
"""


def _automatic_note(settings: dict[str, object]) -> str:
    return (
        f"These are the grades of the automatic judge {settings.get('judge')} alone: its "
        "numbers are as biased as the judge is."
    )


def _corrected(corrected: PredictionPowered, number: Callable, digits: int) -> str:
    """The prediction-powered estimates beside the humans-only and judge-only ones: each mean
    over its 95% t interval (the numbers ``eval --judge`` writes), in columns narrow enough
    for a page; why an interval is missing, if one is."""

    def estimate(item: Estimate) -> str:
        if not item.defined:
            return number(item.mean)
        low, high = number(item.low), number(item.high)
        return f"{number(item.mean)}<br><small>{low} – {high}</small>"

    rows = [
        [
            _e(item.name),
            estimate(item.corrected),
            estimate(item.humans),
            number(item.automatic.mean),
            saved_text(item),
        ]
        for item in corrected.estimates
    ]
    header = ["run", "corrected", "humans alone", f"{_e(corrected.judge)} alone", "grades saved"]
    missing = caveat(corrected)
    notes = "" if missing is None else f"<p><b>{_e(missing)}</b></p>"
    agreement = quality_text(corrected)
    notes += "" if agreement is None else f"<p>{_e(agreement)}</p>"
    return (
        f"<p>{len(corrected.labelled):,} of {corrected.queries:,} queries were judged completely "
        f"by humans and every query by {_e(corrected.judge)}; each mean is estimated from both "
        "by prediction-powered inference, with its 95% t interval below it; grades saved: the "
        "human grades the correction saves for its width.</p>"
        + _table(header, rows, numeric_from=1)
        + notes
        + f"<p class='note'>{_e(assumption(corrected))}</p>"
    )


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _settings(settings: dict[str, object]) -> str:
    """The settings, two to a row (setting, value, setting, value): short on a page."""
    cells = [
        [_e(name), _e(", ".join(map(str, value)) if isinstance(value, list) else str(value))]
        for name, value in settings.items()
    ]
    rows = [
        cells[i] + (cells[i + 1] if i + 1 < len(cells) else ["", ""])
        for i in range(0, len(cells), 2)
    ]
    return _table(["setting", "value", "setting", "value"], rows, numeric_from=4)


def _formatter(digits: int) -> Callable[[float | None], str]:
    def number(value: float | None) -> str:
        return score_text(None if value is None else float(value), digits)

    return number


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 0) -> str:
    head = "".join(f"<th>{_e(name)}</th>" for name in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='n'>{cell}</td>" if index >= numeric_from else f"<td>{cell}</td>"
            for index, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table cellspacing='0' cellpadding='4'><tr>{head}</tr>{body}</table>"


def _coverage(coverage: list[dict]) -> str:
    rows = [
        [
            _e(row["run"]),
            f"{row['queries']:,}",
            f"{row['results']:,}",
            share_text(row["judged"] / max(row["results"], 1)),
            share_text(row["judged_at_depth"] / max(row["results_at_depth"], 1)),
        ]
        for row in coverage
    ]
    header = ["run", "queries", "results", "judged", "judged in top 10"]
    return _table(header, rows, numeric_from=1)


def _means(
    evaluations: dict[str, Evaluation], intervals: dict[str, MeanInterval], number: Callable
) -> str:
    rows = []
    for run, evaluation in evaluations.items():
        label = k_label(evaluation.settings.ks[0])
        interval = intervals[run]
        values = evaluation.summary()
        rows.append([
            _e(run),
            number(interval.mean),
            f"{number(interval.low)} – {number(interval.high)}",
            f"{evaluation.n_queries:,}",
            number(values[f"p@{label}"]),
            number(values["rr"]),
            number(values["ap"]),
            share_text(values[f"judged@{label}"]),
        ])  # fmt: skip
    header = ["run", "NDCG", "95% t interval", "queries", "P", "MRR", "MAP", "judged"]
    return _table(header, rows, numeric_from=1)


def _named_values(evaluations: dict[str, Evaluation], names: list[str], number: Callable) -> str:
    """Each run's value of every measure asked for by name (a count's sum over the queries,
    else the mean), and a note naming the sums."""
    rows = [
        [_e(run), *(number(summary[name]) for name in names)]
        for run, summary in ((run, e.summary()) for run, e in evaluations.items())
    ]
    summed = aggregate_note(names)
    note = "" if summed is None else f"<p class='note'>{_e(summed)}</p>"
    return _table(["run", *map(_e, names)], rows, numeric_from=1) + note


def _per_query(evaluations: dict[str, Evaluation], label: str, number: Callable) -> str:
    """A row per query: each run's NDCG, the second run's gain over the first, and the
    least-judged run's share of judged documents in the top k."""
    runs = list(evaluations)
    scores = {
        run: dict(zip(e.query_ids, e.values[f"ndcg@{label}"])) for run, e in evaluations.items()
    }
    judged = {
        run: dict(zip(e.query_ids, e.values[f"judged@{label}"])) for run, e in evaluations.items()
    }
    queries = sorted({query for run in runs for query in scores[run]})
    header = ["query", *runs] + ([f"{runs[1]} − {runs[0]}"] if len(runs) >= 2 else [])
    header.append(f"judged@{label}")
    rows = []
    for query in queries:
        coverage = min((judged[run][query] for run in runs if query in judged[run]), default=1.0)
        row = [_e(query) + (f" {MARK}" if coverage < 1.0 else "")]
        row += [number(scores[run].get(query)) for run in runs]
        if len(runs) >= 2:
            first, second = scores[runs[0]].get(query), scores[runs[1]].get(query)
            row.append(MISSING if first is None or second is None else signed_text(second - first))
        row.append(share_text(coverage))
        rows.append(row)
    note = (
        f"<p class='note'>{MARK} the top {label} of this query is not fully judged in every run: "
        "its NDCG counts the unjudged documents as irrelevant. judged@{label}: the lowest share "
        "over the runs.</p>"
    ).replace("{label}", label)
    return _table(header, rows, numeric_from=1) + note


def _agreement(report: AgreementReport, number: Callable) -> str:
    alpha = report.krippendorff_alpha["ordinal"]
    interval = report.krippendorff_alpha_ci["ordinal"]
    if alpha is None:
        headline = f"Ordinal alpha is undefined: {report.reasons['krippendorff_alpha.ordinal']}."
    else:
        shown = (
            ""
            if interval is None
            else f" (95% interval {number(interval[0])} – {number(interval[1])})"
        )
        headline = f"Ordinal alpha {number(alpha)}{shown}: {alpha_reading(alpha)}."
    parts = [
        f"<p class='finding'>{_e(headline)}</p>",
        f"<p>{len(report.raters)} raters ({_e(', '.join(report.raters))}) on "
        f"{report.n_units:,} documents; {report.n_multi_rated:,} graded by two or more.</p>",
        _table(
            ["agreement", "within one", "Fleiss' kappa", "Gwet's AC1", "AC2 (quadratic)"],
            [
                [
                    share_text(report.percent_agreement),
                    share_text(report.within_one_agreement),
                    number(report.fleiss_kappa),
                    number(report.gwet_ac1),
                    number(report.gwet_ac2["quadratic"]),
                ]
            ],
        ),  # fmt: skip
        _table(
            ["rater", "rater", "common", "agreement", "kappa", "linear", "quadratic"],
            [
                [
                    _e(pair.rater_a),
                    _e(pair.rater_b),
                    f"{pair.n_units:,}",
                    share_text(pair.percent_agreement),
                    number(pair.cohen_kappa),
                    number(pair.cohen_kappa_linear),
                    number(pair.cohen_kappa_quadratic),
                ]
                for pair in report.pairwise
            ],
            numeric_from=2,
        ),
    ]
    parts.append(f"<p>{_e(adjudication_summary(adjudications(report.per_query)))}.</p>")
    return "\n".join(parts)


def _raters(report: RatersReport) -> str:
    warnings = rater_writer.warning_lines(report)
    parts = [
        "".join(f"<p class='finding'>{_e(line)}</p>" for line in warnings)
        if warnings
        else "<p class='finding'>No rater's figures are out of line.</p>",
        _table(
            list(rater_writer.HEADER),
            [[_e(cell) for cell in row] for row in rater_writer.rows(report)],
            1,
        ),
        f"<p class='note'>{_e(RATERS_NOTE.format(seconds=report.min_seconds))}</p>",
    ]
    return "\n".join(parts)


RATERS_NOTE = (
    "Times leave idle time out; too fast: under {seconds:g} s, the lead's fastest credible "
    "judgment. Self kappa: quadratic-weighted kappa of each hidden repeat's grade with the "
    "rater's first grade. Gold: the rater's grades of gold items; bias is grade minus gold. "
    "Alpha others: ordinal alpha of the rater against the other raters; alpha contrib: all "
    "raters' ordinal alpha minus alpha without the rater. Repeats and gold grades count in "
    "no other figure of this report."
)


def _figures(data: ReportData, label: str) -> list[tuple[Figure, str]]:
    """The report's charts, each with a short name."""
    chosen = next(iter(data.evaluations.values())).settings.ks[0]
    figures = [(charts.ndcg_by_k(data.curves, chosen), "ndcg-by-k")]
    values = {run: e.values[f"ndcg@{label}"] for run, e in data.evaluations.items()}
    figures.append((charts.ndcg_distribution(values, f"NDCG@{label}"), "ndcg-distribution"))
    runs = list(data.evaluations)
    if len(runs) >= 2:
        first, second = (data.evaluations[run] for run in runs[:2])
        common = sorted(set(first.query_ids) & set(second.query_ids))
        a = dict(zip(first.query_ids, first.values[f"ndcg@{label}"]))
        b = dict(zip(second.query_ids, second.values[f"ndcg@{label}"]))
        differences = np.array([b[query] - a[query] for query in common])
        figures.append(
            (
                charts.query_differences(differences, runs[0], runs[1], f"NDCG@{label}"),
                "differences",
            )
        )
    if data.agreement is not None and data.agreement.per_rater:
        counts = {rater.rater: rater.grades for rater in data.agreement.per_rater}
        figures.append((charts.grades_by_rater(counts), "grades-by-rater"))
        raters = data.agreement.raters
        if len(raters) >= 2:
            matrix = kappa_matrix(data.agreement)
            figures.append(
                (charts.kappa_heatmap(raters, matrix, "Quadratic-weighted kappa"), "kappa")
            )
    return figures
