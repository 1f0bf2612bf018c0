"""The Automatic judges page and the drill-down as a user reads them (issue 29, item 10): the
judge line says each fact once, the chooser names the judge once, the drill-down shows every
grade of a column in one format and gives titles their room, and no number of the page's
tables is cut at 1280×800 or 1024×768."""

from __future__ import annotations

import re
import shutil
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from judge_app.cli import main as cli
from judge_app.numbers import score_text
from judge_app.store import automatic, open_database


@pytest.fixture(scope="module")
def judged_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("judged") / "campaign.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
        assert cli(["autojudge", str(path), "--local"]) == 0
    return path


@pytest.fixture
def judged(judged_template, tmp_path) -> Path:
    path = tmp_path / "campaign.sqlite"
    shutil.copy(judged_template, path)
    return path


def calibration_page(qtbot, window):
    window.menus.page_actions["calibration"].trigger()
    view = window.analysis.calibration_view
    qtbot.waitUntil(lambda: window.task is None and view.report is not None, timeout=60_000)
    return view


def test_the_judge_is_named_once_and_its_held_out_quality_said_once(qtbot, open_window, judged):
    with open_database(judged, read_only=True) as database, database.reading() as session:
        (judge,) = automatic.judges(session)
    held_out = judge.details["held_out"]
    view = calibration_page(qtbot, open_window(judged, rater=None))
    assert view.judge_line.text() == (
        f"{judge.graded:,} grades · 0 failures · held out: quadratic κ "
        f"{score_text(held_out['quadratic_kappa'])}, MAE {held_out['mae']:.2f}, "
        f"Spearman {score_text(held_out['spearman'])}"
    )
    assert view.chooser.currentText() == "local model (HistGradientBoostingRegressor)"
    assert view.chooser.currentText().count("local model") == 1


TEXTS = {"Run", "Text"}
"""The columns of text that take the room left, elided (whole in their tooltips)."""


def cut_columns(table: QTableView) -> list[str]:
    """The columns of numbers narrower than Qt's size hint of their cells and header, or
    ending beyond the table's viewport."""
    header = table.horizontalHeader()
    header.setSortIndicatorShown(False)  # it shows in the header's padding, when sorted
    model, cut = table.model(), []
    for column in range(model.columnCount()):
        title = str(model.headerData(column, Qt.Orientation.Horizontal))
        need = max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
        end = table.columnViewportPosition(column) + table.columnWidth(column)
        if title not in TEXTS and (
            table.columnWidth(column) < need or end > table.viewport().width()
        ):
            cut.append(title)
    header.setSortIndicatorShown(True)
    return cut


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_no_number_of_the_page_is_cut(qtbot, open_window, judged, size):
    window = open_window(judged, rater=None)
    window.resize(*size)
    view = calibration_page(qtbot, window)
    qtbot.wait(50)  # laid out at that size
    for table in (view.confusion, view.ranking.table, view.queries.table):
        assert cut_columns(table) == [], table.objectName()


def test_the_drill_down_shows_grades_in_one_format_and_titles_whole(qtbot, open_window, judged):
    window = open_window(judged, rater=None)
    window.menus.page_actions["evaluation"].trigger()
    view = window.analysis.evaluation_view
    qtbot.waitUntil(lambda: window.task is None and view.evaluation is not None, timeout=60_000)
    dialog = view.open_query("q01")
    qtbot.waitExposed(dialog)
    dialog.refresh()
    model, table = dialog.ranked_model, dialog.ranked_table
    frame = model.frame
    raters = [c for c in frame.columns if c in {"ana", "ben", "chloe"}]
    assert raters and frame["grade"].map(lambda g: g % 1 != 0).any()  # means among them
    for column, pattern in [("grade", r"\d\.\d\d"), ("gain", r"\d+\.\d\d")] + [
        (rater, r"\d") for rater in raters
    ]:
        texts = model.column_texts(model.columns.index(column))
        assert all(re.fullmatch(pattern, text) for text in texts), (column, texts)
    title = model.columns.index("title")
    metrics = table.fontMetrics()
    for row, whole in enumerate(frame["title"]):
        assert model.index(row, title).data() == whole
        assert table.columnWidth(title) >= metrics.horizontalAdvance(whole), whole
    assert table.columnViewportPosition(title) + table.columnWidth(title) <= (
        table.viewport().width()
    )
