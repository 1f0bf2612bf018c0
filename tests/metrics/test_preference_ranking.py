"""Bradley–Terry strengths from preferences, against choix on generated data; the ideal ranking
with ties; the uncertainty of the strengths."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.metrics.preferences import (
    CHOICES,
    PRIOR,
    Comparisons,
    bradley_terry,
    comparisons,
    ideal_ranking,
)
from judge_app.store.models import PREFERENCE_CHOICES


def _generated(seed: int, n_docs: int, n_pairs: int) -> tuple[list[str], list[str], list[str]]:
    """Preferences drawn from a Bradley–Terry model with true strengths, some of them ties."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 1.5, n_docs)
    doc_a, doc_b, choice = [], [], []
    for _ in range(n_pairs):
        i, j = rng.choice(n_docs, 2, replace=False)
        win = rng.random() < 1 / (1 + np.exp(truth[j] - truth[i]))
        tie = rng.random() < 0.15
        doc_a.append(f"d{i:02d}")
        doc_b.append(f"d{j:02d}")
        choice.append("equal" if tie else "a" if win else "b")
    return doc_a, doc_b, choice


def _choix_theta(data: Comparisons, prior: float) -> np.ndarray:
    """choix's MAP estimate of the same model: every win given twice and a tie as one win each
    way, which doubles our log-likelihood, so choix's penalty (alpha Σθ²) matches our prior."""
    pairs = []
    n = len(data.docs)
    for i in range(n):
        for j in range(n):
            pairs += [(i, j)] * int(round(2 * data.wins[i, j]))
    return choix.opt_pairwise(n, pairs, alpha=prior, method="Newton-CG", tol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_strengths_equal_choix_on_generated_data(seed):
    data = comparisons(*_generated(seed, n_docs=8 + seed, n_pairs=40 + 10 * seed))
    ours = bradley_terry(data).theta
    oracle = _choix_theta(data, PRIOR)
    assert np.max(np.abs(ours - oracle)) < 1e-6


def test_a_document_that_wins_every_comparison_stays_finite():
    data = comparisons(["x", "x", "y"], ["y", "z", "z"], ["a", "a", "a"])
    strengths = bradley_terry(data)
    assert np.all(np.isfinite(strengths.theta)) and np.all(np.isfinite(strengths.se))
    assert list(np.argsort(-strengths.theta)) == [0, 1, 2]  # x, y, z
    assert strengths.above(0, 2) > strengths.above(0, 1) > 0.5


def test_uncertainty_shrinks_with_more_judgments():
    few = bradley_terry(comparisons(["x"] * 2, ["y"] * 2, ["a", "a"]))
    many = bradley_terry(comparisons(["x"] * 40, ["y"] * 40, ["a", "b"] * 20))
    assert many.se[0] < few.se[0]
    assert many.above(0, 1) == pytest.approx(0.5)  # as many wins as losses
    assert few.above(0, 1) > 0.5


def test_the_fit_is_the_posteriors_maximum():
    """At the fit the log-posterior's gradient is zero: wins equal expected wins plus the
    prior's pull."""
    data = comparisons(*_generated(11, n_docs=6, n_pairs=30))
    theta = bradley_terry(data).theta
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    gradient = (data.wins - data.counts * p).sum(axis=1) - PRIOR * theta
    assert np.max(np.abs(gradient)) < 1e-9


def test_ideal_ranking_has_ties_and_leaves_out_what_is_not_relevant():
    doc_a = ["x", "x", "y", "z", "z", "w"]
    doc_b = ["y", "z", "z", "w", "v", "v"]
    choice = ["equal", "a", "a", "neither", "neither", "neither"]
    ideal = ideal_ranking(comparisons(doc_a, doc_b, choice))
    # x and y beat z alike and tie with each other; w and v were called not relevant
    assert ideal.groups == (("x", "y"), ("z",))
    assert ideal.not_relevant == ("v", "w")
    assert ideal.documents == ["x", "y", "z"]


def test_skipped_choices_say_nothing():
    ideal = ideal_ranking(comparisons(["x", "y"], ["y", "z"], ["a", "skipped"]))
    assert ideal.groups == (("x",), ("y",))


def test_the_choices_are_the_stores():
    assert CHOICES == PREFERENCE_CHOICES


def test_a_prior_that_is_no_prior_is_refused():
    with pytest.raises(ValueError, match="positive"):
        bradley_terry(comparisons(["x"], ["y"], ["a"]), prior=0)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from(["a", "b", "equal"])),
        min_size=1,
        max_size=25,
    ).map(lambda rows: [row for row in rows if row[0] != row[1]])
)
def test_swapping_every_choice_turns_the_strengths_around(rows):
    """Documents a and b swapped in every preference (the choice turned with them) give the
    same strengths; every choice reversed gives their negation."""
    if not rows:
        return
    doc_a = [f"d{a}" for a, _, _ in rows]
    doc_b = [f"d{b}" for _, b, _ in rows]
    choice = [c for _, _, c in rows]
    turned = {"a": "b", "b": "a", "equal": "equal"}
    theta = bradley_terry(comparisons(doc_a, doc_b, choice)).theta
    swapped = bradley_terry(comparisons(doc_b, doc_a, [turned[c] for c in choice])).theta
    reversed_ = bradley_terry(comparisons(doc_a, doc_b, [turned[c] for c in choice])).theta
    assert np.allclose(theta, swapped, atol=1e-9)
    assert np.allclose(theta, -reversed_, atol=1e-9)
