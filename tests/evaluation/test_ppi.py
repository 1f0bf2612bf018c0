"""Prediction-powered means against the ``ppi-python`` package (its point estimates; our
intervals are Student t with a jackknife standard error, built here from ppi-python's own
estimates without each unit), the humans-only t interval against scipy, and the active
estimators' unbiasedness and coverage by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from ppi_oracle import jackknife_interval, on_scale, point
from scipy import stats

from judge_app.metrics import active_order, ppi

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
    assert ours.mean == pytest.approx(point(y, yhat, unlabeled, lam), abs=1e-12)
    assert ours.interval == pytest.approx(jackknife_interval(y, yhat, unlabeled, lam), abs=1e-12)
    assert ours.method == ppi.CORRECTED
    humans = ppi.classical(y)
    expected = stats.t.interval(0.95, n - 1, np.mean(y), stats.sem(y))
    assert humans.interval == pytest.approx(expected, abs=1e-12)


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
    assert ours.mean == pytest.approx(point(y, yhat, unlabeled, None), abs=1e-10)
    assert ours.interval == pytest.approx(jackknife_interval(y, yhat, unlabeled, None), abs=1e-10)


def test_intervals_stay_within_the_bounds_asked_for():
    y = np.array([1.0, 0.98, 1.0, 0.7, 1.0, 1.0, 0.95, 1.0])
    assert ppi.classical(y).high > 1
    humans = ppi.classical(y, bounds=(0.0, 1.0))
    assert humans.interval == pytest.approx(on_scale(y.mean(), stats.sem(y), 8, 0.0, 1.0))
    assert 0 < humans.low < humans.high < 1
    corrected = ppi.prediction_powered(y, y - 0.1, np.full(20, 0.95), bounds=(0.0, 1.0))
    assert 0.0 <= corrected.low <= corrected.high <= 1.0


def test_a_good_judge_narrows_the_interval_and_a_biased_one_does_not_bias_it():
    y, yhat, unlabeled = _sample(7, 40, 2000, 0.25, 0.02)
    humans, corrected = ppi.classical(y), ppi.prediction_powered(y, yhat, unlabeled)
    assert corrected.high - corrected.low < 0.5 * (humans.high - humans.low)
    assert abs(corrected.mean - y.mean()) < 0.05  # the +0.25 bias is corrected
    assert ppi.equivalent_labels(humans, corrected) > 4 * len(y)


def test_without_unlabelled_units_the_estimate_is_the_classical_one():
    y = np.array([0.2, 0.5, 0.9])
    assert ppi.prediction_powered(y, y + 0.1, []) == ppi.classical(y)
    assert math.isnan(ppi.classical([0.4]).half_width)  # one value: no interval
    assert math.isnan(ppi.classical([]).mean)


def test_the_active_estimates_are_unbiased_and_cover_for_unequal_probabilities():
    """Units drawn as ``judge-app sample`` draws queries (sequential Poisson sampling: the
    first n of an order by a seeded uniform over each unit's scale), favouring those the judge
    gets wrong: over many campaigns drawn afresh, the design-weighted estimates, corrected and
    humans alone, average to the true mean (0.4, Beta(2, 3)'s), and their 95% intervals cover
    it 93–97% of the time."""
    generator = np.random.default_rng(11)
    units, n, repetitions = 400, 40, 2000
    corrected, humans = [], []
    for repetition in range(repetitions):
        truth = generator.beta(2, 3, units)
        judge = np.clip(truth + 0.2 * generator.standard_normal(units) + 0.15, 0, 1)
        scale = active_order.floored(np.abs(truth - judge) + 0.05)
        drawn = np.argsort(active_order.order_keys(scale, repetition))[:n]
        labeled = np.zeros(units, dtype=bool)
        labeled[drawn] = True
        probability = active_order.inclusion_probabilities(scale, n)
        corrected.append(ppi.active_estimate(truth[labeled], judge, labeled, probability))
        humans.append(ppi.weighted_humans(truth[labeled], units, probability[labeled]))
    for estimates in (corrected, humans):
        assert np.mean([e.mean for e in estimates]) == pytest.approx(0.4, abs=0.004)
        covered = np.mean([e.low <= 0.4 <= e.high for e in estimates])
        assert 0.93 <= covered <= 0.97, covered
