"""The raters page (View ▸ Raters) shows the figures of ``judge-app raters``, rounded for
people: on a campaign with planted raters (fast, inconsistent, biased) and on one whose
figures are undefined; the chosen rater's drift and too-fast judgments; the quality
settings edited, saved off the UI thread and the page computed again; Export…."""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from campaign_support import plant_raters
from PySide6.QtCore import Qt

from judge_app.cli import main as cli
from judge_app.commands import rater_quality
from judge_app.gui.raters_view import NONE_OUT_OF_LINE
from judge_app.numbers import score_text, share_text, signed_text
from judge_app.store import open_database
from judge_app.store.settings import QualitySettings, quality_settings

WARNED = {  # the planted faults (tests/agreement/test_rater_quality.py): the columns that show them
    "ana": set(),
    "ben": {"too_fast_share"},
    "chloe": {"self_agreement_kappa"},
    "dan": {"gold_accuracy", "gold_bias", "alpha_contribution"},
}


@pytest.fixture(scope="module")
def planted_template(tmp_path_factory) -> Path:
    path, _ = plant_raters(tmp_path_factory.mktemp("planted"))
    return path


@pytest.fixture
def planted(planted_template, tmp_path) -> Path:
    path = tmp_path / "planted.sqlite"
    shutil.copy(planted_template, path)
    return path


def printed(path: Path, *args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["raters", str(path), *args]) == 0
    return out.getvalue()


def records(path: Path) -> dict[str, dict]:
    """``judge-app raters --format json``, by rater."""
    raters = json.loads(printed(path, "--format", "json"))["raters"]
    return {record["rater"]: record for record in raters}


def shown_raters(qtbot, window):
    """View ▸ Raters, once its figures are shown."""
    window.menus.page_actions["raters"].trigger()
    view = window.analysis.raters_view
    qtbot.waitUntil(lambda: window.task is None and view.report is not None, timeout=60_000)
    return view


def cells(view) -> dict[str, dict[str, object]]:
    """Each rater's row as shown: column → (text, tooltip, coloured)."""
    model, proxy = view.model, view.proxy
    rows = {}
    for row in range(proxy.rowCount()):
        shown = {}
        for column, name in enumerate(model.columns):
            index = proxy.index(row, column)
            shown[name] = (
                index.data(),
                index.data(Qt.ItemDataRole.ToolTipRole),
                index.data(Qt.ItemDataRole.ForegroundRole) is not None,
            )
        rows[shown["rater"][0]] = shown
    return rows


def banner(view) -> list[str]:
    """The banner's lines as shown, each whole (not cut short for want of room)."""
    labels = [label for label in view.banner_labels if label.isVisibleTo(view)]
    assert all(label.text() == label.full_text for label in labels)
    return [label.text() for label in labels]


def expected_texts(record: dict) -> dict[str, str]:
    """The figures of one rater of the JSON, rounded as judge_app.numbers rounds for people."""

    def maybe(key, show):
        return "–" if record[key] is None else show(record[key])

    return {
        "rater": record["rater"],
        "done": f"{record['done']:,}",
        "remaining": f"{record['remaining']:,}",
        "skipped": f"{record['skipped']:,}",
        "median_seconds": maybe("median_seconds", lambda value: f"{value:.1f}"),
        "per_active_hour": maybe("per_active_hour", lambda value: f"{value:,.0f}"),
        "too_fast_share": maybe("too_fast_share", share_text),
        "self_agreement_kappa": maybe("self_agreement_kappa", score_text),
        "gold_accuracy": maybe("gold_accuracy", share_text),
        "gold_bias": maybe("gold_bias", lambda value: signed_text(value, 2)),
        "alpha_with_others": maybe("alpha_with_others", score_text),
        "alpha_contribution": maybe("alpha_contribution", signed_text),
    }


