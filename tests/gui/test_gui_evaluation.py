"""The evaluation and agreement pages of the window: the numbers of ``eval --db`` and
``agreement --db``, recomputed when a control or a judgment changes; the drill-down; the
adjudication round trip; File ▸ Export report…."""

from __future__ import annotations

import html
import json
import os
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pandas as pd
import pypdfium2
import pytest
from gui_support import press
from matplotlib.colors import to_hex
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QProgressDialog

from judge_app.cli import main as cli
from judge_app.gui.busy_bar import BusyBar
from judge_app.gui.workers import PROGRESS_DELAY_MS, Task
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.reports import charts
from judge_app.store import open_database, reads
from judge_app.store.people import campaign_raters
from judge_app.writers.verdicts import describe

SHOTS = os.environ.get("JUDGE_APP_SHOTS")  # a folder: save screenshots there


def printed(command: str, *args: object) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli([command, *map(str, args), "--format", "json", "--digits", "12"]) == 0
    return json.loads(out.getvalue())


def computed(qtbot, task) -> None:
    assert task is not None
    with qtbot.waitSignal(task.finished, timeout=60_000):
        pass


def shown_evaluation(qtbot, window):
    analysis = window.analysis
    with qtbot.waitSignal(analysis.evaluation_view.model.modelReset, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    return analysis.evaluation_view


def check_equal_to_cli(view, path, *options) -> None:
    expected = printed("eval", "--db", path, *options)
    table = view.model.frame.set_index("query_id")
    measure = view.options().measure
    for run in expected["runs"]:
        name = run["run"]
        summary = view.evaluation.interval(name)
        assert summary.mean == pytest.approx(run["mean"][measure], abs=1e-11)
        assert f"{summary.mean:.4f}" in view.summary.text()
        for query in run["queries"]:
            assert table.loc[query["query_id"], f"{name} NDCG"] == pytest.approx(
                query[measure], abs=1e-11
            )


def test_evaluation_view_equals_eval_db_and_recomputes_on_a_control(
    qtbot, qtmodeltester, window_anywhere, demo_anywhere
):
    window, demo_db = window_anywhere, demo_anywhere
    view = shown_evaluation(qtbot, window)
    assert window.pages.currentWidget() is view
    assert view.model.rowCount() == 16
    check_equal_to_cli(view, demo_db, "--compare")
    significance = view.evaluation.significance
    pair = significance.pairs[0]
    words = describe(significance, pair, 4)  # the command line's sentence, word for word
    assert html.escape(words) in view.summary.text()
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(demo_db), "--compare"]) == 0
    assert words in out.getvalue()  # the same sentence in eval --compare's table
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.proxy)

    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.k.setValue(3)
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert view.evaluation.options.k == 3
    check_equal_to_cli(view, demo_db, "--k", "3")

    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.aggregate.setCurrentIndex(view.aggregate.findData("rater:ben"))
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    check_equal_to_cli(view, demo_db, "--k", "3", "--aggregate", "rater:ben")

    view.filter.setText("pizza")
    assert view.proxy.rowCount() == 1 and "1 of 16" in view.count.text()


def test_drill_down_opens_with_enter_and_adds_up_to_the_ndcg(qtbot, qtmodeltester, window):
    view = shown_evaluation(qtbot, window)  # by its key: the keyboard goes on from there
    assert window.focusWidget() is view.table  # the window's focus, whenever it is active
    assert view.table.currentIndex().row() == 0
    qtbot.keyClick(view.table, Qt.Key.Key_Down)
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    dialog = view.drill_down
    assert dialog is not None and dialog.isVisible()
    explanation = dialog.explanation
    row = view.model.frame.set_index("query_id").loc[explanation.query_id]
    assert explanation.ndcg == pytest.approx(row[f"{explanation.run} NDCG"])
    assert f"{explanation.ndcg:.4f}" in dialog.formula.text()
    assert dialog.ranked_model.rowCount() == 10 and dialog.ideal_model.rowCount() == 10
    headers = [
        dialog.ranked_model.headerData(column, Qt.Orientation.Horizontal)
        for column in range(dialog.ranked_model.columnCount())
    ]
    wanted = {"ana", "ben", "chloe", "Gain", "Discount", "Gain ×\ndiscount", "DCG\nso far"}
    assert wanted <= set(headers)
    qtmodeltester.check(dialog.ranked_model)
    ranked = dialog.ranked_model.frame
    assert ranked["gain"].tolist() == ranked["grade"].fillna(0).tolist()
    assert "Gain is the grade (linear gain)" in dialog.note.text()
    dialog.run.setCurrentIndex(1)  # the other run: its own list, the same ideal order
    assert dialog.explanation.run != explanation.run
    assert dialog.explanation.idcg == pytest.approx(explanation.idcg)

    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):  # the open drill-down follows
        view.gain.setCurrentIndex(view.gain.findData("exponential"))
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    ranked, ideal = dialog.ranked_model.frame, dialog.ideal_model.frame
    assert ranked["gain"].tolist() == pytest.approx((2 ** ranked["grade"].fillna(0) - 1).tolist())
    assert ideal["discount"].tolist() == pytest.approx(ranked["discount"].tolist()[: len(ideal)])
    assert "Gain is 2^grade − 1 (exponential gain)" in dialog.note.text()
    row = view.model.frame.set_index("query_id").loc[dialog.explanation.query_id]
    assert dialog.explanation.ndcg == pytest.approx(row[f"{dialog.explanation.run} NDCG"])
    if SHOTS:
        qtbot.wait(100)  # the captions' layout
        dialog.grab().save(str(Path(SHOTS) / "drill-down.png"))


