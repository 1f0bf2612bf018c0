"""The Automatic judges page (View ▸ Automatic judges): how far an automatic judge can stand
in for the human raters. The chosen judge, what it is and how much it graded; its agreement
with the humans, its bias in plain words, the confusion matrix coloured as a heat map, its
bias per human grade, the runs ranked with the humans' grades beside the judge's, and the
queries that disagree most.

The figures are those of ``judge_app.commands.calibrate`` (``judge-app calibrate``),
computed off the UI thread by the window (``judge_app.gui.analysis``); the page only shows
them, rounded as ``judge_app.numbers`` rounds for people, with the words of
``judge_app.writers.calibration``."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.calibrate import Overview
from judge_app.evaluation.calibration import GRADES, Calibration, Figure, GradeBias
from judge_app.gui.agreement_view import StatCard
from judge_app.gui.figure_page import FigurePage
from judge_app.gui.tables import MISSING, TablePane, named_label
from judge_app.gui.theme import is_dark
from judge_app.numbers import grade_shift_text, grade_text, score_text, share_text, signed_text
from judge_app.store.automatic import Judge
from judge_app.writers.calibration import (
    NO_JUDGE_HINT,
    ROUNDING,
    details_lines,
    findings,
    findings_level,
    judge_facts,
    judge_title,
    leaning,
    ranking_note,
)

_Index = QModelIndex | QPersistentModelIndex
_CENTRE = int(Qt.AlignmentFlag.AlignCenter)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
GRADE_BUTTON = "Grade with a judge…"
EMPTY = f"No automatic judge has graded this campaign yet: {NO_JUDGE_HINT}, or the button below."
HEAT = {  # where the judge's grade lies from the humans': (light, dark) hue
    "same": ("#2e8b57", "#4cc38a"),
    "higher": ("#d9822b", "#f0a657"),
    "lower": ("#2f6feb", "#6b9cff"),
}
CARDS = {
    "bias": ("Mean bias", "Mean of the judge's grade minus the humans': above 0, lenient"),
    "kappa": (
        "Quadratic κ",
        "Cohen's kappa of the rounded grades, quadratic weights, with its 95% interval from "
        "resampling the queries",
    ),
    "alpha": (
        "Ordinal α",
        "Krippendorff's alpha of the rounded grades, ordinal, with its 95% interval from "
        "resampling the queries",
    ),
    "exact": ("Exact agreement", "Pairs the judge graded as the humans did (rounded grades)"),
    "pairs": ("Shared pairs", "(Query, document) pairs graded by both the humans and the judge"),
    "tau": (
        "Kendall's τ",
        "Kendall's tau-b of the runs as the humans' and the judge's grades rank them; below, "
        "among the best half of the runs by the humans",
    ),
}
CARDS_IN_A_ROW = 3
RUNS_IN_SIGHT = 10
"""Runs the ranking is given room for, at most, when shown; the rest scroll."""
QUERIES_ROOM = 190
"""Pixels the queries that disagree most keep at least beside the ranking."""
GRADE_COLUMN = 30
"""Pixels at least of a column of the confusion matrix (its counts are short)."""
TEXT_ROOM = 56
"""Pixels at least of a run's name or a query's text: narrower, before a number is cut."""
BIAS_COLUMNS = {"pairs": "Pairs", "mean_judge": "Judge's\nmean", "bias": "Bias"}
"""The columns after the confusion matrix's: the bias per humans' grade."""
RANK_COLUMNS = {
    "run": "Run",
    "queries": "Queries",
    "human": "Humans",
    "human_rank": "Rank",
    "judge": "Judge",
    "judge_rank": "Rank",
    "moved": "Moved",
}
QUERY_COLUMNS = {
    "query_id": "Query",
    "query": "Text",
    "pairs": "Pairs",
    "mean_absolute": "Mean\n|Δ|",
    "mean_difference": "Mean\nΔ",
    "human_ndcg": "Humans",
    "judge_ndcg": "Judge",
    "ndcg_difference": "Δ",
}
TIPS = {
    "pairs": "Pairs graded by both the humans and the judge",
    "mean_judge": "The judge's mean grade on the pairs the humans gave this grade",
    "bias": "Mean of judge − humans on those pairs: above 0, the judge is lenient",
    "queries": "Queries the run is scored on with both the humans' and the judge's grades",
    "human": "Mean NDCG with the humans' grades",
    "human_rank": "The run's place by the humans' grades (1: best)",
    "judge": "Mean NDCG with the judge's grades",
    "judge_rank": "The run's place by the judge's grades (1: best)",
    "moved": "Places the run moves with the judge's grades: + up, − down",
    "mean_absolute": "Mean of |judge − humans| over the query's shared pairs",
    "mean_difference": "Mean of judge − humans over the query's shared pairs",
    "human_ndcg": "The best run's NDCG of the query with the humans' grades",
    "judge_ndcg": "The best run's NDCG of the query with the judge's grades",
    "ndcg_difference": "The best run's NDCG with the judge's grades minus with the humans'",
}


def heat_colours(palette: QPalette, side: str, share: float) -> tuple[QColor, QColor]:
    """(background, text) of a confusion cell holding ``share`` of its row, ``side`` of the
    diagonal (``same``, ``higher``: the judge grades higher, ``lower``)."""
    dark = is_dark(palette)
    base = palette.color(QPalette.ColorRole.Base)
    hue = QColor(HEAT[side][dark])
    weight = 0.12 + 0.78 * share
    blended = QColor(
        round(base.red() + (hue.red() - base.red()) * weight),
        round(base.green() + (hue.green() - base.green()) * weight),
        round(base.blue() + (hue.blue() - base.blue()) * weight),
    )
    text = QColor("#ffffff") if weight > 0.55 or dark else palette.color(QPalette.ColorRole.Text)
    return blended, text


class ConfusionModel(QAbstractTableModel):
    """The confusion matrix and the bias per grade: a row per humans' grade; a column per
    judge's grade, each cell its pairs, coloured by the share of its row (green the same
    grade, orange the judge higher, blue lower); then the row's pairs, the judge's mean grade
    on them and its bias (mean of judge − humans)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.matrix: tuple[tuple[int, ...], ...] = ()
        self.by_grade: tuple[GradeBias, ...] = ()

    def set_figures(
        self, matrix: tuple[tuple[int, ...], ...], by_grade: tuple[GradeBias, ...]
    ) -> None:
        """Show ``matrix`` (humans' grade × judge's grade) and ``by_grade`` (empty: none)."""
        self.beginResetModel()
        self.matrix, self.by_grade = matrix, by_grade
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.matrix)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or not self.matrix else len(GRADES) + len(BIAS_COLUMNS)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled

    def share(self, row: int, column: int) -> float:
        """The cell's share of its row's pairs (0 for an empty row)."""
        total = sum(self.matrix[row])
        return self.matrix[row][column] / total if total else 0.0

    def text(self, row: int, column: int) -> str:
        """A cell's text: its pairs, or the row's pairs, judge's mean or bias."""
        if column < len(GRADES):
            return f"{self.matrix[row][column]:,}"
        grade = self.by_grade[row]
        key = list(BIAS_COLUMNS)[column - len(GRADES)]
        if key == "pairs":
            return f"{grade.pairs:,}"
        if key == "mean_judge":
            return grade_text(grade.mean_judge)
        return grade_shift_text(grade.bias)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row, column, role = index.row(), index.column(), int(role)
        if role == int(Qt.ItemDataRole.DisplayRole):
            return self.text(row, column)
        if role == int(Qt.ItemDataRole.TextAlignmentRole):
            return _CENTRE if column < len(GRADES) else _RIGHT
        if column >= len(GRADES):
            if role == int(Qt.ItemDataRole.ToolTipRole):
                return TIPS[list(BIAS_COLUMNS)[column - len(GRADES)]]
            return None
        count = self.matrix[row][column]
        if role == int(Qt.ItemDataRole.ToolTipRole):
            side = "the same grade" if row == column else f"{column - row:+d} from the humans'"
            return (
                f"Humans {row}, judge {column} ({side}): {count:,} pairs, "
                f"{share_text(self.share(row, column))} of the humans' {row}s"
            )
        if role in (int(Qt.ItemDataRole.BackgroundRole), int(Qt.ItemDataRole.ForegroundRole)):
            if count == 0:
                return None
            side = "same" if row == column else "higher" if column > row else "lower"
            colours = heat_colours(QGuiApplication.palette(), side, self.share(row, column))
            chosen = colours[0] if role == int(Qt.ItemDataRole.BackgroundRole) else colours[1]
            return QBrush(chosen)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        role = int(role)
        vertical = orientation == Qt.Orientation.Vertical
        if role == int(Qt.ItemDataRole.DisplayRole):
            if vertical or section < len(GRADES):
                return str(section)
            return list(BIAS_COLUMNS.values())[section - len(GRADES)]
        if role == int(Qt.ItemDataRole.ToolTipRole) and self.matrix:
            if vertical:
                return f"{sum(self.matrix[section]):,} pairs the humans graded {section}"
            if section < len(GRADES):
                graded = sum(row[section] for row in self.matrix)
                return f"{graded:,} pairs the judge graded {section}"
            return TIPS[list(BIAS_COLUMNS)[section - len(GRADES)]]
        return None


