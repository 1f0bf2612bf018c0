"""The evaluation view: a lead's controls, the per-query table, the summary in words and the
charts; where the campaign holds preference judgments, each run's compatibility with them
(Compat) beside NDCG, per query and on average, and the runs compared on it. The numbers come
from ``judge_app.commands.evaluate`` (``evaluate_shown``), computed off the UI thread by the
window (``judge_app.gui.analysis``); the view only shows them and says when a control
changed. Each control is bound to an option declared once for it and for ``judge-app eval``
(``judge_app.option_declarations``): its caption, items, default and tooltip."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from html import escape

import numpy as np
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent, QModelIndex, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeyEvent, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QLabel,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.explain import QueryExplanation, explain_query
from judge_app.evaluation.campaign import Campaign
from judge_app.evaluation.corrected import PredictionPowered
from judge_app.evaluation.options import EvaluationOptions, measure_names
from judge_app.evaluation.preferences import PreferenceEvaluation
from judge_app.evaluation.result import EvaluationResult
from judge_app.gui.busy_bar import BusyBar
from judge_app.gui.charts_canvas import ChartCanvas
from judge_app.gui.comparison_matrix import ComparisonMatrix
from judge_app.gui.drill_down import DrillDownDialog
from judge_app.gui.error_words import error_text
from judge_app.gui.flow import FlowLayout
from judge_app.gui.option_controls import (
    ChoiceBox,
    ChoiceCheck,
    CutoffSpin,
    NameMenu,
    OptionControl,
    ParsedEdit,
)
from judge_app.gui.plan_panel import PlanPanel
from judge_app.gui.tables import TablePane
from judge_app.metrics.intervals import CONFIDENCE, MeanInterval
from judge_app.metrics.measure_names import aggregate_note
from judge_app.metrics.ppi import Estimate
from judge_app.numbers import MISSING, score_text, share_text, signed_text
from judge_app.option_declarations import (
    ADJUDICATED,
    AGGREGATE,
    CUTOFF,
    GAIN,
    GRADES,
    IDEAL,
    MEASURES,
    RATERS,
    RUNS,
    UNJUDGED,
)
from judge_app.reports.figures import evaluation_figures
from judge_app.writers.corrected import assumption, caveat, quality_text, saved_text
from judge_app.writers.preferences import SOURCE
from judge_app.writers.verdicts import describe

INCOMPLETE_TIP = (
    "† the top k of this query is not fully judged: unjudged results count as not relevant"
)
HUMANS = "humans"
"""The grades control's first item: the raters' grades (then a judge's, corrected or alone)."""
HINT = "Double-click or press Enter on a query to see how its NDCG adds up."
SUMS = (" DCG", " IDCG")
SUMMARY_MINIMUM = 60
TABLE_MINIMUM = 440
"""The per-query table's width, at the least, when the summary takes the width it needs."""
CHARTS_MINIMUM = 160
CHART_ROOM = 40
"""The tab bar and frame around a chart: a chart is drawn at most CHARTS_MINIMUM less this
tall, so that its axes are never cut below."""
CHART_TABS = (  # key, tab, tooltip: short tabs, read whole in a narrow pane
    ("curve", "By k", "Mean NDCG@k against k"),
    ("distribution", "Spread", "How each run's per-query values are spread"),
    ("differences", "Difference", "The per-query difference between the first two runs"),
    ("grades", "Grades", "The grades each rater gave"),
)
"""Columns (after a run's name) shown on asking (the header's menu): the drill-down has them."""
TitleSource = Callable[[list[str]], dict[str, str]]
"""Document id → title of the given documents (read from the database)."""


def _labelled(text: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    caption = QLabel(text.upper())
    caption.setObjectName("paneCaption")
    caption.setBuddy(widget)
    layout.addWidget(caption)
    layout.addWidget(widget)
    return box


class FittedScrollArea(QScrollArea):
    """A scroll area that asks for the height it is given by :meth:`fit` and gives way to its
    minimum where its neighbours need the room."""

    def __init__(self) -> None:
        super().__init__()
        self._wanted = 0

    def fit(self, wanted: int, minimum: int) -> None:
        self._wanted = wanted
        self.setMinimumHeight(min(wanted, minimum))
        self.setMaximumHeight(wanted)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._wanted)


class EvaluationView(QWidget):
    """Controls, per-query table, summary and charts of a campaign's NDCG."""

    changed = Signal()  # a control changed: the window computes again

    def __init__(self, titles: TitleSource | None = None) -> None:
        super().__init__()
        self.setObjectName("evaluationView")
        self.titles = titles or (lambda ids: {})
        self.campaign: Campaign | None = None
        self.evaluation: EvaluationResult | None = None
        self.drill_down: DrillDownDialog | None = None
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(self.changed)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        outer.setSpacing(10)
        self.controls = self._controls()
        outer.addWidget(self.controls)
        self.status = QLabel()
        self.status.setObjectName("analysisStatus")
        self.status.setWordWrap(True)
        outer.addWidget(self.status)
        self.summary_pane = QWidget()  # summary, plan and charts
        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._table_pane())
        splitter.addWidget(self._summary_pane())
        splitter.setStretchFactor(0, 8)
        splitter.setStretchFactor(1, 5)
        splitter.setSizes([780, 480])
        self._summary_width = 0  # what the summary's table of runs needs (pixels)
        outer.addWidget(splitter, 1)

    # layout ------------------------------------------------------------------------------------

    def _controls(self) -> QWidget:
        bar = QFrame()
        bar.setObjectName("analysisControls")
        layout = FlowLayout(bar)  # one row on a wide window, two or three on a narrow one
        layout.setContentsMargins(12, 8, 12, 8)
        self.k = CutoffSpin(CUTOFF)
        self.gain = ChoiceBox(GAIN)
        self.ideal = ChoiceBox(IDEAL)
        self.unjudged = ChoiceBox(UNJUDGED)
        self.aggregate = ChoiceBox(AGGREGATE)  # and each rater's own, once they are known
        self.runs = NameMenu(RUNS)
        self.raters = NameMenu(RATERS)
        self.measures = ParsedEdit(MEASURES, _measure_names)
        self.measures.setPlaceholderText("AP, P@5, Bpref …")
        self.measures.setMinimumWidth(180)
        self.grades = ChoiceBox(GRADES, {HUMANS: GRADES.choices[HUMANS]})  # and each judge's
        self.grades.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.adjudicated = ChoiceCheck(ADJUDICATED)
        self.bound: tuple[OptionControl, ...] = (
            self.k,
            self.gain,
            self.ideal,
            self.unjudged,
            self.aggregate,
            self.runs,
            self.raters,
            self.measures,
            self.grades,
            self.adjudicated,
        )
        """The page's controls, in order: laid out, read, kept and restored through this list."""
        for control in self.bound:
            assert isinstance(control, QWidget)
            captioned = isinstance(control, QCheckBox)  # a check box is captioned by its text
            layout.addWidget(control if captioned else _labelled(control.option.label, control))
            control.on_change(self._debounce.start)
        return bar

    def _table_pane(self) -> QWidget:
        self.busy = BusyBar("evaluationBusy")
        self.pane = TablePane(
            "Per query",
            "perQueryTable",
            "per-query.csv",
            formats={"difference": signed_text},
            tooltips={"incomplete": INCOMPLETE_TIP},
            marked="incomplete",
            noun="queries",
            filter_text="Filter queries…",
            tools=[self.busy],
            stretch=1,  # the query's text takes the room the numbers leave, elided
            full_text=("query",),
        )
        self.model, self.table, self.proxy = self.pane.model, self.pane.table, self.pane.proxy
        self.filter, self.count = self.pane.filter, self.pane.count
        self.table.doubleClicked.connect(self._open_index)
        self.table.installEventFilter(self)
        header = self.table.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.show_sums = QAction("Show DCG and IDCG columns", header)
        self.show_sums.setCheckable(True)
        self.show_sums.toggled.connect(lambda _on: self._hide_sums())
        header.addAction(self.show_sums)
        header.setToolTip("Right-click for the DCG and IDCG columns")
        return self.pane

    def _summary_pane(self) -> QWidget:
        pane = self.summary_pane
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.summary = QLabel()
        self.summary.setObjectName("evaluationSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary_area = FittedScrollArea()  # a long summary scrolls, never clipped
        self.summary_area.setObjectName("evaluationSummaryArea")
        self.summary_area.setFrameShape(QFrame.Shape.NoFrame)
        self.summary_area.setWidgetResizable(True)
        self.summary_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.summary_area.setWidget(self.summary)
        layout.addWidget(self.summary_area)
        self.plan = PlanPanel()
        layout.addWidget(self.plan)
        self.charts = QTabWidget()
        self.charts.setObjectName("evaluationCharts")
        self.charts.tabBar().setElideMode(Qt.TextElideMode.ElideNone)  # whole, or scrolled
        self.canvases: dict[str, ChartCanvas] = {}
        for key, title, tooltip in CHART_TABS:
            canvas = ChartCanvas(minimum_height=CHARTS_MINIMUM - CHART_ROOM)
            canvas.setObjectName(f"{key}Chart")
            self.canvases[key] = canvas
            self.charts.setTabToolTip(self.charts.addTab(canvas, title), tooltip)
        self.matrix = ComparisonMatrix()
        tab = self.charts.addTab(self.matrix, "Runs")
        self.charts.setTabToolTip(tab, "Runs compared: which differences are significant")
        # the charts give way first (the matrix's own minimum would squeeze the plan's words)
        self.charts.setMinimumHeight(CHARTS_MINIMUM)
        layout.addWidget(self.charts, 1)
        pane.installEventFilter(self)  # the summary refits to the pane's width and height
        return pane

    # state -------------------------------------------------------------------------------------

    def set_campaign(self, campaign: Campaign) -> None:
        """Offer the campaign's runs, raters and aggregations in the controls."""
        self.campaign = campaign
        self.runs.blockSignals(True)
        self.raters.blockSignals(True)
        runs_changed = self.runs.set_names(campaign.runs)
        raters_changed = self.raters.set_names(campaign.raters)
        self.runs.blockSignals(False)
        self.raters.blockSignals(False)
        raters = {f"rater:{rater}": f"{rater}'s grades only" for rater in campaign.raters}
        aggregate_changed = self.aggregate.offer(raters)
        judges: dict[str, str] = {}
        for judge in campaign.judges:
            judges[f"corrected:{judge}"] = f"humans corrected by {judge}"
            judges[f"automatic:{judge}"] = f"{judge} alone"
        grades_changed = self.grades.offer(judges)
        if runs_changed or raters_changed or aggregate_changed or grades_changed:
            self._debounce.start()  # restored settings chose what was not offered: compute
        adjudicated = campaign.adjudicated
        self.adjudicated.setEnabled(adjudicated > 0)
        label = ADJUDICATED.label
        self.adjudicated.setText(f"{label} ({adjudicated:,})" if adjudicated else label)

    def options(self) -> EvaluationOptions:
        """The evaluation the controls ask for: each control's value by its option's name (the
        names of EvaluationOptions' fields), the cut-off, the adjudicated grades and whose
        grades as those fields take them."""
        values = {control.option.name: control.option_value() for control in self.bound}
        source, _, judge = str(values.pop(GRADES.name) or HUMANS).partition(":")
        return EvaluationOptions(
            ks=(values.pop(CUTOFF.name),),
            adjudicated=values.pop(ADJUDICATED.name) == "prefer",
            judge=judge or None,
            grades=source,
            **values,
        )

    def settings(self) -> dict[str, object]:
        """The controls' values by their options' names, to keep
        (``preferences.remember_evaluation_settings``)."""
        return {control.option.name: control.setting() for control in self.bound}

    def restore(self, values: Mapping[str, object]) -> None:
        """Set the controls to ``values`` as :meth:`settings` gave them (texts from
        QSettings; unknown values are ignored) without asking to compute; runs, raters and
        a rater's or a judge's own grades are chosen once the campaign offers them."""
        for control in self.bound:
            if control.option.name in values:
                control.restore(values[control.option.name])

    def show_busy(self, text: str, on_cancel: Callable[[], None] | None = None) -> None:
        """Say what is being computed, inline beside the table ("": nothing), the controls
        disabled meanwhile; Cancel calls ``on_cancel``."""
        self.controls.setEnabled(not text)
        if text:
            self._set_status("")
            self.busy.start(text, on_cancel)
        else:
            self.busy.stop()

    def failed(self, error: BaseException) -> None:
        """Say why the evaluation failed: an option it names by the label of its control."""
        self.show_error(error_text(error))

    def show_error(self, text: str) -> None:
        self.show_busy("")
        self.status.setProperty("error", True)
        self._set_status(text)

    def _set_status(self, text: str) -> None:
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def show_evaluation(
        self, evaluation: EvaluationResult, figures: dict[str, Figure] | None = None
    ) -> None:
        """Show ``evaluation``; ``figures`` drawn beforehand (off the UI thread) if given."""
        self.evaluation = evaluation
        self.model.headers = _headers(evaluation)
        self.pane.caption.setText(f"PER QUERY · {evaluation.label}")  # the k of its columns
        if len(evaluation.evaluations) >= 2:
            first, second = list(evaluation.evaluations)[:2]
            self.model.tooltips["difference"] = (
                f"{second} − {first}: above 0 where {second} scores higher"
            )
        for run in evaluation.evaluations:
            self.model.formats[f"{run} judged"] = share_text
        if evaluation.preferences is not None:
            for run, scored in evaluation.preferences.evaluations.items():
                for name in scored.values:
                    self.model.tooltips[f"{run} {name}"] = _preference_tip(run, name)
        assert evaluation.table is not None
        self.pane.set_frame(evaluation.table, HINT)
        self._hide_sums()
        self.proxy.sort(0, Qt.SortOrder.AscendingOrder)
        if not self.table.currentIndex().isValid() and self.proxy.rowCount():
            self.table.setCurrentIndex(self.proxy.index(0, 0))  # Enter opens it at once
        self.summary.setText(_summary_html(evaluation))
        margins = self.summary_area.frameWidth() * 2 + self.summary.margin() * 2 + 8
        width = _natural_width(_runs_html(evaluation, width=""), self.summary.font())
        self._summary_width = width + margins
        self._widen_summary()
        self._fit_summary()
        self.matrix.set_significance(evaluation.significance)
        self.plan.set_evaluation(evaluation)
        assert self.campaign is not None
        figures = figures or evaluation_figures(self.campaign, evaluation)
        for key, canvas in self.canvases.items():
            canvas.set_figure(figures[key])
        self.show_busy("")
        self._set_status("")
        if self.drill_down is not None and self.drill_down.isVisible():
            self.drill_down.refresh()

    def _widen_summary(self) -> None:
        """Give the summary the width its table of runs needs, whole, where the per-query
        table keeps TABLE_MINIMUM beside it (a window too small for both cuts the summary
        rather than outgrow a small screen)."""
        table, summary = self.splitter.sizes()
        wanted = self._summary_width - summary
        if wanted > 0 and table - wanted >= TABLE_MINIMUM:
            self.splitter.setSizes([table - wanted, self._summary_width])

    def _fit_summary(self) -> None:
        """The summary as tall as its text, as long as the plan and the charts keep their
        minimum below it; less (down to SUMMARY_MINIMUM) only where the pane is too short:
        then it scrolls."""
        area, pane = self.summary_area, self.summary_pane
        needed = self.summary.heightForWidth(pane.width())
        if needed < 0:  # no width to wrap in yet
            needed = self.summary.sizeHint().height()
        layout = pane.layout()
        assert layout is not None
        spacing = layout.spacing()
        room = pane.height() - _height_at(self.plan, pane.width()) - CHARTS_MINIMUM - 2 * spacing
        area.fit(min(needed, max(room, SUMMARY_MINIMUM)), SUMMARY_MINIMUM)

    def _hide_sums(self) -> None:
        """Show each run's DCG and IDCG columns only when asked: NDCG, coverage and the query's
        text fit beside the summary without scrolling. Every other column is shown: a column
        keeps its place's hidden state when the columns change (measures added by name)."""
        for column, name in enumerate(self.model.columns):
            is_sum = isinstance(name, str) and name.endswith(SUMS)
            self.table.setColumnHidden(column, is_sum and not self.show_sums.isChecked())
        self.pane.fit_stretch()

    # drill-down --------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.summary_pane and event.type() == QEvent.Type.Resize:
            self._widen_summary()
            self._fit_summary()
        if (
            watched is self.table
            and isinstance(event, QKeyEvent)
            and event.type() == QKeyEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self._open_index(self.table.currentIndex())
            return True
        return super().eventFilter(watched, event)

    def _open_index(self, index: QModelIndex) -> None:
        if index.isValid():
            row = self.proxy.mapToSource(index).row()
            self.open_query(str(self.model.frame["query_id"].iloc[row]))

    def open_query(self, query_id: str) -> DrillDownDialog | None:
        """The drill-down of ``query_id`` (in the first run that evaluates it)."""
        if self.campaign is None or self.evaluation is None:
            return None
        runs = [
            run
            for run, evaluation in self.evaluation.evaluations.items()
            if query_id in set(evaluation.query_ids)
        ]
        if not runs:
            return None
        if self.drill_down is None:
            self.drill_down = DrillDownDialog(self, self._explain)
        self.drill_down.show_query(query_id, runs)
        return self.drill_down

    def _explain(self, run: str, query_id: str) -> QueryExplanation:
        assert self.campaign is not None and self.evaluation is not None
        listed = self.campaign.results
        documents = listed.loc[listed["query_id"] == query_id, "doc_id"].astype(str).tolist()
        qrels = self.evaluation.qrels
        documents += qrels.loc[qrels["query_id"] == query_id, "doc_id"].astype(str).tolist()
        titles = self.titles(sorted(set(documents)))
        return explain_query(self.campaign, self.evaluation, run, query_id, titles)


def _measure_names(text: str) -> tuple[str, ...]:
    """The measure names typed, as ir_measures writes them (a usage error if wrong)."""
    return measure_names([text]) if text else ()


def _height_at(widget: QWidget, width: int) -> int:
    """The height ``widget`` takes at ``width`` (none when hidden)."""
    if widget.isHidden():
        return 0
    height = widget.heightForWidth(width)
    return height if height >= 0 else widget.sizeHint().height()


def _headers(evaluation: EvaluationResult) -> dict[str, str]:
    headers = {"query_id": "Query", "query": "Text"}
    for run in evaluation.evaluations:  # the k of each is the page's (its control, the caption)
        headers[f"{run} judged"] = f"{run}\njudged"
        headers[f"{run} DCG"] = f"{run}\nDCG"
        headers[f"{run} IDCG"] = f"{run}\nIDCG"
        headers[f"{run} NDCG"] = f"{run}\nNDCG"
        for name in evaluation.options.measures:
            headers[f"{run} {name}"] = f"{run}\n{name}"
    if evaluation.table is not None and "difference" in evaluation.table:
        headers["difference"] = "Δ\nNDCG"  # which runs: its tooltip
    if evaluation.preferences is not None:
        for run, scored in evaluation.preferences.evaluations.items():
            headers.update({f"{run} {name}": f"{run}\n{name}" for name in scored.values})
    return headers


def _preference_tip(run: str, measure: str) -> str:
    return (
        f"{measure} of {run}: how far its ranking agrees with the ideal ranking the preference "
        f"judgments give the query ({SOURCE}); {MISSING} where the query has none"
    )


def _runs_html(evaluation: EvaluationResult, width: str = "100%", ndcg: bool = True) -> str:
    """The summary's head: mean NDCG@k per run with its interval and how much of its top k
    is judged (without ``ndcg``, left out: the means corrected by a judge stand for them),
    then, where the runs are scored by preference judgments, their mean of the leading
    preference measure with its interval in the same columns; the number of queries in each
    title when every run has the same, else in a column. Its cells never wrap: the pane is
    made wide enough for it (``_natural_width``)."""
    label = evaluation.label
    k = label.split("@")[1]
    judged = {
        run: share_text(float(np.mean(e.values[f"judged@{k}"])))
        for run, e in evaluation.evaluations.items()
    }
    groups = []
    if ndcg:
        groups.append((label, {run: evaluation.interval(run) for run in evaluation.evaluations}))
    found = evaluation.preferences
    if found is not None:
        groups.append(
            (escape(found.measure), {run: found.interval(run) for run in found.evaluations})
        )
    if not groups:
        return ""
    one_count = all(len({s.n for s in intervals.values()}) == 1 for _, intervals in groups)
    cell = "<td align='right' nowrap>"

    def title(measure: str, intervals: dict[str, MeanInterval]) -> str:
        count = next(iter(intervals.values())).n if intervals else 0
        return f"Mean {measure}" + (
            f" <span style='font-weight:400'>· {_plural(count, 'query', 'queries')}</span>"
            if one_count
            else ""
        )

    def rows(intervals: dict[str, MeanInterval], coverage: bool) -> str:
        return "".join(
            f"<tr><td nowrap><b>{escape(run)}</b></td>{cell}<b>{score_text(s.mean)}</b></td>"
            f"{cell}{_interval(s.low, s.high)}</td>"
            + ("" if one_count else f"{cell}{s.n:,}</td>")
            + (f"{cell}{judged[run] if coverage else ''}</td>" if ndcg else "")
            + "</tr>"
            for run, s in intervals.items()
        )

    head = (
        f"<tr><td></td>{cell}mean</td>{cell}{CONFIDENCE:.0%} t interval</td>"
        + ("" if one_count else f"{cell}queries</td>")
        + (f"{cell}judged@{k}</td>" if ndcg else "")
        + "</tr>"
    )
    (first, intervals), *more = groups
    body = rows(intervals, coverage=ndcg)
    span = 3 + (not one_count) + ndcg
    for measure, scored in more:  # a title row spanning the columns, then rows
        body += (
            f"<tr><td colspan='{span}' style='padding-top:8px'><span style='font-size:11pt; "
            f"font-weight:600'>{title(measure, scored)}</span></td></tr>"
            + rows(scored, coverage=False)
        )
    margin, size = ("0", 13) if ndcg else ("8px 0 0 0", 11)  # the head, or under the corrected
    return (
        f"<p style='margin:{margin}'><span style='font-size:{size}pt; font-weight:600'>"
        f"{title(first, intervals)}</span></p>"
        f"<table cellspacing='0' cellpadding='3' width='{width}'>{head}{body}</table>"
    )


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def _natural_width(html: str, font: QFont) -> int:
    """The width ``html`` takes laid out in ``font`` without wrapping (pixels)."""
    document = QTextDocument()
    document.setDefaultFont(font)
    document.setHtml(html)
    return math.ceil(document.idealWidth())


def _summary_html(evaluation: EvaluationResult) -> str:
    """The runs' means (``_runs_html``), the comparison in words, and the queries whose NDCG
    rests on unjudged results."""
    label = evaluation.label
    k = label.split("@")[1]
    parts = [_runs_html(evaluation)]
    if evaluation.options.grade_source == "automatic":
        parts.insert(0, f"<p><b>⚠</b> {escape(_automatic_note(evaluation))}</p>")
    if evaluation.corrected is not None:  # what the lead asked for leads
        parts = [_corrected_html(evaluation.corrected, label), _runs_html(evaluation, ndcg=False)]
    found = evaluation.preferences
    if found is not None:
        parts.append(_preferences_html(found))
    named = _named_html(evaluation)
    if named:
        parts.append(named)
    compared = [evaluation.significance, None if found is None else found.significance]
    for significance in compared:
        if significance is not None:
            first = significance.baseline or significance.runs[0]
            parts += [
                f"<p>{escape(describe(significance, pair))}</p>"
                for pair in significance.pairs
                if pair.baseline == first
            ]
    assert evaluation.table is not None
    incomplete = int(evaluation.table["incomplete"].sum())
    if incomplete:
        parts.append(
            f"<p>† {incomplete:,} of {len(evaluation.table):,} queries have unjudged results "
            f"in their top {k}: their {label} counts those results as not relevant.</p>"
        )
    return "".join(parts)


def _preferences_html(found: PreferenceEvaluation) -> str:
    """What the preference measure under NDCG is."""
    return (
        f"<p style='margin:4px 0 0 0'>{escape(found.measure)}: compatibility with the ideal "
        f"ranking the preference judgments give each query ({len(found.ideals):,} have "
        "one).</p>"
    )


def _named_html(evaluation: EvaluationResult) -> str:
    """Each run's value of every named measure over the queries it evaluated (a count's sum,
    else the mean), then its mean of each preference measure after the leading one, and a
    line naming the sums; nothing without such measures."""
    summaries = {run: e.summary() for run, e in evaluation.evaluations.items()}
    names = list(evaluation.options.measures)
    found = evaluation.preferences
    if found is not None:
        for run, scored in found.evaluations.items():
            summaries[run] |= scored.summary()
            names += [name for name in scored.values if name not in (found.measure, *names)]
    if not names:
        return ""
    head = "".join(f"<td align='right'>{escape(name)}</td>" for name in names)
    rows = "".join(
        f"<tr><td><b>{escape(run)}</b></td>"
        + "".join(f"<td align='right'>{score_text(summary.get(name))}</td>" for name in names)
        + "</tr>"
        for run, summary in summaries.items()
    )
    summed = aggregate_note(evaluation.options.measures)
    return (
        "<p style='margin:8px 0 0 0'><span style='font-size:11pt; font-weight:600'>"
        f"More measures</span></p><table cellspacing='0' cellpadding='3' width='100%'>"
        f"<tr><td></td>{head}</tr>{rows}</table>"
        + ("" if summed is None else f"<p>{escape(summed)}</p>")
    )


def _automatic_note(evaluation: EvaluationResult) -> str:
    return (
        f"Grades of the automatic judge {evaluation.options.judge} alone: its numbers are as "
        "biased as the judge is. Humans corrected by it gives intervals that hold."
    )


def _corrected_html(corrected: PredictionPowered, label: str) -> str:
    """Each run's mean (then each difference from the first run) by humans corrected by the
    judge, by humans alone and by the judge alone, each with its interval below it (the
    numbers of the command line's table), with the human grades the correction saves for its
    width; why an interval is missing, if one is."""
    rows = "".join(
        f"<tr><td><b>{escape(item.name)}</b></td>"
        f"<td align='right' nowrap>{_estimate_html(item.corrected, bold=True)}</td>"
        f"<td align='right' nowrap>{_estimate_html(item.humans)}</td>"
        f"<td align='right'>{score_text(item.automatic.mean)}</td>"
        f"<td align='right'>{saved_text(item)}</td></tr>"
        for item in corrected.estimates
    )
    judge = escape(corrected.judge)
    notes = "".join(
        f"<p style='margin:4px 0 0 0'>{text}</p>"
        for text in (
            escape(quality_text(corrected) or ""),
            f"<b>{escape(caveat(corrected) or '')}</b>" if caveat(corrected) else "",
        )
        if text
    )
    return (
        f"<p style='margin:0'><span style='font-size:13pt; font-weight:600'>Mean {label}: "
        f"humans corrected by {judge}</span></p>"
        f"<p style='margin:2px 0'>{len(corrected.labelled):,} of {corrected.queries:,} queries "
        f"judged completely by humans, every query by {judge}; {CONFIDENCE:.0%} t intervals "
        "(prediction-powered where corrected).</p>"
        "<table cellspacing='0' cellpadding='3' width='100%'><tr><td></td>"
        "<td align='right'>corrected</td><td align='right'>humans</td>"
        f"<td align='right'>{judge}</td><td align='right'>grades saved</td></tr>"
        f"{rows}</table>{notes}"
        f"<p style='margin:4px 0 0 0'><i>{escape(assumption(corrected))}</i></p>"
    )


def _estimate_html(estimate: Estimate, bold: bool = False) -> str:
    """A mean over its interval, in a narrow column; the mean alone without one."""
    mean = score_text(estimate.mean)
    shown = f"<b>{mean}</b>" if bold else mean
    if not estimate.defined:
        return shown
    return f"{shown}<br><small>{_interval(estimate.low, estimate.high)}</small>"


def _interval(low: float, high: float) -> str:
    """An interval for an HTML cell, kept on one line however narrow the column."""
    if math.isnan(low):
        return MISSING
    # no-break spaces, and a word joiner against the break Qt allows after a dash
    return f"{score_text(low)}&nbsp;–&#8288;&nbsp;{score_text(high)}"