def test_drill_down_says_how_a_majority_tie_was_broken(qtbot, window):
    view = shown_evaluation(qtbot, window)
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.aggregate.setCurrentIndex(view.aggregate.findData("majority"))
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    dialog = view.open_query("q05")  # ana, ben and chloe give d0509 three different grades
    assert dialog is not None
    tie = dialog.explanation.ties["d0509"]
    assert tie.startswith("tie 1–1–1 between grades ") and "broken by the lower grade" in tie
    assert f"Majority of d0509: {tie}." in dialog.note.text()


def test_view_refreshes_when_judgments_change(qtbot, window, demo_db, tmp_path):
    view = shown_evaluation(qtbot, window)
    before = view.evaluation.interval("bm25").mean
    judgments = tmp_path / "zero.csv"
    pd.DataFrame(
        {"query_id": "q01", "doc_id": ["d0101", "d0102"], "rater": "zed", "grade": 0}
    ).to_csv(judgments, index=False)
    with redirect_stdout(StringIO()):
        assert cli(["import", str(demo_db), "--judgments", str(judgments)]) == 0
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        window.analysis._poll()  # what the timer does every few seconds
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert view.evaluation.interval("bm25").mean != before
    check_equal_to_cli(view, demo_db)


def test_agreement_view_and_adjudication_round_trip(qtbot, window_anywhere, demo_anywhere):
    window, demo_db = window_anywhere, demo_anywhere
    analysis = window.analysis
    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: analysis.report is not None, timeout=60_000)
    expected = printed("agreement", "--db", demo_db)
    alpha = analysis.report.krippendorff_alpha["ordinal"]
    assert alpha == pytest.approx(expected["krippendorff_alpha"]["ordinal"], abs=1e-11)
    worst = next(query for query in analysis.report.per_query if query.adjudicate)
    item = worst.adjudicate[0]

    analysis.agreement_view.adjudicate.emit(worst.query_id, item.doc_id)
    screen = window.adjudication
    assert window.pages.currentWidget() is screen
    qtbot.waitUntil(lambda: screen.adjudication is not None and window.task is None, timeout=60_000)
    shown = screen.adjudication.items[screen.current_row]
    assert (shown.query_id, shown.doc_id) == (worst.query_id, item.doc_id)
    assert "Adjudicating" in window.status_text()
    press(qtbot, window, Qt.Key.Key_G)
    press(qtbot, window, Qt.Key.Key_4)
    qtbot.waitUntil(lambda: screen.in_flight == 0, timeout=20_000)
    with open_database(demo_db) as database, database.reading() as reading:
        grades = reads.grades_frame(reading, [ADJUDICATED])
        choosable = [name for _id, name in campaign_raters(reading, assignable=True)]
    assert grades[["query_id", "doc_id", "grade"]].values.tolist() == [
        [worst.query_id, item.doc_id, 4.0]
    ]
    assert ADJUDICATED not in choosable  # a lead's role: not offered to raters

    # the evaluation now takes the lead's grade; agreement still leaves it out
    view = shown_evaluation(qtbot, window)
    check_equal_to_cli(view, demo_db)
    assert view.adjudicated.isEnabled() and "(1)" in view.adjudicated.text()
    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert ADJUDICATED not in analysis.report.raters


