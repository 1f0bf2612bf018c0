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
from statsmodels.stats.weightstats import DescrStatsW

from judge_app.commands.significance import SignificanceOptions, compare_evaluations
from judge_app.metrics import comparison
from judge_app.metrics.comparison import (
    Comparison,
    MeanInterval,
    bootstrap_interval,
    compare_scores,
    paired_t_test,
    randomization_test,
)
from judge_app.metrics.ranking import Evaluation, Settings

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


# --- bootstrap -------------------------------------------------------------------------------


def test_bootstrap_equals_scipy_called_directly():
    values = np.subtract(NEURAL, BM25)
    interval = bootstrap_interval(values, confidence=0.9, resamples=5_000, seed=11)
    expected = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=0.9,
        n_resamples=5_000,
        method="percentile",
        **scipy_rng(11),
    ).confidence_interval
    assert (interval.low, interval.high) == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert interval.mean == pytest.approx(np.mean(values)) and interval.n == 16


def test_bootstrap_contains_mean_and_narrows_with_n():
    rng = np.random.default_rng(5)
    small = bootstrap_interval(rng.random(20))
    large = bootstrap_interval(rng.random(2_000))
    for interval in (small, large):
        assert interval.low < interval.mean < interval.high
    assert (large.high - large.low) < (small.high - small.low) / 5


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], MeanInterval(math.nan, math.nan, math.nan, 0)),
        ([0.37], MeanInterval(0.37, 0.37, 0.37, 1)),
        ([0.1] * 7, MeanInterval(0.1, 0.1, 0.1, 7)),
    ],
)
def test_bootstrap_degenerate_cases_without_warnings(values, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        interval = bootstrap_interval(values)
    got = (interval.mean, interval.low, interval.high, interval.n)
    assert got == pytest.approx(
        (expected.mean, expected.low, expected.high, expected.n), nan_ok=True
    )


def test_bootstrap_of_two_values_has_no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        interval = bootstrap_interval([0.2, 0.4])
    assert (interval.low, interval.mean, interval.high) == pytest.approx((0.2, 0.3, 0.4))


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
    # the bootstrap's resamples are drawn for all pairs at once: the same, but for the last bits
    expected = bootstrap_interval(np.subtract(other, base))
    assert result.difference_interval.mean == expected.mean
    assert astuple(result.difference_interval) == pytest.approx(astuple(expected), rel=1e-12)
    assert (single.other, single.n, single.mean_other) == ("other-run", 1, 1.0)


def test_a_run_that_scored_no_query_is_too_few_to_test():
    runs = {"bm25": evaluation({"q1": 0.5, "q2": 0.1}), "empty": evaluation({})}
    (result,) = against_first(runs)
    assert result.n == 0 and math.isnan(result.mean_difference)
    assert "too few queries to test (0 queries in common)" in result.describe()


def test_describe_matches_the_wording_leads_read():
    result = Comparison(
        baseline="bm25",
        other="neural",
        measure="ndcg@10",
        n=16,
        mean_baseline=0.5,
        mean_other=0.5639,
        mean_difference=0.0639,
        difference_interval=MeanInterval(0.0639, 0.0210, 0.1050, 16),
        t_statistic=2.8,
        t_p_value=0.0123,
        randomization_p_value=0.0118,
        permutations=10_000,
        wins=11,
        losses=4,
        ties=1,
        randomization_interval=MeanInterval(0.0639, 0.0180, 0.1101, 16),
    )
    assert result.describe() == (
        "neural beats bm25 on ndcg@10 by +0.0639 over 16 queries: 11 wins, 4 losses, 1 tie. "
        "By the paired randomization test p = 0.0118 (10,000 permutations) the difference is "
        "significant at 0.05: its 95% interval +0.0180 to +0.1101 excludes 0; "
        "the paired t-test p = 0.0123 agrees."
    )


def test_describe_significant():
    text = two_runs(BM25, NEURAL).describe()
    t_p = stats.ttest_rel(NEURAL, BM25).pvalue
    # Differences sum to 0.77 over 16 queries: 11 up, 4 down, 1 unchanged.
    assert text.startswith("neural beats bm25 on ndcg@10 by +0.0481 over 16 queries: 11 wins, ")
    assert (
        "(10,000 permutations) the difference is significant at 0.05: its 95% interval +0." in text
    )
    assert text.endswith(f"excludes 0; the paired t-test p = {t_p:.4f} agrees.")


def test_describe_not_significant():
    baseline = [0.5, 0.4, 0.6, 0.3, 0.7, 0.5]
    other = [0.45, 0.45, 0.5, 0.35, 0.68, 0.5]
    result = two_runs(baseline, other)
    text = result.describe(digits=2)
    assert text.startswith("neural trails bm25 on ndcg@10 by -0.01 over 6 queries: 2 wins, ")
    assert "the difference is not significant at 0.05: its 95% interval -" in text
    assert "includes 0; the paired t-test p = " in text


# The case a lead met: "neural beats bm25 ... not significant" beside a bootstrap 95% interval
# of the difference that excluded 0 (a percentile bootstrap is too narrow on few queries).
CONTRADICTED = [0.02, 0.21, 0.1, 0.1, 0.01, -0.08, 0.06, 0.06]


def test_the_interval_shown_is_the_tests_own_and_never_contradicts_it():
    base = np.full(len(CONTRADICTED), 0.5)
    result = two_runs(list(base), list(base + CONTRADICTED))
    assert result.difference_interval.low > 0  # the bootstrap alone said "excludes 0"
    assert result.randomization_p_value >= comparison.ALPHA and not result.significant
    interval = result.randomization_interval
    assert interval.low < 0 < interval.high
    text = result.describe()
    assert "not significant at 0.05: its 95% interval -0.01" in text and "includes 0" in text


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
    assert (interval.low <= 0 <= interval.high) == (p >= comparison.ALPHA)


def test_describe_identical_runs():
    result = two_runs(BM25, BM25)
    assert (result.t_statistic, result.t_p_value, result.randomization_p_value) == (0.0, 1.0, 1.0)
    assert result.describe() == (
        "neural ties bm25 on ndcg@10 over 16 queries: the two runs score the same on every query."
    )


@pytest.mark.parametrize(("common", "phrase"), [(1, "1 query"), (0, "0 queries")])
def test_describe_too_few_queries(common, phrase):
    runs = {
        "bm25": evaluation({"q1": 0.4, "q2": 0.5}),
        "neural": evaluation({"q1": 0.6} if common else {"q3": 0.6}),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (result,) = against_first(runs)
    assert result.n == common and math.isnan(result.t_p_value)
    assert result.describe() == (
        f"neural vs bm25 on ndcg@10: too few queries to test ({phrase} in common)."
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
    forward = bootstrap_interval(a - b, resamples=500)
    backward = bootstrap_interval(b - a, resamples=500)
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


@settings(max_examples=60, deadline=None)
@given(scores, st.integers(2, 3000), st.integers(0, 2**32 - 1))  # scipy warns on one
def test_bootstrap_is_scipys_to_the_last_bit(values, resamples, seed):
    values = np.asarray(values)
    interval = bootstrap_interval(values, resamples=resamples, seed=seed)
    if np.ptp(values) == 0:
        assert interval.low == interval.high == interval.mean
        return
    expected = stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=resamples,
        batch=max(1, (1 << 20) // values.size),
        vectorized=True,
        method="percentile",
        **scipy_rng(seed),
    ).confidence_interval
    assert (interval.low, interval.high) == (expected.low, expected.high)


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
        "from judge_app.metrics.comparison import bootstrap_interval, paired_t_test\n"
        "from judge_app.agreement.stability import kendall_tau_b\n"
        "bootstrap_interval([0.1, 0.5, 0.9]); paired_t_test([0.1, 0.5], [0.2, 0.9])\n"
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
    interval = comparison.randomization_interval
    assert interval.low == pytest.approx(0.1, abs=1e-12)
    assert interval.high == pytest.approx(0.1, abs=1e-12)
    assert comparison.significant
