"""A query's NDCG@k opened up: the ranked list with each position's grades, gain, discount
1/log2(i+1), contribution and running DCG, beside the ideal order and its IDCG (the tables of
seeds 002 and 003, for the campaign's own data)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import SupportsFloat

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judge_app.commands.explain import QueryExplanation
from judge_app.gui.tables import Formatter, FrameModel, TablePane, fit_columns
from judge_app.numbers import grade_text, score_text

Explainer = Callable[[str, str], QueryExplanation]
"""(run, query id) → the explanation of that query's NDCG in that run."""
TIGHT = 16
"""Pixels beside a column's text: these headers sort nothing, so need no room for an arrow."""
GAIN_WORDS = {"linear": "the grade (linear gain)", "exponential": "2^grade − 1 (exponential gain)"}


def _grade(value: SupportsFloat) -> str:
    """The grade evaluated, or its gain: a mean of raters (or a judge's grade), so two
    decimals whole or not (``5.00``, ``1.33``), as ``judge_app.numbers`` gives grades."""
    return grade_text(float(value))


def _own_grade(value: SupportsFloat) -> str:
    """A rater's own grade, of a column of whole grades (``4``): never with decimals."""
    return f"{float(value):.0f}"


HEADERS = {
    "position": "i",
    "rank": "Rank",
    "doc_id": "Document",
    "title": "Title",
    "grade": "Grade",
    "gain": "Gain",
    "discount": "Discount",
    "contribution": "Gain ×\ndiscount",
    "running DCG": "DCG\nso far",
    "running IDCG": "IDCG\nso far",
}
TOOLTIPS = {
    "position": "The position i that the discount uses",
    "rank": "The rank in the run (an unjudged result left out by condensed takes no position)",
    "grade": "The grade evaluated: the raters' grades aggregated as chosen",
    "gain": "The gain of the grade: the grade (linear) or 2^grade − 1 (exponential)",
    "discount": "1 / log2(i + 1)",
    "contribution": "gain × 1 / log2(i + 1): what this position adds",
    "running DCG": "The sum of the contributions down to this position",
    "running IDCG": "The sum of the contributions down to this position",
}