def test_generated_campaign_marks_incomplete_queries_and_equals_both_commands(
    qtbot, open_window, generated, tmp_path
):
    path = tmp_path / "generated.sqlite"
    path.write_bytes(generated.read_bytes())
    window = open_window(path, rater="ana")
    view = shown_evaluation(qtbot, window)
    check_equal_to_cli(view, path, "--compare")
    table = view.model.frame
    marked = [
        view.model.data(view.model.index(row, 0)).endswith("†")
        for row in range(view.model.rowCount())
    ]
    assert marked == table["incomplete"].tolist() and any(marked) and not all(marked)
    assert "† " in view.summary.text() and "unjudged results" in view.summary.text()
    assert view.adjudicated.isEnabled()  # the generated lead adjudicated 84 grades
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.adjudicated.setChecked(False)
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    check_equal_to_cli(view, path, "--adjudicated", "ignore")

    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: window.analysis.report is not None, timeout=60_000)
    expected = printed("agreement", "--db", path)
    report = window.analysis.report
    assert report.raters == expected["raters"] == ["ana", "ben", "chloe"]
    assert report.krippendorff_alpha["ordinal"] == pytest.approx(
        expected["krippendorff_alpha"]["ordinal"], abs=1e-11
    )
    assert report.percent_agreement == pytest.approx(expected["percent_agreement"], abs=1e-11)


@pytest.mark.parametrize("suffix", ["html", "pdf"])
def test_export_report_from_the_window(qtbot, window, tmp_path, suffix):
    view = shown_evaluation(qtbot, window)
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.k.setValue(5)
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    out = tmp_path / f"report.{suffix}"
    computed(qtbot, window.analysis.export_report(str(out)))
    assert out.exists() and str(out) in window.status_text()
    means = [f"{view.evaluation.interval(run).mean:.4f}" for run in view.evaluation.evaluations]
    if suffix == "html":
        text = out.read_text(encoding="utf-8")
    else:
        document = pypdfium2.PdfDocument(out)
        pages = len(document)
        text = " ".join(page.get_textpage().get_text_range() for page in document)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            document[0].render(scale=2).to_pil().save(Path(SHOTS) / "report-page-1.png")
        document.close()
        assert pages >= 3
    assert "NDCG@5" in text and all(mean in text for mean in means)


@pytest.mark.skipif(not SHOTS, reason="set JUDGE_APP_SHOTS=FOLDER to save screenshots")
def test_screenshots(qtbot, window):
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    window.resize(1280, 800)
    view = shown_evaluation(qtbot, window)
    view.charts.setCurrentIndex(0)
    qtbot.wait(200)
    window.grab().save(str(folder / "evaluation-view.png"))
    view.charts.setCurrentIndex(2)
    qtbot.wait(200)
    window.grab().save(str(folder / "evaluation-differences.png"))
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        qtbot.keyClicks(view.measures, "AP, Bpref, P(rel=2)@5")
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    for index in range(view.charts.count()):
        view.charts.setCurrentIndex(index)
        qtbot.wait(300)
        name = view.charts.tabText(index).lower().replace(" ", "-").replace("@", "")
        window.grab().save(str(folder / f"evaluation-measures-{name}.png"))
    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: window.analysis.report is not None, timeout=60_000)
    qtbot.wait(200)
    window.grab().save(str(folder / "agreement-view.png"))


def test_evaluation_shows_its_progress_inline_without_a_dialog(qtbot, window):
    view = shown_evaluation(qtbot, window)
    task = window.analysis.refresh_evaluation()
    assert task is not None and task.inline
    assert view.busy.isVisible() and view.busy.cancel.isVisible()
    assert not view.controls.isEnabled() and view.table.isEnabled()
    with qtbot.waitSignal(task.finished, timeout=60_000):
        pass
    assert not window.findChildren(QProgressDialog)
    assert view.busy.isHidden() and view.controls.isEnabled()


def test_inline_work_never_opens_a_dialog_and_cancels_from_the_page(qtbot, window):
    def slow(worker):
        while True:
            worker.report("reading judgments", 0, 0)
            time.sleep(0.01)

    task = Task(window, "Evaluating", slow, dialog=False)
    bar = BusyBar("testBusy")
    qtbot.addWidget(bar)
    bar.start("Computing…", task.cancel)
    task.progress.connect(bar.progress)
    task.start()
    qtbot.wait(PROGRESS_DELAY_MS + 200)
    assert task.dialog is None and bar.label.text() == "Reading judgments…"
    with qtbot.waitSignal(task.cancelled, timeout=10_000):
        qtbot.mouseClick(bar.cancel, Qt.MouseButton.LeftButton)


