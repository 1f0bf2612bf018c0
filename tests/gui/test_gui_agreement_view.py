"""The agreement view shows the numbers of ``judge-app agreement`` and opens the documents to
adjudicate."""

from __future__ import annotations

import dataclasses
import json
import os
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMainWindow

from judge_app.agreement.report import Ratings, build_report
from judge_app.agreement.tables import kappa_matrix
from judge_app.cli import main as cli
from judge_app.commands.adjudicate import Adjudication, read_disputes
from judge_app.commands.agree import AgreementOptions, agreement_of
from judge_app.commands.report import ReportOptions, gather
from judge_app.gui import theme
from judge_app.gui.agreement_view import PAIR_COLUMNS, AgreementView
from judge_app.gui.tables import SORT_ROLE
from judge_app.numbers import share_text
from judge_app.reports.document import render_html
from judge_app.store import open_database

SHOTS_ENV = "JUDGE_APP_SHOTS"


@pytest.fixture(scope="module")
def report(demo_template):
    return agreement_of(str(demo_template), AgreementOptions())


@pytest.fixture(scope="module")
def cli_record(demo_template) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["agreement", "--db", str(demo_template), "--format", "json"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture
def view(qtbot, report) -> AgreementView:
    view = AgreementView()
    qtbot.addWidget(view)
    view.resize(1280, 760)
    view.show_report(report, "demo.sqlite")
    view.show()
    return view


def shown(pane, name: str) -> list[str]:
    """The texts of column ``name`` as shown, in the order shown."""
    at = pane.model.columns.index(name)
    return [pane.proxy.index(row, at).data() for row in range(pane.proxy.rowCount())]


def four(value: float) -> str:
    return f"{value:.4f}"


def test_the_numbers_shown_are_those_of_the_agreement_command(view, cli_record, demo_db):
    assert (
        agreement_of(str(demo_db), AgreementOptions(bootstrap=0)).n_units == (cli_record["n_units"])
    )  # the demo database as every test gets it
    alpha = cli_record["krippendorff_alpha"]["ordinal"]
    low, high = cli_record["krippendorff_alpha_ci"]["ordinal"]
    assert view.alpha.text() == four(alpha)
    assert view.interval.text() == f"{four(low)} – {four(high)}"
    assert view.reading.text().startswith("Reliable, good enough to draw conclusions")
    assert view.reading.property("level") == "good"
    cards = view.cards
    assert cards["percent_agreement"].value.text() == share_text(cli_record["percent_agreement"])
    assert cards["within_one_agreement"].value.text() == (
        share_text(cli_record["within_one_agreement"])
    )
    assert cards["fleiss_kappa"].value.text() == four(cli_record["fleiss_kappa"])
    assert cards["gwet_ac1"].value.text() == four(cli_record["gwet_ac1"])
    assert cards["gwet_ac2.linear"].value.text() == four(cli_record["gwet_ac2"]["linear"])
    assert cards["gwet_ac2.quadratic"].value.text() == four(cli_record["gwet_ac2"]["quadratic"])
    assert cards["raters"].value.text() == str(cli_record["n_raters"]) == "3"
    assert cards["documents"].value.text() == f"{cli_record['n_units']:,}"

    pairs = view.pairs
    rows = list(zip(shown(pairs, "rater_a"), shown(pairs, "rater_b")))
    assert len(rows) == len(cli_record["pairwise"]) == 3
    for pair in cli_record["pairwise"]:
        row = rows.index((pair["rater_a"], pair["rater_b"]))
        for key in ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"):
            assert shown(pairs, key)[row] == four(pair[key])
        assert shown(pairs, "percent_agreement")[row] == share_text(pair["percent_agreement"])
        assert shown(pairs, "documents")[row] == str(pair["n_units"])

    raters = view.raters
    assert shown(raters, "rater") == [rater["rater"] for rater in cli_record["per_rater"]]
    for row, rater in enumerate(cli_record["per_rater"]):
        assert shown(raters, "alpha_without_rater")[row] == four(rater["alpha_without_rater"])
        assert shown(raters, "grade_5")[row] == str(rater["grades"]["5"])

    worst = min(cli_record["per_query"], key=lambda query: query["krippendorff_alpha_ordinal"])
    queries = view.queries
    assert shown(queries, "query_id")[0] == worst["query_id"]
    assert shown(queries, "alpha_ordinal")[0] == four(worst["krippendorff_alpha_ordinal"])
    at = queries.model.columns.index("alpha_ordinal")
    alphas = [queries.proxy.index(row, at).data(SORT_ROLE) for row in range(16)]
    assert alphas == sorted(alphas) and queries.count.text() == "16 queries"

    listed = sum(len(query["adjudicate"]) for query in cli_record["per_query"])
    assert view.adjudication.proxy.rowCount() == listed == 4
    assert cards["to_adjudicate"].value.text() == str(listed)
    spreads = [int(text) for text in shown(view.adjudication, "spread")]
    assert spreads == sorted(spreads, reverse=True)
    first = cli_record["per_query"]
    grades = {
        (query["query_id"], unit["doc_id"]): unit["grades"]
        for query in first
        for unit in query["adjudicate"]
    }
    for row, key in enumerate(
        zip(shown(view.adjudication, "query_id"), shown(view.adjudication, "doc_id"))
    ):
        for rater in cli_record["raters"]:
            expected = grades[key].get(rater)
            assert shown(view.adjudication, rater)[row] == (
                "–" if expected is None else str(expected)
            )


def test_a_decided_document_is_counted_as_the_agreement_command_counts_it(qtbot, demo_db):
    with open_database(demo_db) as database:
        adjudication = Adjudication(read_disputes(database))
        database.write(adjudication.decide(0, 2).write)
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["agreement", "--db", str(demo_db), "--bootstrap", "0", "--format", "json"]) == 0
    counts = json.loads(out.getvalue())["adjudication"]
    assert counts == {"disputed": 4, "decided": 1, "awaiting": 3}
    view = AgreementView()
    qtbot.addWidget(view)
    view.show_report(agreement_of(str(demo_db), AgreementOptions(bootstrap=0)), "demo")
    card = view.cards["to_adjudicate"]
    assert (card.value.text(), card.note.text()) == ("3", "left of 4 · grades ≥ 2 apart")
    assert sum(map(int, shown(view.queries, "to_adjudicate"))) == counts["awaiting"]
    assert view.adjudication.proxy.rowCount() == counts["disputed"]
    assert view.adjudication.note.text().startswith("1 of 4 decided.")


