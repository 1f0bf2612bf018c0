"""The agreement view: how far the raters agree, pair by pair, rater by rater and query by
query, and the documents to adjudicate. The report is computed off the UI thread by the window
(``judge_app.gui.analysis``), its tables and charts by the core (``judge_app.agreement.tables``,
``judge_app.reports.figures``); the view only shows them, and says which document a lead
opens."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import pandas as pd
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from judge_app.agreement.coefficients import GRADES, LEVELS
from judge_app.agreement.preference_agreement import PreferenceAgreement
from judge_app.agreement.report import AgreementReport, adjudications
from judge_app.agreement.tables import (
    adjudication_frame,
    pairs_frame,
    queries_frame,
    raters_frame,
)
from judge_app.errors import some_of
from judge_app.gui.charts_canvas import ChartCanvas
from judge_app.gui.figure_page import FigurePage
from judge_app.gui.plain import plain_tip
from judge_app.gui.tables import MISSING, TablePane, named_label
from judge_app.numbers import score_text, share_text, signed_text
from judge_app.reports.figures import agreement_figures
from judge_app.writers.agreement import KAPPA_MATRIX_NOTE, alpha_reading, apart_sentence
from judge_app.writers.preferences import AGREEMENT_NOTE, agreement_frame

PREFERENCE_COLUMNS = {
    "pairs": "Pairs",
    "share": "Share agreeing",
    "share_low": "95% low",
    "share_high": "95% high",
    "alpha": "Krippendorff's α (nominal)",
    "alpha_low": "95% low",
    "alpha_high": "95% high",
}
"""The preferences tab's columns: the raters' agreement on the pairs two or more chose on."""
PAIR_COLUMNS = {
    "rater_a": "Rater A",
    "rater_b": "Rater B",
    "documents": "Documents",
    "percent_agreement": "% agreement",
    "cohen_kappa": "Cohen's κ",
    "cohen_kappa_linear": "κ linear",
    "cohen_kappa_quadratic": "κ quadratic",
}
RATER_COLUMNS = {
    "rater": "Rater",
    "documents": "Documents",
    "mean_grade": "Mean grade",
    "alpha_without_rater": "α without rater",
    "alpha_contribution": "Contribution",
    **{f"grade_{grade}": f"Grade {grade}" for grade in GRADES},
}
QUERY_COLUMNS = {
    "query_id": "Query",
    "query": "Text",
    "documents": "Documents",
    "raters": "Raters",
    "percent_agreement": "% agreement",
    "alpha_ordinal": "α ordinal",
    "to_adjudicate": "To adjudicate",
}
ADJUDICATION_COLUMNS = {
    "query_id": "Query",
    "query": "Text",
    "doc_id": "Document",
    "spread": "Spread",
    "decided": "Decided",
}
TIPS = {
    "documents": "Documents (query, document pairs) graded",
    "percent_agreement": "Share of agreeing pairs of grades (exact agreement)",
    "cohen_kappa": "Cohen's kappa on the documents both raters graded, unweighted",
    "cohen_kappa_linear": "Cohen's kappa with linear weights: near grades agree in part",
    "cohen_kappa_quadratic": "Cohen's kappa with quadratic weights: near grades agree nearly fully",
    "mean_grade": "The rater's mean grade",
    "alpha_without_rater": "Ordinal alpha of the other raters, on the same documents",
    "alpha_contribution": (
        "Ordinal alpha of all raters minus alpha without this rater: above 0 the rater raises "
        "the group's agreement, below 0 the others agree better without them"
    ),
    **{f"grade_{grade}": f"How many times the rater gave grade {grade}" for grade in GRADES},
    "raters": "How many raters graded documents of the query",
    "alpha_ordinal": "Krippendorff's alpha (ordinal) on the query's documents",
    "to_adjudicate": (
        "Documents of the query whose grades differ by two or more that await adjudication"
    ),
    "spread": "Highest grade minus lowest grade",
    "decided": "The lead's adjudicated grade (– not decided yet)",
}
CARDS = {  # key (as in report.reasons): caption, tooltip
    "percent_agreement": (
        "Exact agreement",
        "Exact agreement: each document's share of agreeing pairs of grades, averaged over "
        "the documents graded by two or more raters",
    ),
    "within_one_agreement": (
        "Within one grade",
        "As percent agreement, counting grades at most one apart as agreeing",
    ),
    "fleiss_kappa": (
        "Fleiss' κ",
        "Fleiss' kappa over the documents graded by every rater (nominal: any two different "
        "grades disagree)",
    ),
    "gwet_ac1": (
        "Gwet's AC1",
        "Chance-corrected agreement that stays stable when one grade dominates (nominal)",
    ),
    "gwet_ac2.linear": ("Gwet's AC2", "Gwet's AC2 with linear weights (ordinal)"),
    "gwet_ac2.quadratic": ("Gwet's AC2", "Gwet's AC2 with quadratic weights (ordinal)"),
    "raters": ("Raters", "The raters whose grades are compared"),
    "documents": ("Documents", "(Query, document) pairs graded by at least one rater"),
    "multi_rated": (
        "Multi-rated",
        "Documents graded by two or more raters: agreement is measured on these",
    ),
    "to_adjudicate": (
        "To adjudicate",
        "Documents whose grades differ by two or more that await adjudication: see the "
        "Adjudicate tab",
    ),
}
CARD_WIDTH = 138
CARD_SPACING = 8
CARD_COLUMNS = (2, 5)  # at least, at most
HEADLINE_WIDTH = 380
NAMED = 4  # who an undefined value's note names, before "and N more"
_LEVELS = {"reliable": "good", "tentative": "fair"}  # reading's first word: property "level"


_number, _percent, _signed = score_text, share_text, signed_text


def _shown(value: float | None, show: Callable[[float], str] = _number) -> str:
    return MISSING if value is None else show(value)


def _undefined_note(entries: Iterable[tuple[str, dict[str, str]]], noun: str = "") -> str:
    """ "– undefined: why (for whom)", one line a reason, from ``(who, reasons)`` pairs; many
    of the same reason make one line that counts them (``noun``: what they are)."""
    whom: dict[str, list[str]] = {}
    for who, reasons in entries:
        for why in reasons.values():
            if who not in whom.setdefault(why, []):
                whom[why].append(who)
    lines = []
    for why, names in whom.items():
        shown = some_of(names, NAMED)
        counted = f"{len(names)} {noun} ({shown})" if noun and len(names) > 1 else shown
        lines.append(f"{MISSING} {counted}: {why}")
    return "\n".join(lines)


def _pair_reasons(rater_a: str, rater_b: str, reasons: dict[str, str]) -> dict[str, str]:
    """A pair's reasons without its names ("ana and ben have …" → "the two raters have …"),
    so that the pairs with the same reason share one line of the note."""
    names = f"{rater_a} and {rater_b} "
    return {key: why.replace(names, "the two raters ") for key, why in reasons.items()}


# widgets ----------------------------------------------------------------------------------------


def _tips(headers: dict[str, str]) -> dict[str, str]:
    """The header tooltips of these columns."""
    return {column: TIPS[column] for column in headers if column in TIPS}


class StatCard(QFrame):
    """A statistic in a small card: caption, value, a line of context; the tooltip explains
    it and says why it is undefined ("–")."""

    def __init__(self, caption: str, tooltip: str) -> None:
        super().__init__()
        self.setObjectName("statCard")
        self.explanation = tooltip
        self.setFixedWidth(CARD_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(1)
        self.caption = named_label(caption, "statCaption", wrap=True)  # whole, on two lines
        self.value = named_label(MISSING, "statValue")
        self.note = named_label("", "statNote", wrap=True)  # "ana, ben, chloe, …" whole
        for label in (self.caption, self.value, self.note):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            layout.addWidget(label)

    def show_value(self, value: str, note: str = "", reason: str | None = None) -> None:
        self.value.setText(value)
        self.note.setText(note)
        undefined = f"\n\nUndefined: {reason}" if reason else ""
        self.setToolTip(plain_tip(self.explanation + undefined))


class CardGrid(QWidget):
    """Cards in rows of as many as fit (five at most, two at least), so that a narrow window
    shows every card whole, in more rows."""

    def __init__(self, cards: list[StatCard]) -> None:
        super().__init__()
        self._cards = cards
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(CARD_SPACING)
        self._columns = 0
        self._arrange(CARD_COLUMNS[1])
        self.setMinimumWidth(CARD_COLUMNS[0] * (CARD_WIDTH + CARD_SPACING))

    def _arrange(self, columns: int) -> None:
        if columns == self._columns:
            return
        self._columns = columns
        for card in self._cards:
            self._grid.removeWidget(card)
        for position, card in enumerate(self._cards):
            self._grid.addWidget(card, position // columns, position % columns)

    def resizeEvent(self, event: QResizeEvent) -> None:
        fits = (self.width() + CARD_SPACING) // (CARD_WIDTH + CARD_SPACING)
        self._arrange(max(CARD_COLUMNS[0], min(CARD_COLUMNS[1], fits)))
        super().resizeEvent(event)


class AgreementView(FigurePage):
    """The agreement page: the headline alpha and the coefficients, then tabs of pairs,
    raters, queries and the documents to adjudicate, each table exportable as CSV."""

    adjudicate = Signal(str, str)
    """(query_id, doc_id) of the document on the adjudication list the lead opened."""

    report: AgreementReport | None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("agreement", "Inter-rater agreement", "No agreement computed yet", parent)

    # layout ------------------------------------------------------------------------------------

    def _content(self) -> QWidget:
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._header())
        self.tabs = QTabWidget()
        self.tabs.setObjectName("agreementTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.tabBar().setDrawBase(False)
        self.tabs.addTab(self._pairs_tab(), "Pairs")
        self.tabs.addTab(self._raters_tab(), "Raters")
        self.tabs.addTab(self._queries_tab(), "Queries")
        self.tabs.addTab(self._adjudication_tab(), "Adjudicate")
        self.preferences_tab = self.tabs.addTab(self._preferences_tab(), "Preferences")
        self.tabs.setTabVisible(self.preferences_tab, False)
        body = QVBoxLayout()
        body.setContentsMargins(20, 12, 20, 14)
        body.addWidget(self.tabs)
        layout.addLayout(body, 1)
        return content

    def _header(self) -> QFrame:
        header = QFrame()
        header.setObjectName("agreementHeader")
        grid = QGridLayout(header)
        grid.setContentsMargins(20, 14, 20, 16)
        grid.setHorizontalSpacing(24)
        grid.setVerticalSpacing(10)
        title = self._title_row()
        grid.addLayout(title, 0, 0, 1, 2)

        headline = QGridLayout()
        headline.setContentsMargins(0, 0, 0, 0)
        headline.setHorizontalSpacing(16)
        headline.setVerticalSpacing(4)
        headline.addWidget(named_label("KRIPPENDORFF'S ALPHA · ORDINAL", "paneCaption"), 0, 0, 1, 2)
        self.alpha = named_label(MISSING, "alphaValue")
        headline.addWidget(self.alpha, 1, 0, 2, 1, Qt.AlignmentFlag.AlignVCenter)
        caption = named_label("95% BOOTSTRAP INTERVAL", "alphaIntervalCaption")
        self.interval = named_label("", "alphaInterval")
        headline.addWidget(caption, 1, 1, Qt.AlignmentFlag.AlignBottom)
        headline.addWidget(self.interval, 2, 1, Qt.AlignmentFlag.AlignTop)
        self.levels = named_label("", "alphaLevels")
        headline.addWidget(self.levels, 3, 0, 1, 2)
        self.reading = named_label("", "alphaReading", wrap=True)
        headline.addWidget(self.reading, 4, 0, 1, 2)
        headline.setColumnStretch(1, 1)
        headline.setRowStretch(5, 1)
        panel = QWidget()
        panel.setObjectName("alphaPanel")
        panel.setFixedWidth(HEADLINE_WIDTH)
        panel.setLayout(headline)
        grid.addWidget(panel, 1, 0)

        self.cards = {key: StatCard(*texts) for key, texts in CARDS.items()}
        self.card_grid = CardGrid(list(self.cards.values()))
        self._header_grid = grid
        self._cards_below: bool | None = None
        self._place_cards(below=False)
        grid.setColumnStretch(1, 1)
        return header

    def _place_cards(self, below: bool) -> None:
        """The cards beside the headline alpha (wide), or under it across the page."""
        if below == self._cards_below:
            return
        self._cards_below = below
        self._header_grid.removeWidget(self.card_grid)
        if below:
            self._header_grid.addWidget(self.card_grid, 2, 0, 1, 2)
        else:
            self._header_grid.addWidget(self.card_grid, 1, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        beside = HEADLINE_WIDTH + 24 + CARD_COLUMNS[1] * (CARD_WIDTH + CARD_SPACING) + 40
        self._place_cards(below=self.width() < beside)
        super().resizeEvent(event)

    def _pairs_tab(self) -> QWidget:
        formats = {"percent_agreement": _percent}
        self.pairs = TablePane(
            "Pairs of raters",
            "pairTable",
            "agreement-pairs.csv",
            headers=PAIR_COLUMNS,
            tooltips=_tips(PAIR_COLUMNS),
            formats=formats,
            noun="pairs",
            stretch=None,
        )
        self.heatmap = ChartCanvas(name="kappaHeatmap", minimum_height=180)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("pairsSplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.pairs)
        splitter.addWidget(self.heatmap)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([780, 460])
        return _tab_page(splitter)

    def _raters_tab(self) -> QWidget:
        formats = {"mean_grade": _number, "alpha_contribution": _signed}
        self.raters = TablePane(
            "Raters",
            "raterTable",
            "agreement-raters.csv",
            headers=RATER_COLUMNS,
            tooltips=_tips(RATER_COLUMNS),
            formats=formats,
            noun="raters",
        )
        self.grades = ChartCanvas(name="gradesChart", minimum_height=180)
        splitter = QSplitter(Qt.Orientation.Horizontal)  # side by side: a short window fits
        splitter.setObjectName("ratersSplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.raters)
        splitter.addWidget(self.grades)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        return _tab_page(splitter)

    def _queries_tab(self) -> QWidget:
        self.queries = TablePane(
            "Queries, lowest agreement first",
            "queryTable",
            "agreement-queries.csv",
            headers=QUERY_COLUMNS,
            tooltips=_tips(QUERY_COLUMNS),
            formats={"percent_agreement": _percent},
            noun="queries",
            filter_text="Filter queries…",
            stretch=1,
            full_text=("query",),
        )
        self.queries.table.sortByColumn(
            list(QUERY_COLUMNS).index("alpha_ordinal"), Qt.SortOrder.AscendingOrder
        )
        return _tab_page(self.queries)

    def _adjudication_tab(self) -> QWidget:
        self.open_button = QPushButton("Adjudicate…")
        self.open_button.setObjectName("adjudicateButton")
        self.open_button.setAutoDefault(False)
        self.open_button.setToolTip(
            "Decide the disagreements, starting with the chosen document (Enter)"
        )
        self.open_button.clicked.connect(self._open_selected)
        self.adjudication = TablePane(
            "Documents to adjudicate",
            "adjudicationTable",
            "agreement-adjudicate.csv",
            headers=ADJUDICATION_COLUMNS,
            tooltips=_tips(ADJUDICATION_COLUMNS),
            noun="documents",
            filter_text="Filter by query or document…",
            tools=[self.open_button],
            stretch=1,
            full_text=("query",),
        )
        table = self.adjudication.table
        table.sortByColumn(list(ADJUDICATION_COLUMNS).index("spread"), Qt.SortOrder.DescendingOrder)
        table.doubleClicked.connect(self._open_index)
        table.installEventFilter(self)
        table.selectionModel().selectionChanged.connect(lambda *_args: self._update_button())
        self._update_button()
        return _tab_page(self.adjudication)

    def _preferences_tab(self) -> QWidget:
        share, score = {"share", "share_low", "share_high"}, {"alpha", "alpha_low", "alpha_high"}
        self.preferences = TablePane(
            "Agreement on preference judgments",
            "preferenceAgreementTable",
            "agreement-preferences.csv",
            headers=PREFERENCE_COLUMNS,
            formats={
                **{column: lambda v: _shown(v, _percent) for column in share},
                **{column: _shown for column in score},
            },
            stretch=len(PREFERENCE_COLUMNS) - 1,
        )
        self.preferences.count.hide()  # one row: the campaign's
        return _tab_page(self.preferences)

    def show_preferences(self, agreement: PreferenceAgreement | None) -> None:
        """The raters' agreement on their preferences, as ``preferences summary`` and the
        report give it; the tab only where someone made preferences."""
        self.tabs.setTabVisible(self.preferences_tab, agreement is not None)
        if agreement is None:
            return
        undefined = [
            estimate.reason
            for estimate in (agreement.share, agreement.alpha)
            if estimate.value is None and estimate.reason
        ]
        bounds = (
            f"95% low and high: the bootstrap interval from {agreement.resamples:,} resamples "
            "of the pairs."
            if agreement.share_interval.bounds or agreement.alpha_interval.bounds
            else ""
        )
        note = [AGREEMENT_NOTE, bounds, *undefined]
        self.preferences.set_frame(agreement_frame(agreement), " ".join(filter(None, note)))

    # state -------------------------------------------------------------------------------------

    def show_report(
        self,
        report: AgreementReport,
        source: str,
        figures: dict[str, Figure] | None = None,
        query_texts: Mapping[str, str] | None = None,
    ) -> None:
        """Show ``report`` (computed from ``source``) with the queries' ``query_texts``;
        ``figures`` drawn beforehand (off the UI thread, :func:`agreement_figures`) if given."""
        texts = query_texts or {}
        self.report = report
        self.source.setText(source)
        self.source.setToolTip(source)
        self._show_headline(report)
        self._show_cards(report)
        undefined = _undefined_note(
            (
                (f"{p.rater_a}/{p.rater_b}", _pair_reasons(p.rater_a, p.rater_b, p.reasons))
                for p in report.pairwise
            ),
            "pairs",
        )
        apart = apart_sentence(report.pairs_apart) if report.pairs_apart else None
        self.pairs.set_frame(
            pairs_frame(report), "\n".join(filter(None, [apart, undefined, KAPPA_MATRIX_NOTE]))
        )
        self.raters.set_frame(
            raters_frame(report),
            _undefined_note(((r.rater, r.reasons) for r in report.per_rater), "raters"),
        )
        self.queries.set_frame(
            _with_text(queries_frame(report), texts),
            _undefined_note(((q.query_id, q.reasons) for q in report.per_query), "queries"),
        )
        chosen = self.chosen_item()
        adjudication = _with_text(adjudication_frame(report), texts)
        model = self.adjudication.model
        model.headers = {**ADJUDICATION_COLUMNS, **{rater: rater for rater in report.raters}}
        model.tooltips = {
            **{column: TIPS[column] for column in ADJUDICATION_COLUMNS if column in TIPS},
            **{rater: f"{rater}'s grade (– not graded)" for rater in report.raters},
        }
        split = adjudications(report.per_query)
        self.adjudication.set_frame(
            adjudication,
            f"{len(split.decided):,} of {split.disputed:,} decided. Double-click a document or "
            "press Enter to decide it on the adjudication screen."
            if split.disputed
            else "No document to adjudicate: no two grades of a document differ by two or more.",
        )
        self._choose_item(chosen)
        figures = figures or agreement_figures(report)
        self.heatmap.set_figure(figures["kappa"])
        self.grades.set_figure(figures["grades"])
        self.busy.stop()
        self.pages.setCurrentIndex(0)

    def _show_headline(self, report: AgreementReport) -> None:
        alpha = report.krippendorff_alpha["ordinal"]
        reasons = report.reasons
        self.alpha.setText(_shown(alpha))
        interval = report.krippendorff_alpha_ci["ordinal"]
        if interval is None:
            why = reasons.get("krippendorff_alpha_ci.ordinal", "undefined")
            self.interval.setText(MISSING)
            self.interval.setToolTip(why)
        else:
            self.interval.setText(f"{_number(interval[0])} – {_number(interval[1])}")
            self.interval.setToolTip(
                f"Bootstrap interval from {report.resamples:,} resamples of the documents"
            )
        self.levels.setText(
            "   ·   ".join(
                f"{level.capitalize()} α {_shown(report.krippendorff_alpha[level])}"
                for level in LEVELS
                if level != "ordinal"
            )
        )
        self.levels.setToolTip("Krippendorff's alpha at the other levels of measurement")
        if alpha is None:
            why = reasons.get("krippendorff_alpha.ordinal", "undefined")
            text, level = f"Undefined: {why}", "poor"
            self.alpha.setToolTip(why)
        else:
            reading = alpha_reading(alpha)
            text = (reading[0].upper() + reading[1:]).replace(">=", "≥").replace("<=", "≤")
            level = _LEVELS.get(reading.split()[0].strip(",:"), "poor")
            self.alpha.setToolTip("Krippendorff's alpha, ordinal: 1 is perfect agreement, 0 chance")
        self.reading.setText(text)
        self.reading.setProperty("level", level)
        self.reading.style().unpolish(self.reading)
        self.reading.style().polish(self.reading)

    def _show_cards(self, report: AgreementReport) -> None:
        reasons = report.reasons
        cards = self.cards
        for key, value, note in (
            ("percent_agreement", report.percent_agreement, "exact"),
            ("within_one_agreement", report.within_one_agreement, "grades ≤ 1 apart"),
        ):
            cards[key].show_value(_shown(value, _percent), note, reasons.get(key))
        fleiss_note = (
            f"{report.fleiss_units:,} graded by all {report.n_raters:,}"
            if report.fleiss_units
            else ""
        )
        cards["fleiss_kappa"].show_value(
            _shown(report.fleiss_kappa), fleiss_note, reasons.get("fleiss_kappa")
        )
        cards["gwet_ac1"].show_value(_shown(report.gwet_ac1), "unweighted", reasons.get("gwet_ac1"))
        for kind in ("linear", "quadratic"):
            key = f"gwet_ac2.{kind}"
            cards[key].show_value(
                _shown(report.gwet_ac2[kind]), f"{kind} weights", reasons.get(key)
            )
        queries = len(report.per_query)
        split = adjudications(report.per_query)
        to_adjudicate = len(split.awaiting)
        cards["raters"].show_value(f"{report.n_raters:,}", some_of(report.raters))
        cards["raters"].setToolTip(
            plain_tip(f"{cards['raters'].explanation}: {some_of(report.raters, 50)}")
        )
        cards["documents"].show_value(
            f"{report.n_units:,}", f"in {queries:,} quer{'y' if queries == 1 else 'ies'}"
        )
        cards["multi_rated"].show_value(f"{report.n_multi_rated:,}", "graded by 2+ raters")
        cards["to_adjudicate"].show_value(
            f"{to_adjudicate:,}",
            f"left of {split.disputed:,} · grades ≥ 2 apart"
            if split.decided
            else "grades ≥ 2 apart",
        )

    # adjudication ------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.adjudication.table
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self._open_index(self.adjudication.table.currentIndex())
            return True
        return super().eventFilter(watched, event)

    def chosen_item(self) -> tuple[str, str] | None:
        """(query_id, doc_id) of the document chosen on the adjudication list, if any."""
        rows = self.adjudication.table.selectionModel().selectedRows()
        return self._item(rows[0]) if rows else None

    def _choose_item(self, item: tuple[str, str] | None) -> None:
        """Choose ``item`` on the adjudication list again, or else the first document."""
        pane = self.adjudication
        frame = pane.model.frame
        index = QModelIndex()
        if item is not None:
            same = ((frame["query_id"] == item[0]) & (frame["doc_id"] == item[1])).to_numpy()
            if same.any():
                index = pane.proxy.mapFromSource(pane.model.index(int(same.argmax()), 0))
        if not index.isValid():  # not listed any more, or filtered out
            index = pane.proxy.index(0, 0)
        if index.isValid():
            pane.table.selectRow(index.row())
        self._update_button()

    def _open_selected(self) -> None:
        item = self.chosen_item()
        if item is not None:
            self.adjudicate.emit(*item)

    def _open_index(self, index: QModelIndex) -> None:
        if index.isValid():
            self.adjudicate.emit(*self._item(index))

    def _item(self, index: QModelIndex) -> tuple[str, str]:
        pane = self.adjudication
        row = pane.model.row_frame(pane.proxy.mapToSource(index).row())
        return str(row["query_id"]), str(row["doc_id"])

    def _update_button(self) -> None:
        self.open_button.setEnabled(self.adjudication.table.selectionModel().hasSelection())


def _with_text(frame: pd.DataFrame, texts: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` with its query's text beside ``query_id`` ("" where not known)."""
    frame = frame.copy()
    frame.insert(1, "query", [texts.get(str(query), "") for query in frame["query_id"]])
    return frame


def _tab_page(widget: QWidget) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 12, 0, 0)
    layout.addWidget(widget)
    return page