def test_evaluation_settings_persist_across_restarts(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    view = shown_evaluation(qtbot, window)
    view.k.setValue(5)
    view.gain.setCurrentIndex(view.gain.findData("exponential"))
    view.aggregate.setCurrentIndex(view.aggregate.findData("rater:ben"))
    view.runs.actions_["neural"].setChecked(True)
    qtbot.waitUntil(lambda: view.evaluation.options.aggregate == "rater:ben", timeout=60_000)
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    window.close()

    again = open_window(demo_db)  # a restart: a new window on the same database
    view = again.analysis.evaluation_view
    again.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(
        lambda: view.evaluation is not None and view.evaluation.options.runs == ("neural",),
        timeout=60_000,
    )
    qtbot.waitUntil(lambda: again.task is None, timeout=60_000)
    options = view.evaluation.options
    assert (options.k, options.gain, options.aggregate) == (5, "exponential", "rater:ben")
    assert view.k.value() == 5 and view.runs.text() == "neural"
    assert view.aggregate.currentData() == "rater:ben"


def test_per_query_table_fits_at_1280_and_shows_the_query_text(qtbot, window):
    window.resize(1280, 800)
    view = shown_evaluation(qtbot, window)
    scroll = view.table.horizontalScrollBar()
    qtbot.waitUntil(lambda: view.table.viewport().width() > 600, timeout=5_000)
    qtbot.waitUntil(lambda: not scroll.isVisible(), timeout=3_000)  # once laid out
    text = view.model.columns.index("query")
    index = view.proxy.index(0, text)
    assert index.data() and index.data(Qt.ItemDataRole.ToolTipRole) == index.data()
    assert view.table.columnWidth(text) >= 120
    view.show_sums.setChecked(True)  # DCG and IDCG on asking
    assert not any(view.table.isColumnHidden(c) for c in range(view.model.columnCount()))
    curve = view.canvases["curve"].figure.axes[0]
    assert any(
        line.get_xdata()[0] == 10 for line in curve.get_lines() if line.get_linestyle() == "--"
    )


def test_charts_follow_the_theme(qtbot, window):
    view = shown_evaluation(qtbot, window)
    canvas = view.canvases["curve"]
    figure = canvas.figure
    try:
        window.set_theme("dark")
        qtbot.waitUntil(lambda: canvas.drawn)  # drawn on a worker, in the theme's colours
        palette = QGuiApplication.palette()
        base = palette.color(QPalette.ColorRole.Base).name()
        assert to_hex(figure.get_facecolor()) == base != "#ffffff"
        title = figure.axes[0].title
        assert to_hex(title.get_color()) == palette.color(QPalette.ColorRole.Text).name()
    finally:
        window.set_theme("light")
    qtbot.waitUntil(lambda: canvas.drawn)
    assert to_hex(figure.get_facecolor()) == "#ffffff"
    assert to_hex(figure.axes[0].title.get_color()) == charts.INK


def test_more_measures_by_name_equal_eval_db_and_a_wrong_name_says_why(qtbot, window, demo_db):
    view = shown_evaluation(qtbot, window)
    qtbot.keyClicks(view.measures, "nDCG@10[gain=exp]")
    assert view.measures.property("error") is True
    assert "parameters come before the cut-off" in view.measures.toolTip()
    assert view.options().measures == ()  # wrong names are not computed
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)

    view.measures.clear()
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        qtbot.keyClicks(view.measures, "MAP, Bpref, P(rel=2)@5")
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert view.measures.property("error") is False
    assert view.evaluation.options.measures == ("AP", "Bpref", "P(rel=2)@5")
    expected = printed("eval", "--db", demo_db, "--measure", "MAP,Bpref,P(rel=2)@5", "--compare")
    table = view.model.frame.set_index("query_id")
    for run in expected["runs"]:
        for name in ("AP", "Bpref", "P(rel=2)@5"):
            assert view.model.headers[f"{run['run']} {name}"] == f"{run['run']}\n{name}"
            column = view.model.columns.index(f"{run['run']} {name}")
            assert not view.table.isColumnHidden(column)
            for query in run["queries"]:
                shown = table.loc[query["query_id"], f"{run['run']} {name}"]
                assert shown == pytest.approx(query[name], abs=1e-11)
    assert "More measures" in view.summary.text()
    assert f"{expected['runs'][0]['mean']['Bpref']:.4f}" in view.summary.text()
    assert view.evaluation.comparisons[0].measure == "AP"
    assert " on mean AP over " in view.summary.text()
    assert view.settings()["measures"] == "MAP, Bpref, P(rel=2)@5"


def test_more_measures_show_a_runs_count_as_its_sum(qtbot, window, demo_db):
    view = shown_evaluation(qtbot, window)
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        qtbot.keyClicks(view.measures, "AP, NumQ")
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    expected = printed("eval", "--db", demo_db, "--measure", "AP,NumQ")
    text = view.summary.text()
    assert "NumQ is a sum over the queries (as in trec_eval and ir_measures), not a mean." in text
    for run in expected["runs"]:
        assert run["sum"]["NumQ"] == run["n_queries"] > 1
        cells = f"<td align='right'>{run['mean']['AP']:.4f}</td>"
        cells += f"<td align='right'>{run['sum']['NumQ']:.4f}</td>"
        assert f"<b>{run['run']}</b></td>{cells}" in text