class CalibrationView(FigurePage):
    """The Automatic judges page: the judge chooser, the figures and findings, the confusion
    matrix, the bias per grade, the two rankings and the queries that disagree most."""

    judgeChosen = Signal(str)
    """The name of the judge chosen in the chooser."""
    gradeRequested = Signal()
    """"Grade with a judge…": the lead wants an automatic judge to grade."""

    report: Calibration | None

    def __init__(self, parent: QWidget | None = None) -> None:
        self.overview: Overview | None = None
        super().__init__("calibration", "Automatic judges", "No calibration computed yet", parent)

    # layout ------------------------------------------------------------------------------------

    def _content(self) -> QWidget:
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._header())
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setObjectName("calibrationSplitter")
        body.setChildrenCollapsible(False)
        body.addWidget(self._grades_pane())
        body.addWidget(self._runs_pane())
        body.setStretchFactor(0, 4)
        body.setStretchFactor(1, 5)
        body.setSizes([500, 740])
        outer = QVBoxLayout()
        outer.setContentsMargins(16, 10, 16, 12)
        outer.addWidget(body)
        layout.addLayout(outer, 1)
        return content

    def _grade_button(self) -> QPushButton:
        button = QPushButton(GRADE_BUTTON)
        button.setObjectName("gradeWithJudge")
        button.setAutoDefault(False)
        button.setToolTip("Grade the campaign's pairs with an LLM or a local model")
        button.clicked.connect(self.gradeRequested)
        return button

    def _header(self) -> QFrame:
        header = QFrame()
        header.setObjectName("calibrationHeader")
        layout = QVBoxLayout(header)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        title = self._title_row()
        self.grade_button = self._grade_button()
        title.addWidget(self.grade_button)
        layout.addLayout(title)

        chooser = QHBoxLayout()
        chooser.setSpacing(10)
        chooser.addWidget(named_label("JUDGE", "paneCaption"))
        self.chooser = QComboBox()
        self.chooser.setObjectName("judgeChooser")
        self.chooser.setMinimumWidth(240)
        self.chooser.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.chooser.activated.connect(self._chosen)
        chooser.addWidget(self.chooser)
        self.judge_line = named_label("", "judgeLine")
        self.judge_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        chooser.addWidget(self.judge_line, 1)
        layout.addLayout(chooser)

        self.cards = {key: StatCard(*texts) for key, texts in CARDS.items()}
        grid = QGridLayout()
        grid.setSpacing(8)
        for position, card in enumerate(self.cards.values()):
            grid.addWidget(card, position // CARDS_IN_A_ROW, position % CARDS_IN_A_ROW)
        figures = QHBoxLayout()
        figures.setSpacing(16)
        figures.addLayout(grid)
        self.findings = QFrame()
        self.findings.setObjectName("calibrationFindings")
        self.finding_lines = QVBoxLayout(self.findings)
        self.finding_lines.setContentsMargins(10, 6, 10, 6)
        self.finding_lines.setSpacing(2)
        self.finding_labels = [named_label("", "calibrationFinding", wrap=True) for _ in range(6)]
        for label in self.finding_labels:
            self.finding_lines.addWidget(label)
        self.finding_lines.addStretch(1)
        # as tall as the cards at most: more findings scroll, the tables below keep their room
        scroll = QScrollArea()
        scroll.setObjectName("calibrationFindingsScroll")
        scroll.setWidget(self.findings)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        figures.addWidget(scroll, 1)
        layout.addLayout(figures)
        return header

    def _grades_pane(self) -> QWidget:
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(8)
        caption = "HUMANS' GRADE (ROWS) × JUDGE'S (COLUMNS)"  # the note below says the rest
        layout.addWidget(named_label(caption, "paneCaption"))
        self.confusion_model = ConfusionModel(self)
        self.confusion = QTableView()
        self.confusion.setObjectName("confusionMatrix")
        self.confusion.setModel(self.confusion_model)
        self.confusion.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.confusion.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.confusion.setCornerButtonEnabled(False)
        self.confusion.setWordWrap(False)
        self.confusion.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.confusion.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        columns = self.confusion.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        columns.setMinimumSectionSize(GRADE_COLUMN)
        self.confusion.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        for header in (columns, self.confusion.verticalHeader()):
            header.setHighlightSections(False)
        self.confusion_model.modelReset.connect(self._fit_confusion)
        self.confusion.setMinimumHeight(200)
        layout.addWidget(self.confusion, 1)
        self.confusion_note = named_label(
            "Each row: the pairs the humans gave that grade, by the judge's grade. Green: the "
            "same grade; orange: the judge grades higher; blue: lower; the deeper, the larger "
            f"the share of the row. Grades rounded {ROUNDING}; the bias is of the grades as "
            "given: the judge's minus the humans' (above 0, lenient).",
            "tableHint",
            wrap=True,
        )
        layout.addWidget(self.confusion_note)
        return pane

    def _fit_confusion(self) -> None:
        """The bias columns as wide as their headers and texts; the grades share the rest;
        the table never narrower than that (the splitter gives it the room)."""
        header = self.confusion.horizontalHeader()
        widths = 0
        for column in range(len(GRADES), self.confusion_model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
            self.confusion.setColumnWidth(column, _column_need(self.confusion, column))
            widths += self.confusion.columnWidth(column)
        chrome = (
            self.confusion.verticalHeader().sizeHint().width() + 2 * self.confusion.frameWidth()
        )
        self.confusion.setMinimumWidth(widths + len(GRADES) * GRADE_COLUMN + chrome)

    def _runs_pane(self) -> QWidget:
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("calibrationRunsSplitter")
        splitter.setChildrenCollapsible(False)
        self.ranking = TablePane(
            "Runs by mean NDCG",
            "judgeRankingTable",
            "judge-ranking.csv",
            headers=RANK_COLUMNS,
            formats={"human": score_text, "judge": score_text, "moved": _moved},
            tooltips={key: TIPS[key] for key in RANK_COLUMNS if key in TIPS},
            noun="runs",
            stretch=0,
            stretch_minimum=TEXT_ROOM,
        )
        self.queries = TablePane(
            "Disagreeing queries",
            "disagreeingQueries",
            "judge-disagreeing-queries.csv",
            headers=QUERY_COLUMNS,
            formats={
                "mean_absolute": grade_text,
                "mean_difference": grade_shift_text,
                "human_ndcg": score_text,
                "judge_ndcg": score_text,
                "ndcg_difference": signed_text,
            },
            tooltips={key: TIPS[key] for key in QUERY_COLUMNS if key in TIPS},
            noun="queries",
            filter_text="Filter queries…",
            stretch=1,
            full_text=("query",),
            stretch_minimum=TEXT_ROOM,
        )
        for table in (self.ranking, self.queries):
            table.model.modelReset.connect(lambda table=table: _fit_numbers(table))
        splitter.addWidget(self.ranking)
        splitter.addWidget(self.queries)
        splitter.setSizes([260, 300])
        self.runs_splitter = splitter
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.addWidget(splitter)
        return pane

    def _message_page(self) -> QWidget:
        """The message card, with "Grade with a judge…" under the message."""
        page = super()._message_page()
        card = page.findChild(QFrame, f"{self.name}MessageCard")
        assert card is not None and card.layout() is not None
        self.empty_button = self._grade_button()
        self.empty_button.setObjectName("gradeWithJudgeEmpty")
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.empty_button)
        layout = card.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.addSpacing(6)
        layout.addLayout(row)
        self.empty_button.hide()
        return page

    # state -------------------------------------------------------------------------------------

    def chosen_judge(self) -> str | None:
        """The name of the judge chosen (None before there is any)."""
        name = self.chooser.currentData()
        return None if name is None else str(name)

    def _chosen(self, _index: int) -> None:
        name = self.chosen_judge()
        if name is not None and (self.report is None or self.report.judge.name != name):
            self.judgeChosen.emit(name)

    def show_overview(self, overview: Overview, source: str) -> None:
        """Show the judges of ``overview`` and the calibration of the chosen one; with no
        judge, say what to do."""
        if not overview.judges:
            self.show_empty()
            return
        self.overview = overview
        self.empty_button.hide()
        self.source.setText(source)
        self.source.setToolTip(source)
        calibration = overview.calibration
        chosen = calibration.judge.name if calibration is not None else self.chosen_judge()
        self._fill_chooser(overview.judges, chosen)
        judge = next((j for j in overview.judges if j.name == self.chosen_judge()), None)
        self._show_judge(judge)
        self.report = calibration
        if calibration is None:
            self._show_nothing(overview.reason or "")
        else:
            self._show_calibration(calibration)
        self.busy.stop()
        self.pages.setCurrentIndex(0)

    def show_busy(self, text: str, on_cancel: Callable[[], None] | None = None) -> None:
        """As a page of figures does; with judges shown but no figures (a judge that shares
        no pair), inline beside the chooser too, so another can be chosen meanwhile."""
        if self.report is None and self.overview is not None and self.overview.judges:
            if text:
                self.busy.start(text, on_cancel)
            else:
                self.busy.stop()
            self.pages.setCurrentIndex(0)
            return
        super().show_busy(text, on_cancel)

    def show_empty(self, text: str = EMPTY) -> None:
        """No automatic judge: say what to do, with "Grade with a judge…" at hand."""
        self._show_message(text, error=False)
        self.empty_button.show()

    def _fill_chooser(self, judges: tuple[Judge, ...], chosen: str | None) -> None:
        self.chooser.blockSignals(True)
        self.chooser.clear()
        for judge in judges:
            self.chooser.addItem(judge_title(judge), judge.name)
            self.chooser.setItemData(
                self.chooser.count() - 1, _judge_tip(judge), Qt.ItemDataRole.ToolTipRole
            )
        names = [judge.name for judge in judges]
        self.chooser.setCurrentIndex(names.index(chosen) if chosen in names else 0)
        self.chooser.blockSignals(False)

    def _show_judge(self, judge: Judge | None) -> None:
        if judge is None:
            self.judge_line.setText("")
            return
        kind = [] if judge.method == "local" else ["LLM"]  # the chooser says "local model"
        self.judge_line.setText(" · ".join([*kind, *judge_facts(judge)]))
        self.judge_line.setToolTip(_judge_tip(judge))

    def _show_calibration(self, calibration: Calibration) -> None:
        cards = self.cards
        cards["kappa"].show_value(*_figure_texts(calibration.kappa))
        cards["alpha"].show_value(*_figure_texts(calibration.alpha))
        bias = calibration.bias
        cards["bias"].show_value(signed_text(bias, 2), leaning(bias))
        cards["exact"].show_value(
            share_text(calibration.exact), f"within 1: {share_text(calibration.within_one)}"
        )
        queries = calibration.queries
        cards["pairs"].show_value(
            f"{calibration.pairs:,}", f"in {queries:,} quer{'y' if queries == 1 else 'ies'}"
        )
        ranking = calibration.ranking
        if ranking is None:
            cards["tau"].show_value(MISSING, "", calibration.ranking_reason)
        else:
            top = ranking.top_tau.value
            note = f"top {ranking.top_runs}: {score_text(top)}" if top is not None else ""
            cards["tau"].show_value(score_text(ranking.tau.value), note, ranking.tau.reason)
        self._show_findings(findings(calibration), findings_level(calibration))
        self.confusion_model.set_figures(calibration.confusion, calibration.by_grade)
        self._show_ranking(calibration)
        self._show_queries(calibration)

    def _show_ranking(self, calibration: Calibration) -> None:
        ranking = calibration.ranking
        label = calibration.label
        self.ranking.caption.setText(f"RUNS BY MEAN {label.upper()}")
        if ranking is None:
            self.ranking.set_frame(_empty(RANK_COLUMNS), calibration.ranking_reason or "")
            return
        frame = pd.DataFrame(
            {
                "run": [run.run for run in ranking.runs],
                "queries": [run.queries for run in ranking.runs],
                "human": [run.human for run in ranking.runs],
                "human_rank": [run.human_rank for run in ranking.runs],
                "judge": [run.judge for run in ranking.runs],
                "judge_rank": [run.judge_rank for run in ranking.runs],
                "moved": [run.human_rank - run.judge_rank for run in ranking.runs],
            }
        )
        self.ranking.set_frame(frame, ranking_note(ranking))
        self._fit_runs(len(frame))

    def _fit_runs(self, runs: int) -> None:
        """Room for every run's row (up to ``RUNS_IN_SIGHT``), the queries keeping the rest
        (``QUERIES_ROOM`` at least)."""
        total = sum(self.runs_splitter.sizes())
        table = self.ranking.table
        chrome = self.ranking.sizeHint().height() - table.sizeHint().height()
        rows = table.verticalHeader().defaultSectionSize() * min(runs, RUNS_IN_SIGHT)
        wanted = chrome + table.horizontalHeader().sizeHint().height() + rows + 4
        if total > 0:
            ranking = min(wanted, max(total - QUERIES_ROOM, 0))
            self.runs_splitter.setSizes([ranking, total - ranking])

    def _show_queries(self, calibration: Calibration) -> None:
        label = calibration.label
        rows = calibration.disagreeing
        frame = pd.DataFrame(
            {
                "query_id": [q.query_id for q in rows],
                "query": [q.query for q in rows],
                "pairs": [q.pairs for q in rows],
                "mean_absolute": [q.mean_absolute for q in rows],
                "mean_difference": [q.mean_difference for q in rows],
                "human_ndcg": _floats(q.human_ndcg for q in rows),
                "judge_ndcg": _floats(q.judge_ndcg for q in rows),
                "ndcg_difference": _floats(q.ndcg_difference for q in rows),
            }
        )
        best = calibration.best_run
        note = f"{label} of the best run by the humans ({best})." if best else ""
        self.queries.set_frame(frame, f"Largest mean |judge − humans| first. {note}".strip())

    def _show_nothing(self, reason: str) -> None:
        """A judge is chosen but has no figures: why, in the findings; tables emptied."""
        for card in self.cards.values():
            card.show_value(MISSING, "", reason)
        self._show_findings([reason], "warning")
        self.confusion_model.set_figures((), ())
        self.ranking.set_frame(_empty(RANK_COLUMNS))
        self.queries.set_frame(_empty(QUERY_COLUMNS))

    def _show_findings(self, lines: list[str], level: str) -> None:
        while len(self.finding_labels) < len(lines):  # as many as the findings say
            label = named_label("", "calibrationFinding", wrap=True)
            self.finding_lines.insertWidget(len(self.finding_labels), label)
            self.finding_labels.append(label)
        for position, label in enumerate(self.finding_labels):
            label.setText(lines[position] if position < len(lines) else "")
            label.setVisible(position < len(lines))
        self.findings.setProperty("level", level)
        for widget in (self.findings, *self.finding_labels):
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def finding_texts(self) -> list[str]:
        """The findings as shown, a line each."""
        return [label.text() for label in self.finding_labels if label.isVisibleTo(self)]

    def _figures_gone(self) -> None:
        self.overview = None
        self.empty_button.hide()


def _column_need(table: QTableView, column: int) -> int:
    """The width ``column`` needs: its widest cell's and its header's as Qt sizes them (the
    sort indicator left out: it shows on a sorted column, in the header's right padding)."""
    header = table.horizontalHeader()
    shown = header.isSortIndicatorShown()
    header.setSortIndicatorShown(False)
    need = max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
    header.setSortIndicatorShown(shown)
    return need


def _fit_numbers(pane: TablePane) -> None:
    """Every column but the stretched text as wide as it needs (``_column_need``: the
    page's tables are short), then the text given the room left."""
    for column in range(pane.model.columnCount()):
        if column != pane.stretch:
            pane.table.setColumnWidth(column, _column_need(pane.table, column))
    pane.fit_stretch()


def _judge_tip(judge: Judge) -> str:
    lines = [judge.describe(), f"{judge.graded:,} grades, {judge.failed:,} failures"]
    if judge.template:
        lines.append(f"prompt template: {judge.template}")
    lines += details_lines(judge.details)
    return "\n".join(lines)


def _figure_texts(figure: Figure) -> tuple[str, str, str | None]:
    """A statistic's card: its value, its 95% interval and why it is undefined."""
    if figure.value is None:
        return MISSING, "", figure.reason
    if figure.interval is None:
        return score_text(figure.value), "", figure.interval_reason
    low, high = figure.interval
    return score_text(figure.value), f"{score_text(low)}–{score_text(high)}", None


def _moved(value: int) -> str:
    """``▲ 2`` (up with the judge), ``▼ 1`` (down), ``=``."""
    if value > 0:
        return f"▲ {value}"
    if value < 0:
        return f"▼ {-value}"
    return "="


def _floats(values: Iterable[float | None]) -> list[float]:
    """The values as floats, NaN (shown as "–") where None."""
    return [float("nan") if value is None else float(value) for value in values]


def _empty(headers: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({column: [] for column in headers})
