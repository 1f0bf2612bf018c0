"""Topic set size design (``metrics.sample_size``) against statsmodels: the paired t-test's
power and the queries it needs over a grid of effect sizes, levels and powers; the fallback
integral of the noncentral t's tails against scipy's; the pooled variance of per-query
differences against the two-way ANOVA statsmodels fits."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import nctdtr, ndtr, stdtrit
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.power import TTestPower, tt_solve_power

from judge_app.metrics.sample_size import (
    TooFewQueries,
    _nct_tails_integrated,
    difference_variance,
    normal_approximation,
    paired_t_power,
    queries_needed,
)

EFFECT_SIZES = [0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2, 2.0]
LEVELS = [(0.01, 0.8), (0.05, 0.5), (0.05, 0.8), (0.05, 0.9), (0.1, 0.8), (0.05, 0.99)]


def statsmodels_power(effect_size: float, n: int, alpha: float) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' own NaN far in a tail
        return float(TTestPower().power(effect_size, n, alpha, alternative="two-sided"))


@pytest.mark.parametrize("alpha", [0.001, 0.01, 0.05, 0.1, 0.5])
@pytest.mark.parametrize("effect_size", [0.0, 0.02, 0.1, 0.3, 0.5, 1.0, 2.5])
def test_power_is_statsmodels(effect_size, alpha):
    compared = 0
    for n in [2, 3, 5, 10, 16, 50, 212, 1000, 10_000, 250_000]:
        expected = statsmodels_power(effect_size, n, alpha)
        if math.isnan(expected):  # scipy's nct fails there; see the fallback's tests
            continue
        assert paired_t_power(n, effect_size, alpha) == pytest.approx(expected, abs=1e-10)
        compared += 1
    assert compared >= 6


@pytest.mark.parametrize("alpha,power", LEVELS)
@pytest.mark.parametrize("effect_size", EFFECT_SIZES)
def test_queries_needed_are_statsmodels_solution_rounded_up(effect_size, alpha, power):
    solved = tt_solve_power(
        effect_size=effect_size, alpha=alpha, power=power, alternative="two-sided"
    )
    if solved < 2.5:  # statsmodels' solver starts at 2 and stops there for huge effects
        pytest.skip("statsmodels does not solve below 2 queries")
    n = queries_needed(effect_size, power, alpha)
    assert n == math.ceil(solved - 1e-9)
    assert paired_t_power(n, effect_size, alpha) >= power
    assert paired_t_power(n - 1, effect_size, alpha) < power


@settings(max_examples=200, deadline=None)
@given(
    effect_size=st.floats(0.002, 8.0),
    alpha=st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2]),
    power=st.floats(0.5, 0.999),
)
def test_queries_needed_is_the_smallest_with_the_power(effect_size, alpha, power):
    n = queries_needed(effect_size, power, alpha)
    assert n >= 2
    assert paired_t_power(n, effect_size, alpha) >= power
    if n > 2:
        assert paired_t_power(n - 1, effect_size, alpha) < power


def test_sign_of_the_difference_does_not_matter():
    assert queries_needed(-0.3, 0.8, 0.05) == queries_needed(0.3, 0.8, 0.05)
    assert paired_t_power(40, -0.3, 0.05) == paired_t_power(40, 0.3, 0.05)


def test_no_difference_has_the_power_of_the_level():
    for alpha in (0.01, 0.05, 0.2):
        assert paired_t_power(30, 0.0, alpha) == pytest.approx(alpha, abs=1e-12)


@pytest.mark.parametrize(
    "effect_size,power,alpha,message",
    [(0.0, 0.8, 0.05, "effect size"), (math.inf, 0.8, 0.05, "effect size"),
     (0.3, 1.0, 0.05, "between 0 and 1"), (0.3, 0.8, 0.0, "between 0 and 1")],
)  # fmt: skip
def test_impossible_questions_are_refused(effect_size, power, alpha, message):
    with pytest.raises(ValueError, match=message):
        queries_needed(effect_size, power, alpha)
    with pytest.raises(ValueError, match="at least 2"):
        paired_t_power(1, 0.5, 0.05)


# the fallback where scipy's noncentral t fails ------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 5, 30, 1000, 100_000, 10_000_000])
@pytest.mark.parametrize("alpha", [0.001, 0.05, 0.5])
def test_integrated_tails_are_scipys_where_it_answers(df, alpha):
    critical = float(stdtrit(df, 1 - alpha / 2))
    compared = 0
    for noncentrality in np.linspace(0, 40, 41):
        upper, lower = _nct_tails_integrated(df, float(noncentrality), critical)
        expected_upper = 1 - nctdtr(df, noncentrality, critical)
        expected_lower = nctdtr(df, noncentrality, -critical)
        if not math.isnan(expected_upper):
            assert upper == pytest.approx(expected_upper, abs=1e-9)
            compared += 1
        if not math.isnan(expected_lower):
            assert lower == pytest.approx(expected_lower, abs=1e-9)
            compared += 1
    assert compared >= 40


def test_power_where_scipy_fails_lies_within_its_bounds():
    """Where ``nctdtr`` gives NaN (statsmodels' power too), the power is bounded by the upper
    tail scipy.stats computes another way and that plus Φ(−δ), the most the lower tail holds;
    and it grows with n."""
    cases = 0
    for effect_size, alpha in [(3.0, 0.01), (10.0, 0.05), (1.0, 0.05), (0.2, 0.05)]:
        powers = []
        for n in range(2, 400):
            power = paired_t_power(n, effect_size, alpha)
            powers.append(power)
            if not math.isnan(statsmodels_power(effect_size, n, alpha)):
                continue
            cases += 1
            df, delta = n - 1, effect_size * math.sqrt(n)
            critical = stdtrit(df, 1 - alpha / 2)
            upper = stats.nct.sf(critical, df, delta)
            if not math.isnan(upper):
                assert upper - 1e-12 <= power <= upper + ndtr(-delta) + 1e-12
        assert all(0 <= p <= 1 for p in powers)
        assert np.all(np.diff(powers) >= -1e-12)
    assert cases >= 5


def test_a_tiny_difference_needs_millions_of_queries():
    n = queries_needed(0.001, 0.8, 0.05)
    assert n == math.ceil(tt_solve_power(effect_size=0.001, alpha=0.05, power=0.8))
    assert n > 7_800_000


# the variance of per-query differences ------------------------------------------------------


def anova_residual_mean_square(scores: np.ndarray) -> float:
    """The residual mean square of the two-way ANOVA without replication (queries × runs)."""
    queries, runs = scores.shape
    frame = pd.DataFrame(
        {
            "score": scores.ravel(),
            "query": np.repeat(np.arange(queries), runs).astype(str),
            "run": np.tile(np.arange(runs), queries).astype(str),
        }
    )
    table = anova_lm(ols("score ~ C(query) + C(run)", data=frame).fit())
    return float(table.loc["Residual", "mean_sq"])


@pytest.mark.parametrize("runs", [2, 3, 5])
def test_pooled_variance_is_twice_the_anova_residual_mean_square(runs):
    """Sakai estimates the variance of the differences as 2 V_E of the two-way ANOVA; with
    every run scoring every query the pooled variance of the pairs' differences is that."""
    rng = np.random.default_rng(runs)
    scores = np.clip(rng.normal(0.5, 0.2, (40, 1)) + rng.normal(0, 0.1, (40, runs)), 0, 1)
    names = [f"r{i}" for i in range(runs)]
    estimate = difference_variance(names, scores)
    assert estimate.variance == pytest.approx(2 * anova_residual_mean_square(scores), rel=1e-10)
    assert estimate.pooled and estimate.pairs == runs * (runs - 1) // 2
    assert estimate.queries == 40 and estimate.df == estimate.pairs * 39


def test_two_runs_give_the_variance_of_their_differences():
    rng = np.random.default_rng(1)
    scores = rng.random((25, 2))
    estimate = difference_variance(["a", "b"], scores)
    assert estimate.variance == pytest.approx(np.var(scores[:, 1] - scores[:, 0], ddof=1))


def test_one_run_gives_twice_its_variance():
    scores = np.array([[0.2], [0.5], [np.nan], [0.9], [0.4]])
    estimate = difference_variance(["only"], scores)
    assert estimate.variance == pytest.approx(2 * np.var([0.2, 0.5, 0.9, 0.4], ddof=1))
    assert not estimate.pooled and estimate.queries == 4
    assert "conservative" in estimate.describe()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=3, max_size=3),
        min_size=3,
        max_size=12,
    )
)
def test_pooled_variance_with_holes_pools_each_pairs_common_queries(rows):
    """Queries a run did not score (NaN) leave only its pairs; each pair pools its own
    common queries, as pandas' variance of the pair's differences over them."""
    scores = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    frame = pd.DataFrame(scores, columns=["a", "b", "c"])
    squares = df = 0.0
    for first, second in [("a", "b"), ("a", "c"), ("b", "c")]:
        d = (frame[second] - frame[first]).dropna()
        if len(d) >= 2:
            squares += d.var(ddof=1) * (len(d) - 1)
            df += len(d) - 1
    if df == 0:
        with pytest.raises(TooFewQueries):
            difference_variance(["a", "b", "c"], scores)
        return
    estimate = difference_variance(["a", "b", "c"], scores)
    assert estimate.variance == pytest.approx(squares / df, abs=1e-12)
    assert estimate.df == df


def test_too_few_queries_are_refused():
    with pytest.raises(TooFewQueries, match="needs two"):
        difference_variance(["a"], np.array([[0.5]]))
    with pytest.raises(TooFewQueries, match="in common"):
        difference_variance(["a", "b"], np.array([[0.5, np.nan], [np.nan, 0.3], [0.1, 0.2]]))


def test_normal_approximation_is_the_textbook_formula():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert normal_approximation(0.25, 0.8, 0.05) == pytest.approx((z / 0.25) ** 2, rel=1e-12)
