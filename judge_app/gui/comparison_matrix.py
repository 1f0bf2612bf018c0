"""The runs compared, as a run × run matrix on the evaluation page: each cell the row run's
mean minus the column run's over the queries both scored, coloured where the verdict's test
(adjusted) tells them apart, its tooltip every test's p-values. The numbers are
``judge_app.commands.significance``'s, computed off the UI thread with the evaluation."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.theme import significance_colours
from judge_app.metrics.intervals import CONFIDENCE
from judge_app.metrics.significance import (
    PAIRED_TESTS,
    TEST_NAMES,
    PairResult,
    Significance,
)
from judge_app.numbers import DIGITS, bound_text, p_text, signed_text
from judge_app.writers.verdicts import interval_heading, verdict_words

_Index = QModelIndex | QPersistentModelIndex
_CENTRE = int(Qt.AlignmentFlag.AlignCenter)
NOT_COMPARED = "–"
"""A cell of two runs not compared (with a baseline, only the baseline's row and column)."""


class ComparisonMatrixModel(QAbstractTableModel):
    """A row and a column per run; cell (a, b): mean of a − mean of b (blank on the
    diagonal), with the colours of "better" or "worse" where the verdict says significant."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.significance: Significance | None = None
        self.runs: list[str] = []

    def set_significance(self, significance: Significance | None) -> None:
        """Show ``significance`` (None: nothing compared)."""
        self.beginResetModel()
        self.significance = significance
        self.runs = [] if significance is None else list(significance.runs)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.runs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.runs)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def cell(self, row: int, column: int) -> tuple[PairResult, float] | None:
        """The pair of the row and column runs, and the sign that makes its differences row
        − column; None on the diagonal or for runs not compared."""
        if self.significance is None or row == column:
            return None
        return self.significance.between(self.runs[row], self.runs[column])

    def difference(self, row: int, column: int) -> float:
        """Mean of the row run − mean of the column run (NaN if not compared)."""
        found = self.cell(row, column)
        if found is None:
            return math.nan
        pair, sign = found
        return sign * pair.comparison.mean_difference

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or self.significance is None:
            return None
        row, column = index.row(), index.column()
        role = int(role)
        if role == int(Qt.ItemDataRole.TextAlignmentRole):
            return _CENTRE
        found = self.cell(row, column)
        if role == int(Qt.ItemDataRole.DisplayRole):
            if row == column:
                return ""
            return NOT_COMPARED if found is None else signed_text(self.difference(row, column))
        if role == int(Qt.ItemDataRole.ToolTipRole):
            return None if found is None else plain_tip(self._tooltip(row, column, found[0]))
        if role in (int(Qt.ItemDataRole.BackgroundRole), int(Qt.ItemDataRole.ForegroundRole)):
            if found is None or not self.significance.significant(found[0]):
                return None
            colours = significance_colours(QApplication.palette(), self.difference(row, column) > 0)
            return colours[0] if role == int(Qt.ItemDataRole.BackgroundRole) else colours[1]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if int(role) != int(Qt.ItemDataRole.DisplayRole) or not 0 <= section < len(self.runs):
            return None
        run = self.runs[section]
        assert self.significance is not None
        letters = self.significance.letters().get(run)
        return f"{run} ({letters})" if letters else run

    def _tooltip(self, row: int, column: int, pair: PairResult) -> str:
        """Every test's p-value of the pair: the HSD's and its simultaneous interval, each
        paired test's raw, Holm- and BH-adjusted; the effect; the verdict."""
        significance = self.significance
        assert significance is not None
        a, b = self.runs[row], self.runs[column]
        comparison = pair.comparison
        lines = [
            f"{a} − {b} on mean {significance.measure}: "
            f"{signed_text(self.difference(row, column))} over {comparison.n:,} queries",
            f"{a} wins {_wins(pair, a)}, ties {comparison.ties}, loses {_wins(pair, b)}",
        ]
        alpha = significance.alpha
        if significance.hsd is not None and not math.isnan(pair.hsd_p_value):
            lines.append(f"{TEST_NAMES['hsd']}: {p_text(pair.hsd_p_value, DIGITS, alpha)}")
        for test in PAIRED_TESTS:
            if test in pair.tests and not math.isnan(pair.tests[test].p_value):
                result = pair.tests[test]
                lines.append(
                    f"{TEST_NAMES[test]}: {p_text(result.p_value, DIGITS, alpha)}; "
                    f"Holm {p_text(result.holm, DIGITS, alpha)}; "
                    f"Benjamini–Hochberg {p_text(result.bh, DIGITS, alpha)}"
                )
        effect = pair.effect
        if not math.isnan(effect.d_z):
            sign = 1.0 if (pair.other, pair.baseline) == (a, b) else -1.0
            low, high = sorted((sign * effect.low, sign * effect.high))
            lines.append(
                f"Cohen's d_z {signed_text(sign * effect.d_z)} "
                f"({CONFIDENCE:.0%} interval {signed_text(low)} to {signed_text(high)})"
            )
        verdict = "significant" if significance.significant(pair) else "not significant"
        words = f"By the {verdict_words(significance)}: {verdict} at {significance.alpha:g}"
        interval = significance.interval(pair)
        if interval is not None and interval.defined:
            sign = 1.0 if (pair.other, pair.baseline) == (a, b) else -1.0
            low, high = sorted((sign * interval.low, sign * interval.high))
            words += f"; {interval_heading(significance)} {bound_text(low)} to {bound_text(high)}"
        lines.append(words)
        return "\n".join(lines)


def _wins(pair: PairResult, run: str) -> int:
    """The queries where ``run`` scores higher than the other run of ``pair``."""
    comparison = pair.comparison
    return comparison.wins if run == pair.other else comparison.losses


class ComparisonMatrix(QWidget):
    """The matrix of runs compared, with what its colours mean and the HSD's groups."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("comparisonMatrixPane")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        self.caption = QLabel()
        self.caption.setTextFormat(PLAIN)  # run names
        self.caption.setObjectName("tableHint")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.model = ComparisonMatrixModel(self)
        self.table = QTableView()
        self.table.setObjectName("comparisonMatrix")
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.setCornerButtonEnabled(False)
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            header.setHighlightSections(False)
        layout.addWidget(self.table, 1)
        self.groups = QLabel()
        self.groups.setTextFormat(PLAIN)
        self.groups.setObjectName("tableHint")
        self.groups.setWordWrap(True)
        layout.addWidget(self.groups)
        self.set_significance(None)

    def set_significance(self, significance: Significance | None) -> None:
        """Show the runs compared (None: fewer than two runs, nothing to compare)."""
        self.model.set_significance(significance)
        self.table.setVisible(significance is not None)
        if significance is None:
            self.caption.setText("Choose two or more runs to compare them.")
            self.groups.setText("")
            return
        self.caption.setText(
            f"Each cell: the row run's mean {significance.measure} minus the column run's, "
            f"over the queries both scored; coloured where the {verdict_words(significance)} "
            f"tells them apart at {significance.alpha:g} (green: the row run is better). "
            "Hover a cell for every test's p-values."
        )
        groups = significance.groups()
        self.groups.setText(
            ""
            if not groups
            else f"Groups {TEST_NAMES['hsd']} cannot tell apart (the letters beside the names): "
            + "; ".join(f"{letter}: {', '.join(runs)}" for letter, runs in groups)
        )
