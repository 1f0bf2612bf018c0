"""The lead's pages fit the window: the evaluation's summary without a scrollbar of its own,
its chart tabs whole, its charts' axes inside what is shown."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PySide6.QtWidgets import QApplication, QStyle

from judge_app.gui.evaluation_view import NameMenu, _natural_width, _runs_html

TAB_PADDING = 12  # a tab's margins beside its text, at the least


def evaluation_at(qtbot, window, width: int, height: int):
    """The evaluation page computed and laid out in a window of ``width`` × ``height``."""
    window.resize(width, height)
    view = window.analysis.evaluation_view
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    qtbot.waitUntil(lambda: window.width() == width and window.height() == height)
    QApplication.processEvents()
    return view


def test_the_evaluation_summary_needs_no_scrollbar_of_its_own(qtbot, open_window, demo_db):
    view = evaluation_at(qtbot, open_window(demo_db), 1280, 800)
    scroll = view.summary_area.verticalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() == 0, timeout=3_000)
    assert view.summary_area.height() >= view.summary.heightForWidth(view.summary.width())


@pytest.mark.parametrize("size", [(1280, 800), (1024, 738)])
def test_every_chart_tab_is_shown_whole(qtbot, open_window, demo_db, size):
    view = evaluation_at(qtbot, open_window(demo_db), *size)
    bar = view.charts.tabBar()
    for index in range(bar.count()):
        text = bar.tabText(index)
        needed = bar.fontMetrics().horizontalAdvance(text) + TAB_PADDING
        assert bar.tabRect(index).width() >= needed, text
        assert bar.rect().contains(bar.tabRect(index)), text  # not scrolled out of sight


@pytest.mark.parametrize("size", [(1280, 800), (1024, 738), (1024, 600)])
def test_a_charts_axes_are_inside_what_is_shown(qtbot, open_window, demo_db, size):
    """The chart is drawn no taller than its tab shows it, and at that size its title, axis
    labels and tick labels lie inside the figure (constrained layout): the tick labels
    and axis labels are drawn."""
    view = evaluation_at(qtbot, open_window(demo_db), *size)
    for key, canvas in view.canvases.items():
        view.charts.setCurrentWidget(canvas)
        qtbot.waitUntil(lambda canvas=canvas: canvas.drawn, timeout=10_000)
        shown = canvas.parentWidget()  # the tab widget's page
        assert canvas.height() <= shown.height(), key
        figure = canvas.figure
        renderer = FigureCanvasAgg(figure).get_renderer()
        figure.draw(renderer)
        box = figure.bbox
        for axes in figure.axes:  # what is drawn of it: ticks, their labels, axis labels, title
            drawn = axes.get_tightbbox(renderer)
            assert drawn is not None
            assert box.x0 - 1 <= drawn.x0 and drawn.x1 <= box.x1 + 1, (key, drawn, box)
            assert box.y0 - 1 <= drawn.y0 and drawn.y1 <= box.y1 + 1, (key, drawn, box)


@pytest.mark.parametrize("size", [(1280, 800), (1024, 738)])
def test_the_per_query_numbers_need_no_sideways_scrolling(qtbot, open_window, demo_db, size):
    """The run columns are headed by the run alone ("bm25 / NDCG"; the k is the caption's:
    "PER QUERY · NDCG@10"), so a small screen shows every number of a query's row."""
    view = evaluation_at(qtbot, open_window(demo_db), *size)
    assert view.pane.caption.text() == "PER QUERY · NDCG@10"
    scroll = view.table.horizontalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() == 0, timeout=3_000)


@pytest.mark.parametrize("size", [(1280, 800), (1024, 738)])
def test_the_summarys_table_of_runs_is_never_cut(qtbot, open_window, demo_db, size):
    """Each run's mean, interval and judged share sit on one line each, whole: the per-query
    table gives up the width they need. One count of queries goes in the title."""
    view = evaluation_at(qtbot, open_window(demo_db), *size)
    needed = _natural_width(_runs_html(view.evaluation, width=""), view.summary.font())
    assert needed <= view.summary.contentsRect().width()
    assert "Mean NDCG@10 <span style='font-weight:400'>· 16 queries</span>" in view.summary.text()
    assert "queries</td>" not in view.summary.text()


def test_a_drop_down_of_names_has_room_for_its_text_and_its_arrow(qtbot, open_window, demo_db):
    view = evaluation_at(qtbot, open_window(demo_db), 1024, 738)
    for menu in view.findChildren(NameMenu):
        arrow = menu.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, None, menu)
        text = menu.fontMetrics().horizontalAdvance(menu.text())
        assert menu.width() >= text + arrow + TAB_PADDING, menu.text()
