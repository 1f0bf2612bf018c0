"""Paired run comparison, checked against scipy, statsmodels and brute-force enumeration."""

from __future__ import annotations

import inspect
import itertools
import math
import warnings
from dataclasses import astuple

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import expit, logit
from statsmodels.stats.weightstats import DescrStatsW

from judge_app.evaluation.engine import compare_evaluations
from judge_app.evaluation.options import SignificanceOptions
from judge_app.metrics import comparison
from judge_app.metrics.comparison import (
    Comparison,
    compare_scores,
    paired_t_test,
    randomization_test,
)
from judge_app.metrics.intervals import ALPHA, t_interval
from judge_app.metrics.ranking import Evaluation, Settings
from judge_app.writers.verdicts import describe

# Per-query NDCG@10 of two runs over 16 queries (fixed, hand-written).
# fmt: off
BM25 = [0.41, 0.55, 0.32, 0.70, 0.48, 0.61, 0.25, 0.52, 0.66, 0.38, 0.44, 0.59, 0.71, 0.29, 0.50, 0.47]
NEURAL = [0.49, 0.58, 0.30, 0.78, 0.55, 0.60, 0.37, 0.52, 0.74, 0.45, 0.51, 0.57, 0.80, 0.36, 0.58, 0.45]
# fmt: on

# Small paired examples for the exact sign-flip oracle: differences with ties, zeros, outliers.
SMALL_PAIRS = [
    ([0.5, 0.6, 0.4, 0.7, 0.3, 0.8], [0.45, 0.5, 0.42, 0.6, 0.3, 0.65]),
    ([0.2, 0.9, 0.5, 0.5, 0.1, 0.7, 0.3, 0.6], [0.3, 0.4, 0.5, 0.6, 0.1, 0.5, 0.35, 0.55]),
    (
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        [0.15, 0.1, 0.35, 0.3, 0.5, 0.5, 0.75, 0.6, 0.8, 0.9],
    ),
    ([1.0, 0.0, 0.5, 0.25], [0.0, 0.25, 0.5, 0.0]),
]


def exact_sign_flip_p(a: list[float], b: list[float]) -> float:
    """Two-sided p over all 2^n sign flips of the paired differences, enumerated plainly."""
    d = [x - y for x, y in zip(a, b)]
    observed = abs(sum(d))
    extreme = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        if abs(sum(s * v for s, v in zip(signs, d))) >= observed - 1e-12:
            extreme += 1
    return extreme / 2 ** len(d)


def scipy_rng(seed: int) -> dict[str, np.random.Generator]:
    """The seeded-generator keyword the installed scipy takes (rng since 1.15)."""
    name = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    return {name: np.random.default_rng(seed)}


def two_runs(baseline: list[float], other: list[float]) -> Comparison:
    """neural compared against bm25, scored on the same queries."""
    return compare_scores("bm25", "neural", "ndcg@10", np.array(baseline), np.array(other))


# --- paired t-test ---------------------------------------------------------------------------


