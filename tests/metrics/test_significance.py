"""Many runs compared (``commands.significance``, ``eval --compare``): each pair's numbers
are those of the one-pair functions and of statsmodels' adjustments over the family; the
words never contradict the numbers; the command line's table, CSV and JSON."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from dataclasses import astuple

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from judge_app.cli import main
from judge_app.errors import UsageError
from judge_app.evaluation.engine import compare_evaluations
from judge_app.evaluation.options import SignificanceOptions, parse_tests
from judge_app.metrics import comparison, multiple_testing
from judge_app.metrics.comparison import compare_scores
from judge_app.metrics.intervals import ALPHA, CONFIDENCE
from judge_app.metrics.multiple_testing import randomized_tukey_hsd
from judge_app.metrics.paired_tests import sign_test, standardized_effect, wilcoxon_test
from judge_app.metrics.ranking import Evaluation, Settings
from judge_app.metrics.significance import PAIRED_TESTS, TEST_NAMES, TESTS, compare_runs
from judge_app.numbers import bound_text, p_text
from judge_app.option_declarations import flag_of
from judge_app.writers.verdicts import describe, verdict_words

RUNS = ["bm25", "neural", "hybrid", "rerank"]


def campaign(seed: int = 0, queries: int = 40, holes: bool = True) -> np.ndarray:
    """Scores of RUNS (query × run), ``hybrid`` and ``rerank`` better; with ``holes``, some
    queries a run did not score (NaN)."""
    rng = np.random.default_rng(seed)
    scores = np.clip(
        rng.random((queries, 1)) + rng.normal(0, 0.15, (queries, 4)) + [0, 0.02, 0.1, 0.12], 0, 1
    )
    scores[rng.random(scores.shape) < 0.05] = 0.0  # ties at zero
    if holes:
        scores[:3, 1] = np.nan
        scores[5, 3] = np.nan
    return scores


def evaluations(scores: np.ndarray, names: list[str] = RUNS) -> dict[str, Evaluation]:
    """An evaluation per run with these ``ndcg@10`` values (NaN: the query not scored)."""
    queries = [f"q{index:03d}" for index in range(scores.shape[0])]
    result = {}
    for column, name in enumerate(names):
        scored = ~np.isnan(scores[:, column])
        result[name] = Evaluation(
            Settings(),
            [query for query, kept in zip(queries, scored) if kept],
            {"ndcg@10": scores[scored, column]},
            np.zeros(int(scored.sum()), bool),
        )
    return result


@pytest.fixture(scope="module")
def compared():
    return compare_runs(RUNS, campaign(), "ndcg@10", permutations=2_000, seed=4)


def test_each_pair_has_the_numbers_of_the_one_pair_functions(compared):
    scores = campaign()
    assert [(pair.baseline, pair.other) for pair in compared.pairs] == list(
        itertools.combinations(RUNS, 2)
    )
    for pair in compared.pairs:
        i, j = RUNS.index(pair.baseline), RUNS.index(pair.other)
        both = ~np.isnan(scores[:, i]) & ~np.isnan(scores[:, j])
        base, other = scores[both, i], scores[both, j]
        alone = compare_scores(pair.baseline, pair.other, "ndcg@10", base, other,
                               permutations=2_000, seed=4)  # fmt: skip
        ours = pair.comparison
        assert ours.n == both.sum() and ours.mean_difference == alone.mean_difference
        assert (ours.t_statistic, ours.t_p_value) == (alone.t_statistic, alone.t_p_value)
        assert ours.randomization_p_value == alone.randomization_p_value
        # the signs are drawn once for all pairs: sums in another order
        for test in ("randomization", "t"):
            mine, theirs = ours.interval(test), alone.interval(test)
            assert astuple(mine)[:4] == pytest.approx(astuple(theirs)[:4], rel=1e-12)
        d = other - base
        assert (pair.tests["wilcoxon"].statistic, pair.tests["wilcoxon"].p_value) == (
            wilcoxon_test(d)
        )
        assert pair.tests["sign"].p_value == sign_test(d)[1]
        assert pair.effect == standardized_effect(d)


def test_adjusted_p_values_are_statsmodels_over_the_family(compared):
    for test in PAIRED_TESTS:
        raw = [pair.tests[test].p_value for pair in compared.pairs]
        for name, method in (("holm", "holm"), ("bh", "fdr_bh")):
            ours = [getattr(pair.tests[test], name) for pair in compared.pairs]
            assert ours == pytest.approx(multipletests(raw, method=method)[1], rel=1e-12)
        assert compared.family_size(test) == 6


def test_the_hsd_is_over_the_queries_every_run_scored(compared):
    scores = campaign()
    complete = scores[~np.isnan(scores).any(axis=1)]
    hsd = randomized_tukey_hsd(RUNS, complete, permutations=2_000, seed=4)
    assert compared.hsd is not None and compared.hsd.n == len(complete) == 36
    for pair in compared.pairs:
        assert pair.hsd_p_value == hsd.p_value(pair.baseline, pair.other)
        difference, low, high = hsd.interval(pair.baseline, pair.other)
        assert astuple(pair.hsd_interval)[:4] == (difference, low, high, 36)
    assert {letter for letter, _ in compared.groups()} <= set("abcd")


@pytest.mark.parametrize("baseline", [None, "neural"])
def test_two_runs_hsd_is_their_randomization_test_drawn_once(baseline, monkeypatch):
    """With two runs a shuffle of a query's scores is a sign flip of its difference: the HSD
    and the randomization test are one test, one draw of flips, one p-value."""
    scores = campaign(holes=False)[:, :2]
    drawn = []
    real = comparison.sign_flips
    for module in (comparison, multiple_testing):
        monkeypatch.setattr(module, "sign_flips", lambda *a: drawn.append(a) or real(*a))
    both = compare_runs(RUNS[:2], scores, "ndcg@10", baseline=baseline, permutations=999, seed=3)
    assert len(drawn) == 1
    (pair,) = both.pairs
    assert pair.hsd_p_value == pair.tests["randomization"].p_value
    alone = randomized_tukey_hsd(RUNS[:2], scores, permutations=999, seed=3)  # draws its own
    assert alone.critical == both.hsd.critical and np.array_equal(alone.p, both.hsd.p)


def test_each_run_against_a_baseline():
    chosen = compare_runs(RUNS, campaign(), "ndcg@10", baseline="hybrid", permutations=500)
    assert [(pair.baseline, pair.other) for pair in chosen.pairs] == [
        ("hybrid", "bm25"), ("hybrid", "neural"), ("hybrid", "rerank")
    ]  # fmt: skip
    assert chosen.family_size("t") == 3
    assert chosen.between("bm25", "neural") is None
    pair, sign = chosen.between("bm25", "hybrid")
    assert sign == 1.0 and pair.other == "bm25"  # bm25 − hybrid: the pair's own differences


def test_tests_not_chosen_are_not_computed():
    chosen = compare_runs(RUNS, campaign(), "ndcg@10", tests=("t", "sign"), permutations=200)
    assert chosen.hsd is None and chosen.groups() == [] and chosen.letters() == {}
    assert all(set(pair.tests) == {"t", "sign"} for pair in chosen.pairs)
    assert all(math.isnan(pair.hsd_p_value) for pair in chosen.pairs)
    assert chosen.verdict_test == "t" and verdict_words(chosen) == "t-test, Holm-adjusted"


# --- words -------------------------------------------------------------------------------------


def verdicts(sentence: str) -> tuple[list[str], list[str]]:
    """The tests a sentence says tell the runs apart, and those it says do not."""
    yes = re.search(r"(?<!not )significant at 0\.05 by (.*?)(?:; not by|\.$)", sentence)
    no = re.search(r"not (?:significant at 0\.05 )?by (.*?)\.$", sentence)
    named = [(test, TEST_NAMES[test]) for test in PAIRED_TESTS]
    said_yes = [test for test, name in named if yes and f"the {name} (" in yes.group(1)]
    said_no = [test for test, name in named if no and f"the {name} (" in no.group(1)]
    return said_yes, said_no


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["holm", "bh", "none"]),
    st.integers(6, 40),
    st.sampled_from(["hsd", "randomization", "t"]),
)
@example(seed=4634, adjustment="holm", queries=6, verdict="hsd")  # two runs scoring the same
def test_the_words_never_contradict_the_numbers(seed, adjustment, queries, verdict):
    """Each pair's one interval (the verdict test's, at the level its verdict is decided at)
    excludes 0 exactly when the verdict says significant, and the sentence says both."""
    tests = (verdict, *[test for test in TESTS if test != verdict])
    significance = compare_runs(RUNS, campaign(seed, queries), "ndcg@10", tests=tests,
                                adjustment=adjustment, permutations=300, seed=seed)  # fmt: skip
    for pair in significance.pairs:
        text = describe(significance, pair)
        if " score the same on " in text:  # identical on every shared query: no test to report
            assert not significance.significant(pair)
            assert not significance.interval(pair).excludes(0)
            continue
        sentences = text.split(". ")
        head = next(sentence for sentence in sentences if sentence.startswith("By the"))
        significant = significance.significant(pair)
        interval = significance.interval(pair)
        assert ("the difference is significant at 0.05" in head) == significant
        assert ("excludes 0" in head) == significant == interval.excludes(0)
        assert text.count(" interval, ") == 1  # one interval for the one difference
        assert f"{bound_text(interval.low, 4)} to {bound_text(interval.high, 4)}" in head
        assert p_text(significance.verdict_p(pair), 4) in head
        adjusted = sentences[-1]
        family = significance.family_size("t")
        name = {"holm": "Holm-adjusted", "bh": "Benjamini–Hochberg-adjusted", "none": "Unadjusted"}
        assert adjusted.startswith(f"{name[adjustment]} over {family} comparisons: ")
        said_yes, said_no = verdicts(adjusted)
        assert sorted(said_yes + said_no) == sorted(PAIRED_TESTS)
        for test in PAIRED_TESTS:
            p = pair.tests[test].adjusted(adjustment)
            assert (test in said_yes) == (p < ALPHA)
            assert f"the {TEST_NAMES[test]} ({p_text(p, 4)})" in adjusted


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1), st.integers(1, 6))
@example(p=0.05, digits=1)  # exactly alpha: not significant, and 1 - 0.95 is not 0.05
def test_a_p_value_is_never_rounded_across_alpha(p, digits):
    assert ALPHA == 0.05 and CONFIDENCE == 0.95
    text = p_text(p, digits)
    shown = float(text.split()[-1])
    assert (shown < ALPHA or text.startswith("p <")) == (p < ALPHA)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1, 1, allow_subnormal=False), st.integers(1, 6))
def test_a_bound_that_is_not_zero_never_shows_zero(value, digits):
    shown = float(bound_text(value, digits))
    assert (shown > 0) == (value > 0) and (shown < 0) == (value < 0)


# --- the use case: options, evaluations -------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (SignificanceOptions(tests=()), "--tests needs test names, each once"),
        (SignificanceOptions(tests=("t", "t")), "--tests needs test names, each once"),
        (SignificanceOptions(tests=("t", "anova")), "--tests: no test 'anova' (tests: hsd, "),
        (SignificanceOptions(adjustment="bonferroni"), "--adjust takes holm, bh, none"),
        (SignificanceOptions(permutations=0), "--permutations takes a whole number from 1"),
        (SignificanceOptions(seed=-1), "--seed takes a whole number from 0"),
    ],
)
def test_options_are_checked(options, message):
    """Each error names its option, which the command line words as its flag."""
    with pytest.raises(UsageError) as error:
        options.checked()
    assert error.value.worded(flag_of).startswith(message)


def test_tests_are_parsed_in_the_order_given():
    assert parse_tests(None) == ("hsd", "randomization", "t", "wilcoxon", "sign")
    assert parse_tests("Wilcoxon, t") == ("wilcoxon", "t")


def test_evaluations_are_aligned_on_their_query_ids():
    scores = campaign()
    from_evaluations = compare_evaluations(
        evaluations(scores), "ndcg@10", SignificanceOptions(permutations=300), "test.sqlite"
    )
    direct = compare_runs(RUNS, scores, "ndcg@10", permutations=300)
    assert from_evaluations.pairs == direct.pairs
    assert np.array_equal(from_evaluations.hsd.p, direct.hsd.p)
    with pytest.raises(UsageError) as error:
        compare_evaluations(
            evaluations(scores), "ndcg@10", SignificanceOptions(baseline="bm26"), "test.sqlite"
        )
    assert re.match("--baseline: test.sqlite has no run 'bm26'.*bm25", error.value.worded(flag_of))


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_files(tmp_path_factory) -> list[str]:
    """Qrels and four TREC runs over 30 queries: later runs rank relevant documents higher."""
    folder = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(11)
    qrels, files = [], []
    for q in range(30):
        for d in range(20):
            qrels.append(f"q{q} 0 d{d} {int(rng.integers(0, 4))}")
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    grades = {(line.split()[0], line.split()[2]): int(line.split()[3]) for line in qrels}
    for index, name in enumerate(RUNS):
        lines = []
        for q in range(30):
            score = {
                f"d{d}": grades[(f"q{q}", f"d{d}")] * index * 0.3 + rng.normal(0, 1)
                for d in range(20)
            }
            ranked = sorted(score, key=score.get, reverse=True)
            lines += [f"q{q} Q0 {doc} {rank + 1} {20 - rank} {name}"
                      for rank, doc in enumerate(ranked)]  # fmt: skip
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        files += ["--run-file", str(folder / f"{name}.txt")]
    return ["--qrels", str(folder / "qrels.txt"), *files]


def said(capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(["eval", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_json_carries_every_number_in_full(capsys, run_files):
    document = json.loads(said(capsys, *run_files, "--compare", "--permutations", "500",
                               "--format", "json"))  # fmt: skip
    significance = document["significance"]
    assert significance["settings"] == {"tests": ["hsd", "randomization", "t", "wilcoxon", "sign"],
                                        "adjustment": "holm", "baseline": None,
                                        "permutations": 500, "seed": 0}  # fmt: skip
    assert len(significance["pairs"]) == 6 and significance["family_size"]["t"] == 6
    assert set(significance["hsd"]["groups"]) <= set("abcd")
    scores = np.array([[query["ndcg@10"] for query in run["queries"]] for run in document["runs"]])
    expected = compare_runs(RUNS, scores.T, "ndcg@10", permutations=500)
    for record, pair in zip(significance["pairs"], expected.pairs, strict=True):
        assert (record["baseline"], record["other"]) == (pair.baseline, pair.other)
        assert record["mean_difference"] == pair.comparison.mean_difference
        assert record["d_z"] == pair.effect.d_z and record["d_z_low"] == pair.effect.low
        assert record["hsd_p"] == pair.hsd_p_value
        assert record["interval_method"] == "simultaneous HSD"
        assert record["interval_low"] == expected.interval(pair).low
        for test in PAIRED_TESTS:
            result = pair.tests[test]
            assert (record[f"{test}_p"], record[f"{test}_p_holm"], record[f"{test}_p_bh"]) == (
                result.p_value,
                result.holm,
                result.bh,
            )
        assert record["summary"] == describe(expected, pair)
    # the comparisons of old: each run against the first
    assert [(c["baseline"], c["other"]) for c in document["comparisons"]] == [
        ("bm25", "neural"), ("bm25", "hybrid"), ("bm25", "rerank")
    ]  # fmt: skip


def test_csv_is_a_row_per_pair_in_full_and_the_table_rounds(capsys, run_files):
    args = [*run_files, "--compare", "--permutations", "500", "--tests", "t,wilcoxon,hsd",
            "--adjust", "bh", "--baseline", "neural"]  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(said(capsys, *args, "--format", "csv"))))
    document = json.loads(said(capsys, *args, "--format", "json"))
    records = document["significance"]["pairs"]
    assert [(row["baseline"], row["other"]) for row in rows] == [
        ("neural", "bm25"), ("neural", "hybrid"), ("neural", "rerank")
    ]  # fmt: skip
    assert "randomization_p" not in rows[0] and "sign_p" not in rows[0]
    for row, record in zip(rows, records, strict=True):
        for key in ("t_p", "t_p_holm", "t_p_bh", "wilcoxon_p", "hsd_p", "d_z", "mean_difference"):
            assert float(row[key]) == record[key]  # full precision
        assert row["verdict"] == "t-test, Benjamini–Hochberg-adjusted"
    table = said(capsys, *args)
    assert "each run against neural; p-values Benjamini–Hochberg-adjusted" in table
    assert "Verdict: t-test, Benjamini–Hochberg-adjusted at 0.05, with its " in table
    for record in records:
        assert f"{record['t_p_bh']:.4f} ({record['t_p']:.4f})" in table
        assert record["summary"] in table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tests", "t"], "--tests is an option of --compare"),
        (["--baseline", "bm25"], "--baseline is an option of --compare"),
        (["--compare", "--tests", "t,anova"], "--tests: no test 'anova'"),
        (["--compare", "--baseline", "bm26"], "--baseline: "),
    ],
)
def test_bad_options_are_usage_errors(capsys, run_files, args, message):
    capsys.readouterr()
    assert main(["eval", *run_files, *args]) == 2
    assert message in capsys.readouterr().err


def test_comparing_runs_imports_no_scipy_stats():
    """scipy.stats takes a second to import; the tests need only scipy.special."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from judge_app.metrics.significance import compare_runs\n"
        "scores = np.random.default_rng(0).random((20, 3))\n"
        "compare_runs(['a', 'b', 'c'], scores, 'ndcg@10', permutations=100)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
