"""Tables of frames: the model, the sorting and filtering proxy, the view and the CSV export."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QHeaderView

from judge_app.gui.tables import (
    SORT_ROLE,
    FrameModel,
    SortProxy,
    csv_button,
    table_view,
)
from judge_app.io.exports import write_csv

TIP = "† the top k of this query is not fully judged"


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query_id": ["q10", "q2", "Q3", "q1", "q20"],
            "ndcg": [0.5, np.nan, 0.25, 0.987654, np.nan],
            "judged": pd.array([1200, 3, None, 7, 10], dtype="Int64"),
            "run": ["bm25", "Neural", "bm25", None, "neural"],
            "incomplete": [False, True, False, False, True],
        }
    )


def model_of(data: pd.DataFrame | None = None, **options) -> FrameModel:
    options.setdefault("marked", "incomplete")
    options.setdefault("tooltips", {"incomplete": TIP, "ndcg": "NDCG at 10"})
    return FrameModel(frame() if data is None else data, **options)


def column(model, name: str, role=Qt.ItemDataRole.DisplayRole) -> list:
    source = model.sourceModel() if isinstance(model, SortProxy) else model
    at = source.columns.index(name)
    return [model.data(model.index(row, at), role) for row in range(model.rowCount())]


def test_model_and_proxy_pass_the_model_tester(qtmodeltester):
    model = model_of(headers={"query_id": "Query"})
    qtmodeltester.check(model)
    proxy = SortProxy()
    proxy.setSourceModel(model)
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    proxy.setFilterFixedString("q")
    qtmodeltester.check(proxy)
    model.set_frame(frame().iloc[:2])
    qtmodeltester.check(proxy)
    qtmodeltester.check(FrameModel())
    model.sort(2, Qt.SortOrder.AscendingOrder)
    qtmodeltester.check(model)


def test_model_shows_every_column_but_the_marked_one_with_headers_and_texts():
    model = model_of(headers={"query_id": "Query", "ndcg": "NDCG@10"}, formats={"run": str.upper})
    assert model.columns == ["query_id", "ndcg", "judged", "run"]
    assert model.columnCount() == 4 and model.rowCount() == 5
    horizontal = Qt.Orientation.Horizontal
    assert [model.headerData(c, horizontal) for c in range(4)] == [
        "Query", "NDCG@10", "judged", "run",
    ]  # fmt: skip
    assert model.headerData(1, horizontal, Qt.ItemDataRole.ToolTipRole) == "NDCG at 10"
    assert model.headerData(0, horizontal, Qt.ItemDataRole.ToolTipRole) is None
    assert column(model, "ndcg") == ["0.5000", "–", "0.2500", "0.9877", "–"]
    assert column(model, "judged") == ["1,200", "3", "–", "7", "10"]
    assert column(model, "run") == ["BM25", "NEURAL", "BM25", "–", "NEURAL"]
    assert column(model, "judged", SORT_ROLE) == [1200, 3, None, 7, 10]
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    assert column(model, "ndcg", Qt.ItemDataRole.TextAlignmentRole)[0] == right
    assert column(model, "run", Qt.ItemDataRole.TextAlignmentRole)[0] == left
    assert model.row_frame(2)["query_id"] == "Q3"
    assert model.frame is not None and len(model.frame.columns) == 5  # as given


def test_marked_rows_get_a_dagger_a_warning_colour_and_the_tooltip():
    model = model_of()
    assert column(model, "query_id") == ["q10", "q2 †", "Q3", "q1", "q20 †"]
    assert column(model, "ndcg")[1] == "–"  # only the first column carries the mark
    tips = column(model, "ndcg", Qt.ItemDataRole.ToolTipRole)
    assert tips == [None, TIP, None, None, TIP]
    colours = column(model, "run", Qt.ItemDataRole.ForegroundRole)
    assert colours[0] is None and colours[1] is not None and colours[4] == colours[1]
    unmarked = FrameModel(frame())
    assert "incomplete" in unmarked.columns and column(unmarked, "query_id")[1] == "q2"


def sorted_column(proxy: SortProxy, name: str, order: Qt.SortOrder) -> list:
    proxy.sort(proxy.sourceModel().columns.index(name), order)
    return column(proxy, name, SORT_ROLE)


def test_proxy_sorts_numbers_by_value_and_text_naturally_with_missing_values_last():
    proxy = SortProxy()
    proxy.setSourceModel(model_of())
    ascending, descending = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
    assert sorted_column(proxy, "ndcg", ascending) == [0.25, 0.5, 0.987654, None, None]
    assert sorted_column(proxy, "ndcg", descending) == [0.987654, 0.5, 0.25, None, None]
    assert sorted_column(proxy, "judged", ascending) == [3, 7, 10, 1200, None]
    assert sorted_column(proxy, "judged", descending) == [1200, 10, 7, 3, None]
    assert sorted_column(proxy, "query_id", ascending) == ["q1", "q2", "Q3", "q10", "q20"]
    assert sorted_column(proxy, "query_id", descending) == ["q20", "q10", "Q3", "q2", "q1"]
    runs = sorted_column(proxy, "run", ascending)  # case-insensitive; equal ones stay in turn
    assert [run and run.lower() for run in runs] == ["bm25", "bm25", "neural", "neural", None]
    runs = sorted_column(proxy, "run", descending)
    assert [run and run.lower() for run in runs] == ["neural", "neural", "bm25", "bm25", None]


def test_proxy_sorts_a_new_frame_by_its_own_values():
    model = model_of()
    proxy = SortProxy()
    proxy.setSourceModel(model)
    proxy.sort(1, Qt.SortOrder.AscendingOrder)
    changed = frame().assign(ndcg=[0.9, 0.1, np.nan, 0.5, 0.3])
    model.set_frame(changed)  # the proxy sorts again, on the new values
    assert column(proxy, "ndcg", SORT_ROLE) == [0.1, 0.3, 0.5, 0.9, None]


def test_sorting_reorders_the_frame_and_keeps_selected_rows_and_the_sort_of_new_frames(qtbot):
    model = model_of()
    view, proxy = table_view(model, "someTable")
    qtbot.addWidget(view)
    view.selectRow(0)  # q10
    view.sortByColumn(model.columns.index("judged"), Qt.SortOrder.DescendingOrder)
    assert model.sorted_by == ("judged", Qt.SortOrder.DescendingOrder)
    assert proxy.sortColumn() == 2 and proxy.sortOrder() == Qt.SortOrder.DescendingOrder
    assert model.frame["query_id"].tolist() == ["q10", "q20", "q1", "q2", "Q3"]
    assert [model.row_frame(row)["query_id"] for row in range(5)] == model.frame[
        "query_id"
    ].tolist()
    assert column(model, "query_id") == ["q10", "q20 †", "q1", "q2 †", "Q3"]  # marks move too
    selected = view.selectionModel().selectedRows()
    assert [proxy.mapToSource(index).row() for index in selected] == [0]
    view.selectRow(3)  # q2
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    row = proxy.mapToSource(view.selectionModel().selectedRows()[0]).row()
    assert model.row_frame(row)["query_id"] == "q2"
    model.set_frame(frame().iloc[::-1])
    assert model.frame["query_id"].tolist() == ["q1", "q2", "Q3", "q10", "q20"]
    model.sort(-1)  # as it is from now on
    model.set_frame(frame())
    assert model.frame["query_id"].tolist() == frame()["query_id"].tolist()


def test_filter_matches_any_column_case_insensitively_as_a_fixed_string():
    proxy = SortProxy()
    proxy.setSourceModel(model_of())
    proxy.setFilterFixedString("NEURAL")
    assert column(proxy, "query_id") == ["q2 †", "q20 †"]
    proxy.setFilterFixedString("0.25")  # the text shown, not the raw value
    assert column(proxy, "query_id") == ["Q3"]
    proxy.setFilterFixedString("1,2")
    assert column(proxy, "query_id") == ["q10"]
    proxy.setFilterFixedString("q1")
    assert column(proxy, "query_id") == ["q10", "q1"]
    proxy.setFilterFixedString(".*")  # not a regular expression
    assert proxy.rowCount() == 0
    proxy.setFilterFixedString("")
    assert proxy.rowCount() == 5


def test_table_view_is_a_sortable_single_row_selection_table(qtbot):
    model = model_of()
    view, proxy = table_view(model, "someTable")
    qtbot.addWidget(view)
    assert view.objectName() == "someTable" and view.model() is proxy
    assert proxy.sourceModel() is model
    assert view.isSortingEnabled() and view.alternatingRowColors()
    assert view.selectionBehavior() == QAbstractItemView.SelectionBehavior.SelectRows
    assert view.selectionMode() == QAbstractItemView.SelectionMode.SingleSelection
    assert view.verticalHeader().isHidden()
    assert view.horizontalHeader().stretchLastSection()
    assert column(proxy, "query_id")[0] == "q10"  # the frame's order until a header is clicked
    assert model.sorted_by is None
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    assert column(proxy, "ndcg", SORT_ROLE)[:2] == [0.987654, 0.5]
    narrow = view.columnWidth(0)
    model.set_frame(frame().assign(query_id=["a much longer query id than before"] * 5))
    assert view.columnWidth(0) > narrow  # fitted again on reset
    header = view.horizontalHeader()
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Interactive


def test_big_tables_sort_and_filter_in_natural_order(qtbot):
    rows = 20_000
    generator = np.random.default_rng(7)
    big = pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(rows)],
            "ndcg": np.where(generator.random(rows) < 0.1, np.nan, generator.random(rows)),
            "judged": generator.integers(0, 100, rows),
            "incomplete": generator.random(rows) < 0.2,
        }
    )
    model = FrameModel(marked="incomplete")
    view, proxy = table_view(model, "bigTable")
    qtbot.addWidget(view)
    model.set_frame(big)
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    proxy.setFilterFixedString("q19")
    proxy.setFilterFixedString("")
    assert proxy.rowCount() == rows
    assert column(proxy, "query_id")[:3] == ["q0", "q1", "q2"]


def test_write_csv_writes_utf8_without_the_index(tmp_path):
    data = frame().assign(run=["bm25", "nëural", "bm25", None, "神经"])
    path = tmp_path / "table.csv"
    write_csv(data, path)
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "query_id,ndcg,judged,run,incomplete"
    back = pd.read_csv(path)
    assert back["run"].tolist()[1] == "nëural" and back["run"].tolist()[4] == "神经"
    assert back["judged"].tolist()[:2] == [1200, 3] and len(back) == 5


def test_write_csv_makes_text_inert_and_keeps_numbers(tmp_path):
    data = pd.DataFrame(
        {
            "run": ['=HYPERLINK("http://x")', "-neural", "'quoted", "plain"],
            "difference": [-0.25, 0.5, -1.0, np.nan],
            "mixed": pd.Series(["+1", -2, None, "@x"], dtype=object),
        }
    )
    path = tmp_path / "table.csv"
    write_csv(data, path)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[1:] == [
        ['\'=HYPERLINK("http://x")', "-0.25", "'+1"],
        ["'-neural", "0.5", "-2"],
        ["''quoted", "-1.0", ""],
        ["plain", "", "'@x"],
    ]


def test_csv_button_asks_with_a_qt_dialog_and_writes_the_frame(qtbot, tmp_path):
    model = model_of()
    done, errors = [], []
    button = csv_button(None, model, "per-query.csv", on_done=done.append, on_error=errors.append)
    qtbot.addWidget(button)
    assert button.text() == "Export CSV…" and button.dialog is None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = button.dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.testOption(QFileDialog.Option.DontUseNativeDialog)
    assert dialog.acceptMode() == QFileDialog.AcceptMode.AcceptSave
    target = tmp_path / "exported.csv"
    dialog.selectFile(str(target))
    dialog.accept()
    assert done == [str(target)] and not errors
    pd.testing.assert_frame_equal(
        pd.read_csv(target), model.frame.astype({"judged": "float64"}), check_dtype=False
    )
    button.write(str(tmp_path / "missing" / "folder" / "x.csv"))
    assert len(errors) == 1 and errors[0].startswith("Cannot write ")


@pytest.mark.parametrize("rows", [0, 1])
def test_small_frames_show_as_they_are(rows):
    model = FrameModel(frame().iloc[:rows])
    assert model.rowCount() == rows and model.rowCount(model.index(0, 0)) == 0
    assert model.data(QModelIndex()) is None
