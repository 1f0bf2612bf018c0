"""An error about an option names the option, not a front end's words for it: the command line
words it as its flag, the window as its label (``judge_app.option_declarations``), each the
same message after it. No display."""

from __future__ import annotations

import pytest

from judge_app.errors import UsageError, in_words
from judge_app.evaluation.options import EvaluationOptions, parse_ks
from judge_app.option_declarations import DECLARED, EVALUATION, flag_of, label_of
from judge_app.options import check_known, names, require_whole


def test_each_option_is_declared_once_by_a_name_of_its_own():
    assert len(DECLARED) == len(EVALUATION)
    assert all(option.flag.startswith("--") for option in EVALUATION)


def test_the_command_line_words_an_option_by_its_flag_and_the_window_by_its_label():
    assert (flag_of("runs"), label_of("runs")) == ("--run", "Runs")
    assert (flag_of("judge"), label_of("judge")) == ("--judge", "Automatic judge")
    # an option declared nowhere: its name as a flag, or as words
    assert (flag_of("min-gap"), label_of("min-gap")) == ("--min-gap", "Min gap")


@pytest.mark.parametrize(
    ("error", "command_line", "window"),
    [
        (
            UsageError("takes a whole number from 0", "seed"),
            "--seed takes a whole number from 0",
            "Seed takes a whole number from 0",
        ),
        (
            UsageError(": the automatic judge 'x' has graded nothing yet", "judge"),
            "--judge: the automatic judge 'x' has graded nothing yet",
            "Automatic judge: the automatic judge 'x' has graded nothing yet",
        ),
        (UsageError("give --db or --qrels"), "give --db or --qrels", "give --db or --qrels"),
    ],
)
def test_an_error_is_worded_by_each_front_end(error, command_line, window):
    assert in_words(error, flag_of) == command_line
    assert in_words(error, label_of) == window


def test_a_control_that_is_the_option_says_the_reason_alone():
    assert UsageError(": no judge 'x'", "judge").reason == "no judge 'x'"
    assert UsageError("takes a whole number from 0", "seed").reason == "takes a whole number from 0"


def test_the_checks_of_options_name_them_and_word_no_flag():
    with pytest.raises(UsageError) as error:
        require_whole("permutations", 0, 1)
    assert error.value.option == "permutations" and "--" not in str(error.value)
    assert in_words(error.value, flag_of) == "--permutations takes a whole number from 1"
    with pytest.raises(UsageError) as error:
        names("ana, ana", "raters")
    assert in_words(error.value, label_of) == "Raters names a rater twice: 'ana'"
    with pytest.raises(UsageError) as error:
        check_known(["bm26"], ["bm25"], "run", "runs", "demo.sqlite")
    assert in_words(error.value, flag_of) == (
        "--run: demo.sqlite has no run 'bm26' (runs it has: bm25)"
    )


@pytest.mark.parametrize(
    ("check", "option"),
    [
        (lambda: parse_ks(["0"]), "k"),
        (lambda: EvaluationOptions(grades="everyone").checked(), "grades"),
        (lambda: EvaluationOptions(runs=()).checked(), "runs"),
        (lambda: EvaluationOptions(measures=("nDCG@10[x]",)).checked(), "measures"),
        (lambda: EvaluationOptions(judge="x", grades="humans").checked(), "judge"),
    ],
)
def test_the_evaluations_errors_name_a_declared_option(check, option):
    with pytest.raises(UsageError) as error:
        check()
    assert error.value.option == option and option in DECLARED
    assert not str(error.value).startswith("--")
    assert in_words(error.value, flag_of).startswith(DECLARED[option].flag)
