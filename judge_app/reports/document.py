"""A campaign report as one self-contained HTML document (charts inline as SVG), which
``reports.pdf`` prints as it is: the answer first (which run wins, how sure, how much was
judged), mean NDCG per run (and Compat, where raters made preference judgments), the runs
compared, what was judged, the agreement and the raters, the preference judgments, then the
charts, the per-query table and the settings.

Every table is a ``Table`` of cells the writers format for people (the cells ``eval``,
``agreement`` and ``raters`` print), split by columns where it is too wide for a page."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Iterator

from matplotlib.figure import Figure

from judge_app.agreement.report import AgreementReport, adjudications
from judge_app.agreement.tables import kappa_matrix
from judge_app.metrics.measure_names import aggregate_note
from judge_app.metrics.ranking import Evaluation, k_label
from judge_app.numbers import MISSING, count_text, score_text, share_text, signed_text
from judge_app.reports import charts
from judge_app.reports.answer import agreement_words, answer_html, compared_measure
from judge_app.reports.data import ReportData
from judge_app.reports.runs_compared import significance_blocks
from judge_app.reports.style import style_sheet
from judge_app.reports.tables import Cell, Table, split, table_html
from judge_app.writers import preferences as preference_writer
from judge_app.writers import raters as rater_writer
from judge_app.writers.agreement import KAPPA_MATRIX_NOTE, adjudication_summary, apart_sentence
from judge_app.writers.calibration import (
    PROBE_NOTE,
    findings,
    findings_level,
    instructing_rows,
    probe_rows,
)
from judge_app.writers.corrected import assumption, caveat, estimate_rows, heading, quality_text
from judge_app.writers.evaluation import INTERVAL_NOTE, summary_rows

__all__ = ["ReportData", "render_html", "report_tables"]

Block = str | Table
"""A piece of the report: HTML, or a table (laid out, and split, when the report is)."""
MARK = "†"  # a query whose top k is not fully judged


ImagePlacer = Callable[[Figure, str], str]
"""Given a chart and a short name, the ``src`` of its ``<img>``."""


def inline_svg(figure: Figure, name: str) -> str:
    """A chart as an SVG data URI: the report needs no other file, and prints sharp."""
    encoded = base64.b64encode(charts.svg(figure).encode("utf-8")).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"


def render_html(data: ReportData, image: ImagePlacer = inline_svg) -> str:
    """The report as one HTML document; charts placed by ``image``."""
    body = "\n".join(
        "".join(table_html(part) for part in split(block)) if isinstance(block, Table) else block
        for block in _blocks(data, image)
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(data.title)}</title><style>{style_sheet(data.title)}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def report_tables(data: ReportData) -> list[Table]:
    """Every table of the report, whole (before any split), in order."""
    return [block for block in _blocks(data, lambda figure, name: name) if isinstance(block, Table)]


def _blocks(data: ReportData, image: ImagePlacer) -> Iterator[Block]:
    label = k_label(data.k)
    yield f"<h1>{_e(data.title)}</h1>"
    yield f"<p class='meta'>{_e(data.source)} · {_e(data.created)}</p>"
    yield answer_html(data)
    if data.settings.get("grades") == "automatic":
        yield _p(_automatic_note(data.settings), "finding")
    also = "" if data.preferences is None else f" and {_e(data.preferences.measure)}"
    yield f"<h2>Mean NDCG@{label}{also} per run</h2>"
    yield from _means(data)
    if data.corrected is not None:
        yield f"<h2>Mean NDCG@{label}: humans corrected by {_e(data.corrected.judge)}</h2>"
        yield from _corrected(data)
    if data.significance is not None:
        yield f"<h2>Runs compared on {_e(compared_measure(data, label))}</h2>"
        yield from significance_blocks(data.significance, _colours(data), data.digits)
    found = data.preferences
    if found is not None and found.significance is not None:
        yield f"<h2>Runs compared on {_e(found.measure)}</h2>"
        yield from significance_blocks(found.significance, _colours(data), data.digits)
    if data.settings.get("judge") is not None:
        yield f"<h2>The automatic judge {_e(str(data.settings['judge']))}</h2>"
        yield from _judge(data)
    yield "<h2>What was judged</h2>"
    yield from _judged(data)
    yield "<h2>Agreement between raters</h2>"
    if data.agreement is None:
        yield _p(data.agreement_missing)
    else:
        yield from _agreement(data.agreement, data.digits)
    if data.raters is not None and data.raters.raters:
        yield "<h2>Raters</h2>"
        yield from _raters(data)
    if data.preference_agreement is not None:
        yield "<h2>Preference judgments</h2>"
        yield from _preferences(data)
    yield "<h2 class='page'>Charts</h2>"  # on a page of their own in print
    for figure, name, caption in _figures(data, label):
        note = f"<figcaption>{_e(caption)}</figcaption>" if caption else ""
        yield f"<figure><img src='{image(figure, name)}' alt='{_e(name)}'>{note}</figure>"
    yield f"<h2 class='page'>Per query (NDCG@{label})</h2>"
    yield _per_query(data, label)
    yield "<h2>Settings</h2>"
    yield _settings(data.settings)


def _colours(data: ReportData) -> dict[str, str]:
    """Each run's colour in the charts (by its place among the runs), for its name in tables."""
    return {
        run: charts.RUN_COLOURS[index % len(charts.RUN_COLOURS)]
        for index, run in enumerate(data.evaluations)
    }


