"""The preference-against-graded simulation (``benchmarks/preference_simulation.py``) on a tiny
configuration: without noise both ways of judging tell the better run apart, runs of the same
quality are told apart about as often as the test's level says, complete noiseless grades
never put A above B, and the assessor noise gives the agreement asked for (``krippendorff``)."""

from __future__ import annotations

import sys

import krippendorff
import numpy as np
import pytest
from paths import ROOT

from judge_app.store.pair_queue import DEFAULT_BUDGET, DEFAULT_TOP

sys.path.insert(0, str(ROOT / "benchmarks"))
import preference_simulation as simulation  # noqa: E402


def test_without_noise_both_tell_the_better_run_apart_and_not_equal_ones():
    (row,) = simulation.simulate(simulation.Model(0.0), 200, 200, budgets=(20,), sizes=(25,))
    assert row.graded_power >= 0.95 and row.preference_power >= 0.95
    assert row.graded_false <= 0.1 and row.preference_false <= 0.1
    assert row.pairs_used == pytest.approx(20, abs=0.5)


def test_with_noise_equal_runs_are_told_apart_near_the_level_only():
    model = simulation.Model(0.92)
    (row,) = simulation.simulate(model, 300, 300, budgets=(10,), sizes=(25,), seed=5)
    for power, false in ((row.graded_power, row.graded_false),
                         (row.preference_power, row.preference_false)):  # fmt: skip
        assert false <= 0.1
        assert power > 2 * false


def test_complete_noiseless_grades_never_put_a_above_b():
    rng = np.random.default_rng(0)
    queries = simulation.draw_queries(rng, 300, simulation.Model(0.0))
    scores = simulation.graded_scores(queries, [simulation.POOL], 0.0, rng)[simulation.POOL]
    differences = scores[:, 1] - scores[:, 0]
    assert (differences >= -1e-12).all() and (differences > 0).mean() > 0.5


def test_the_assessor_noise_gives_the_agreement_asked_for():
    noise = simulation.assessor_noise(0.55, np.random.default_rng(1), n=500)
    rng = np.random.default_rng(2)
    relevance = simulation.latent_relevance(rng, 500, simulation.TYPICAL).ravel()
    two = np.stack([simulation.grades(relevance, noise, rng) for _ in range(2)])
    alpha = krippendorff.alpha(two.astype(float), level_of_measurement="ordinal")
    assert alpha == pytest.approx(0.55, abs=0.02)


def test_the_plan_compares_enough_candidates_for_its_budget():
    assert simulation.candidates_for(DEFAULT_BUDGET) == DEFAULT_TOP
    for budget in range(1, 60):
        top = simulation.candidates_for(budget)
        assert top * (top - 1) // 2 >= budget or top == simulation.MAX_TOP
