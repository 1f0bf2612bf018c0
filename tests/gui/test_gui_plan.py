"""The evaluation page's planning panel says what ``judge-app plan`` prints for the same
campaign, computed off the UI thread, and follows its Δ, power and α."""

from __future__ import annotations

from contextlib import redirect_stdout
from io import StringIO

from judge_app.cli import main as cli
from judge_app.commands.plan import Plan


def cli_sentence(path, *args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["plan", str(path), *args]) == 0
    return out.getvalue().splitlines()[0]


def test_panel_says_what_the_cli_prints(qtbot, window, demo_db):
    analysis = window.analysis
    panel = analysis.evaluation_view.plan
    with qtbot.waitSignal(panel.planned, timeout=60_000) as shown:
        window.menus.page_actions["evaluation"].trigger()
    assert isinstance(shown.args[0], Plan)
    expected = cli_sentence(demo_db, "--delta", "0.02")
    assert panel.words.text() == expected
    assert "you need" in expected and "(you have 16)" in expected
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)

    with qtbot.waitSignal(panel.planned, timeout=60_000):
        panel.delta.setValue(0.05)
        panel.power.setValue(0.9)
        panel.alpha.setValue(0.01)
    assert panel.words.text() == cli_sentence(
        demo_db, "--delta", "0.05", "--power", "0.9", "--alpha", "0.01"
    )
    assert panel.task is None or not panel.task.running


def test_panel_follows_the_pages_runs(qtbot, window, demo_db):
    """One run chosen on the page: the plan of that run alone (twice its variance)."""
    analysis = window.analysis
    view, panel = analysis.evaluation_view, analysis.evaluation_view.plan
    with qtbot.waitSignal(panel.planned, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    with qtbot.waitSignal(panel.planned, timeout=60_000) as shown:
        view.runs.actions_["bm25"].setChecked(True)
    assert not shown.args[0].variance.pooled
    assert panel.words.text() == cli_sentence(demo_db, "--delta", "0.02", "--run", "bm25")
