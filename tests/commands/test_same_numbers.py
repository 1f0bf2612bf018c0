"""One question, one number: the same evaluation options give the same numbers through
``judge-app eval --db``, the evaluation page, the report the window exports (HTML and PDF)
and ``judge-app report``; and the drifts that once made them differ stay fixed."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from contextlib import redirect_stdout
from io import StringIO

import pytest

from judge_app.cli import main as cli
from judge_app.commands.evaluate import evaluate
from judge_app.commands.report import ReportOptions, gather
from judge_app.evaluation import engine
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.numbers import signed_text

CASES = {
    "exponential gain": {"k": 5, "gain": "exponential"},
    "retrieved ideal": {"ideal": "retrieved"},
    "condensed lists": {"unjudged": "condensed"},
    "one rater": {"aggregate": "rater:ben"},
    "adjudicated ignored": {"adjudicated": False},
}


def said(*args: object) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli([str(arg) for arg in args]) == 0
    return out.getvalue()


def flags(case: dict) -> list[str]:
    """The command line's flags for a case of the page's controls."""
    args = ["--k", str(case.get("k", 10))]
    for name in ("gain", "ideal", "unjudged", "aggregate"):
        if name in case:
            args += [f"--{name}", case[name]]
    if case.get("adjudicated") is False:
        args += ["--adjudicated", "ignore"]
    return args


def set_controls(qtbot, window, view, case: dict) -> None:
    """Set the evaluation page's controls as ``case`` says, and wait for its numbers."""
    changes = [
        (view.k, "setValue", case.get("k", 10)),
        *(
            (getattr(view, name), "setCurrentIndex", getattr(view, name).findData(case[name]))
            for name in ("gain", "ideal", "unjudged", "aggregate")
            if name in case
        ),
    ]
    if "adjudicated" in case:
        changes.append((view.adjudicated, "setChecked", case["adjudicated"]))
    for widget, setter, value in changes:
        getattr(widget, setter)(value)
        qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    view.changed.emit()  # one more, once every control is set
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)


def means_section(text: str) -> str:
    """The report's table of each run's mean NDCG with its interval."""
    return text.split("<h2>Mean NDCG@", 1)[1].split("<h2", 1)[0]


def compared_section(text: str) -> str:
    """The report's runs compared: the matrix, the groups, the pairs and the verdicts."""
    return text.split("<h2>Runs compared on NDCG@", 1)[1].split("<h2", 1)[0]


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_page_command_line_and_reports_give_the_same_numbers(
    qtbot, open_window, generated, tmp_path, case
):
    path = tmp_path / "campaign.sqlite"
    path.write_bytes(generated.read_bytes())
    window = open_window(path, "ana")
    window.menus.page_actions["evaluation"].trigger()
    qtbot.waitUntil(lambda: window.task is None and window.analysis.campaign is not None)
    view = window.analysis.evaluation_view
    set_controls(qtbot, window, view, case)
    shown = view.evaluation
    assert shown.options.record() | {"seed": 0} == view.options().record() | {"seed": 0}

    printed = json.loads(said("eval", "--db", path, *flags(case), "--compare", "--format", "json"))
    measure = shown.options.measure
    for run in printed["runs"]:
        interval = shown.interval(run["run"])
        assert interval.mean == run["mean"][measure]  # to the last bit
        assert (interval.low, interval.high) == (run["interval"]["low"], run["interval"]["high"])
        assert (interval.method, run["interval"]["method"]) == ("t", "t")
    for ours, theirs in zip(shown.comparisons, printed["comparisons"], strict=True):
        assert ours.mean_difference == theirs["mean_difference"]
        assert ours.randomization_p_value == theirs["randomization_p"]
    pairs = printed["significance"]["pairs"]
    for ours, theirs in zip(shown.significance.pairs, pairs, strict=True):
        assert ours.comparison.mean_difference == theirs["mean_difference"]
        interval = shown.significance.interval(ours)  # the one interval of the difference
        assert (interval.low, interval.high) == (theirs["interval_low"], theirs["interval_high"])
        assert interval.method == theirs["interval_method"]
        assert (ours.hsd_p_value, ours.effect.d_z) == (theirs["hsd_p"], theirs["d_z"])
        for test, result in ours.tests.items():
            assert (result.p_value, result.holm, result.bh) == (
                theirs[f"{test}_p"], theirs[f"{test}_p_holm"], theirs[f"{test}_p_bh"]
            )  # fmt: skip
    matrix = view.matrix.model  # the page's matrix of runs: other − baseline below the diagonal
    assert matrix.data(matrix.index(1, 0)) == signed_text(pairs[0]["mean_difference"])

    exported = tmp_path / "window.html"
    with qtbot.waitSignal(window.analysis.export_report(str(exported)).finished, timeout=60_000):
        pass
    command = tmp_path / "command.html"
    said("report", path, "--out", command, *flags(case), "--bootstrap", "0")
    table = means_section(exported.read_text(encoding="utf-8"))
    assert table == means_section(command.read_text(encoding="utf-8"))
    section = compared_section(exported.read_text(encoding="utf-8"))
    assert section == compared_section(command.read_text(encoding="utf-8"))
    assert f">{signed_text(pairs[0]['mean_difference'])}<" in section  # the matrix's cell
    assert all(html.escape(pair["summary"]) in section for pair in pairs)  # the verdicts
    for run in shown.evaluations:
        interval = shown.interval(run)
        # the cell eval's table prints: the mean and its interval
        assert f"{interval.mean:.4f} [{interval.low:.4f}, {interval.high:.4f}]" in table
    if case.get("gain") == "exponential":  # the PDF: the same document, printed
        import pypdfium2

        pdf = tmp_path / "window.pdf"
        with qtbot.waitSignal(window.analysis.export_report(str(pdf)).finished, timeout=60_000):
            pass
        document = pypdfium2.PdfDocument(pdf)
        text = " ".join(page.get_textpage().get_text_range() for page in document)
        document.close()
        assert "NDCG@5" in text and "exponential" in text
        assert all(f"{shown.interval(run).mean:.4f}" in text for run in shown.evaluations)