def test_every_table_model_passes_the_model_tester(view, qtmodeltester):
    for pane in (view.pairs, view.raters, view.queries, view.adjudication):
        qtmodeltester.check(pane.model)
        qtmodeltester.check(pane.proxy)


def test_the_heat_map_is_the_quadratic_kappa_of_each_pair_with_an_empty_diagonal(view, report):
    matrix = kappa_matrix(report)
    assert matrix.shape == (3, 3)
    assert all(matrix[i, i] != matrix[i, i] for i in range(3))  # NaN
    pair = report.pairwise[0]
    assert matrix[0, 1] == matrix[1, 0] == pair.cohen_kappa_quadratic
    assert view.heatmap.figure.axes[0].get_title(loc="left") == "Quadratic κ"
    assert view.grades.figure.axes[0].get_title(loc="left") == "Grades given, by rater"
    assert list(view.pairs.model.columns) == list(PAIR_COLUMNS)


def heat_map(figure) -> tuple[np.ndarray, list[str], list[str]]:
    """A kappa heat map as drawn: its cells (NaN where empty), its raters, its cells' texts."""
    axes = figure.axes[0]
    cells = np.ma.filled(axes.images[0].get_array().astype(float), np.nan)
    raters = [label.get_text() for label in axes.get_yticklabels()]
    return cells, raters, [text.get_text() for text in axes.texts]


def test_the_windows_heat_map_is_the_reports(view, report, demo_template, tmp_path):
    """One matrix for both, diagonal included: the report once printed 1.00 there."""
    drawn = {}

    def keep(figure, name: str) -> str:
        drawn[name] = figure
        return name

    render_html(gather(str(demo_template), ReportOptions(bootstrap=0)), keep)
    window_cells, window_raters, window_texts = heat_map(view.heatmap.figure)
    report_cells, report_raters, report_texts = heat_map(drawn["kappa"])
    np.testing.assert_array_equal(window_cells, report_cells)
    np.testing.assert_array_equal(window_cells, kappa_matrix(report))
    assert window_raters == report_raters == report.raters
    assert window_texts == report_texts
    assert [window_texts[4 * i] for i in range(3)] == ["–"] * 3  # the diagonal: not compared


