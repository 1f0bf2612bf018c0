"""The evaluation page's Grades control: humans, humans corrected by an automatic judge, the
judge alone; the same numbers as ``eval --db --judge``."""

from __future__ import annotations

import json
import os
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from campaign_support import judged_by_machine

from judge_app.cli import main as cli

SHOTS = os.environ.get("JUDGE_APP_SHOTS")


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("judged")
    return judged_by_machine(folder / "judged.sqlite", folder)


@pytest.fixture
def path(judged, tmp_path) -> Path:
    copy = tmp_path / "judged.sqlite"
    copy.write_bytes(judged.read_bytes())
    return copy


def _printed(*args: object) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", *map(str, args), "--format", "json"]) == 0
    return json.loads(out.getvalue())


def _evaluation_page(qtbot, window):
    view = window.analysis.evaluation_view
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    return view


def _choose(qtbot, window, view, data: str) -> None:
    with qtbot.waitSignal(view.model.modelReset, timeout=60_000):
        view.grades.setCurrentIndex(view.grades.findData(data))
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)


def test_grades_control_equals_eval_judge(qtbot, open_window, path):
    window = open_window(path, rater="ana")
    view = _evaluation_page(qtbot, window)
    offered = [view.grades.itemText(index) for index in range(view.grades.count())]
    assert offered == ["humans", "humans corrected by lenient", "lenient alone"]
    assert "corrected" not in view.summary.text()

    _choose(qtbot, window, view, "corrected:lenient")
    expected = _printed("--db", path, "--judge", "lenient")
    corrected = view.evaluation.corrected
    assert corrected is not None
    text = view.summary.text()
    assert "humans corrected by lenient" in text and "30 of 120 queries" in text
    for run in expected["runs"]:
        shown = corrected.runs[run["run"]].corrected
        assert [shown.low, shown.high] == pytest.approx(run["ppi_interval"], abs=1e-12)
        assert f"{shown.mean:.4f}" in text

    _choose(qtbot, window, view, "automatic:lenient")
    expected = _printed("--db", path, "--judge", "lenient", "--grades", "automatic")
    assert view.model.rowCount() == 120  # every query the judge graded
    for run in expected["runs"]:
        assert view.evaluation.interval(run["run"]).mean == pytest.approx(
            run["mean"]["ndcg@10"], abs=1e-12
        )
    assert "biased" in view.summary.text()
    if SHOTS:
        _choose(qtbot, window, view, "corrected:lenient")
        window.resize(1280, 800)
        qtbot.wait(300)
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(SHOTS) / "evaluation-corrected.png"))
