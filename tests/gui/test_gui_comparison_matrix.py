"""The evaluation page's matrix of runs compared: the numbers of ``eval --compare``, coloured
by the verdict's adjusted significance in the theme's colours, every p-value in a tooltip."""

from __future__ import annotations

import json
import math
from contextlib import redirect_stdout
from io import StringIO

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judge_app.cli import main as cli
from judge_app.gui.comparison_matrix import NOT_COMPARED, ComparisonMatrix, ComparisonMatrixModel
from judge_app.gui.theme import palette, significance_colours
from judge_app.metrics.significance import compare_runs
from judge_app.numbers import p_text, signed_text

RUNS = ["weak", "middle", "strong"]
DISPLAY, TOOLTIP = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole
BACKGROUND, FOREGROUND = Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole


def compared(baseline: str | None = None):
    """Three runs over 60 queries: ``strong`` clearly better than both others, ``weak`` and
    ``middle`` close."""
    rng = np.random.default_rng(5)
    scores = np.clip(rng.random((60, 1)) + rng.normal(0, 0.1, (60, 3)) + [0, 0.01, 0.2], 0, 1)
    return compare_runs(RUNS, scores, "ndcg@10", baseline=baseline, permutations=1_000)


@pytest.fixture
def light(qapp):
    before = QApplication.palette()
    QApplication.setPalette(palette("light"))
    yield
    QApplication.setPalette(before)


def test_cells_are_row_minus_column_coloured_where_the_verdict_says_significant(
    qtmodeltester, light
):
    significance = compared()
    model = ComparisonMatrixModel()
    model.set_significance(significance)
    qtmodeltester.check(model)
    assert (model.rowCount(), model.columnCount()) == (3, 3)
    letters = significance.letters()
    assert [model.headerData(i, Qt.Orientation.Horizontal) for i in range(3)] == [
        f"{run} ({letters[run]})" for run in RUNS
    ]
    coloured = 0
    for row, column in np.ndindex(3, 3):
        index = model.index(row, column)
        if row == column:
            assert model.data(index, DISPLAY) == "" and model.data(index, TOOLTIP) is None
            continue
        pair, sign = significance.between(RUNS[row], RUNS[column])
        difference = sign * pair.comparison.mean_difference
        assert model.data(index, DISPLAY) == signed_text(difference)
        if significance.significant(pair):  # by the HSD, the first test
            coloured += 1
            background, text = significance_colours(palette("light"), difference > 0)
            assert model.data(index, BACKGROUND) == background
            assert model.data(index, FOREGROUND) == text
        else:
            assert model.data(index, BACKGROUND) is None
        tooltip = model.data(index, TOOLTIP)
        assert f"randomized Tukey HSD: {p_text(pair.hsd_p_value, 4)}" in tooltip
        for test in ("randomization", "t", "wilcoxon", "sign"):
            result = pair.tests[test]
            assert f"Holm {p_text(result.holm, 4)}" in tooltip
            assert p_text(result.bh, 4) in tooltip and p_text(result.p_value, 4) in tooltip
    assert coloured == 4  # strong against each other run, both ways
    strong_over_weak = model.index(2, 0)
    assert (
        model.data(strong_over_weak, BACKGROUND) == significance_colours(palette("light"), True)[0]
    )
    assert (
        model.data(model.index(0, 2), BACKGROUND)
        == significance_colours(palette("light"), False)[0]
    )


def test_colours_follow_the_theme(qapp):
    model = ComparisonMatrixModel()
    model.set_significance(compared())
    before = QApplication.palette()
    try:
        for theme in ("light", "dark"):
            QApplication.setPalette(palette(theme))
            assert (
                model.data(model.index(2, 0), BACKGROUND)
                == significance_colours(palette(theme), True)[0]
            )
    finally:
        QApplication.setPalette(before)
    light_green = significance_colours(palette("light"), True)[0]
    dark_green = significance_colours(palette("dark"), True)[0]
    assert light_green != dark_green


def test_with_a_baseline_other_pairs_are_not_compared(qtmodeltester, qtbot):
    matrix = ComparisonMatrix()
    qtbot.addWidget(matrix)
    matrix.set_significance(compared(baseline="strong"))
    model = matrix.model
    qtmodeltester.check(model)
    assert model.data(model.index(0, 1), DISPLAY) == NOT_COMPARED
    assert model.data(model.index(0, 1), TOOLTIP) is None
    assert model.data(model.index(0, 2), DISPLAY).startswith("-")
    matrix.set_significance(None)
    assert model.rowCount() == 0 and "two or more runs" in matrix.caption.text()


def test_the_page_shows_the_matrix_of_eval_compare(qtbot, window, demo_db):
    analysis = window.analysis
    with qtbot.waitSignal(analysis.evaluation_view.model.modelReset, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    view = analysis.evaluation_view
    tab = view.charts.indexOf(view.matrix)
    assert view.charts.tabText(tab) == "Runs"
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(demo_db), "--compare", "--format", "json"]) == 0
    [record] = json.loads(out.getvalue())["significance"]["pairs"]
    model = view.matrix.model
    assert model.runs == ["bm25", "neural"]
    assert model.difference(1, 0) == record["mean_difference"]  # to the last bit
    assert model.data(model.index(1, 0), DISPLAY) == signed_text(record["mean_difference"])
    tooltip = model.data(model.index(1, 0), TOOLTIP)
    assert f"randomized Tukey HSD: {p_text(record['hsd_p'], 4)}" in tooltip
    assert f"t-test: {p_text(record['t_p'], 4)}" in tooltip
    assert not math.isnan(view.evaluation.significance.pairs[0].hsd_p_value)
    assert "randomized Tukey HSD tells them apart" in view.matrix.caption.text()
    assert "a: neural, bm25" in view.matrix.groups.text()