def chosen_item(view):
    table = view.adjudication.table
    index = view.adjudication.proxy.index(1, 0)
    key = (shown(view.adjudication, "query_id")[1], shown(view.adjudication, "doc_id")[1])
    return table, index, key


def test_double_click_opens_the_document_to_adjudicate(qtbot, view):
    view.tabs.setCurrentWidget(view.adjudication.parentWidget())
    table, index, key = chosen_item(view)
    where = table.visualRect(index).center()
    with qtbot.waitSignal(view.adjudicate, check_params_cb=lambda *args: args == key):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=where)  # a user's
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=where)  # double click


def test_enter_and_the_button_open_the_chosen_document(qtbot, view):
    view.tabs.setCurrentWidget(view.adjudication.parentWidget())
    table, index, key = chosen_item(view)
    assert view.open_button.isEnabled()  # the first document is chosen at first
    table.setFocus()
    table.selectRow(index.row())
    assert view.chosen_item() == key
    with qtbot.waitSignal(view.adjudicate, check_params_cb=lambda *args: args == key):
        qtbot.keyClick(table, Qt.Key.Key_Return)
    with qtbot.waitSignal(view.adjudicate, check_params_cb=lambda *args: args == key):
        qtbot.mouseClick(view.open_button, Qt.MouseButton.LeftButton)


def test_the_chosen_document_stays_chosen_when_the_report_comes_again(view, report):
    view.adjudication.table.selectRow(2)
    chosen = view.chosen_item()
    view.show_busy("Computing agreement…")
    assert view.busy.label.text() == "Computing agreement…" and view.shown_message() is None
    view.show_report(report, "demo.sqlite")
    assert view.chosen_item() == chosen and view.busy.isHidden()


def test_the_tables_are_reached_with_tab(qtbot, view):
    view.tabs.setCurrentWidget(view.queries.parentWidget())
    view.queries.filter.setFocus()
    reached = []
    for _ in range(6):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
    assert view.queries.table in reached


def test_the_query_filter_shows_the_matching_queries(view):
    view.queries.filter.setText("Q1")  # any case
    column = view.queries.model.columns.index("alpha_ordinal")
    alphas = [view.queries.proxy.index(row, column).data(SORT_ROLE) for row in range(7)]
    assert alphas == sorted(alphas)  # still worst first
    assert set(shown(view.queries, "query_id")) == {"q10", "q11", "q12", "q13", "q14", "q15", "q16"}
    assert view.queries.count.text() == "7 of 16 queries"


def test_export_csv_writes_the_rows_of_the_table(qtbot, view, tmp_path):
    for pane, name in ((view.adjudication, "adjudicate.csv"), (view.queries, "queries.csv")):
        qtbot.mouseClick(pane.csv, Qt.MouseButton.LeftButton)
        target = tmp_path / name
        pane.csv.dialog.selectFile(str(target))
        pane.csv.dialog.accept()
        written = pd.read_csv(target, dtype={"query_id": str, "doc_id": str})
        assert len(written) == pane.model.rowCount()
        assert written["query_id"].tolist() == pane.model.frame["query_id"].tolist()
    assert written.columns.tolist() == list(view.queries.model.columns)


def test_errors_and_work_under_way_show_in_place_of_the_numbers(qtbot, report):
    view = AgreementView()
    qtbot.addWidget(view)
    assert view.shown_message() == "No agreement computed yet"
    view.show_busy("Computing agreement…")
    assert view.shown_message() == "Computing agreement…"
    assert view.message_label.property("error") is False
    view.show_report(report, "demo.sqlite")
    assert view.shown_message() is None
    view.show_error("Agreement needs two or more raters; there is only ana")
    assert view.shown_message() == "Agreement needs two or more raters; there is only ana"
    assert view.message_label.property("error") is True
    view.show_busy("Computing agreement…")  # no numbers to keep beside it
    assert view.shown_message() == "Computing agreement…"


