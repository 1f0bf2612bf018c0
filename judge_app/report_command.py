"""``judge-app report``: a campaign's evaluation and agreement as an HTML or PDF report.

The numbers are those of ``judge-app eval --db`` and ``judge-app agreement --db`` with the
same options; the PDF is the same document printed by Qt (``judge_app.gui.pdf``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from judge_app.agreement_command import AgreementRequest, agreement_of
from judge_app.errors import JudgeAppError
from judge_app.evaluation import (
    EvalRequest,
    UsageError,
    check_raters,
    compare_evaluations,
    evaluate_loaded,
    of_raters,
    parse_ks,
    require_whole,
    runs_of,
)
from judge_app.io.outputs import check_output, output_file
from judge_app.metrics.ranking import k_label

CURVE_KS = 20
"""NDCG@k against k is drawn for k = 1 … 20 (or the largest k asked for)."""


@dataclass
class ReportRequest:
    """Everything ``judge-app report`` was asked; see its ``--help``."""

    db: str
    out: Path
    ks: list[str] = field(default_factory=lambda: ["10"])
    runs: list[str] | None = None
    aggregate: str = "mean"
    adjudicated: str = "prefer"
    raters: list[str] | None = None
    bootstrap: int = 1000
    seed: int = 0
    title: str | None = None


@dataclass
class RenderedReport:
    """A report's HTML and, for a PDF, the chart images it names; not yet written."""

    out: Path
    html: str
    images: dict[str, bytes]

    def save(self) -> Path:
        """Write the file (a PDF is printed by Qt: in a window, on the UI thread)."""
        if self.out.suffix.lower() == ".pdf":
            from judge_app.gui.pdf import write_pdf

            write_pdf(self.html, self.images, self.out)
        else:
            with output_file(self.out) as handle:
                handle.write(self.html)
        return self.out


def write_report(request: ReportRequest) -> Path:
    """Compute and write the report to ``request.out`` (``.html`` or ``.pdf``)."""
    return render_report(request).save()


def render_report(request: ReportRequest) -> RenderedReport:
    """Compute the report and lay it out as HTML: PNG charts for a PDF, SVG ones embedded
    for an HTML file. Needs no Qt, so it may run off the UI thread."""
    from judge_app.reports import charts
    from judge_app.reports.document import render_html

    suffix = request.out.suffix.lower()
    if suffix not in (".html", ".htm", ".pdf"):
        raise UsageError(f"--out {request.out}: the report is written as .html or .pdf")
    parse_ks(request.ks)
    check_raters(request.raters)
    require_whole("--bootstrap", request.bootstrap, 0, note=" (0: no interval)")
    require_whole("--seed", request.seed, 0)
    check_output(request.out)
    data = gather(request)
    images: dict[str, bytes] = {}
    if suffix == ".pdf":

        def place(figure, name: str) -> str:  # type: ignore[no-untyped-def]
            images[f"{name}.png"] = charts.png(figure, dpi=192)  # drawn at half size
            return f"{name}.png"

        return RenderedReport(request.out, render_html(data, place), images)

    def embed(figure, name: str) -> str:  # type: ignore[no-untyped-def]
        encoded = base64.b64encode(charts.svg(figure).encode("utf-8")).decode("ascii")
        return f"data:image/svg+xml;base64,{encoded}"

    return RenderedReport(request.out, render_html(data, embed), images)


def gather(request: ReportRequest):  # type: ignore[no-untyped-def]
    """The numbers of the report (a ``ReportData``)."""
    from judge_app.reports.document import ReportData
    from judge_app.store import open_database, reads

    with open_database(request.db, read_only=True) as database, database.reading() as session:
        grades = reads.grades_frame(session)  # read once for every part of the report
        results = reads.results_frame(session)
        counts = reads.table_counts(session)
        coverage = reads.coverage_frame(session).to_dict("records")
        source = database.describe()
    chosen = of_raters(grades, request.raters, request.db)
    runs = runs_of(results, request.runs, request.db)
    evaluation = evaluate_loaded(_eval_request(request, request.ks), chosen, runs)
    settings = evaluation.settings
    first = k_label(settings.ks[0])
    comparisons = []
    if len(evaluation.evaluations) >= 2:
        comparisons = compare_evaluations(
            evaluation.evaluations, f"ndcg@{first}", permutations=10_000, seed=request.seed
        )
    largest = max([k for k in settings.ks if k is not None] + [CURVE_KS])
    curve_ks = list(range(1, largest + 1))
    curves = evaluate_loaded(_eval_request(request, [",".join(map(str, curve_ks))]), chosen, runs)
    try:
        agreement = agreement_of(_agreement_request(request), grades, results, request.db)
        missing = ""
    except UsageError:
        raise
    except JudgeAppError as error:
        agreement, missing = None, f"No agreement figures: {error}"
    return ReportData(
        title=request.title or f"Judging campaign report: {Path(source).name or source}",
        source=source,
        created=datetime.now().strftime("%Y-%m-%d %H:%M"),
        counts=counts,
        coverage=coverage,
        settings={
            "k": ", ".join(k_label(k) for k in settings.ks),
            "gain": settings.gain,
            "ideal": settings.ideal,
            "unjudged": settings.unjudged,
            "aggregate": request.aggregate,
            "adjudicated grades": request.adjudicated,
            "raters": ", ".join(request.raters) if request.raters else "all",
        },
        evaluations=evaluation.evaluations,
        curves={
            run: (curve_ks, [result.means()[f"ndcg@{k}"] for k in curve_ks])
            for run, result in curves.evaluations.items()
        },
        comparisons=comparisons,
        agreement=agreement,
        agreement_missing=missing,
    )


def _eval_request(request: ReportRequest, ks: list[str]) -> EvalRequest:
    return EvalRequest(
        db=request.db,
        runs=request.runs,
        aggregate=request.aggregate,
        adjudicated=request.adjudicated,
        raters=request.raters,
        ks=ks,
        seed=request.seed,
    )


def _agreement_request(request: ReportRequest) -> AgreementRequest:
    return AgreementRequest(
        db=request.db, raters=request.raters, bootstrap=request.bootstrap, seed=request.seed
    )