def test_the_table_and_banner_show_the_raters_command_figures(
    qtbot, qtmodeltester, open_window, planted
):
    window = open_window(planted, rater=None)
    window.resize(1180, 700)  # as a first start opens it on a 1280×800 screen
    view = shown_raters(qtbot, window)
    expected = records(planted)
    shown = cells(view)
    assert set(shown) == set(expected) == set(WARNED)
    for rater, record in expected.items():
        texts = {column: cell[0] for column, cell in shown[rater].items()}
        assert texts == expected_texts(record), rater
        coloured = {column for column, cell in shown[rater].items() if cell[2]}
        assert coloured == (WARNED[rater] | {"rater"} if WARNED[rater] else set()), rater
        for column in coloured - {"rater"}:  # each says which warning of the command it is
            tooltip = shown[rater][column][1]
            assert tooltip.startswith("Out of line: ")
            assert tooltip.splitlines()[0].removeprefix("Out of line: ") in record["warnings"]
    self_agreement = shown["chloe"]["self_agreement_kappa"][1]
    chloe = expected["chloe"]
    assert f"exact {share_text(chloe['self_agreement_exact'])}" in self_agreement
    assert f"within one grade {share_text(chloe['self_agreement_within_one'])}" in self_agreement
    lines = [
        f"{rater}: {'; '.join(record['warnings'])}"
        for rater, record in sorted(expected.items())
        if record["warnings"]
    ]
    assert view.banner_lines() == lines and len(lines) == 3
    assert banner(view) == ["3 of 4 raters have figures out of line", *lines]
    assert view.banner.property("level") == "warning"
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.proxy)
    table, last = view.table, len(expected) - 1  # every row in sight, room left for the drift

    def in_sight() -> bool:
        bottom = table.rowViewportPosition(last) + table.rowHeight(last)
        return 0 < bottom <= table.viewport().height()

    qtbot.waitUntil(in_sight, timeout=5_000)  # the page is fitted once laid out
    assert view.splitter.sizes()[1] >= 230


def test_many_raters_out_of_line_fit_a_900_by_640_window(qtbot, open_window, planted):
    """The banner names four and counts the others; long names and warnings are cut with
    "…" (whole in their tooltips) rather than widening the page."""
    window = open_window(planted, rater=None)
    window.resize(900, 640)
    view = shown_raters(qtbot, window)
    dan = next(rater for rater in view.report.raters if rater.rater == "dan")
    many = [dataclasses.replace(dan, rater=f"rater-with-a-rather-long-name-{n}") for n in range(12)]
    view.show_report(dataclasses.replace(view.report, raters=many))
    minimum = window.minimumSizeHint()
    assert minimum.width() <= 900 and minimum.height() <= 640, minimum
    shown = [label for label in view.banner_labels if label.isVisibleTo(view)]
    assert len(shown) == 6 and shown[0].full_text == "12 of 12 raters have figures out of line"
    assert shown[-1].full_text == "… and 8 more: their figures are marked in the table"
    assert (
        shown[1].full_text
        == view.banner_lines()[0]
        == f"{many[0].rater}: {'; '.join(dan.warnings)}"
    )
    qtbot.waitUntil(lambda: shown[1].text().endswith("…"))  # cut where the room ends
    assert shown[1].toolTip() == shown[1].full_text
    assert (
        len(view.banner_lines()) == 12 and view.banner.toolTip().splitlines() == view.banner_lines()
    )


def test_undefined_figures_show_a_dash_and_say_why(qtbot, open_window, generated, tmp_path):
    """Imported judgments have no time, and this campaign has no repeats or gold items."""
    path = tmp_path / "generated.sqlite"
    shutil.copy(generated, path)
    window = open_window(path, rater=None)
    view = shown_raters(qtbot, window)
    expected = records(path)
    shown = cells(view)
    assert set(shown) == set(expected) == {"ana", "ben", "chloe"}  # never the adjudications
    for rater, record in expected.items():
        texts = {column: cell[0] for column, cell in shown[rater].items()}
        assert texts == expected_texts(record)
        for key in ("median_seconds", "self_agreement_kappa", "gold_accuracy", "gold_bias"):
            text, tooltip, coloured = shown[rater][key]
            assert text == "–" and tooltip == f"Undefined: {record['reasons'][key]}"
            assert not coloured
    assert not any(record["warnings"] for record in expected.values())
    assert banner(view) == view.banner_lines() == [NONE_OUT_OF_LINE]
    assert view.banner.property("level") == "good"


