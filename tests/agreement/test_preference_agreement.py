"""Agreement on preferences: the share agreeing and nominal alpha against the ``krippendorff``
package and a unit-by-unit count on generated choices, and their bootstrap intervals (within
bounds, around the estimate, seeded, as a plain resampling of units finds them)."""

from __future__ import annotations

import itertools
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.agreement.preference_agreement import (
    VALUES,
    choice_counts,
    preference_agreement,
    share_interval,
)
from judge_app.commands.preferences import PreferenceSummary, summary_text

CHOICES = (*VALUES, "skipped", None)  # None: the rater did not see the pair


def frame_of(cells: list[list[str | None]]) -> pd.DataFrame:
    """Preferences from ``cells[unit][rater]`` (None: no row), one unit per query's pair."""
    rows = [
        (f"q{unit // 3}", f"d{unit}", f"e{unit}", f"r{rater}", cell)
        for unit, row in enumerate(cells)
        for rater, cell in enumerate(row)
        if cell is not None
    ]
    return pd.DataFrame(rows, columns=["query_id", "doc_a", "doc_b", "rater", "choice"])


def generated(units: int, raters: int, seed: int) -> pd.DataFrame:
    """Raters who mostly agree with each unit's true choice, and sometimes skip or miss it."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(VALUES, size=units, p=[0.4, 0.3, 0.2, 0.1])
    cells = [
        [
            None
            if rng.random() < 0.2
            else "skipped"
            if rng.random() < 0.05
            else str(truth[unit] if rng.random() < 0.7 else rng.choice(VALUES))
            for _ in range(raters)
        ]
        for unit in range(units)
    ]
    return frame_of(cells)


def oracle_alpha(frame: pd.DataFrame) -> float | None:
    """``krippendorff.alpha`` at the nominal level (raters × units, skipped missing)."""
    chosen = frame[frame["choice"].isin(VALUES)]
    table = chosen.pivot(index="rater", columns=["query_id", "doc_a", "doc_b"], values="choice")
    codes = table.apply(lambda column: column.map(dict(zip(VALUES, range(4))))).to_numpy(float)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(codes, level_of_measurement="nominal")
    except ValueError:
        return None
    return None if np.isnan(value) else float(value)


def oracle_share(frame: pd.DataFrame) -> float | None:
    """The mean over units with two or more choices of the share of agreeing pairs of them."""
    chosen = frame[frame["choice"].isin(VALUES)]
    shares = []
    for _, unit in chosen.groupby(["query_id", "doc_a", "doc_b"]):
        pairs = list(itertools.combinations(unit["choice"], 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return float(np.mean(shares)) if shares else None


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda raters: st.lists(
            st.lists(st.sampled_from(CHOICES), min_size=raters, max_size=raters),
            min_size=1,
            max_size=30,
        )
    )
)
def test_share_and_alpha_agree_with_the_oracles(cells):
    frame = frame_of(cells)
    found = preference_agreement(frame, resamples=50)
    expected = oracle_alpha(frame)
    if expected is None:
        assert found.alpha.value is None and found.alpha.reason
    else:
        assert found.alpha.value == pytest.approx(expected, abs=1e-12)
    share = oracle_share(frame)
    assert found.share.value == (share if share is None else pytest.approx(share, abs=1e-12))
    for estimate, interval, lowest in ((found.share, found.share_interval, 0),
                                       (found.alpha, found.alpha_interval, -1)):  # fmt: skip
        if estimate.value is None:
            assert interval.bounds is None and interval.reason
        elif interval.bounds is not None:
            low, high = interval.bounds
            assert lowest <= low <= high <= 1
    assert (found.share_interval.bounds is None) == (found.share.value is None)


def test_intervals_hold_the_estimates_and_are_seeded():
    frame = generated(120, 4, seed=3)
    found = preference_agreement(frame, resamples=2000, seed=7)
    assert found.units > 100 and found.resamples == 2000
    assert found.share.value is not None and found.alpha.value is not None
    assert found.share_interval.bounds is not None and found.alpha_interval.bounds is not None
    share_low, share_high = found.share_interval.bounds
    alpha_low, alpha_high = found.alpha_interval.bounds
    assert 0 <= share_low < found.share.value < share_high <= 1
    assert -1 <= alpha_low < found.alpha.value < alpha_high <= 1
    again = preference_agreement(frame, resamples=2000, seed=7)
    assert again == found
    other = preference_agreement(frame, resamples=2000, seed=8)
    assert other.share_interval != found.share_interval
    assert other.alpha_interval != found.alpha_interval


def test_the_share_interval_is_a_bootstrap_of_units():
    """As resampling the units themselves finds it (many resamples: the percentiles meet)."""
    frame = generated(150, 3, seed=11)
    counts = choice_counts(frame)
    found = share_interval(counts, resamples=20_000, seed=1)
    assert found.bounds is not None
    shared = counts[counts.sum(axis=1) >= 2]
    m = shared.sum(axis=1)
    unit_shares = (shared * (shared - 1)).sum(axis=1) / (m * (m - 1))
    rng = np.random.default_rng(2)
    drawn = unit_shares[rng.integers(0, len(unit_shares), size=(20_000, len(unit_shares)))]
    expected = np.quantile(drawn.mean(axis=1), [0.025, 0.975])
    assert found.bounds == pytest.approx(tuple(expected), abs=0.006)


def test_undefined_statistics_say_why():
    nobody_shared = preference_agreement(frame_of([["a", None], [None, "b"]]))
    assert nobody_shared.units == 0
    for value in (nobody_shared.share, nobody_shared.alpha):
        assert value.value is None and value.reason == "no pair was chosen on by two or more raters"
    assert nobody_shared.share_interval.bounds is None and nobody_shared.alpha_interval.reason
    all_equal = preference_agreement(frame_of([["equal", "equal"], ["equal", "equal", "equal"]]))
    assert all_equal.share.value == 1.0 and all_equal.share_interval.bounds == (1.0, 1.0)
    assert all_equal.alpha.value is None and "'equal'" in (all_equal.alpha.reason or "")
    assert all_equal.alpha_interval.bounds is None
    none_asked = preference_agreement(generated(20, 3, seed=1), resamples=0)
    assert none_asked.share.value is not None and none_asked.share_interval.bounds is None
    assert none_asked.alpha_interval.reason == "no bootstrap resamples were asked for"


def test_the_summary_shows_each_interval():
    frame = generated(60, 3, seed=5)
    agreement = preference_agreement(frame, resamples=500, seed=0)
    counts = {"r0": {"a": 1}}
    text = summary_text(PreferenceSummary(counts, agreement, pd.DataFrame()))
    assert agreement.share.value is not None and agreement.share_interval.bounds is not None
    low, high = agreement.share_interval.bounds
    share = f"{100 * agreement.share.value:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"
    assert f"share agreeing {share}" in text
    assert agreement.alpha_interval.bounds is not None
    low, high = agreement.alpha_interval.bounds
    assert f"Krippendorff's alpha (nominal) {agreement.alpha.value:.4f} [{low:.4f}" in text
    assert "the 95% bootstrap interval from 500 resamples of the pairs" in text
