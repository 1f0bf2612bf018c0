"""Preference judgments on the evaluation and raters pages: where raters made some, each run's
compatibility with them (Compat) beside NDCG, per query and on average with its interval, and
the runs compared on it, the numbers of ``eval --db --measure Compat --compare``; each
rater's preference judgments and intransitive triples, those of ``judge-app raters``; the
pages computed again when a preference changes. Without preferences, nothing of them shows."""

from __future__ import annotations

import json
import math
from contextlib import redirect_stdout
from io import StringIO

import pytest
from preference_support import noisy_preferences, with_preferences
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from judge_app.agreement.preference_agreement import intransitive_triples
from judge_app.cli import main as cli
from judge_app.numbers import MISSING, score_text, share_text
from judge_app.store import open_database
from judge_app.store.preferences import preferences_frame


def printed(*args: object) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli([*map(str, args), "--format", "json"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture
def preferring(demo_template, tmp_path):
    return with_preferences(demo_template, tmp_path)


def shown_evaluation(qtbot, window):
    with qtbot.waitSignal(window.analysis.evaluation_view.model.modelReset, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    return window.analysis.evaluation_view


def shown_raters(qtbot, window):
    window.menus.page_actions["raters"].trigger()
    view = window.analysis.raters_view
    qtbot.waitUntil(lambda: window.task is None and view.report is not None, timeout=60_000)
    return view


def summary_text(view) -> str:
    """The summary as a reader sees it (its HTML laid out as plain text)."""
    document = QTextDocument()
    document.setHtml(view.summary.text())
    return document.toPlainText().replace("\u2060", "").replace("\u00a0", " ")


def check_equal_to_cli(view, path) -> None:
    """The page's Compat (per query, per run with its interval) and its comparison in words
    are those of ``eval --db --measure Compat --compare``."""
    expected = printed("eval", "--db", path, "--measure", "Compat", "--compare")["preferences"]
    found = view.evaluation.preferences
    table = view.model.frame.set_index("query_id")
    summary = summary_text(view)
    for record in expected["runs"]:
        run = record["run"]
        interval = found.interval(run)
        shown = record["interval"]
        assert (interval.mean, interval.low, interval.high) == (
            shown["mean"], shown["low"], shown["high"]
        )  # fmt: skip
        assert score_text(interval.mean) in summary
        assert f"{score_text(interval.low)} – {score_text(interval.high)}" in summary
        values = {query["query_id"]: query["Compat"] for query in record["queries"]}
        column = table[f"{run} Compat"]
        assert column.dropna().to_dict() == values
        assert column.isna().sum() == len(table) - len(values)  # "–" where a query has none
    for pair in expected["significance"]["pairs"]:
        assert pair["summary"] in summary  # in the words of the command line


def test_the_evaluation_page_shows_compat_as_eval_does(qtbot, open_window, preferring):
    window = open_window(preferring)
    view = shown_evaluation(qtbot, window)
    check_equal_to_cli(view, preferring)
    columns = view.model.columns
    assert columns.index("bm25 Compat") == columns.index("difference") + 1  # beside NDCG
    header = view.model.headerData(columns.index("neural Compat"), Qt.Orientation.Horizontal)
    assert header == "neural\nCompat"
    row = view.model.frame.index[view.model.frame["query_id"] == "q11"][0]
    assert view.model.column_texts(columns.index("bm25 Compat"))[row] == MISSING
    summary = summary_text(view)
    assert "Mean Compat · 10 queries" in summary and "(10 have one)" in summary


def test_a_changed_preference_computes_the_page_again(qtbot, open_window, preferring, tmp_path):
    window = open_window(preferring)
    view = shown_evaluation(qtbot, window)
    before = view.evaluation.preferences.interval("bm25").mean
    reversed_ = (
        noisy_preferences(preferring)
        .query("query_id == 'q01'")
        .assign(
            choice=lambda frame: frame["choice"].map({"a": "b", "b": "a"}).fillna(frame["choice"])
        )
    )
    source = tmp_path / "reversed.csv"
    reversed_.to_csv(source, index=False)
    with redirect_stdout(StringIO()):
        assert cli(["preferences", "import", str(preferring), str(source)]) == 0
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        window.analysis._poll()  # what the timer does every few seconds
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert view.evaluation.preferences.interval("bm25").mean != before
    check_equal_to_cli(view, preferring)


def test_without_preferences_nothing_of_them_shows(qtbot, window, demo_db):
    view = shown_evaluation(qtbot, window)
    assert view.evaluation.preferences is None
    assert not [column for column in view.model.columns if "Compat" in column]
    assert "Compat" not in view.summary.text()
    raters = shown_raters(qtbot, window)
    assert "preferences" not in raters.model.columns
    assert "intransitive_share" not in raters.model.columns


def test_the_raters_page_shows_each_rater_s_preferences_and_intransitive_triples(
    qtbot, open_window, preferring
):
    window = open_window(preferring)
    view = shown_raters(qtbot, window)
    records = {
        record["rater"]: record for record in printed("raters", preferring)["raters"]
    }  # what judge-app raters says
    with open_database(preferring) as database, database.reading() as session:
        frame = preferences_frame(session)
    triples = intransitive_triples(frame).set_index("rater")  # what preferences summary says
    columns = view.model.columns
    assert columns[-2:] == ["preferences", "intransitive_share"]
    for row, rater in enumerate(view.model.column_values(0)):
        record = records[rater]
        assert record["preferences"] == (frame["rater"] == rater).sum()
        assert (record["cyclic_triples"], record["ordered_triples"]) == (
            triples.at[rater, "cyclic"], triples.at[rater, "triples"]
        )  # fmt: skip
        assert record["intransitive_share"] == triples.at[rater, "share"]
        texts = {
            column: view.model.column_texts(index)[row] for index, column in enumerate(columns)
        }
        assert texts["preferences"] == f"{record['preferences']:,}"
        assert texts["intransitive_share"] == share_text(record["intransitive_share"])
        tip = view.model.note(row, columns.index("intransitive_share"))
        assert tip is not None and tip[0] == (
            f"{record['cyclic_triples']:,} of {record['ordered_triples']:,} ordered triples "
            "are cyclic"
        )
    assert any(not math.isclose(record["intransitive_share"], 0) for record in records.values())


def test_the_agreement_page_shows_the_preference_agreement_of_the_summary_and_report(
    qtbot, open_window, preferring
):
    """The Preferences tab: the share agreeing and alpha with their bootstrap intervals, the
    numbers ``preferences summary`` prints (and the report shows), in full precision in the
    table's model; hidden where no one made a preference."""
    from judge_app.agreement.preference_agreement import preference_agreement
    from judge_app.commands.preferences import summarise_preferences, summary_text

    window = open_window(preferring)
    analysis = window.analysis
    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: analysis.report is not None and window.task is None, timeout=60_000)
    view = analysis.agreement_view
    assert view.tabs.isTabVisible(view.preferences_tab)
    with open_database(preferring) as database, database.reading() as session:
        oracle = preference_agreement(preferences_frame(session))
    row = view.preferences.model.frame.iloc[0]
    assert row["pairs"] == oracle.units
    assert row["share"] == oracle.share.value and row["alpha"] == oracle.alpha.value
    assert (row["share_low"], row["share_high"]) == oracle.share_interval.bounds
    assert (row["alpha_low"], row["alpha_high"]) == oracle.alpha_interval.bounds
    said = summary_text(summarise_preferences(preferring))
    model = view.preferences.model
    shown = [model.index(0, column).data() for column in range(model.columnCount())]
    assert f"share agreeing {shown[1]} [{shown[2]}, {shown[3]}]" in said
    assert f"Krippendorff's alpha (nominal) {shown[4]} [{shown[5]}, {shown[6]}]" in said


def test_without_preferences_the_agreement_page_has_no_preferences_tab(qtbot, window):
    analysis = window.analysis
    window.menus.page_actions["agreement"].trigger()
    qtbot.waitUntil(lambda: analysis.report is not None and window.task is None, timeout=60_000)
    view = analysis.agreement_view
    assert not view.tabs.isTabVisible(view.preferences_tab)