def test_choosing_a_rater_fills_the_drift_chart_and_the_too_fast_table(
    qtbot, open_window, planted, tmp_path
):
    window = open_window(planted, rater=None)
    window.resize(1280, 800)
    view = shown_raters(qtbot, window)
    ben = records(planted)["ben"]
    row = next(
        row for row in range(view.proxy.rowCount()) if view.proxy.index(row, 0).data() == "ben"
    )
    where = view.table.visualRect(view.proxy.index(row, 1)).center()
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert view.chosen_rater() == "ben"

    def drawn() -> tuple[list, list, list, list]:
        qtbot.waitUntil(lambda: view.drift.drawn, timeout=10_000)  # made and drawn on a worker
        top, bottom = view.drift.figure.axes
        alpha, gold = ([float(y) for y in line.get_ydata()] for line in top.get_lines())
        seconds = [bar.get_height() for bar in bottom.patches]
        labels = [label.get_text() for label in bottom.get_xticklabels()]
        return alpha, gold, seconds, labels

    def points(by: str, key: str) -> list[float]:
        return [pytest.approx(point[key], abs=1e-12) for point in ben["drift"][by]]

    alpha, gold, seconds, labels = drawn()
    assert alpha == points("by_block", "alpha_with_others")
    assert gold == points("by_block", "gold_accuracy")
    assert seconds == points("by_block", "median_seconds")
    assert labels == [point["period"] for point in ben["drift"]["by_block"]]
    qtbot.mouseClick(view.drift_buttons["day"], Qt.MouseButton.LeftButton)
    alpha, gold, seconds, labels = drawn()
    assert alpha == points("by_day", "alpha_with_others") and len(alpha) == 2
    assert seconds == points("by_day", "median_seconds")
    assert labels == [point["period"] for point in ben["drift"]["by_day"]]

    out = tmp_path / "too-fast.csv"
    printed(planted, "--format", "json", "--too-fast", str(out))
    flagged = pd.read_csv(out, dtype={"query_id": str, "doc_id": str})
    flagged = flagged[flagged["rater"] == "ben"]
    pane = view.too_fast
    assert pane.proxy.rowCount() == len(flagged) == ben["too_fast"] > 0
    columns = pane.model.columns
    rows = [
        tuple(pane.proxy.index(row, columns.index(key)).data() for key in ("query_id", "doc_id"))
        for row in range(pane.proxy.rowCount())
    ]
    assert sorted(rows) == sorted(zip(flagged["query_id"], flagged["doc_id"]))
    seconds = sorted(
        pane.proxy.index(row, columns.index("seconds")).data()
        for row in range(pane.proxy.rowCount())
    )
    assert seconds == sorted(f"{value:.1f}" for value in flagged["seconds"])
    assert pane.count.text() == f"{len(flagged)} judgments by ben"
    view.choose_rater("ana")  # never too fast
    assert pane.proxy.rowCount() == 0 and "ana" in pane.note.text()


