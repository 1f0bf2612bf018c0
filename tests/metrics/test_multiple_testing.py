"""Holm and Benjamini–Hochberg against statsmodels; the randomized Tukey HSD against exact
enumeration, its interval against its p-values, its error rate on null data; the letters of
its groups."""

from __future__ import annotations

import itertools
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from judge_app.metrics.comparison import paired_t_test
from judge_app.metrics.multiple_testing import (
    benjamini_hochberg,
    holm,
    letter_groups,
    randomized_tukey_hsd,
)

# p-values on a coarse grid (ties), 0 and 1 included, or anywhere in [0, 1]
P_VALUE = st.one_of(
    st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.04, 0.05, 0.2, 0.5, 1.0]),
    st.floats(0, 1, allow_nan=False),
)
ADJUSTMENTS = [(holm, "holm"), (benjamini_hochberg, "fdr_bh")]


@settings(max_examples=60, deadline=None)
@given(st.lists(P_VALUE, min_size=1, max_size=40))
@pytest.mark.parametrize(("ours", "method"), ADJUSTMENTS, ids=["holm", "bh"])
def test_adjustments_are_statsmodels(ours, method, p_values):
    # statsmodels' Holm runs gc.collect, which walks every object of this (long) process
    with mock.patch("gc.collect", return_value=0):
        expected = multipletests(p_values, method=method)[1]
    assert ours(p_values) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("ours", "method"), ADJUSTMENTS, ids=["holm", "bh"])
@pytest.mark.parametrize(
    "p_values",
    [[0.01, 0.01, 0.01], [1.0, 1.0], [0.03, 1.0, 0.03, 0.5], [0.0, 0.04, 0.04, 1.0], [0.05]],
    ids=["all-tied", "all-ones", "ties-and-one", "zero-and-ties", "single"],
)
def test_adjustments_of_ties_and_ones(ours, method, p_values):
    adjusted = ours(p_values)
    assert adjusted == pytest.approx(multipletests(p_values, method=method)[1], rel=1e-12)
    for (a, p), (b, q) in itertools.combinations(zip(adjusted, p_values), 2):
        assert (p == q) <= (a == b)  # tied p-values stay tied


@pytest.mark.parametrize(("ours", "method"), ADJUSTMENTS, ids=["holm", "bh"])
def test_untested_comparisons_stay_out_of_the_family(ours, method):
    adjusted = ours([0.01, math.nan, 0.04, math.nan])
    assert math.isnan(adjusted[1]) and math.isnan(adjusted[3])
    assert adjusted[[0, 2]] == pytest.approx(multipletests([0.01, 0.04], method=method)[1])
    assert np.isnan(ours([math.nan])).all() and ours([]).size == 0


def test_adjustments_refuse_what_is_not_a_p_value():
    for bad in ([1.2], [-0.1]):
        with pytest.raises(ValueError, match="between 0 and 1"):
            holm(bad)


# --- randomized Tukey HSD ---------------------------------------------------------------------

TINY = np.array([[0.2, 0.5, 0.9], [0.4, 0.4, 0.8], [0.1, 0.6, 0.7], [0.3, 0.9, 0.6]])
"""4 queries × 3 runs: (3!)^4 = 1,296 arrangements, few enough to enumerate (7,776 with one
query more)."""


def exact_hsd_p(scores: np.ndarray) -> np.ndarray:
    """Each pair's share of all within-query arrangements whose range of run means reaches
    the pair's observed |difference|, enumerated plainly."""
    n, k = scores.shape
    means = scores.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    reached = np.zeros((k, k))
    orders = list(itertools.permutations(range(k)))
    total = 0
    for arrangement in itertools.product(orders, repeat=n):
        shuffled = np.array([scores[q, list(order)] for q, order in enumerate(arrangement)])
        permuted = shuffled.mean(axis=0)
        reached += (permuted.max() - permuted.min()) >= observed - 1e-12
        total += 1
    return reached / total


@pytest.mark.parametrize(
    "scores",
    [TINY, np.vstack([TINY, [0.5, 0.5, 0.5]])],
    ids=["distinct", "a-query-every-run-scores-alike"],
)
def test_hsd_p_values_agree_with_exact_enumeration(scores):
    exact = exact_hsd_p(scores)
    hsd = randomized_tukey_hsd(["a", "b", "c"], scores, permutations=20_000, seed=3)
    standard_error = np.sqrt(exact * (1 - exact) / 20_000)
    assert np.all(np.abs(hsd.p - exact) <= 4 * standard_error + 1 / 20_001)
    assert np.allclose(np.diag(hsd.p), 1.0) and np.array_equal(hsd.p, hsd.p.T)


