"""Prediction-powered means against the ``ppi-python`` package, and the active estimator's
unbiasedness by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from judge_app.metrics import ppi

ppi_py = pytest.importorskip("ppi_py")

values = st.floats(0, 1, allow_nan=False, width=64)


def _sample(seed: int, n: int, big_n: int, bias: float, noise: float):
    generator = np.random.default_rng(seed)
    y = generator.beta(2, 3, n)
    yhat = np.clip(y + bias + generator.normal(0, noise, n), 0, 1)
    truth = generator.beta(2, 3, big_n)
    unlabeled = np.clip(truth + bias + generator.normal(0, noise, big_n), 0, 1)
    return y, yhat, unlabeled


@pytest.mark.parametrize(
    ("seed", "n", "big_n", "bias", "noise", "lam"),
    [
        (0, 30, 300, 0.1, 0.05, None),
        (1, 50, 1000, -0.2, 0.3, None),
        (2, 10, 40, 0.0, 0.0, None),
        (3, 25, 25, 0.3, 0.1, 1.0),
        (4, 25, 200, 0.3, 0.1, 0.0),
        (5, 8, 500, 0.05, 1.0, None),  # a useless judge: λ goes to 0
    ],
)
def test_prediction_powered_mean_is_ppi_pythons(seed, n, big_n, bias, noise, lam):
    y, yhat, unlabeled = _sample(seed, n, big_n, bias, noise)
    ours = ppi.prediction_powered(y, yhat, unlabeled, lam=lam)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unlabeled, lam=lam)
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabeled, alpha=0.05, lam=lam)
    assert ours.mean == pytest.approx(float(np.squeeze(point)), abs=1e-12)
    assert ours.low == pytest.approx(float(np.squeeze(low)), abs=1e-12)
    assert ours.high == pytest.approx(float(np.squeeze(high)), abs=1e-12)
    classical_low, classical_high = ppi_py.classical_mean_ci(y, alpha=0.05)
    humans = ppi.classical(y)
    assert humans.interval == pytest.approx((classical_low, classical_high), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 30), elements=values),
    st.floats(-0.5, 0.5),
    st.integers(2, 60),
    st.integers(0, 2**32 - 1),
)
def test_any_sample_matches_ppi_python(y, shift, big_n, seed):
    generator = np.random.default_rng(seed)
    yhat = np.clip(y + shift + generator.normal(0, 0.1, len(y)), 0, 1)
    unlabeled = generator.uniform(0, 1, big_n)
    ours = ppi.prediction_powered(y, yhat, unlabeled)
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabeled, alpha=0.05)
    assert ours.low == pytest.approx(float(np.squeeze(low)), abs=1e-10)
    assert ours.high == pytest.approx(float(np.squeeze(high)), abs=1e-10)


def test_a_good_judge_narrows_the_interval_and_a_biased_one_does_not_bias_it():
    y, yhat, unlabeled = _sample(7, 40, 2000, 0.25, 0.02)
    humans, corrected = ppi.classical(y), ppi.prediction_powered(y, yhat, unlabeled)
    assert corrected.high - corrected.low < 0.5 * (humans.high - humans.low)
    assert abs(corrected.mean - y.mean()) < 0.05  # the +0.25 bias is corrected
    assert ppi.equivalent_labels(humans, corrected) > 4 * len(y)


def test_without_unlabelled_units_the_estimate_is_the_classical_one():
    y = np.array([0.2, 0.5, 0.9])
    assert ppi.prediction_powered(y, y + 0.1, []) == ppi.classical(y)
    assert math.isnan(ppi.classical([]).mean)


def test_the_active_estimate_is_unbiased_for_any_inclusion_probabilities():
    """Units labelled with unequal probabilities, favouring those the judge gets wrong: over
    many campaigns drawn afresh, the estimates average to the true mean (0.4, Beta(2, 3)'s),
    and their 95% intervals cover it about 95% of the time."""
    generator = np.random.default_rng(11)
    units, repetitions = 400, 2000
    estimates, covered = [], 0
    for _ in range(repetitions):
        truth = generator.beta(2, 3, units)
        judge = np.clip(truth + 0.2 * generator.standard_normal(units) + 0.15, 0, 1)
        probability = np.clip(np.abs(truth - judge) * 2, 0.05, 1)
        labeled = generator.uniform(size=units) < probability
        estimate = ppi.active_estimate(truth[labeled], judge, labeled, probability)
        estimates.append(estimate.mean)
        covered += estimate.low <= 0.4 <= estimate.high
    assert np.mean(estimates) == pytest.approx(0.4, abs=0.002)
    assert 0.935 <= covered / repetitions <= 0.965
