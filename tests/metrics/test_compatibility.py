"""Compatibility (Clarke, Vtyurina and Smucker, TOIS 2021) on hand-computed cases of its
definition, against ir_measures' Compat on generated data, and its invariants."""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.metrics.compatibility import compatibility, ideal_order, rbo


def test_two_documents_swapped_at_depth_two():
    # p = 0.5, D = 2: RBO(R, I) = (0 + 0.5 * 2/2) / 1.5, RBO(I, I) = (1 + 0.5 * 2/2) / 1.5
    assert compatibility(["y", "x"], [["x"], ["y"]], p=0.5, depth=2) == pytest.approx(1 / 3)


def test_two_documents_swapped_to_the_papers_depth():
    # D = 1000, p = 0.5: both rankings hold x and y from depth 2 on, so the overlaps differ
    # at depth 1 alone; Σ_{d≥2} 0.5^(d−1) 2/d = 4 ln 2 − 2
    tail = 4 * math.log(2) - 2
    assert compatibility(["y", "x"], [["x"], ["y"]], p=0.5) == pytest.approx(tail / (1 + tail))


def test_a_document_not_relevant_above_the_relevant_one():
    # I = [x]; R = [z, x]; D = 2, p = 0.5: (0 + 0.5 * 1/2) / (1 + 0.5 * 1/2)
    assert compatibility(["z", "x"], [["x"]], p=0.5, depth=2) == pytest.approx(0.2)


def test_ties_in_the_ideal_are_resolved_in_the_runs_favour():
    assert compatibility(["y", "x", "z"], [["x", "y"], ["z"]]) == pytest.approx(1.0)
    assert compatibility(["z", "y", "x"], [["x", "y"], ["z"]]) < 1.0
    assert ideal_order([["x", "y", "w"], ["z"]], ["y", "z", "x"]) == ["y", "x", "w", "z"]


def test_an_empty_ideal_ranking_gives_zero():
    assert compatibility(["x"], []) == 0.0


def test_unnormalised_compatibility_is_rbo():
    assert compatibility(["y", "x"], [["x"], ["y"]], normalize=False) == rbo(["y", "x"], ["x", "y"])


def test_the_persistence_must_be_a_probability():
    with pytest.raises(ValueError, match="between 0 and 1"):
        compatibility(["x"], [["x"]], p=1.0)


@pytest.mark.parametrize("seed", range(5))
def test_equals_ir_measures_compat_at_its_depth(seed):
    """ir_measures' Compat truncates at the longer list: ``depth=None``."""
    rng = np.random.default_rng(seed)
    qrels, run, expected_inputs = [], [], {}
    for q in range(6):
        pool = [f"d{k}" for k in range(rng.integers(3, 25))]
        grades = {doc: int(rng.integers(0, 4)) for doc in pool}
        retrieved = list(rng.permutation(pool + [f"x{k}" for k in range(3)]))[: rng.integers(1, 20)]
        qrels += [ir_measures.Qrel(f"q{q}", doc, grade) for doc, grade in grades.items()]
        run += [
            ir_measures.ScoredDoc(f"q{q}", doc, float(100 - rank))
            for rank, doc in enumerate(retrieved)
        ]
        levels = sorted({g for g in grades.values() if g > 0}, reverse=True)
        groups = [[doc for doc, g in grades.items() if g == level] for level in levels]
        expected_inputs[f"q{q}"] = (retrieved, groups)
    for p in (0.5, 0.8, 0.95):
        oracle = {
            metric.query_id: metric.value
            for metric in ir_measures.iter_calc([ir_measures.Compat(p=p)], qrels, run)
        }
        for query, (retrieved, groups) in expected_inputs.items():
            ours = compatibility(retrieved, groups, p=p, depth=None) if groups else 0.0
            assert ours == pytest.approx(oracle[query], abs=1e-12), (query, p)


_docs = st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=10, unique=True)


@settings(max_examples=60, deadline=None)
@given(_docs, st.data())
def test_a_run_in_the_ideal_order_scores_one_and_every_run_between_zero_and_one(docs, data):
    cuts = data.draw(st.lists(st.integers(1, len(docs)), max_size=4).map(sorted))
    bounds = [0, *cuts, len(docs)]
    groups = [docs[start:end] for start, end in zip(bounds, bounds[1:]) if end > start]
    # any order within each tie group is the ideal order
    shuffled = [doc for group in groups for doc in data.draw(st.permutations(group))]
    p = data.draw(st.sampled_from([0.5, 0.8, 0.95]))
    assert compatibility(shuffled, groups, p=p) == pytest.approx(1.0)
    other = data.draw(st.lists(st.sampled_from("abcdefghijxyz"), max_size=12, unique=True))
    assert 0.0 <= compatibility(other, groups, p=p) <= 1.0 + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from("abcdefghij"), min_size=2, max_size=10, unique=True))
def test_reversing_a_strict_ideal_ranking_loses_compatibility(docs):
    groups = [[doc] for doc in docs]
    assert compatibility(docs[::-1], groups) < 1.0
    # putting a document that is not relevant first costs too
    assert compatibility(["zz", *docs], groups) < 1.0
