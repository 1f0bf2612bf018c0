"""The Wilcoxon signed-rank test, the sign test and Cohen's d_z with its interval, checked
against scipy.stats and a published example."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from judge_app.metrics.paired_tests import sign_test, standardized_effect, wilcoxon_test

# differences on a coarse grid (NDCG-like steps): zeros and ties are common
COARSE = st.integers(-8, 8).map(lambda k: k / 8)
FINE = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)


def scipy_wilcoxon(d: np.ndarray) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of ties or zeros, then handles them
        result = stats.wilcoxon(d)
    return float(result.statistic), float(result.pvalue)


# scipy answers a small sample with ties by a permutation test: a quarter of a second each
@settings(max_examples=100, deadline=None)
@given(
    st.one_of(st.lists(COARSE, min_size=1, max_size=70), st.lists(FINE, min_size=1, max_size=70))
)
def test_wilcoxon_is_scipys(values):
    d = np.array(values)
    if not np.any(d != 0):
        return  # scipy's answer depends on the count; ours is the next test's
    assert wilcoxon_test(d) == pytest.approx(scipy_wilcoxon(d), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    "d",
    [
        np.arange(1, 51) * np.where(np.arange(50) % 3 == 0, -1, 1) / 50,  # exact up to 50
        np.arange(1, 52) * np.where(np.arange(51) % 3 == 0, -1, 1) / 51,  # normal from 51
        np.array([0.5, -0.5, 0.25, 0.25, 0.0, 0.75, 0.1, -0.1, 0.2, 0.3, 0.4, 0.5, 0.6]),  # 13
        np.array([0.5, -0.5, 0.25, 0.25, 0.0, 0.75, 0.1, -0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]),
        np.full(20, 0.1),  # all one way, all tied
    ],
    ids=["exact-50", "normal-51", "enumerated-13-ties", "normal-14-ties", "all-tied"],
)
def test_wilcoxon_at_scipys_switches(d):
    assert wilcoxon_test(d) == pytest.approx(scipy_wilcoxon(d), rel=1e-12)


def test_wilcoxon_degenerate_cases():
    assert all(math.isnan(value) for value in wilcoxon_test(np.array([])))
    assert wilcoxon_test(np.zeros(7)) == (0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(COARSE, min_size=1, max_size=200))
def test_sign_test_is_scipys_binomtest(values):
    d = np.array(values)
    wins, p = sign_test(d)
    n = int(np.count_nonzero(d))
    assert wins == int(np.count_nonzero(d > 0))
    if n == 0:
        assert p == 1.0
    else:
        assert p == pytest.approx(stats.binomtest(wins, n).pvalue, rel=1e-12)


# Wolfgang Viechtbauer's example on Cross Validated ("Confidence interval for one sample
# effect size", question 259808): d = 0.4981 with the noncentral-t 95% interval
# 0.0266992 to 0.9579698, found with R's pt().
VIECHTBAUER = [0.7, 1.1, 0.5, 1.9, 1.1, 1.4, 0.5, 0.4, 1.2, 0.8,
               -1.2, -1.0, 0.2, 0.4, -0.6, 0.4, -0.4, 0.7, -1.0, 2.4]  # fmt: skip


def test_d_z_interval_is_the_published_one():
    effect = standardized_effect(np.array(VIECHTBAUER))
    assert effect.d_z == pytest.approx(0.4981154, abs=1e-7)
    assert (effect.low, effect.high) == pytest.approx((0.0266992, 0.9579698), abs=1e-7)
    assert effect.n == 20


def nct_interval(d: np.ndarray, confidence: float) -> tuple[float, float]:
    """The noncentrality parameters putting t at the tails of scipy.stats.nct, by root finding."""
    n = d.size
    t = np.mean(d) / np.std(d, ddof=1) * math.sqrt(n)
    tail = (1 - confidence) / 2

    def solve(p: float) -> float:
        def f(nc: float) -> float:
            return stats.nct.cdf(t, n - 1, nc) - p

        width = 1.0
        while not f(t - width) > 0 > f(t + width):  # widened until it brackets the root
            width *= 2
        return optimize.brentq(f, t - width, t + width, xtol=1e-13)

    return solve(1 - tail) / math.sqrt(n), solve(tail) / math.sqrt(n)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(FINE, min_size=3, max_size=60).filter(lambda v: np.ptp(v) > 1e-3),
    st.sampled_from([0.9, 0.95, 0.99]),
)
def test_d_z_interval_inverts_scipys_noncentral_t(values, confidence):
    d = np.array(values)
    effect = standardized_effect(d, confidence)
    low, high = nct_interval(d, confidence)
    assert effect.low < effect.d_z < effect.high
    assert (effect.low, effect.high) == pytest.approx((low, high), rel=1e-7, abs=1e-9)


def test_d_z_is_undefined_without_spread_or_pairs():
    for d in (np.array([]), np.array([0.3]), np.full(5, 0.2), np.zeros(4)):
        effect = standardized_effect(d)
        assert math.isnan(effect.d_z) and math.isnan(effect.low) and math.isnan(effect.high)
