"""The Automatic judges page (View ▸ Automatic judges) shows the figures of ``judge-app
calibrate --format json``, rounded for people: on the lenient judge of tests/commands/test_calibrate.py;
a second judge appears when it grades and can be chosen; without a judge, the page says what
to do and its "Grade with a judge…" opens Lead ▸ Automatic judge…."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from automatic_support import JUDGE, add_automatic_grades, few_runs_campaign, lenient_campaign
from gui_support import calibrated_json, shown_calibration
from PySide6.QtCore import Qt

from judge_app.gui.autojudge_dialog import AutojudgeDialog
from judge_app.gui.calibration_view import EMPTY, GRADE_BUTTON, ConfusionModel
from judge_app.numbers import grade_shift_text, grade_text, score_text, share_text, signed_text


@pytest.fixture(scope="module")
def lenient_template(tmp_path_factory) -> tuple[Path, object]:
    path, _, grades = lenient_campaign(tmp_path_factory.mktemp("lenient"))
    return path, grades


@pytest.fixture
def lenient(lenient_template, tmp_path) -> Path:
    path = tmp_path / "lenient.sqlite"
    shutil.copy(lenient_template[0], path)
    return path


def test_the_page_shows_the_command_figures(qtbot, open_window, lenient):
    record = calibrated_json(lenient)
    window = open_window(lenient, rater=None)
    view = shown_calibration(qtbot, window)
    assert window.windowTitle().endswith("automatic judges")
    assert view.chosen_judge() == JUDGE
    cards = {key: (card.value.text(), card.note.text()) for key, card in view.cards.items()}
    kappa = record["cohen_kappa_quadratic"]
    low, high = kappa["interval"]
    assert cards["kappa"] == (score_text(kappa["value"]), f"{score_text(low)}–{score_text(high)}")
    assert cards["alpha"][0] == score_text(record["krippendorff_alpha_ordinal"]["value"])
    assert cards["bias"] == (signed_text(record["mean_bias"], 2), "lenient")
    assert cards["exact"][0] == share_text(record["exact_agreement"])
    ranking = record["ranking"]
    assert cards["tau"] == (
        score_text(ranking["kendall_tau"]),
        f"top {ranking['top_runs']}: {score_text(ranking['top_kendall_tau'])}",
    )
    assert view.finding_texts() == record["findings"]
    assert view.finding_texts()[1].endswith("— lenient")  # after the best runs' τ
    model = view.confusion_model
    matrix = record["confusion"]["matrix"]
    assert [[int(model.text(r, c).replace(",", "")) for c in range(6)] for r in range(6)] == matrix
    biased = [row["bias"] for row in record["bias_by_grade"]]
    assert [model.text(r, 8) for r in range(6)] == [grade_shift_text(value) for value in biased]
    higher = model.index(0, 1).data(Qt.ItemDataRole.BackgroundRole)
    same = model.index(0, 0).data(Qt.ItemDataRole.BackgroundRole)
    assert higher is not None and same is not None and higher.color() != same.color()
    shown_runs = view.ranking.model.frame
    assert list(shown_runs["run"]) == [run["run"] for run in ranking["runs"]]
    best = f"among the best 3 of the 6 runs: {score_text(ranking['top_kendall_tau'])}"
    assert f"; {best}" in view.ranking.note.text()  # the words of calibrate's table
    assert list(shown_runs["judge_rank"]) == [run["judge_rank"] for run in ranking["runs"]]
    queries = view.queries.model.frame
    expected = record["disagreeing_queries"]
    assert list(queries["query_id"]) == [query["query_id"] for query in expected]
    assert view.queries.model.column_texts(3)[0] == grade_text(
        expected[0]["mean_absolute_difference"]
    )


def test_a_new_judge_appears_and_can_be_chosen(qtbot, open_window, lenient, lenient_template):
    window = open_window(lenient, rater=None)
    view = shown_calibration(qtbot, window)
    grades = lenient_template[1]
    strict = grades.assign(grade=(grades["grade"] - 1.2).clip(lower=0))
    add_automatic_grades(lenient, "strict-model", strict)
    window.analysis.poll.timeout.emit()  # as the page's poll finds the change
    qtbot.waitUntil(lambda: view.chooser.count() == 2 and window.task is None, timeout=60_000)
    assert view.chosen_judge() == JUDGE
    view.chooser.setCurrentIndex(1)
    view.chooser.activated.emit(1)
    qtbot.waitUntil(
        lambda: view.report is not None and view.report.judge.name == "strict-model",
        timeout=60_000,
    )
    record = calibrated_json(lenient, "strict-model")
    assert view.cards["kappa"].value.text() == score_text(record["cohen_kappa_quadratic"]["value"])
    assert "lower than humans on average — strict" in view.finding_texts()[1]


def test_with_two_runs_the_page_says_why_the_best_half_has_no_tau(qtbot, open_window, tmp_path):
    path = few_runs_campaign(tmp_path, 2)
    window = open_window(path, rater=None)
    view = shown_calibration(qtbot, window)
    assert view.chosen_judge() == "local"
    assert view.ranking.note.text().endswith(
        "; among the best half of the runs: – (needs three or more runs, two in the best half; "
        "there are 2)."
    )
    assert "None" not in view.judge_line.toolTip()
    assert "model: –" in view.judge_line.toolTip()


def test_without_a_judge_the_page_says_what_to_do(qtbot, open_window, demo_db):
    window = open_window(demo_db, rater=None)
    view = shown_calibration(qtbot, window)
    assert view.shown_message() == EMPTY
    assert "Lead ▸ Automatic judge…" in EMPTY
    button = view.empty_button
    assert button.isVisibleTo(view) and button.text() == GRADE_BUTTON
    with qtbot.waitSignal(window.analysis.gradeWithJudgeRequested, timeout=1000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert isinstance(window.lead_dialog, AutojudgeDialog)  # as Lead ▸ Automatic judge… opens
    window.lead_dialog.reject()


def test_the_confusion_model_passes_the_model_tester(qtmodeltester, lenient_template):
    from judge_app.commands.calibrate import calibrate_of
    from judge_app.evaluation.calibration import CalibrationOptions

    calibration = calibrate_of(str(lenient_template[0]), CalibrationOptions(judge=JUDGE))
    model = ConfusionModel()
    model.set_figures(calibration.confusion, calibration.by_grade)
    qtmodeltester.check(model)