def test_settings_are_saved_off_the_ui_thread_and_the_page_computes_again(
    qtbot, open_window, planted
):
    window = open_window(planted, rater=None)
    view = shown_raters(qtbot, window)
    before = records(planted)["ana"]["too_fast_share"]
    qtbot.mouseClick(view.settings_button, Qt.MouseButton.LeftButton)
    dialog = window.lead_dialog
    assert dialog is not None and dialog.isVisible()
    assert (dialog.min_seconds.text(), dialog.repeat_share.text()) == ("2", "10")
    dialog.min_seconds.setText("5")
    dialog.repeat_share.setText("20 %")
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert window.task is not None  # the write runs on a worker
    qtbot.waitUntil(lambda: window.task is None and view.report.min_seconds == 5, timeout=60_000)
    assert window.lead_dialog is None  # accepted, closed
    with open_database(planted) as database, database.reading() as session:
        assert quality_settings(session) == QualitySettings(5.0, 0.2)
    expected = records(planted)
    assert expected["ana"]["too_fast_share"] != before  # the new setting changes the figures
    for rater, row in cells(view).items():
        assert {column: cell[0] for column, cell in row.items()} == expected_texts(expected[rater])
    assert "under 5 s" in view.note.text()


@pytest.mark.parametrize(
    ("seconds", "share", "message"),
    [
        ("700", "10", "Not saved: the fastest credible judgment must be 0–600 seconds, not 700.0"),
        ("2", "60", "Not saved: the share of items shown again must be 0–50%, not 60%"),
        ("two", "10", "Not saved: the fastest credible judgment must be a number, not “two”"),
    ],
)
def test_a_bad_setting_says_why_and_saves_nothing(
    qtbot, open_window, planted, seconds, share, message
):
    window = open_window(planted, rater=None)
    window.menus.lead_actions["quality"].trigger()  # Lead ▸ Quality checks…
    dialog = window.lead_dialog
    dialog.min_seconds.setText(seconds)
    dialog.repeat_share.setText(share)
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.task is None and dialog.error.isVisible(), timeout=20_000)
    assert dialog.error.text() == message
    assert dialog.isVisible() and dialog.isEnabled()
    with open_database(planted) as database, database.reading() as session:
        assert quality_settings(session) == QualitySettings(2.0, 0.1)


def test_view_raters_computes_off_the_ui_thread_and_again_after_grades_change(
    qtbot, open_window, planted, tmp_path, monkeypatch
):
    threads = []
    computed = rater_quality.quality_report

    def recording(*args, **kwargs):
        threads.append(threading.current_thread())
        return computed(*args, **kwargs)

    monkeypatch.setattr(rater_quality, "quality_report", recording)
    window = open_window(planted, rater=None)
    window.menus.page_actions["raters"].trigger()
    task, view = window.task, window.analysis.raters_view
    assert task is not None and task.inline and task.running  # the UI thread goes on
    assert view.shown_message() == "Computing the raters' figures…"
    qtbot.waitUntil(lambda: window.task is None and view.report is not None, timeout=60_000)
    assert threads and threading.main_thread() not in threads
    assert window.analysis.shown_page() == "raters" and window.windowTitle().endswith("raters")

    window.analysis.show_agreement()  # away, then back with nothing changed: no new work
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    window.analysis.show_raters()
    assert window.task is None and len(threads) == 1

    judgments = tmp_path / "zed.csv"
    pd.DataFrame(
        {"query_id": "q00", "doc_id": ["q00-d00", "q00-d01"], "rater": "zed", "grade": 3}
    ).to_csv(judgments, index=False)
    with redirect_stdout(StringIO()):
        assert cli(["import", str(planted), "--judgments", str(judgments)]) == 0
    window.analysis._poll()  # what the timer does every few seconds while the page is shown
    qtbot.waitUntil(lambda: window.task is None and "zed" in cells(view), timeout=60_000)
    assert view.model.rowCount() == 5


def test_export_writes_the_raters_command_csv(qtbot, open_window, planted, tmp_path):
    window = open_window(planted, rater=None)
    view = shown_raters(qtbot, window)
    qtbot.mouseClick(view.export, Qt.MouseButton.LeftButton)
    target = tmp_path / "raters.csv"
    view.export.dialog.selectFile(str(target))
    view.export.dialog.accept()
    assert target.read_text(encoding="utf-8") == printed(planted, "--format", "csv")
    assert str(target) in window.status_text()
