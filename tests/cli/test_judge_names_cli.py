"""The automatic judge's name on the command line (issue 29, item 11): ``autojudge`` prints
it as it is typed, with the next command; ``info`` lists every judge with its grades and
held-out quality; and every command that takes ``--judge`` refuses an unknown one with the
same words, naming the judges there are (or saying there is none, and how to make one)."""

from __future__ import annotations

import shutil
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

from judge_app.cli import main as cli
from judge_app.numbers import score_text
from judge_app.store import automatic, open_database


def run(*args: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def judged_template(tmp_path_factory) -> tuple[Path, str]:
    """The demo campaign graded by the local judge, and what ``autojudge`` printed."""
    path = tmp_path_factory.mktemp("judged") / "campaign.sqlite"
    assert run("demo", str(path))[0] == 0
    code, out, _ = run("autojudge", str(path), "--local")
    assert code == 0
    return path, out


@pytest.fixture
def judged(judged_template, tmp_path) -> Path:
    path = tmp_path / "campaign.sqlite"
    shutil.copy(judged_template[0], path)
    return path


@pytest.fixture
def plain(tmp_path) -> Path:
    path = tmp_path / "plain.sqlite"
    assert run("demo", str(path))[0] == 0
    return path


def test_autojudge_prints_the_name_as_typed_and_the_next_command(judged_template):
    path, out = judged_template
    assert out.startswith('judge "local model" (local model, HistGradientBoostingRegressor)')
    assert 'later commands take --judge "local model"' in out
    assert out.rstrip().endswith(f'Next: judge-app calibrate {path} --judge "local model"')
    code, _, _ = run("calibrate", str(path), "--judge", "local model")  # as printed
    assert code == 0


def test_info_lists_each_automatic_judge_with_its_grades_and_held_out_quality(judged):
    with open_database(judged, read_only=True) as database, database.reading() as session:
        (judge,) = automatic.judges(session)
    held_out = judge.details["held_out"]
    code, out, _ = run("info", str(judged))
    assert code == 0
    section = out.split("Automatic judges (as --judge takes their names)\n")[1]
    assert section.splitlines()[0] == (
        '  "local model"  local model (HistGradientBoostingRegressor): '
        f"{judge.graded:,} grades, 0 failures, held out: quadratic κ "
        f"{score_text(held_out['quadratic_kappa'])}, MAE {held_out['mae']:.2f}, "
        f"Spearman {score_text(held_out['spearman'])}"
    )
    assert judge.graded > 0


def test_info_says_nothing_of_judges_where_there_is_none(plain):
    code, out, _ = run("info", str(plain))
    assert code == 0 and "Automatic judges" not in out


COMMANDS = {
    "eval": lambda db: ["eval", "--db", db, "--judge", "x"],
    "calibrate": lambda db: ["calibrate", db, "--judge", "x"],
    "report": lambda db: ["report", db, "--judge", "x", "--out", f"{db}.html"],
    "sample": lambda db: ["sample", db, "--judge", "x"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_judge_is_refused_naming_the_judges_there_are(command, judged):
    code, out, err = run(*COMMANDS[command](str(judged)))
    assert code == 2 and out == ""
    said = f"{judged} has no automatic judge 'x'; its judges are: \"local model\""
    assert err.strip() == f"judge-app {command}: {said}"


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_judge_where_there_is_none_says_how_to_make_one(command, plain):
    code, _, err = run(*COMMANDS[command](str(plain)))
    assert code == 2
    assert err.strip() == (
        f"judge-app {command}: {plain} has no automatic judge 'x': it has none yet; make one "
        "with judge-app autojudge DB --local (a model learned from the human grades) or "
        "judge-app autojudge DB --endpoint URL --model NAME (an LLM); in the window, "
        "Lead ▸ Automatic judge…"
    )