def test_hsd_is_deterministic_for_a_seed_and_never_zero():
    scores = np.random.default_rng(1).random((30, 4))
    scores[:, 0] += 0.5
    first = randomized_tukey_hsd(list("abcd"), scores, permutations=300, seed=5)
    again = randomized_tukey_hsd(list("abcd"), scores, permutations=300, seed=5)
    other = randomized_tukey_hsd(list("abcd"), scores, permutations=300, seed=6)
    assert np.array_equal(first.p, again.p) and first.critical == again.critical
    assert first.critical != other.critical
    assert first.p.min() == 1 / 301  # run a beats every other in every permutation


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 12),
    st.integers(0, 2**32 - 1),
    st.sampled_from([19, 20, 99, 199]),
)
def test_hsd_interval_excludes_zero_exactly_when_its_p_is_below_alpha(k, n, seed, permutations):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 5, (n, k)) / 4 + rng.normal(0, 0.3, k)  # ties and real differences
    runs = [f"r{i}" for i in range(k)]
    hsd = randomized_tukey_hsd(runs, scores, permutations=permutations, seed=seed, alpha=0.05)
    for a, b in itertools.combinations(runs, 2):
        difference, low, high = hsd.interval(a, b)
        significant = hsd.p_value(a, b) < 0.05
        assert (low > 0 or high < 0) == significant == (abs(difference) > hsd.critical)
    if permutations < 20:  # p is at least 1/20 = 0.05: nothing is ever significant
        assert hsd.critical == math.inf


def test_hsd_of_too_few_queries_is_undefined():
    hsd = randomized_tukey_hsd(["a", "b"], np.array([[0.1, 0.9]]), permutations=10)
    assert np.isnan(hsd.p).all() and math.isnan(hsd.critical)


def null_campaign(rng: np.random.Generator, runs: int, queries: int) -> np.ndarray:
    """Per-query scores of runs that do not differ: each query's difficulty plus the same
    noise for every run, cut to [0, 1] as NDCG is."""
    difficulty = rng.random((queries, 1))
    return np.clip(difficulty + rng.normal(0, 0.2, (queries, runs)), 0, 1)


def family_wise_error_rates(datasets: int = 200, runs: int = 6, queries: int = 50) -> dict:
    """Share of null campaigns where any pair is called significant at 0.05: by the
    randomized Tukey HSD, and by unadjusted and Holm-adjusted paired t-tests."""
    rng = np.random.default_rng(2012)
    names = [f"r{i}" for i in range(runs)]
    pairs = list(itertools.combinations(range(runs), 2))
    errors = {"hsd": 0, "t unadjusted": 0, "t holm": 0}
    for index in range(datasets):
        scores = null_campaign(rng, runs, queries)
        hsd = randomized_tukey_hsd(names, scores, permutations=500, seed=index)
        errors["hsd"] += bool((hsd.p < 0.05).any())
        t_p = np.array([paired_t_test(scores[:, j], scores[:, i])[1] for i, j in pairs])
        errors["t unadjusted"] += bool((t_p < 0.05).any())
        errors["t holm"] += bool((holm(t_p) < 0.05).any())
    return {test: count / datasets for test, count in errors.items()}


def test_hsd_holds_the_family_wise_error_rate_where_unadjusted_tests_do_not():
    rates = family_wise_error_rates()
    # 200 null campaigns: a rate of 0.05 lies below 0.09 with probability above 0.99
    assert rates["hsd"] <= 0.09 and rates["t holm"] <= 0.09
    assert rates["t unadjusted"] > 0.15  # 15 pairs tested at 0.05 each


# --- letters -----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7).flatmap(lambda k: st.tuples(
    st.just(k),
    st.lists(st.booleans(), min_size=k * (k - 1) // 2, max_size=k * (k - 1) // 2),
    st.lists(st.floats(0, 1), min_size=k, max_size=k),
)))  # fmt: skip
def test_runs_share_a_group_exactly_when_they_are_not_told_apart(case):
    k, flags, means = case
    different = np.zeros((k, k), dtype=bool)
    for (i, j), flag in zip(itertools.combinations(range(k), 2), flags):
        different[i, j] = different[j, i] = flag
    runs = [f"r{i}" for i in range(k)]
    groups = letter_groups(runs, np.array(means), different)
    for (i, a), (j, b) in itertools.combinations(enumerate(runs), 2):
        together = any(a in group and b in group for group in groups)
        assert together == (not different[i, j])
    assert {run for group in groups for run in group} == set(runs)
    assert all(not set(g) < set(h) for g in groups for h in groups)  # none inside another


def test_groups_are_lettered_from_the_best_run():
    scores = np.array([[0.9, 0.1, 0.5]] * 40) + np.random.default_rng(0).normal(0, 0.01, (40, 3))
    hsd = randomized_tukey_hsd(["mid", "low", "top"], scores[:, [2, 1, 0]], permutations=200)
    assert hsd.groups() == [("a", ["top"]), ("b", ["mid"]), ("c", ["low"])]
    assert hsd.letters() == {"mid": "b", "low": "c", "top": "a"}
