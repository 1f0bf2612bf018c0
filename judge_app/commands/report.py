"""The campaign report: what was judged and each run's coverage, the settings, mean NDCG@k
per run with its interval, the runs compared, charts, the per-query table, the raters'
agreement and quality figures, and where raters made preference judgments each run's
compatibility with them, the runs compared on it and the raters' agreement and intransitive
triples, as one self-contained HTML document or the same printed as a PDF by WeasyPrint
(``judge-app report``, File ▸ Export report…). Its numbers are those of ``eval --db``
(``--measure Compat``), ``agreement --db``, ``raters`` and ``preferences summary`` with the
same ``EvaluationOptions``: the report carries the evaluation page's options unchanged. No
Qt: the whole report, PDF included, is made off the UI thread.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.commands.agree import AgreementOptions, coded_agreement
from judge_app.commands.campaign import campaign_of
from judge_app.commands.evaluate import evaluate_shown
from judge_app.commands.rater_quality import RatersOptions, quality_report
from judge_app.errors import JudgeAppError, UsageError
from judge_app.evaluation.options import EvaluationOptions
from judge_app.io.outputs import check_output, output_file
from judge_app.options import require_whole

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.agreement.preference_agreement import PreferenceAgreement
    from judge_app.commands.calibrate import JudgeReads
    from judge_app.evaluation.calibration import Calibration
    from judge_app.evaluation.campaign import Campaign
    from judge_app.reports.data import ReportData
    from judge_app.store import Database

SUFFIXES = (".html", ".htm", ".pdf")


@dataclass(frozen=True)
class ReportOptions:
    """A report: the evaluation's options, the agreement's bootstrap resamples (0: no
    interval), a title (None: named after the database) and the file ``out`` it is written
    to, .html or .pdf (None: its numbers are only gathered)."""

    evaluation: EvaluationOptions = field(default_factory=EvaluationOptions)
    bootstrap: int = 1000
    title: str | None = None
    out: Path | None = None

    def checked(self) -> ReportOptions:
        """These options, or a usage error."""
        if self.out is not None and self.out.suffix.lower() not in SUFFIXES:
            raise UsageError(f"{self.out}: the report is written as .html or .pdf", "out")
        self.evaluation.checked()
        require_whole("bootstrap", self.bootstrap, 0, note=" (0: no interval)")
        return self


@dataclass
class RenderedReport:
    """A report's HTML (its charts inline), not yet written."""

    out: Path
    html: str

    def save(self) -> Path:
        """Write the file whole or not at all: the HTML, or for a .pdf the HTML printed."""
        if self.out.suffix.lower() == ".pdf":
            from judge_app.reports.pdf import write_pdf

            write_pdf(self.html, self.out)
        else:
            with output_file(self.out) as handle:
                handle.write(self.html)
        return self.out


def write_report(database: Database | str, options: ReportOptions) -> Path:
    """Compute the report of ``database`` (an open one, or a path or URL) and write it to
    ``options.out`` (.html or .pdf)."""
    return render_report(database, options).save()


def render_report(database: Database | str, options: ReportOptions) -> RenderedReport:
    """Compute the report and lay it out as HTML (the same for a PDF). Needs no Qt."""
    from judge_app.reports.document import render_html

    out = options.checked().out
    if out is None:
        raise UsageError("needs the report's file: .html or .pdf", "out")
    check_output(out)  # before the database is read
    with _collector_paused():
        return RenderedReport(out, render_html(gather(database, options)))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (if it runs): the report's figures are
    hundreds of thousands of small objects that live until it is written (disagreements,
    drift points), which each full collection walked to find nothing (0.7 s of a 7 s report
    of 1,005,000 judgments); the cycles it leaves are collected after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def gather(database: Database | str, options: ReportOptions) -> ReportData:
    """The numbers of the report of ``database`` (an open one, or a path or URL, opened
    read-only): the database read once (one snapshot), evaluated once."""
    from judge_app.reports.data import ReportData
    from judge_app.store import reads
    from judge_app.store.database import opened
    from judge_app.store.rater_facts import rater_facts

    with opened(database, read_only=True) as found, found.reading() as session:
        db = found.describe()
        campaign = campaign_of(
            session, db, automatic=options.evaluation.judge is not None, timed=True
        )
        # the raters agreement counts: who graded something, never a lead nor adjudications
        counts = reads.table_counts(session) | {"raters": len(campaign.raters)}
        coverage = reads.coverage_frame(session).to_dict("records")
        facts = rater_facts(session)
        judge = _judge_reads(session, db, options.evaluation.judge)
    evaluation = options.evaluation
    result = evaluate_shown(evaluation, campaign)
    try:
        agreement_options = AgreementOptions(
            raters=evaluation.raters, bootstrap=options.bootstrap, seed=evaluation.seed
        )
        # the ranking stability is not in the report: its NDCG per rater is not computed
        agreed = coded_agreement(
            agreement_options, campaign.graded, None, db, "the report does not show it"
        )
        missing = ""
    except UsageError:
        raise
    except JudgeAppError as error:
        agreed, missing = None, f"No agreement figures: {error}"
    # every rater's contribution is the agreement's when it is of every rater's grades
    contributions = agreed.per_rater if agreed is not None and evaluation.raters is None else None
    assert campaign.judged is not None
    quality = quality_report(db, facts, campaign.judged, RatersOptions(), contributions)
    source = campaign.source
    return ReportData(
        title=options.title or f"Judging campaign report: {Path(source).name or source}",
        source=source,
        created=datetime.now().strftime("%Y-%m-%d %H:%M"),
        counts=counts,
        coverage=coverage,
        settings=result.options.record(),
        evaluations=result.evaluations,  # at the options' ks first, then the curve's
        intervals={run: result.interval(run) for run in result.evaluations},
        curves=result.curves(),
        significance=result.significance,
        agreement=agreed,
        agreement_missing=missing,
        raters=quality,
        corrected=result.corrected,
        differences=result.differences(),
        calibration=None if judge is None else _calibration(judge, campaign, evaluation),
        preferences=result.preferences,
        preference_agreement=_preference_agreement(campaign),
    )


def _preference_agreement(campaign: Campaign) -> PreferenceAgreement | None:
    """The raters' agreement on their preference judgments (None: they made none)."""
    from judge_app.agreement.preference_agreement import preference_agreement

    preferences = campaign.preferences
    if preferences is None or not len(preferences):
        return None
    return preference_agreement(preferences)


def _judge_reads(session: Session, source: str, name: str | None) -> JudgeReads | None:
    """What the calibration of the judge ``name`` reads (None: the report uses no judge)."""
    from judge_app.commands.calibrate import JudgeReads
    from judge_app.store import automatic

    if name is None:
        return None
    return JudgeReads.of(session, automatic.judge(session, name, source))


def _calibration(
    judge: JudgeReads, campaign: Campaign, evaluation: EvaluationOptions
) -> Calibration | None:
    """The calibration of the report's judge at the report's k, its humans' grades combined
    as the report's; None if it shares no pair with the humans (the report says so)."""
    from judge_app.evaluation.calibration import CalibrationOptions

    options = CalibrationOptions(
        judge=judge.judge.name,
        k=evaluation.ks[0],
        aggregate=evaluation.aggregate,
        adjudicated=evaluation.adjudicated,
        seed=evaluation.seed,
    )
    try:
        return judge.calibration(campaign, options)
    except UsageError:
        return None