def test_t_test_matches_scipy_and_statsmodels():
    t, p = paired_t_test(NEURAL, BM25)
    expected = stats.ttest_rel(NEURAL, BM25)
    sm_t, sm_p, sm_df = DescrStatsW(np.subtract(NEURAL, BM25)).ttest_mean()
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert (t, p) == pytest.approx((sm_t, sm_p), rel=1e-9)
    assert sm_df == len(BM25) - 1


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([], [], (math.nan, math.nan)),
        ([0.4], [0.2], (math.nan, math.nan)),
        ([0.1, 0.5, 0.9], [0.1, 0.5, 0.9], (0.0, 1.0)),
        ([0.3, 0.5, 0.7], [0.2, 0.4, 0.6], (math.inf, 0.0)),
        ([0.2, 0.4, 0.6], [0.3, 0.5, 0.7], (-math.inf, 0.0)),
    ],
)
def test_t_test_degenerate_cases_without_warnings(a, b, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = paired_t_test(a, b)
    assert result == pytest.approx(expected, nan_ok=True)


def test_paired_functions_reject_bad_input():
    with pytest.raises(ValueError, match="length"):
        paired_t_test([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="finite"):
        randomization_test([0.1, math.nan], [0.1, 0.2])
    with pytest.raises(ValueError, match="at least 1"):
        randomization_test([0.1, 0.2], [0.3, 0.4], permutations=0)


# --- randomization test ----------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), SMALL_PAIRS)
def test_randomization_agrees_with_exact_enumeration(a, b):
    assert abs(randomization_test(a, b) - exact_sign_flip_p(a, b)) < 0.02


def test_randomization_agrees_with_scipy_permutation_test():
    rng = np.random.default_rng(7)
    a = rng.random(15)
    b = a + rng.normal(0.04, 0.1, 15)
    expected = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=9_999,
        **scipy_rng(1),
    ).pvalue
    assert 0.05 < expected < 0.95  # a case where Monte-Carlo error matters
    assert abs(randomization_test(a, b) - expected) < 0.02


def test_randomization_identical_runs_give_one():
    assert randomization_test(BM25, BM25) == 1.0
    # 0.1 + 0.2 - 0.3 is 5.6e-17 in floating point: still no difference at all.
    assert randomization_test([0.3, 0.5, 0.4], [0.2, 0.3, 0.7]) == 1.0


def test_randomization_is_deterministic_for_a_seed():
    a, b = SMALL_PAIRS[1]
    assert randomization_test(a, b, seed=3) == randomization_test(a, b, seed=3)
    assert randomization_test(a, b, seed=3) != randomization_test(a, b, seed=4)


@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(1, 40))
def test_randomization_signs_are_those_of_random_below_a_half(seed, rows, columns):
    expected = np.where(np.random.default_rng(seed).random((rows, columns)) < 0.5, -1.0, 1.0)
    bits = np.random.default_rng(seed).bit_generator
    assert np.array_equal(comparison._signs(bits, rows, columns), expected)


def test_randomization_does_not_depend_on_chunk_size(monkeypatch):
    a, b = SMALL_PAIRS[0]
    whole = randomization_test(a, b, permutations=1_000)
    monkeypatch.setattr(comparison, "_CHUNK_CELLS", 6 * 37)  # 37 rows a chunk, last one partial
    assert randomization_test(a, b, permutations=1_000) == whole


def test_randomization_floor_for_a_clear_difference():
    a = np.linspace(0.3, 0.9, 30)
    b = a - np.linspace(0.05, 0.2, 30)
    assert randomization_test(a, b, permutations=10_000) == pytest.approx(1 / 10_001)


# --- the t interval --------------------------------------------------------------------------


def test_t_interval_is_scipys_and_statsmodels():
    values = np.subtract(NEURAL, BM25)
    interval = t_interval(values, confidence=0.9)
    low, high = stats.t.interval(0.9, len(values) - 1, np.mean(values), stats.sem(values))
    assert (interval.low, interval.high) == pytest.approx((low, high), rel=1e-12)
    assert (interval.low, interval.high) == pytest.approx(
        DescrStatsW(values).tconfint_mean(alpha=0.1), rel=1e-12
    )
    assert interval.mean == pytest.approx(np.mean(values)) and interval.n == 16
    assert (interval.method, interval.confidence) == ("t", 0.9)


