"""The window's evaluation, agreement, raters and automatic judges pages: the campaign loaded
off the UI thread,
numbers computed there too, each refreshed when judgments change (the database is polled while
a page is shown), and File ▸ Export report….

A rater's window never needs them: each page is built, and the evaluation, agreement or
quality stack it stands on (matplotlib, pandas, the commands) imported, when it is first asked
for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from judge_app.errors import in_words
from judge_app.gui import preferences
from judge_app.gui.page_loading import PageLoader
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from judge_app.agreement.quality import RatersReport
    from judge_app.agreement.report import AgreementReport
    from judge_app.commands.calibrate import Overview
    from judge_app.evaluation.campaign import Campaign, Stamp
    from judge_app.evaluation.result import EvaluationResult
    from judge_app.gui.agreement_view import AgreementView
    from judge_app.gui.calibration_view import CalibrationView
    from judge_app.gui.evaluation_view import EvaluationView
    from judge_app.gui.raters_view import RatersView

    Evaluated = tuple[Campaign, EvaluationResult, dict[str, Figure]]
    """What an evaluation task returns: the campaign it read, its evaluation and their charts."""

POLL_MS = 3000
"""How often a shown evaluation, agreement or raters page looks for new judgments."""
REPORT_FILTER = "HTML report (*.html);;PDF report (*.pdf)"
AnyPage = TypeVar("AnyPage", bound=QWidget)


class Analysis(QObject):
    """The evaluation, agreement and raters pages and the work behind them: shown in ``pages``
    (each added there when first built), computed through ``workspace``."""

    adjudicate = Signal(str, str)  # the agreement page's choice: query id, document id
    qualitySettingsRequested = Signal()  # the raters page's Settings…
    gradeWithJudgeRequested = Signal()  # the automatic judges page's "Grade with a judge…"

    def __init__(self, workspace: Workspace, pages: QStackedWidget) -> None:
        super().__init__(workspace)
        self.workspace = workspace
        self.pages = pages
        self._evaluation_view: EvaluationView | None = None  # built when first asked for
        self._agreement_view: AgreementView | None = None
        self._raters_view: RatersView | None = None
        self._calibration_view: CalibrationView | None = None
        self.campaign: Campaign | None = None
        self.agreement_stamp: Stamp | None = None
        self.report: AgreementReport | None = None  # the one shown, for the adjudication list
        self.raters_stamp: Stamp | None = None  # of the judgments the raters page shows
        self.calibration_stamp: Stamp | None = None  # of what that page shows
        self.loader = PageLoader(pages)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._poll)
        workspace.databaseChanged.connect(self.forget)
        workspace.campaignChanged.connect(self._campaign_changed)
        workspace.taskStarted.connect(self._task_started)
        workspace.taskFinished.connect(lambda _task: self._task_finished())

    # pages -------------------------------------------------------------------------------------

    @property
    def evaluation_view(self) -> EvaluationView:
        """The evaluation page, built the first time it is asked for."""
        if self._evaluation_view is None:
            from judge_app.gui.evaluation_view import EvaluationView

            view = EvaluationView(titles=self._titles)
            view.plan.set_database(self.workspace.database_url)
            view.changed.connect(self._remember_settings)
            view.changed.connect(self.refresh_evaluation)
            self._evaluation_view = self._added(view)
        return self._evaluation_view

    @property
    def agreement_view(self) -> AgreementView:
        """The agreement page, built the first time it is asked for."""
        if self._agreement_view is None:
            from judge_app.gui.agreement_view import AgreementView

            view = AgreementView()
            view.adjudicate.connect(self.adjudicate)
            self._agreement_view = self._added(view)
        return self._agreement_view

    @property
    def raters_view(self) -> RatersView:
        """The raters page, built the first time it is asked for."""
        if self._raters_view is None:
            from judge_app.gui.raters_view import RatersView

            view = RatersView()
            view.settingsRequested.connect(self.qualitySettingsRequested)
            view.message.connect(self.workspace.show_message)
            self._raters_view = self._added(view)
        return self._raters_view

    @property
    def calibration_view(self) -> CalibrationView:
        """The automatic judges page, built the first time it is asked for."""
        if self._calibration_view is None:
            from judge_app.gui.calibration_view import CalibrationView

            view = CalibrationView()
            view.judgeChosen.connect(lambda _name: self.refresh_calibration())
            view.gradeRequested.connect(self.gradeWithJudgeRequested)
            self._calibration_view = self._added(view)
        return self._calibration_view

    def _added(self, page: AnyPage) -> AnyPage:
        """``page`` in the window's pages, taking no input while background work runs."""
        page.setEnabled(self.workspace.task is None)
        self.pages.addWidget(page)
        return page

    def shown_page(self) -> str | None:
        """``"evaluation"``, ``"agreement"``, ``"raters"`` or ``"automatic judges"`` when that
        page is the one shown, else None."""
        current = self.pages.currentWidget()
        if current is None:
            return None
        if current is self._evaluation_view:
            return "evaluation"
        if current is self._agreement_view:
            return "agreement"
        if current is self._raters_view:
            return "raters"
        if current is self._calibration_view:
            return "automatic judges"
        return None

    def show_evaluation(self) -> None:
        """Show the evaluation page (loaded off the UI thread the first time)."""
        self.loader.show(
            "Evaluation (NDCG)",
            "judge_app.gui.evaluation_view",
            lambda: self.evaluation_view,
            self._show_evaluation,
        )

    def _show_evaluation(self) -> None:
        """Show the evaluation page, computed afresh if judgments changed."""
        self.pages.setCurrentWidget(self.evaluation_view)
        self.poll.start()
        if self.campaign is None or self.campaign.stamp != self._stamp():
            self.refresh_evaluation()
        self.workspace.show_message("Evaluation: double-click a query to see how its NDCG adds up")

    def show_agreement(self) -> None:
        """Show the agreement page (loaded off the UI thread the first time)."""
        self.loader.show(
            "Agreement",
            "judge_app.gui.agreement_view",
            lambda: self.agreement_view,
            self._show_agreement,
        )

    def _show_agreement(self) -> None:
        """Show the agreement page, computed afresh if judgments changed."""
        self.pages.setCurrentWidget(self.agreement_view)
        self.poll.start()
        if self.agreement_stamp is None or self.agreement_stamp != self._stamp():
            self.refresh_agreement()
        self.workspace.show_message("Agreement: open an item of the adjudication list to decide it")

    def show_raters(self) -> None:
        """Show the raters page (loaded off the UI thread the first time)."""
        self.loader.show(
            "Raters", "judge_app.gui.raters_view", lambda: self.raters_view, self._show_raters
        )

    def _show_raters(self) -> None:
        """Show the raters page, computed afresh if judgments changed."""
        self.pages.setCurrentWidget(self.raters_view)
        self.poll.start()
        if self.raters_stamp is None or self.raters_stamp != self._stamp():
            self.refresh_raters()
        self.workspace.show_message(
            "Raters: choose a rater to see their drift and their judgments made too fast"
        )

    def show_calibration(self) -> None:
        """Show the automatic judges page (loaded off the UI thread the first time)."""
        self.loader.show(
            "Automatic judges",
            "judge_app.gui.calibration_view",
            lambda: self.calibration_view,
            self._show_calibration,
        )

    def _show_calibration(self) -> None:
        """Show the automatic judges page, computed afresh if judgments or automatic grades
        changed."""
        self.pages.setCurrentWidget(self.calibration_view)
        self.poll.start()
        if self.calibration_stamp is None or self.calibration_stamp != self._stamp():
            self.refresh_calibration()
        self.workspace.show_message(
            "Automatic judges: how far a judge agrees with the humans, and ranks runs as they do"
        )

    def forget(self) -> None:
        """The database was closed or changed: nothing shown belongs to the next one."""
        self.poll.stop()
        self.campaign = None
        self.agreement_stamp = None
        self.report = None
        self.raters_stamp = None
        self.calibration_stamp = None

    def _set_enabled(self, enabled: bool) -> None:
        """The pages take no input while background work runs."""
        pages = (
            self._evaluation_view,
            self._agreement_view,
            self._raters_view,
            self._calibration_view,
        )
        for page in pages:
            if page is not None:
                page.setEnabled(enabled)

    def _task_started(self, task: Task) -> None:
        """Work with a dialog disables the pages; a page's own inline work disables its
        controls alone (it keeps its Cancel button)."""
        if not task.inline:
            self._set_enabled(False)

    def _task_finished(self) -> None:
        self._set_enabled(True)
        if self._evaluation_view is not None and self.shown_page() == "evaluation":
            self._evaluation_view.table.setFocus()

    def _stamp(self) -> Stamp | None:
        from judge_app.commands.campaign import change_stamp

        if self.workspace.database is None:
            return None
        with self.workspace.reading() as session:
            return change_stamp(session)

    def _poll(self) -> None:
        shown = self.shown_page()
        if shown is None:
            self.poll.stop()
            return
        if self.workspace.task is not None or self.workspace.database is None:
            return
        stamp = self._stamp()
        if shown == "evaluation" and self.campaign and self.campaign.stamp != stamp:
            self.refresh_evaluation()
        elif shown == "agreement" and self.agreement_stamp not in (None, stamp):
            self.refresh_agreement()
        elif shown == "raters" and self.raters_stamp not in (None, stamp):
            self.refresh_raters()
        elif shown == "automatic judges" and self.calibration_stamp is not None:
            if self.calibration_stamp != self._stamp():
                self.refresh_calibration()

    # evaluation --------------------------------------------------------------------------------

    def refresh_evaluation(self) -> Task | None:
        """Compute the evaluation the controls ask for (reading the database again first if
        its judgments or results changed) off the UI thread."""
        if not self.workspace.ready():
            return None
        stamp = self._stamp()
        campaign = self.campaign if self.campaign and self.campaign.stamp == stamp else None
        if self.campaign is None:  # the first evaluation of this database: as last left
            self.evaluation_view.restore(preferences.evaluation_settings(self._database_name()))
        options = self.evaluation_view.options()
        if campaign is not None and options.judge is not None and campaign.automatic is None:
            campaign = None  # read before a judge was chosen: read again with its grades
        url = self.workspace.database_url()

        from judge_app.commands.campaign import read_campaign
        from judge_app.commands.evaluate import evaluate
        from judge_app.evaluation.options import EvaluationRequest
        from judge_app.reports.figures import evaluation_figures

        def work(worker: Worker) -> Evaluated:
            loaded = campaign
            if loaded is None:
                worker.report("reading judgments and results", 0, 0)
                loaded = read_campaign(url, automatic=options.judge is not None)
                worker.check()
            worker.report("computing NDCG", 0, 0)
            evaluation = evaluate(EvaluationRequest.shown(options), loaded)
            worker.check()
            return loaded, evaluation, evaluation_figures(loaded, evaluation)

        task = self.workspace.run_task("Evaluating", work, inline=True)
        self.evaluation_view.show_busy("Computing…", task.cancel)
        task.progress.connect(self.evaluation_view.busy.progress)
        task.returned.connect(self._evaluated)
        task.errored.connect(lambda error: self.evaluation_view.show_error(in_words(error)))
        task.cancelled.connect(lambda: self.evaluation_view.show_error("Evaluation cancelled"))
        return task

    def _evaluated(self, outcome: Evaluated) -> None:
        campaign, evaluation, figures = outcome
        if campaign is not self.campaign:
            self.campaign = campaign
            self.evaluation_view.set_campaign(campaign)
        self.evaluation_view.show_evaluation(evaluation, figures)

    def _database_name(self) -> str:
        assert self.workspace.database is not None
        return self.workspace.database.describe()

    def _remember_settings(self) -> None:
        """Keep the evaluation page's settings (its runs and raters for this database)."""
        if self.workspace.database is not None:
            preferences.remember_evaluation_settings(
                self._database_name(), self.evaluation_view.settings()
            )

    def _query_texts(self) -> dict[str, str]:
        from judge_app.store import reads

        assert self.workspace.database is not None
        with self.workspace.reading() as session:
            queries = reads.queries_frame(session)
        return dict(zip(queries["query_id"], queries["text"].fillna("")))

    def _titles(self, doc_ids: list[str]) -> dict[str, str]:
        from judge_app.store import reads

        if self.workspace.database is None:
            return {}
        with self.workspace.reading() as session:
            return reads.document_titles(session, doc_ids)

    # agreement ---------------------------------------------------------------------------------

    def refresh_agreement(self) -> Task | None:
        """Compute the agreement report of every rater, and its charts, off the UI thread."""
        from judge_app.commands.agree import AgreementOptions, agreement_of
        from judge_app.reports.figures import agreement_figures

        if not self.workspace.ready():
            return None
        stamp = self._stamp()
        url = self.workspace.database_url()

        def work(_worker: Worker) -> tuple[AgreementReport, dict[str, Figure]]:
            report = agreement_of(url, AgreementOptions())
            return report, agreement_figures(report)

        task = self.workspace.run_task("Computing agreement", work, inline=True)
        self.agreement_view.show_busy("Computing agreement…")  # one step: nothing to cancel
        task.returned.connect(lambda agreed: self._agreed(agreed[0], agreed[1], stamp))
        task.errored.connect(lambda error: self._agreement_failed(error, stamp))
        return task

    def _agreed(
        self, report: AgreementReport, figures: dict[str, Figure], stamp: Stamp | None
    ) -> None:
        assert self.workspace.database is not None
        self.report, self.agreement_stamp = report, stamp
        self.agreement_view.show_report(
            report, self.workspace.database.describe(), figures, query_texts=self._query_texts()
        )

    def _agreement_failed(self, error: BaseException, stamp: Stamp | None) -> None:
        self.report, self.agreement_stamp = None, stamp
        self.agreement_view.show_error(in_words(error))

    # raters ------------------------------------------------------------------------------------

    def refresh_raters(self) -> Task | None:
        """Compute every rater's quality figures off the UI thread."""
        from judge_app.commands.rater_quality import RatersOptions, rater_quality_of

        if not self.workspace.ready():
            return None
        stamp = self._stamp()
        url = self.workspace.database_url()
        task = self.workspace.run_task(
            "Computing the raters' figures",
            lambda _worker: rater_quality_of(url, RatersOptions()),
            inline=True,
        )
        self.raters_view.show_busy("Computing the raters' figures…")  # one step: no Cancel
        task.returned.connect(lambda report: self._rated(report, stamp))
        task.errored.connect(lambda error: self._raters_failed(error, stamp))
        return task

    def _rated(self, report: RatersReport, stamp: Stamp | None) -> None:
        self.raters_stamp = stamp
        self.raters_view.show_report(report)

    def _raters_failed(self, error: BaseException, stamp: Stamp | None) -> None:
        self.raters_stamp = stamp
        self.raters_view.show_error(in_words(error))

    # automatic judges ----------------------------------------------------------------------------

    def refresh_calibration(self) -> Task | None:
        """Compare the judge chosen on the automatic judges page (the first, at first) with
        the humans off the UI thread."""
        from judge_app.commands.calibrate import overview_of
        from judge_app.evaluation.calibration import CalibrationOptions

        if not self.workspace.ready():
            return None
        stamp = self._stamp()
        url = self.workspace.database_url()
        options = CalibrationOptions(judge=self.calibration_view.chosen_judge())
        task = self.workspace.run_task(
            "Comparing the judge with the humans",
            lambda _worker: overview_of(url, options),
            inline=True,
        )
        self.calibration_view.show_busy("Comparing the judge with the humans…")  # one step
        task.returned.connect(lambda overview: self._calibrated(overview, stamp))
        task.errored.connect(lambda error: self._calibration_failed(error, stamp))
        return task

    def _calibrated(self, overview: Overview, stamp: tuple[object, ...] | None) -> None:
        self.calibration_stamp = stamp
        self.calibration_view.show_overview(overview, self._database_name())

    def _calibration_failed(self, error: BaseException, stamp: tuple[object, ...] | None) -> None:
        self.calibration_stamp = stamp
        self.calibration_view.show_error(in_words(error))

    def _campaign_changed(self) -> None:
        """A lead changed the campaign (the quality settings among it): the raters' figures
        are computed again, at once if their page is shown (once that change's work is
        over), else when it is next shown."""
        self.raters_stamp = None
        if self.shown_page() != "raters":
            return
        task = self.workspace.task
        if task is not None and task.running:
            task.finished.connect(self.refresh_raters)  # after the workspace lets it go
        else:
            self.refresh_raters()

    # report ------------------------------------------------------------------------------------

    def ask_report(self) -> None:
        """File ▸ Export report…: where to, then the report with the evaluation's settings."""
        if not self.workspace.ready():
            return
        assert self.workspace.database is not None
        name = Path(self.workspace.database.describe()).stem or "campaign"
        self.workspace.choose_file(
            "Export report",
            REPORT_FILTER,
            self.export_report,
            save=True,
            suffix="html",
            default=f"{name}-report.html",
        )

    def export_report(self, path: str) -> Task | None:
        """Compute, lay out and write (print a PDF of) the report off the UI thread."""
        from judge_app.commands.report import ReportOptions, render_report

        if not self.workspace.ready():
            return None
        url, out = self.workspace.database_url(), Path(path)
        options = ReportOptions(self.evaluation_view.options())  # what the page shows
        task = self.workspace.run_task(
            "Writing the report", lambda _worker: render_report(url, out, options).save()
        )
        task.returned.connect(lambda out: self.workspace.show_message(f"Report written to {out}"))
        task.errored.connect(
            lambda error: self.workspace.show_message(f"No report: {in_words(error)}", error=True)
        )
        return task
