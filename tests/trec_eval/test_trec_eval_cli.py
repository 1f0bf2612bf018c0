"""``judge-app trec-eval``: files read as trec_eval reads them, its errors and statuses, the
help, and a start without pandas, SQLAlchemy or Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import TREC_EVAL

from judge_app.cli import main
from judge_app.trec_eval import catalog
from judge_app.trec_eval.ranked import c_sorted
from judge_app.trec_eval.reading import atof, atol

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\nq2 0 d -1\n"
RUN = "q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 d 1 2.0 r\nq2 Q0 a 2 1.0 r\n"


def trec_eval(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["trec-eval", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def files(tmp_path: Path):
    """Write a qrels and a run file (by default the small ones above); returns their paths."""

    def write(qrels: str = QRELS, run: str = RUN) -> tuple[Path, Path]:
        (tmp_path / "qrels").write_bytes(qrels.encode())
        (tmp_path / "run").write_bytes(run.encode())
        return tmp_path / "qrels", tmp_path / "run"

    return write


def test_blanks_comments_and_more_fields_read_as_trec_eval_reads_them(capsys, files):
    _, plain, _ = trec_eval(capsys, "-q", "-m", "all_trec", *files())
    messy_qrels = "# judged\n" + QRELS.replace(" 0 a 1\n", "\t0  a\t1 \r\n", 1)
    messy_run = "\n  # a comment\n" + RUN.replace(" r\n", " r extra fields\n") + "\n \n"
    status, out, err = trec_eval(capsys, "-q", "-m", "all_trec", *files(messy_qrels, messy_run))
    assert (status, out, err) == (0, plain, "")


def test_numbers_are_read_as_c_reads_them(capsys, files):
    _, plain, _ = trec_eval(capsys, "-q", "-m", "all_trec", *files())
    qrels = QRELS.replace("c 2", "c 2.7").replace("b 0", "b x")
    run = RUN.replace("3.0 r", "3.0x r").replace("2.0 r", "0x2p0 r", 1)
    assert trec_eval(capsys, "-q", "-m", "all_trec", *files(qrels, run)) == (0, plain, "")
    assert (atol(b"-12abc"), atol(b"x"), atol(b"+7")) == (-12, 0, 7)
    assert (atof(b"1e3x"), atof(b"0x1.8p1"), atof(b".5"), atof(b"-inf"), atof(b"1e")) == (
        1000.0,
        3.0,
        0.5,
        float("-inf"),
        1.0,
    )


@pytest.mark.parametrize(
    ("qrels", "run", "where", "why"),
    [
        ("q1 0 a 1\nq1 0 b\n", RUN, "qrels line 2", "4 fields"),
        ("q1 0 a 1\n\nq1 0 b 0\n", RUN, "qrels line 2", "this one 0"),
        (QRELS, RUN + "q3 Q0 a 1 2.0\n", "run line 6", "6 fields"),
        (QRELS, RUN.replace("q2 Q0 d", "q2 Q0 d\x00"), "run line 4", "NUL"),
        (QRELS, "", "run", "has no results lines"),
    ],
)
def test_a_malformed_file_is_named_with_its_line(capsys, files, qrels, run, where, why):
    status, out, err = trec_eval(capsys, *files(qrels, run))
    assert (status, out) == (2, "")
    assert where in err and why in err and "Traceback" not in err


def test_a_document_twice_stops_after_the_queries_before_it(capsys, files):
    run = RUN + "q2 Q0 d 3 0.5 r\n"
    status, out, err = trec_eval(capsys, "-q", "-m", "P.5", *files(run=run))
    assert status == 4
    assert out == "P_5                   \tq1\t0.4000\n"
    assert "lines 4, 6" in err and "document d retrieved twice for query q2" in err
    status, _, err = trec_eval(capsys, *files(qrels=QRELS + "q1 0 a 0\n"))
    assert status == 4 and "lines 1, 6" in err and "judged twice" in err
    # trec_eval checks only what it ranks: the top -M, the measures that rank
    assert trec_eval(capsys, "-M2", "-m", "P.5", *files(run=run))[0] == 0
    assert trec_eval(capsys, "-m", "num_q", *files(run=run))[0] == 0


@pytest.mark.parametrize(
    ("measure", "status", "why"),
    [
        ("foo", 1, "illegal measure 'foo'"),
        ("foo.5", 1, "illegal measure 'foo'"),
        ("P.", 1, "no parameters"),
        ("P.0,5", 2, "cannot initialize measure 'P': cut-offs must be 1 or more"),
        ("P.5,5", 2, "duplicate cut-offs"),
        ("iprec_at_recall.0.5,.5", 2, "duplicate cut-offs"),
        ("ndcg.1=3,", 2, "malformed pair parameters in '1=3,'"),
        ("ndcg.1==3", 2, "malformed pair"),
        ("utility.1,2,3", 4, "it takes 4 coefficients, not 3"),
        ("prefs_simp", 1, "prefs format"),
        ("qrels_jg", 1, "qrels_jg format"),
    ],
)
def test_unknown_measures_and_bad_parameters(capsys, files, measure, status, why):
    code, out, err = trec_eval(capsys, "-m", measure, *files())
    assert (code, out) == (status, "")
    assert why in err


def test_parameters_of_measures_without_them_are_ignored_and_the_first_ones_count(capsys, files):
    _, plain, _ = trec_eval(capsys, "-m", "map", "-m", "P.5", *files())
    assert trec_eval(capsys, "-m", "map.5", "-m", "P.5", "-m", "P.10", *files())[1] == plain


@pytest.mark.parametrize(
    "arguments",
    [["only-one-file"], ["a", "b", "c"], ["-x", "a", "b"], ["-m"], ["-Z", "z", "a", "b"],
     ["-R", "prefs", "a", "b"], ["-l-1", "a", "b"]],
)  # fmt: skip
def test_a_wrong_command_line_exits_1(capsys, arguments):
    status, out, err = trec_eval(capsys, *arguments)
    assert (status, out) == (1, "")
    assert err.startswith("judge-app trec-eval: ")


def test_help_lists_every_measure_and_the_version(capsys):
    status, out, _ = trec_eval(capsys, "-h")
    assert status == 0
    for measure in catalog.MEASURES:
        assert f"\n  {measure.name} " in out
    for nickname in catalog.NICKNAMES:
        assert nickname in out
    assert trec_eval(capsys, "-v")[1] == "trec_eval version 10.0 (judge-app trec-eval)\n"


def test_scores_that_are_nan_rank_as_the_c_library_sorts_them(capsys, files):
    run = "q1 Q0 a 1 nan r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 a 1 1.0 r\n"
    status, out, _ = trec_eval(capsys, "-q", "-m", "relstring", *files(run=run))
    # glibc's merge sort of a, b, c (read in order of document id): [a] and [b, c] merged;
    # NaN against a number falls to the ids, descending: b, then c, before a
    assert (status, out.splitlines()[0]) == (0, "relstring             \tq1\t'021'")


@given(st.lists(st.integers(-5, 5)))
def test_c_sorted_sorts_as_sorted_does_with_a_consistent_comparison(numbers):
    assert c_sorted(numbers, lambda a, b: a - b) == sorted(numbers)


def test_the_command_starts_without_pandas_sqlalchemy_or_qt():
    code = (
        "import contextlib, io, sys\n"
        "from judge_app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main(['trec-eval', '-m', 'all_trec', '-q', {str(TREC_EVAL / 'qrels.test')!r},"
        f" {str(TREC_EVAL / 'results.test')!r}])\n"
        "assert status == 0, status\n"
        "heavy = ('sqlalchemy', 'PySide6', 'pandas')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_results_for_no_judged_query(capsys, files):
    paths = files(run="q9 Q0 a 1 1.0 r\n")
    status, out, err = trec_eval(capsys, "-m", "all_trec", *paths)
    assert (status, out) == (4, "") and "'q1'" in err
    status, out, _ = trec_eval(capsys, "-c", "-q", "-m", "all_trec", *paths)
    assert status == 0
    assert "num_q                 \tall\t2\n" in out and "num_ret               \tall\t0\n" in out
