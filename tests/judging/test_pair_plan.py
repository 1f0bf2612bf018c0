"""The pair plan: candidates by human grades then by the runs, seed pairs shared by every
rater, then adaptive pairs where the order is uncertain, within the budget."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from judge_app.judging.pair_plan import (
    adaptive_pair,
    candidates,
    left_first,
    next_pair,
    seed_pairs,
    seeded,
)


def test_candidates_rank_graded_documents_by_mean_grade_then_the_runs_and_drop_all_zero():
    grades = {1: [3, 4], 2: [5], 3: [0, 0], 4: [0, 2]}
    fused = {1: 0.01, 2: 0.02, 3: 0.03, 5: 0.016, 6: 0.015, 7: 0.014}
    assert candidates(grades, fused, 10) == [2, 1, 4, 5, 6, 7]  # 3: every grade 0
    assert candidates(grades, fused, 3) == [2, 1, 4]
    assert candidates({}, fused, 2) == [3, 2]  # no grade yet: the runs' fusion


def test_seed_pairs_chain_the_candidates_and_a_shuffle_keeps_the_same_pairs():
    assert seed_pairs([7, 3, 9]) == [(3, 7), (3, 9)]
    shuffled = seed_pairs([7, 3, 9, 1, 4], seeded(0, 1, 2))
    assert sorted(shuffled) == sorted(seed_pairs([7, 3, 9, 1, 4]))
    assert shuffled == seed_pairs([7, 3, 9, 1, 4], seeded(0, 1, 2))  # the same every time


def test_next_pair_gives_the_seeds_first_then_stops_at_the_budget():
    ranked = [1, 2, 3, 4]
    seeds = seed_pairs(ranked)
    assert next_pair(seeds, ranked, [], set(), budget=5) == (1, 2)
    assert next_pair(seeds, ranked, [], {(1, 2)}, budget=5) == (2, 3)
    chosen = [(a, b, "a") for a, b in seeds]
    after = next_pair(seeds, ranked, chosen, set(seeds), budget=5)
    assert after is not None and after not in seeds
    assert next_pair(seeds, ranked, chosen, set(seeds), budget=3) is None


def test_the_adaptive_pair_is_the_most_uncertain_near_the_top():
    ranked = [1, 2, 3, 4]
    # 1 beat 2 three times, 2 beat 3 three times, 3 and 4 tied once: 1 vs 3 is settled by
    # transitivity, 3 vs 4 is the least certain order
    choices = [(1, 2, "a")] * 3 + [(2, 3, "a")] * 3 + [(3, 4, "equal")]
    mine = {(1, 2), (2, 3), (3, 4)}
    assert adaptive_pair(ranked, choices, mine) in {(2, 4), (1, 4)}  # pairs with 4, unsure
    assert adaptive_pair(ranked, choices, mine | {(1, 4), (2, 4)}) is None  # 1–3 is settled


def test_documents_called_not_relevant_are_not_compared_again():
    choices = [(1, 2, "neither"), (2, 3, "a"), (1, 3, "neither")]
    pair = adaptive_pair([1, 2, 3, 4], choices, {(1, 2), (2, 3), (1, 3)})
    assert pair is not None and 1 not in pair


@given(
    ranked=st.lists(st.integers(1, 40), min_size=2, max_size=8, unique=True),
    budget=st.integers(1, 30),
    answers=st.lists(st.sampled_from(["a", "b", "equal", "neither", "skipped"]), max_size=40),
)
def test_a_rater_following_the_plan_never_meets_a_pair_twice_nor_passes_the_budget(
    ranked, budget, answers
):
    seeds = seed_pairs(ranked)
    mine: set[tuple[int, int]] = set()
    everyone: list[tuple[int, int, str]] = []
    answers = iter(answers)
    while (pair := next_pair(seeds, ranked, everyone, mine, budget)) is not None:
        assert pair not in mine and pair[0] < pair[1] and set(pair) <= set(ranked)
        mine.add(pair)
        everyone.append((*pair, next(answers, "a")))
    assert len(mine) <= min(budget, len(list(combinations(ranked, 2))))
    assert set(seeds) <= mine or len(mine) == budget


def test_the_side_is_a_coin_fixed_per_rater_query_and_pair():
    sides = [left_first(0, rater, 5, (1, 2)) for rater in range(200)]
    assert 60 < sum(sides) < 140  # both sides, about as often
    assert sides == [left_first(0, rater, 5, (1, 2)) for rater in range(200)]