def test_t_interval_stays_within_the_measures_range_on_the_logit_scale():
    values = [1.0, 1.0, 0.98, 1.0, 0.7, 1.0, 1.0, 0.95]  # NDCG near 1: the t interval passes it
    low, high = stats.t.interval(0.95, len(values) - 1, np.mean(values), stats.sem(values))
    assert high > 1
    interval = t_interval(values, (0.0, 1.0))
    mean, half = np.mean(values), stats.t.ppf(0.975, 7) * stats.sem(values)
    spread = half / (mean * (1 - mean))
    expected = (expit(logit(mean) - spread), expit(logit(mean) + spread))
    assert (interval.low, interval.high) == pytest.approx(expected, rel=1e-12)
    assert 0 < interval.low < interval.mean < interval.high < 1
    assert t_interval([1.0] * 5, (0.0, 1.0)).high == 1.0  # at the bound: the mean itself


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], (math.nan, math.nan, math.nan, 0)),
        ([0.37], (0.37, math.nan, math.nan, 1)),
        ([0.1] * 7, (0.1, 0.1, 0.1, 7)),
    ],
)
def test_t_interval_degenerate_cases_without_warnings(values, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        interval = t_interval(values)
    got = (interval.mean, interval.low, interval.high, interval.n)
    assert got == pytest.approx(expected, nan_ok=True)


# --- comparing evaluated runs ----------------------------------------------------------------


def evaluation(scores: dict[str, float], measure: str = "ndcg@10") -> Evaluation:
    """An evaluation with these per-query values of ``measure``, in query id order."""
    queries = sorted(scores)
    values = np.array([scores[query] for query in queries])
    return Evaluation(Settings(), queries, {measure: values}, np.zeros(len(queries), bool))


def against_first(runs: dict[str, Evaluation]) -> list[Comparison]:
    """Each run compared against the first, as ``eval --compare`` words them."""
    compared = compare_evaluations(runs, "ndcg@10", SignificanceOptions(), "test.sqlite")
    return [pair.comparison for pair in compared.pairs if pair.baseline == next(iter(runs))]


def test_runs_are_compared_on_the_queries_both_scored():
    runs = {
        "bm25": evaluation(
            {"q3": 0.5, "q1": 0.2, "q2": 0.6, "q4": 0.4, "only-bm25": 0.9, "q5": math.nan}
        ),
        "neural": evaluation(
            {"q2": 0.6, "q1": 0.5, "q4": 0.1, "q3": 0.8, "only-neural": 0.0, "q5": 0.7}
        ),
        "other-run": evaluation({"q1": 1.0}),
    }
    result, single = against_first(runs)
    base, other = [0.2, 0.6, 0.5, 0.4], [0.5, 0.6, 0.8, 0.1]  # q1..q4 in query order
    assert (result.baseline, result.other, result.n) == ("bm25", "neural", 4)
    assert (result.wins, result.losses, result.ties) == (2, 1, 1)
    assert result.mean_baseline == pytest.approx(np.mean(base))
    assert result.mean_other == pytest.approx(np.mean(other))
    assert result.mean_difference == pytest.approx(np.mean(other) - np.mean(base))
    assert (result.t_statistic, result.t_p_value) == pytest.approx(stats.ttest_rel(other, base))
    assert result.randomization_p_value == randomization_test(other, base)
    expected = t_interval(np.subtract(other, base))
    assert astuple(result.interval("t"))[:4] == pytest.approx(astuple(expected)[:4], rel=1e-12)
    assert (single.other, single.n, single.mean_other) == ("other-run", 1, 1.0)


def words(baseline: list[float], other: list[float], tests=("randomization", "t")) -> str:
    """neural compared against bm25 on the same queries, in words, the verdict by the first
    of ``tests``."""
    runs = {
        "bm25": evaluation({f"q{i:02d}": value for i, value in enumerate(baseline)}),
        "neural": evaluation({f"q{i:02d}": value for i, value in enumerate(other)}),
    }
    compared = compare_evaluations(runs, "ndcg@10", SignificanceOptions(tests), "test.sqlite")
    return describe(compared, compared.pairs[0])


def test_a_run_that_scored_no_query_is_too_few_to_test():
    runs = {"bm25": evaluation({"q1": 0.5, "q2": 0.1}), "empty": evaluation({})}
    compared = compare_evaluations(runs, "ndcg@10", SignificanceOptions(), "test.sqlite")
    (result,) = [pair.comparison for pair in compared.pairs]
    assert result.n == 0 and math.isnan(result.mean_difference)
    assert "too few queries to test (0 queries in common)" in describe(compared, compared.pairs[0])
    assert compared.interval(compared.pairs[0]) is None


def test_describe_significant():
    text = words(BM25, NEURAL)
    t_p = stats.ttest_rel(NEURAL, BM25).pvalue
    # Differences sum to 0.77 over 16 queries: 11 up, 4 down, 1 unchanged.
    assert text.startswith(
        "neural is 0.0481 higher than bm25 on mean ndcg@10 over 16 queries (11 wins, 4 losses, "
    )
    assert "the difference is significant at 0.05; its 95% randomization interval, +0." in text
    assert "excludes 0" in text and f"the t-test (p = {t_p:.4f})" in text


def test_describe_not_significant_says_lower_without_a_double_negative():
    baseline = [0.5, 0.4, 0.6, 0.3, 0.7, 0.5]
    other = [0.45, 0.45, 0.5, 0.35, 0.68, 0.5]
    text = words(baseline, other)
    assert text.startswith("neural is 0.0117 lower than bm25 on mean ndcg@10 over 6 queries")
    assert "trails" not in text and "by -" not in text
    assert "not significant at 0.05; its 95% randomization interval, -" in text
    assert "includes 0" in text


# The case a lead met: "neural beats bm25 ... not significant" beside a bootstrap 95% interval
# of the difference that excluded 0 (a percentile bootstrap is too narrow on few queries).
CONTRADICTED = [0.02, 0.21, 0.1, 0.1, 0.01, -0.08, 0.06, 0.06]


def test_the_interval_shown_is_the_tests_own_and_never_contradicts_it():
    base = np.full(len(CONTRADICTED), 0.5)
    for test in ("randomization", "t", "hsd"):
        runs = {
            "bm25": evaluation({f"q{i}": value for i, value in enumerate(base)}),
            "neural": evaluation({f"q{i}": v for i, v in enumerate(base + CONTRADICTED)}),
        }
        compared = compare_evaluations(
            runs, "ndcg@10", SignificanceOptions((test, "wilcoxon")), "test.sqlite"
        )
        pair = compared.pairs[0]
        interval = compared.interval(pair)
        assert not compared.significant(pair)
        assert interval is not None and interval.low < 0 < interval.high
        text = describe(compared, pair)
        assert "not significant at 0.05" in text and "includes 0" in text
        assert text.count("interval") == 1  # one interval for the one difference


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-20, 20).map(lambda k: k / 20), min_size=2, max_size=12))
def test_randomization_interval_excludes_zero_exactly_when_the_test_rejects(differences):
    d = np.array(differences)
    p = randomization_test(d, np.zeros_like(d), permutations=500)
    interval = comparison.randomization_interval(d, np.zeros_like(d), permutations=500)
    if np.ptp(d) == 0:  # no spread: the interval is the mean (d[0], but for rounding: 0.05 × 3)
        assert interval.low == interval.high == interval.mean == pytest.approx(d[0], abs=1e-15)
        return
    assert interval.low <= np.mean(d) <= interval.high
    assert (interval.low <= 0 <= interval.high) == (p >= ALPHA)