def test_undefined_statistics_show_a_dash_and_say_why(qtbot):
    judgments = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q2"],
            "doc_id": ["d1", "d2", "d3"],
            "rater": ["ana", "ana", "ana"],
            "grade": [1, 3, 2],
        }
    )
    report = build_report(Ratings.from_frame(judgments), resamples=0)
    view = AgreementView()
    qtbot.addWidget(view)
    view.show_report(report, "one-rater.csv")
    assert view.alpha.text() == "–"
    assert "only ana" in view.alpha.toolTip() and view.reading.property("level") == "poor"
    assert view.interval.text() == "–"
    card = view.cards["fleiss_kappa"]
    assert card.value.text() == "–" and "Undefined: " in card.toolTip()
    assert shown(view.queries, "alpha_ordinal") == ["–", "–"]
    assert "only ana" in view.queries.note.text()
    assert view.adjudication.proxy.rowCount() == 0 and not view.open_button.isEnabled()


@pytest.mark.skipif(not os.environ.get(SHOTS_ENV), reason=f"set {SHOTS_ENV}=1 for screenshots")
def test_screenshot_for_review(qtbot, report):
    wanted = os.environ[SHOTS_ENV]  # a folder, or 1 for /tmp/shots
    folder = Path("/tmp/shots" if wanted == "1" else wanted)
    folder.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    theme.apply_theme(app, "light")
    sheet = theme.stylesheet("light")
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setStyleSheet(sheet)
    view = AgreementView()
    window.setCentralWidget(view)
    window.resize(1280, 800)
    view.show_report(report, "/home/lead/campaigns/demo.sqlite")
    window.show()
    qtbot.waitExposed(window)
    for tab, name in enumerate(
        (
            "agreement_view",
            "agreement_view-raters",
            "agreement_view-queries",
            "agreement_view-adjudicate",
        )
    ):
        view.tabs.setCurrentIndex(tab)
        QApplication.processEvents()
        assert window.grab().save(str(folder / f"{name}.png"))
    assert window.width() == 1280


def test_a_coefficient_that_rounds_to_zero_never_shows_a_minus(view, report):
    near_zero = dataclasses.replace(report, gwet_ac1=-0.00001, fleiss_kappa=-0.00004)
    view.show_report(near_zero, "demo.sqlite")
    assert view.cards["gwet_ac1"].value.text() == "0.0000"
    assert view.cards["fleiss_kappa"].value.text() == "0.0000"


def test_pairs_with_no_unit_in_common_are_counted_in_one_line(qtbot):
    raters = ["ana", "ben", "cy", "dan", "eve", "fay"]  # ana and ben share q1; the rest nothing
    rows = [("q1", "d1", "ana", 1), ("q1", "d1", "ben", 2), ("q1", "d2", "ana", 0)]
    rows += [("q1", "d2", "ben", 0)]
    rows += [(f"q{i}", f"d{i}", rater, 3) for i, rater in enumerate(raters[2:], start=2)]
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    report = build_report(Ratings.from_frame(judgments), resamples=0)
    view = AgreementView()
    qtbot.addWidget(view)
    view.resize(1280, 760)
    view.show_report(report, "sparse.csv")
    note = view.pairs.note.text()
    assert view.pairs.model.rowCount() == 1  # ana and ben
    assert note.splitlines()[0] == "14 pairs of raters share no document: not listed."


@pytest.mark.parametrize("width", [1280, 1024, 853])
def test_every_card_shows_its_text_whole_or_wrapped(qtbot, view, width):
    """ "136 graded by all 3" and "ana, ben, chloe" are read whole, on more lines if need be."""
    view.resize(width, 740)
    qtbot.waitUntil(lambda: view.card_grid.width() <= width)
    QApplication.processEvents()
    for key, card in view.cards.items():
        for label in (card.caption, card.value, card.note):
            room = label.contentsRect().width()
            needed = label.fontMetrics().horizontalAdvance(label.text())
            if needed > room:
                assert label.wordWrap(), (key, label.text(), needed, room)
                assert label.height() >= label.heightForWidth(label.width()), (key, label.text())