class DrillDownDialog(QDialog):
    """The ranked and ideal tables of one query, for any run that evaluates it."""

    def __init__(self, parent: QWidget, explain: Explainer) -> None:
        super().__init__(parent)
        self.setObjectName("drillDown")
        self.explain = explain
        self.query_id = ""
        self.explanation: QueryExplanation | None = None
        self.needed: list[int] = []  # the widths the two tables take with their titles whole
        self.resize(1270, 660)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 14, 12, 14)
        layout.setSpacing(10)
        top = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setObjectName("drillHeading")
        self.heading.setWordWrap(True)
        self.run = QComboBox()
        self.run.setObjectName("drillRun")
        self.run.currentIndexChanged.connect(lambda _index: self.refresh())
        run_label = QLabel("Run")
        run_label.setBuddy(self.run)
        top.addWidget(self.heading, 1)
        top.addWidget(run_label)
        top.addWidget(self.run)
        layout.addLayout(top)
        self.formula = QLabel()
        self.formula.setObjectName("drillFormula")
        layout.addWidget(self.formula)
        self.ranked = self._pane("drillRanked", "ranked.csv")
        self.ideal = self._pane("drillIdeal", "ideal-order.csv")
        self.ranked_model, self.ranked_table = self.ranked.model, self.ranked.table
        self.ideal_model, self.ideal_table = self.ideal.model, self.ideal.table
        self.splitter = QSplitter()
        self.splitter.addWidget(self.ranked)
        self.splitter.addWidget(self.ideal)
        layout.addWidget(self.splitter, 1)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setObjectName("tableHint")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    @staticmethod
    def _formats() -> dict[str, Formatter]:
        return {
            "grade": _grade,
            "gain": _grade,
            "discount": score_text,
            "contribution": score_text,
            "running DCG": score_text,
            "running IDCG": score_text,
        }

    def _pane(self, name: str, csv_name: str) -> TablePane:
        pane = TablePane(
            "",
            name,
            csv_name,
            headers=HEADERS,
            formats=self._formats(),
            tooltips=TOOLTIPS,
            noun="positions",
            stretch=None,
            full_text=("title",),
        )
        pane.table.setSortingEnabled(False)
        pane.count.hide()
        return pane

    def show_query(self, query_id: str, runs: list[str]) -> None:
        """Open ``query_id`` in the chosen run (kept if it evaluates the query)."""
        self.query_id = query_id
        current = self.run.currentText()
        self.run.blockSignals(True)
        self.run.clear()
        self.run.addItems(runs)
        self.run.setCurrentIndex(max(runs.index(current) if current in runs else 0, 0))
        self.run.blockSignals(False)
        self.show()  # laid out first: the tables share its width
        self.refresh()
        self.raise_()
        self.ranked_table.setFocus()

    @staticmethod
    def _fitted_width(model: FrameModel, table: QTableView) -> int:
        """The table's width with every column fitted to its texts, the title's whole, with
        its frame and vertical scroll bar; the title (last) then stretches over what is left,
        elided only where that is less."""
        fit_columns(table, model, header_room=TIGHT, cell_room=TIGHT)
        columns = sum(map(table.columnWidth, range(model.columnCount())))
        table.setColumnWidth(model.columnCount() - 1, TIGHT)  # the title fills what is left
        return columns + 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()

    def _arrange(self) -> None:
        """The tables side by side when both fit with their titles whole, else the ideal
        order under the ranked list, each the dialog's width (a title elided only then, its
        whole text in its tooltip)."""
        if not self.needed:
            return
        width = self.splitter.width()
        beside = sum(self.needed) + self.splitter.handleWidth() <= width
        self.splitter.setOrientation(
            Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical
        )
        if beside:
            spare = width - sum(self.needed) - self.splitter.handleWidth()
            self.splitter.setSizes([need + spare // 2 for need in self.needed])
        else:
            self.splitter.setSizes([self.splitter.height() // 2] * 2)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()

    def refresh(self) -> None:
        """Explain the query again (the run or the evaluation changed)."""
        if not self.query_id or not self.run.currentText():
            return
        explanation = self.explain(self.run.currentText(), self.query_id)
        self.explanation = explanation
        k = "all" if explanation.k is None else str(explanation.k)
        self.setWindowTitle(f"{explanation.query_id}: NDCG@{k} of {explanation.run}")
        self.heading.setText(
            f"<span style='font-size:15pt; font-weight:600'>{explanation.query_id}</span>"
            f"&nbsp;&nbsp;<span style='font-size:13pt'>{html.escape(explanation.query)}</span>"
        )
        self.formula.setText(explanation.formula())
        ranked, ideal = explanation.ranked, explanation.ideal
        for column in ranked.columns:
            if column not in HEADERS:  # a rater's own grades: whole, unless a judge's
                whole = bool((ranked[column].dropna() % 1 == 0).all())
                self.ranked_model.formats[column] = _own_grade if whole else _grade
        if ranked["rank"].equals(ranked["position"].astype("int64", errors="ignore")):
            ranked = ranked.drop(columns="rank")  # the rank says nothing the position does not
        self.ranked_model.set_frame(ranked)
        self.ideal_model.set_frame(ideal)
        self.needed = [
            self._fitted_width(self.ranked_model, self.ranked_table),
            self._fitted_width(self.ideal_model, self.ideal_table),
        ]
        self._arrange()
        self.ranked.caption.setText(
            f"RANKED BY {explanation.run.upper()}: DCG@{k} = {score_text(explanation.dcg)}"
        )
        self.ideal.caption.setText(f"IDEAL ORDER: IDCG@{k} = {score_text(explanation.idcg)}")
        raters = [column for column in explanation.ranked.columns if column not in HEADERS]
        unjudged = int(explanation.ranked["grade"].isna().sum())
        note = "Grade is the grade evaluated (aggregated over the raters"
        note += f": {', '.join(raters)})" if raters else ")"
        note += "; each rater's own grade follows it."
        note += f" Gain is {GAIN_WORDS[explanation.gain]}; discount is 1 / log2(i + 1)."
        if unjudged:
            note += f" {unjudged} result(s) are not judged: they add nothing to DCG."
        for doc, tie in explanation.ties.items():
            note += f"\nMajority of {doc}: {tie}."
        self.note.setText(note)