def test_describe_identical_runs():
    result = two_runs(BM25, BM25)
    assert (result.t_statistic, result.t_p_value, result.randomization_p_value) == (0.0, 1.0, 1.0)
    assert words(BM25, BM25) == (
        "neural and bm25 score the same on ndcg@10 on each of the 16 queries they share."
    )


@pytest.mark.parametrize(("common", "phrase"), [(1, "1 query"), (0, "0 queries")])
def test_describe_too_few_queries(common, phrase):
    runs = {
        "bm25": evaluation({"q1": 0.4, "q2": 0.5}),
        "neural": evaluation({"q1": 0.6} if common else {"q3": 0.6}),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compared = compare_evaluations(runs, "ndcg@10", SignificanceOptions(), "test.sqlite")
    result = compared.pairs[0].comparison
    assert result.n == common and math.isnan(result.t_p_value)
    assert describe(compared, compared.pairs[0]) == (
        f"neural against bm25 on ndcg@10: too few queries to test ({phrase} in common)."
    )


# --- properties ------------------------------------------------------------------------------

SCORE = st.one_of(st.floats(0, 1, allow_subnormal=False), st.integers(0, 20).map(lambda k: k / 20))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SCORE, SCORE), min_size=2, max_size=30))
def test_p_values_in_range_and_symmetric_under_swap(pairs):
    a, b = (np.array(side) for side in zip(*pairs))
    p = randomization_test(a, b, permutations=500)
    assert 0 < p <= 1
    assert randomization_test(b, a, permutations=500) == p
    t, t_p = paired_t_test(a, b)
    assert 0 <= t_p <= 1  # 0 when the differences are constant and non-zero
    assert paired_t_test(b, a) == pytest.approx((-t, t_p), rel=1e-9, abs=1e-300)
    forward = t_interval(a - b)
    backward = t_interval(b - a)
    assert backward.mean == pytest.approx(-forward.mean, abs=1e-15)
    assert (backward.low, backward.high) == pytest.approx((-forward.high, -forward.low), abs=1e-12)