def _run(name: str, colours: dict[str, str]) -> Cell:
    return Cell(name, swatch=colours.get(name, ""))


def _means(data: ReportData) -> Iterator[Block]:
    """The table ``eval`` prints at the leading k, with every measure asked for by name."""
    named = tuple(str(name) for name in data.settings.get("measures") or [])  # type: ignore[attr-defined]
    k = data.k
    rows = summary_rows(
        data.evaluations, (k,), {(run, k): data.intervals[run] for run in data.intervals},
        data.digits, named, data.preferences,
    )  # fmt: skip
    colours = _colours(data)
    interval = next(iter(data.intervals.values()))
    notes = [INTERVAL_NOTE.format(interval.confidence), aggregate_note(named) or ""]
    if data.preferences is not None:
        notes.append(preference_writer.note(data.preferences))
    yield Table.of(
        "",
        [{**row, "run": _run(row["run"], colours)} for row in rows],
        note=" ".join(filter(None, notes)),
    )


def _corrected(data: ReportData) -> Iterator[Block]:
    corrected = data.corrected
    assert corrected is not None
    yield _p(heading(corrected) + ".")
    yield Table.of("", estimate_rows(corrected, data.digits), note=assumption(corrected))
    for line in (caveat(corrected), quality_text(corrected)):
        if line:
            yield _p(line, "finding")


def _judge(data: ReportData) -> Iterator[Block]:
    """How far the judge the numbers lean on can be trusted: the calibration's findings,
    what the probes did to it and the documents that address it."""
    calibration = data.calibration
    if calibration is None:
        yield _p("The judge shares no pair with the human raters: nothing says how far its "
                 "grades can be trusted.", "finding")  # fmt: skip
        return
    level = findings_level(calibration)
    yield (
        "<ul class='findings'>"
        + "".join(f"<li>{_e(line)}</li>" for line in findings(calibration))
        + "</ul>"
    )
    yield _p(
        f"Compared with the humans on {calibration.pairs:,} pairs in {calibration.queries:,} "
        f"queries; quadratic κ {score_text(calibration.kappa.value)}, ordinal α "
        f"{score_text(calibration.alpha.value)} (judge-app calibrate gives every figure).",
        "finding" if level == "warning" else "",
    )
    if calibration.probes:
        yield Table.of(
            "Probes: pairs asked again with one thing changed",
            probe_rows(calibration),
            note=PROBE_NOTE,
        )
    if calibration.instructing:
        yield Table.of(
            f"Documents that address a judge: {len(calibration.instructing):,}",
            instructing_rows(calibration),
            keys=2,
        )


def _judged(data: ReportData) -> Iterator[Block]:
    names = ("queries", "documents", "runs", "raters", "judgments")
    yield Table("", list(names), [[f"{data.counts.get(name, 0):,}" for name in names]], keys=0)
    colours = _colours(data)
    rows = [
        [
            _run(row["run"], colours),
            f"{row['queries']:,}",
            f"{row['results']:,}",
            share_text(row["judged"] / max(row["results"], 1)),
            share_text(row["judged_at_depth"] / max(row["results_at_depth"], 1)),
        ]
        for row in data.coverage
    ]
    header = ["run", "queries", "results", "judged", "judged in top 10"]
    yield Table("Coverage of each run", header, rows)  # type: ignore[arg-type]


