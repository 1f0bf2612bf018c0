"""The intervals of ``eval --judge`` hold at the numbers of labelled queries campaigns have
(``tests/ppi_simulation.py``): over generated campaigns with a deliberately biased judge,
humans alone, humans corrected by the judge and (raters following the active sample) both
design-weighted cover the true mean NDCG@10 and the true differences 93–97% of the time at
every size the evaluation gives an interval at, while the judge alone is far off; corrected,
they are narrower than humans alone."""

from __future__ import annotations

import pytest
from ppi_simulation import simulate, true_means

from judge_app.evaluation.corrected import MIN_LABELLED

REPETITIONS = 200
POPULATION = 30_000  # the true means to ±0.001: enough beside widths of 0.04 to 0.2
SIZES = (8, MIN_LABELLED, 40)
DESIGNS = ("uniform", "active")


@pytest.fixture(scope="module")
def coverage():
    return simulate(REPETITIONS, sizes=SIZES, designs=DESIGNS, population=POPULATION)


SHOWN = [
    (design, n, estimator)
    for design in DESIGNS
    for n in SIZES
    for estimator in ("humans", "corrected")
    if n >= MIN_LABELLED or (design == "uniform" and estimator == "humans")
]
"""Every interval the evaluation gives: below MIN_LABELLED labelled queries only the
humans-only t interval of a random sample (the others are said to be missing, in words)."""


@pytest.mark.parametrize(("design", "n", "estimator"), SHOWN)
def test_every_interval_given_covers_the_truth_about_95_percent_of_the_time(
    coverage, design, n, estimator
):
    """Over the five estimands together (1,000 intervals): 93–97% with 4,000 campaigns
    (``python tests/ppi_simulation.py``, ``docs/coverage.txt``); here 200, so ±1.4 points of
    binomial spread (two standard errors)."""
    assert 0.915 <= coverage.of(design, n, estimator).coverage <= 0.985


def test_the_judge_alone_is_biased_and_the_correction_removes_it(coverage):
    truth = true_means(POPULATION)
    for name in ("good", "poor"):
        assert abs(truth[f"{name} by the judge"] - truth[name]) > 0.05  # the judge is biased
        tally = coverage.of("uniform", 40, "judge", name)
        assert tally.coverage < 0.05  # and its intervals miss
        assert abs(tally.error / tally.intervals) > 0.05
        corrected = coverage.of("uniform", 40, "corrected", name)
        assert abs(corrected.error / corrected.intervals) < 0.01


def test_the_corrected_intervals_are_narrower(coverage):
    for design in DESIGNS:
        corrected, humans = (coverage.of(design, 40, kind) for kind in ("corrected", "humans"))
        assert corrected.width / corrected.intervals < 0.95 * humans.width / humans.intervals
