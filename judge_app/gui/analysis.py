"""The window's evaluation, agreement, raters and automatic judges pages: the campaign loaded
off the UI thread,
numbers computed there too, each refreshed when judgments change (the database is polled while
a page is shown), and File ▸ Export report….

A rater's window never needs them: each page is built, and the evaluation, agreement or
quality stack it stands on (matplotlib, pandas, the commands) imported, when it is first asked
for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from judge_app.gui import preferences
from judge_app.gui.error_words import error_text
from judge_app.gui.page_loading import PageLoader
from judge_app.gui.workers import Task, Worker
from judge_app.gui.workspace import Workspace

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from judge_app.agreement.preference_agreement import PreferenceAgreement
    from judge_app.agreement.report import AgreementReport
    from judge_app.evaluation.campaign import Campaign, Stamp
    from judge_app.evaluation.result import EvaluationResult
    from judge_app.gui.agreement_view import AgreementView
    from judge_app.gui.calibration_view import CalibrationView
    from judge_app.gui.evaluation_view import EvaluationView
    from judge_app.gui.raters_view import RatersView

    Evaluated = tuple[Campaign, EvaluationResult, dict[str, Figure]]
    """What an evaluation task returns: the campaign it read, its evaluation and their charts."""


@dataclass(frozen=True)
class Page:
    """A page of figures: its title while it loads, the ``Analysis`` property (and
    ``judge_app.gui`` module) that builds it, and the hint the status bar gives when shown."""

    title: str
    view: str
    hint: str


PAGES = {
    "evaluation": Page(
        "Evaluation (NDCG)",
        "evaluation_view",
        "Evaluation: double-click a query to see how its NDCG adds up",
    ),
    "agreement": Page(
        "Agreement",
        "agreement_view",
        "Agreement: open an item of the adjudication list to decide it",
    ),
    "raters": Page(
        "Raters",
        "raters_view",
        "Raters: choose a rater to see their drift and their judgments made too fast",
    ),
    "automatic judges": Page(
        "Automatic judges",
        "calibration_view",
        "Automatic judges: how far a judge agrees with the humans, and ranks runs as they do",
    ),
}
"""The pages by the names ``shown_page`` gives."""
POLL_MS = 3000
"""How often a shown evaluation, agreement or raters page looks for new judgments."""
REPORT_FILTER = "HTML report (*.html);;PDF report (*.pdf)"
AnyPage = TypeVar("AnyPage", bound=QWidget)
Computed = TypeVar("Computed")


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
        self.campaign: Campaign | None = None  # what the evaluation page shows is of it
        self.report: AgreementReport | None = None  # the one shown, for the adjudication list
        # the agreement, raters and automatic judges pages: the stamp of what each shows
        self.stamps: dict[str, Stamp | None] = {}
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

    def _built(self) -> dict[str, QWidget]:
        """The pages built so far, by name."""
        built = {name: getattr(self, f"_{page.view}") for name, page in PAGES.items()}
        return {name: view for name, view in built.items() if view is not None}

    def shown_page(self) -> str | None:
        """``"evaluation"``, ``"agreement"``, ``"raters"`` or ``"automatic judges"`` when that
        page is the one shown, else None."""
        current = self.pages.currentWidget()
        return next((name for name, view in self._built().items() if view is current), None)

    def show_evaluation(self) -> None:
        """Show the evaluation page (loaded off the UI thread the first time), computed
        afresh if judgments changed."""
        self._show("evaluation")

    def show_agreement(self) -> None:
        """Show the agreement page, as the evaluation page."""
        self._show("agreement")

    def show_raters(self) -> None:
        """Show the raters page, as the evaluation page."""
        self._show("raters")

    def show_calibration(self) -> None:
        """Show the automatic judges page, as the evaluation page (computed afresh if
        judgments or automatic grades changed)."""
        self._show("automatic judges")

    def _show(self, name: str) -> None:
        page = PAGES[name]
        self.loader.show(
            page.title,
            f"judge_app.gui.{page.view}",
            lambda: getattr(self, page.view),  # built once its module is loaded
            lambda: self._shown(name),
        )

    def _shown(self, name: str) -> None:
        self.pages.setCurrentWidget(getattr(self, PAGES[name].view))
        self.poll.start()
        if self._stale(name, self._stamp(), unread=True):
            self._refresh(name)
        self.workspace.show_message(PAGES[name].hint)

    def _stale(self, name: str, stamp: Stamp | None, unread: bool) -> bool:
        """Whether the page ``name`` shows figures of judgments older than ``stamp`` (or,
        with ``unread``, none yet)."""
        if name == "evaluation":
            shown = self.campaign.stamp if self.campaign is not None else None
        else:
            shown = self.stamps.get(name)
        return shown != stamp if shown is not None else unread

    def _refresh(self, name: str) -> None:
        {
            "evaluation": self.refresh_evaluation,
            "agreement": self.refresh_agreement,
            "raters": self.refresh_raters,
            "automatic judges": self.refresh_calibration,
        }[name]()

    def forget(self) -> None:
        """The database was closed or changed: nothing shown belongs to the next one."""
        self.poll.stop()
        self.campaign = None
        self.report = None
        self.stamps.clear()

    def _set_enabled(self, enabled: bool) -> None:
        """The pages take no input while background work runs."""
        for view in self._built().values():
            view.setEnabled(enabled)

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
        from judge_app.store.reads import change_stamp

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
        if self._stale(shown, self._stamp(), unread=False):
            self._refresh(shown)

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
        from judge_app.commands.evaluate import evaluate_shown
        from judge_app.reports.figures import evaluation_figures

        def work(worker: Worker) -> Evaluated:
            loaded = campaign
            if loaded is None:
                worker.report("reading judgments and results", 0, 0)
                loaded = read_campaign(url, automatic=options.judge is not None)
                worker.check()
            worker.report("computing NDCG", 0, 0)
            evaluation = evaluate_shown(options, loaded)
            worker.check()
            return loaded, evaluation, evaluation_figures(loaded, evaluation)

        task = self.workspace.run_task("Evaluating", work, inline=True)
        self.evaluation_view.show_busy("Computing…", task.cancel)
        task.progress.connect(self.evaluation_view.busy.progress)
        task.returned.connect(self._evaluated)
        task.errored.connect(self.evaluation_view.failed)
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
        from judge_app.commands.preferences import preference_agreement_of
        from judge_app.reports.figures import agreement_figures

        def work(url: str) -> tuple[AgreementReport, dict[str, Figure], PreferenceAgreement | None]:
            report = agreement_of(url, AgreementOptions())
            return report, agreement_figures(report), preference_agreement_of(url)

        return self._compute("agreement", "Computing agreement", work, self._agreed)

    def _agreed(
        self, agreed: tuple[AgreementReport, dict[str, Figure], PreferenceAgreement | None]
    ) -> None:
        report, figures, preferences = agreed
        self.report = report
        view = self.agreement_view
        view.show_report(report, self._database_name(), figures, query_texts=self._query_texts())
        view.show_preferences(preferences)

    def refresh_raters(self) -> Task | None:
        """Compute every rater's quality figures off the UI thread."""
        from judge_app.commands.rater_quality import RatersOptions, rater_quality_of

        return self._compute(
            "raters",
            "Computing the raters' figures",
            lambda url: rater_quality_of(url, RatersOptions()),
            self.raters_view.show_report,
        )

    def refresh_calibration(self) -> Task | None:
        """Compare the judge chosen on the automatic judges page (the first, at first) with
        the humans off the UI thread."""
        from judge_app.commands.calibrate import overview_of
        from judge_app.evaluation.calibration import CalibrationOptions

        options = CalibrationOptions(judge=self.calibration_view.chosen_judge())
        return self._compute(
            "automatic judges",
            "Comparing the judge with the humans",
            lambda url: overview_of(url, options),
            lambda overview: self.calibration_view.show_overview(overview, self._database_name()),
        )

    def _compute(
        self,
        name: str,
        title: str,
        work: Callable[[str], Computed],
        show: Callable[[Computed], None],
    ) -> Task | None:
        """Compute page ``name``'s figures by ``work`` (given the database's URL) off the UI
        thread, saying ``title`` meanwhile (one step: nothing to cancel), then ``show`` them,
        or the error in words; either way the page shows the judgments of now."""
        if not self.workspace.ready():
            return None
        stamp = self._stamp()
        url = self.workspace.database_url()
        view = getattr(self, PAGES[name].view)
        task = self.workspace.run_task(title, lambda _worker: work(url), inline=True)
        view.show_busy(f"{title}…")

        def computed(result: Computed) -> None:
            self.stamps[name] = stamp
            show(result)

        def failed(error: BaseException) -> None:
            self.stamps[name] = stamp
            if name == "agreement":
                self.report = None
            view.show_error(error_text(error))

        task.returned.connect(computed)
        task.errored.connect(failed)
        return task

    def _campaign_changed(self) -> None:
        """A lead changed the campaign (the quality settings among it): the raters' figures
        are computed again, at once if their page is shown (once that change's work is
        over), else when it is next shown."""
        self.stamps.pop("raters", None)
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
        url = self.workspace.database_url()
        # what the page shows
        options = ReportOptions(self.evaluation_view.options(), out=Path(path))
        task = self.workspace.run_task(
            "Writing the report", lambda _worker: render_report(url, options).save()
        )
        task.returned.connect(lambda out: self.workspace.show_message(f"Report written to {out}"))
        task.errored.connect(
            lambda error: self.workspace.show_message(f"No report: {error_text(error)}", error=True)
        )
        return task