def _agreement(report: AgreementReport, digits: int) -> Iterator[Block]:
    yield _p(agreement_words(report, digits), "finding")
    yield _p(
        f"{len(report.raters)} raters ({', '.join(report.raters)}) on {report.n_units:,} "
        f"documents; {report.n_multi_rated:,} graded by two or more."
    )
    number = _number(digits)
    yield Table(
        "Coefficients over all raters",
        ["agreement", "within one", "Fleiss' kappa", "Gwet's AC1", "AC2 (quadratic)"],
        [[
            share_text(report.percent_agreement),
            share_text(report.within_one_agreement),
            number(report.fleiss_kappa),
            number(report.gwet_ac1),
            number(report.gwet_ac2["quadratic"]),
        ]],
        keys=0,
    )  # fmt: skip
    yield Table(
        "Pairs of raters (Cohen's kappa on the documents both graded)",
        ["rater", "rater", "common", "agreement", "kappa", "linear", "quadratic"],
        [
            [
                pair.rater_a,
                pair.rater_b,
                f"{pair.n_units:,}",
                share_text(pair.percent_agreement),
                number(pair.cohen_kappa),
                number(pair.cohen_kappa_linear),
                number(pair.cohen_kappa_quadratic),
            ]
            for pair in report.pairwise
        ],
        keys=2,
    )
    if report.pairs_apart:
        yield _p(apart_sentence(report.pairs_apart))
    yield _p(f"{adjudication_summary(adjudications(report.per_query))}.")


def _raters(data: ReportData) -> Iterator[Block]:
    report = data.raters
    assert report is not None
    warnings = rater_writer.warning_lines(report) or ["No rater's figures are out of line."]
    for line in warnings:
        yield _p(line, "finding")
    yield Table(
        "Each rater's work and quality",
        rater_writer.header(report, preferences=False),  # theirs: "Preference judgments"
        [list(row) for row in rater_writer.rows(report, preferences=False)],
        note=RATERS_NOTE.format(seconds=report.min_seconds),
    )


def _preferences(data: ReportData) -> Iterator[Block]:
    """How far the raters agree on their preference judgments (the figures of ``judge-app
    preferences summary``), and how far each agrees with themselves: their intransitive
    triples (those of ``judge-app raters``)."""
    agreement = data.preference_agreement
    assert agreement is not None
    raters = [] if data.raters is None else data.raters.raters
    preferring = [rater for rater in raters if rater.preferences.made]
    made = sum(rater.preferences.made for rater in preferring)
    found = data.preferences
    ideal = (
        f"; {count_text(len(found.ideals), 'query has', 'queries have')} an ideal ranking from "
        f"them (the Bradley–Terry strengths of every rater's choices), which {found.measure} "
        "compares each run with"
        if found is not None
        else ""
    )
    yield _p(
        f"{count_text(made, 'preference judgment')} by {count_text(len(preferring), 'rater')}: "
        f"which of two documents is better for a query{ideal}."
    )
    cells = preference_writer.agreement_cells(agreement, data.digits)  # or why there is none
    row: list[str | Cell] = [f"{agreement.units:,}", *cells]
    yield Table(
        "Agreement between raters on the pairs two or more chose on",
        ["pairs", "share agreeing", "Krippendorff's alpha (nominal)"],
        [row],
        keys=0,
        note=" ".join(
            filter(
                None,
                [preference_writer.AGREEMENT_NOTE, preference_writer.interval_words(agreement)],
            )
        ),
    )
    header = ["rater", "preferences", "skipped", "cyclic", "ordered triples", "intransitive"]
    rows: list[list[str | Cell]] = [
        [
            rater.rater,
            f"{rater.preferences.made:,}",
            f"{rater.preferences.skipped:,}",
            f"{rater.preferences.cyclic:,}",
            f"{rater.preferences.triples:,}",
            share_text(rater.preferences.share.value),
        ]
        for rater in preferring
    ]
    yield Table("Each rater's intransitive triples", header, rows, note=INTRANSITIVE_NOTE)


INTRANSITIVE_NOTE = (
    "Cyclic: triples of a query's documents the rater ordered in a cycle (x over y over z "
    "over x); ordered triples: those whose three pairs the rater ordered (ties take no part); "
    "intransitive: cyclic over ordered."
)


RATERS_NOTE = (
    "Times leave idle time out; too fast: under {seconds:g} s, the lead's fastest credible "
    "judgment. Self kappa: quadratic-weighted kappa of each hidden repeat's grade with the "
    "rater's first grade. Gold: the rater's grades of gold items; bias is grade minus gold. "
    "Alpha others: ordinal alpha of the rater against the other raters; alpha contrib: all "
    "raters' ordinal alpha minus alpha without the rater. Repeats and gold grades count in "
    "no other figure of this report."
)