def test_every_runs_interval_is_the_same_in_the_table_and_the_report(generated, tmp_path):
    """A run's mean has one interval, the t interval, whatever the seed (no resampling)."""

    def intervals(text: str) -> list[str]:
        return re.findall(r"\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]", text)

    by_seed = {seed: intervals(said("eval", "--db", generated, "--seed", seed)) for seed in (0, 7)}
    assert len(by_seed[0]) == 2 and by_seed[0] == by_seed[7]
    out = tmp_path / "seven.html"
    said("report", generated, "--out", out, "--seed", 7, "--bootstrap", "0")
    table = means_section(out.read_text(encoding="utf-8"))
    assert "(95% t)" in table and "95% Student t interval" in table  # the method, named
    for shown in by_seed[7]:
        assert f">{shown}<" in table  # eval's cell, mean and interval


def test_a_list_of_raters_is_trimmed_and_unknown_ones_are_usage_errors(generated, capsys):
    spaced = json.loads(said("eval", "--db", generated, "--raters", "ana, ben", "--format", "json"))
    tight = json.loads(said("eval", "--db", generated, "--raters", "ana,ben", "--format", "json"))
    assert spaced["settings"]["raters"] == ["ana", "ben"] and spaced["runs"] == tight["runs"]
    assert cli(["eval", "--db", str(generated), "--raters", "nobody"]) == 2
    assert "has no rater 'nobody' (raters it has: adjudicated, ana, ben, chloe)" in (
        capsys.readouterr().err
    )


def test_the_report_evaluates_once(generated, monkeypatch):
    calls = []
    real = engine.evaluate_codes
    monkeypatch.setattr(engine, "evaluate_codes", lambda *a, **k: calls.append(1) or real(*a, **k))
    data = gather(str(generated), ReportOptions(bootstrap=0))
    assert len(calls) == len(data.evaluations) == 2  # one evaluation per run, curve included


def test_the_report_leaves_out_the_ranking_stability_it_does_not_show(generated):
    data = gather(str(generated), ReportOptions(bootstrap=0))
    assert data.agreement is not None and data.agreement.ranking_stability is None
    assert data.agreement.reasons["ranking_stability"] == "the report does not show it"


def test_machine_formats_carry_full_precision_unless_told(generated):
    result = evaluate(EvaluationRequest(EvaluationOptions()), str(generated))
    document = json.loads(said("eval", "--db", generated, "--format", "json"))
    alpha = result.evaluations["alpha"].values["ndcg@10"].mean()
    assert document["runs"][0]["mean"]["ndcg@10"] == alpha
    assert len(repr(alpha)) > 8  # not rounded to 4 digits
    rounded = json.loads(said("eval", "--db", generated, "--format", "json", "--digits", "4"))
    assert rounded["runs"][0]["mean"]["ndcg@10"] == round(alpha, 4)
    agreement = json.loads(
        said("agreement", "--db", generated, "--format", "json", "--bootstrap", "0")
    )
    assert len(repr(agreement["krippendorff_alpha"]["ordinal"])) > 8


def test_an_html_report_loads_no_qt(generated, tmp_path):
    out = tmp_path / "report.html"
    code = (
        "import sys\n"
        "from judge_app.cli import main\n"
        f"assert main(['report', {str(generated)!r}, '--out', {str(out)!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]" and out.exists()