# --- the same numbers as scipy, without importing scipy.stats ---------------------------------

scores = st.lists(
    st.one_of(
        st.floats(0, 1, allow_nan=False),
        st.sampled_from([0.0, 0.25, 0.5, 1.0]),  # NDCG of few judged documents ties often
    ),
    min_size=2,
    max_size=400,
)


@settings(max_examples=200, deadline=None)
@given(scores, st.lists(st.floats(-0.5, 0.5, allow_nan=False), min_size=400, max_size=400))
@example([0.0, 0.0], [0.0, 5e-324] + [0.0] * 398)  # no variance but a subnormal's: NaN, as scipy
def test_t_test_is_scipys_to_the_last_bit(a, shifts):
    a = np.asarray(a)
    b = a + np.asarray(shifts[: a.size])
    t, p = paired_t_test(a, b)
    if np.array_equal(a, b):
        assert (t, p) == (0.0, 1.0)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = stats.ttest_rel(a, b)
    np.testing.assert_array_equal((t, p), (expected.statistic, expected.pvalue))  # NaN is NaN


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.3, 0.3, 0.7, 1.0]), st.floats(0, 1)),
        min_size=2,
        max_size=12,
    )
)
def test_kendall_tau_is_scipys(pairs):
    from judge_app.agreement.stability import kendall_tau_b

    x, y = (np.asarray(side) for side in zip(*pairs))
    ours, expected = kendall_tau_b(x, y), stats.kendalltau(x, y).statistic
    assert (math.isnan(ours) and math.isnan(expected)) or ours == expected


def test_eval_and_agreement_import_no_scipy_stats(tmp_path):
    """scipy.stats takes a second to import; the numbers need only scipy.special."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from judge_app.metrics.comparison import paired_t_test\n"
        "from judge_app.metrics.intervals import t_interval\n"
        "from judge_app.agreement.stability import kendall_tau_b\n"
        "t_interval([0.1, 0.5, 0.9]); paired_t_test([0.1, 0.5], [0.2, 0.9])\n"
        "kendall_tau_b(__import__('numpy').array([1.0, 2.0]), __import__('numpy').array([2.0, 1.0]))\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_differences_equal_but_for_rounding_give_an_interval_at_once():
    """b = a + 0.1 differs from a by 0.1 give or take one rounding: the interval's search
    stops where floats can go no finer (it once looped for ever)."""
    a = np.random.default_rng(0).random(30)
    comparison = compare_scores("a", "b", "ndcg@10", a, a + 0.1, permutations=1000, seed=0)
    interval = comparison.interval("randomization")
    assert interval.low == pytest.approx(0.1, abs=1e-12)
    assert interval.high == pytest.approx(0.1, abs=1e-12)
    assert comparison.significant


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(2, 40), st.integers(41, 3000), st.integers(3001, 10**7)),
    st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999, 1 - 0.05 / 45]),
)
def test_the_t_quantile_is_scipys(n, confidence):
    from scipy.special import stdtrit

    from judge_app.metrics.intervals import t_quantile

    expected = stdtrit(n - 1, 0.5 + confidence / 2)
    assert t_quantile(n, confidence) == pytest.approx(expected, rel=1e-12)