def _per_query(data: ReportData, label: str) -> Table:
    """A row per query: each run's NDCG, the second run's gain over the first, and the
    least-judged run's share of judged documents in the top k."""
    evaluations, number = data.evaluations, _number(data.digits)
    runs = list(evaluations)
    scores = {run: _by_query(e, f"ndcg@{label}") for run, e in evaluations.items()}
    judged = {run: _by_query(e, f"judged@{label}") for run, e in evaluations.items()}
    queries = sorted({query for run in runs for query in scores[run]})
    header = ["query", *runs] + ([f"{runs[1]} − {runs[0]}"] if len(runs) >= 2 else [])
    header.append(f"judged@{label}")
    rows: list[list[str | Cell]] = []
    for query in queries:
        coverage = min((judged[run][query] for run in runs if query in judged[run]), default=1.0)
        row: list[str | Cell] = [query + (f" {MARK}" if coverage < 1.0 else "")]
        row += [number(scores[run].get(query)) for run in runs]
        if len(runs) >= 2:
            first, second = scores[runs[0]].get(query), scores[runs[1]].get(query)
            row.append(_difference(first, second, data.digits))
        row.append(share_text(coverage))
        rows.append(row)
    note = (
        f"{MARK} the top {label} of this query is not fully judged in every run: its NDCG "
        f"counts the unjudged documents as irrelevant. judged@{label}: the lowest share over "
        "the runs."
    )
    return Table("", header, rows, note=note)


def _difference(first: float | None, second: float | None, digits: int) -> str | Cell:
    """The second run's gain over the first on a query, coloured as the differences chart."""
    if first is None or second is None:
        return MISSING
    gain = second - first
    text = signed_text(gain, digits)
    if text == signed_text(0.0, digits):
        return text
    return Cell(text, tone="up" if gain > 0 else "down")


def _by_query(evaluation: Evaluation, measure: str) -> dict[str, float]:
    return dict(zip(evaluation.query_ids, evaluation.values[measure]))


SETTING_NAMES = {
    "k": "cut-off k",
    "gain": "gain",
    "ideal": "ideal ranking",
    "unjudged": "unjudged documents",
    "threshold": "relevance threshold",
    "complete": "missing queries score 0",
    "aggregate": "raters' grades combined by",
    "adjudicated": "adjudicated grades",
    "runs": "runs",
    "raters": "raters",
    "seed": "seed",
    "permutations": "permutations",
    "measures": "more measures",
    "preference_measures": "measures of preferences",
    "grades": "grades",
    "judge": "automatic judge",
}


def setting_text(value: object) -> str:
    """A setting as people read it: yes or no, none for nothing, a list joined."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == []:
        return "none"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _settings(settings: dict[str, object]) -> Table:
    """The settings, two to a row (setting, value, setting, value): short on a page."""
    cells = [
        [SETTING_NAMES.get(name, name), setting_text(value)] for name, value in settings.items()
    ]
    rows: list[list[str | Cell]] = [
        [*cells[i], *(cells[i + 1] if i + 1 < len(cells) else ["", ""])]
        for i in range(0, len(cells), 2)
    ]
    return Table("", ["setting", "value", "setting", "value"], rows, keys=4, numeric=False)


def _automatic_note(settings: dict[str, object]) -> str:
    return (
        f"These are the grades of the automatic judge {settings.get('judge')} alone: its "
        "numbers are as biased as the judge is."
    )


def _number(digits: int) -> Callable[[float | None], str]:
    def number(value: float | None) -> str:
        return score_text(None if value is None else float(value), digits)

    return number


def _figures(data: ReportData, label: str) -> list[tuple[Figure, str, str]]:
    """The report's charts (the window's figure functions), each with a name and a caption."""
    figures = [
        (charts.ndcg_by_k(data.curves, data.k), "ndcg-by-k", "The dashed line: the k the "
         "tables are at."),
        (
            charts.ndcg_distribution(
                {run: e.values[f"ndcg@{label}"] for run, e in data.evaluations.items()},
                f"NDCG@{label}",
            ),
            "ndcg-distribution",
            "",
        ),
    ]  # fmt: skip
    if data.differences is not None:
        first, second, differences = data.differences
        chart = charts.query_differences(differences, first, second, f"NDCG@{label}")
        figures.append((chart, "differences", ""))
    if data.agreement is not None and data.agreement.per_rater:
        counts = {rater.rater: rater.grades for rater in data.agreement.per_rater}
        figures.append((charts.grades_by_rater(counts), "grades-by-rater", ""))
        raters = data.agreement.raters
        if len(raters) >= 2:
            matrix = kappa_matrix(data.agreement)
            chart = charts.kappa_heatmap(raters, matrix, "Quadratic-weighted kappa")
            figures.append((chart, "kappa", KAPPA_MATRIX_NOTE))
    return figures


def _p(text: str, kind: str = "") -> str:
    return f"<p class='{kind}'>{_e(text)}</p>" if kind else f"<p>{_e(text)}</p>"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
