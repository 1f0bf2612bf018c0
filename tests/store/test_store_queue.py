"""A rater's queue, the pooled items of a query (blind: own judgments only), progress counts."""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta

import pandas as pd
import pytest

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.store import StoreError
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import clear, set_grade, skip
from judge_app.store.models import utcnow
from judge_app.store.people import add_rater, assign_queries, set_rater_active
from judge_app.store.rater_queue import (
    Item,
    PoolSettings,
    Progress,
    all_rater_names,
    items_progress,
    overall_progress,
    pool_settings,
    pooled_pair_count,
    query_items,
    queue_progress,
    rater_queue,
    raters_progress,
    run_names,
    set_pool_settings,
    total_progress,
)
from judge_app.store.repeats import schedule_repeats


def _run(db, folder, name, rows):
    """The run ``name`` of ``rows`` (query_id, doc_id, rank, score), imported from a CSV file."""
    path = folder / f"{name}.csv"
    pd.DataFrame(rows, columns=["query_id", "doc_id", "rank", "score"]).to_csv(path, index=False)
    import_files(db, ImportOptions(run=path, run_name=name))


@pytest.fixture
def pooled(db, tmp_path):
    """Two runs over q1 (sharing d2, d3) and q2; raters ana and ben; ids by external id."""
    with db.transaction() as session:
        queries = query_ids(session, ["q1", "q2", "q3"])
        documents = document_ids(session, [f"d{n}" for n in range(1, 9)])
    _run(db, tmp_path, "alpha", [
        ("q1", "d1", 1, 9.5), ("q1", "d2", 2, 8.5), ("q1", "d3", 3, 7.5), ("q1", "d4", 4, 6.5),
        ("q2", "d5", 1, 1.0),
    ])  # fmt: skip
    _run(db, tmp_path, "beta", [
        ("q1", "d3", 1, 0.9), ("q1", "d6", 2, 0.8), ("q1", "d2", 3, 0.7), ("q1", "d7", 4, 0.6),
        ("q2", "d8", 1, 0.5),
    ])  # fmt: skip
    with db.transaction() as session:
        ana = add_rater(session, "ana").id
        ben = add_rater(session, "ben").id
    return {"db": db, "q": queries, "d": documents, "ana": ana, "ben": ben}


@pytest.mark.parametrize("seed", range(12))
def test_every_raters_progress_at_once_is_each_raters_own(pooled, seed):
    """``raters_progress`` (one read for all raters: ``raters``) equals each rater's
    ``overall_progress`` after random grades, skips, clears (in and out of the pool),
    assignments, hidden repeats scheduled, answered and cleared again, under two pools."""
    db, q, d = pooled["db"], pooled["q"], pooled["d"]
    rng = random.Random(seed)
    with db.transaction() as session:
        raters = [pooled["ana"], pooled["ben"], add_rater(session, "chloé").id]
        for rater_id in raters[: rng.randint(0, 2)]:
            assign_queries(session, rater_id, rng.sample(sorted(q.values()), rng.randint(1, 2)))
    for step in range(40):
        with db.transaction() as session:
            rater_id, query_id, document_id = (
                rng.choice(raters), rng.choice(list(q.values())), rng.choice(list(d.values()))
            )  # fmt: skip
            action = rng.choice(["grade", "grade", "skip", "clear"])
            if action == "grade":
                set_grade(session, rater_id, query_id, document_id, rng.randint(0, 5))
            elif action == "skip":
                skip(session, rater_id, query_id, document_id)
            else:
                clear(session, rater_id, query_id, document_id)
            if step % 10 == 9:
                schedule_repeats(
                    session, rng.choice(raters), 0.5, judged_before=utcnow() + timedelta(1)
                )
    for pool in (PoolSettings(), PoolSettings(depth=2, runs=("beta",))):
        with db.reading() as session:
            every = raters_progress(session, [*raters, 999], pool)
            assert every == {
                rater_id: overall_progress(session, rater_id, pool) for rater_id in [*raters, 999]
            }


def _ids(items: list[Item]) -> list[str]:
    return [item.external_id for item in items]


def test_pool_is_the_union_of_top_d_each_document_once_in_the_first_runs_order(pooled):
    db, q1 = pooled["db"], pooled["q"]["q1"]
    with db.reading() as session:
        items = query_items(session, pooled["ana"], q1, PoolSettings())
        assert _ids(items) == ["d1", "d2", "d3", "d4", "d6", "d7"]
        assert [item.position for item in items] == [1, 2, 3, 4, 5, 6]
        top2 = query_items(session, pooled["ana"], q1, PoolSettings(depth=2))
        assert _ids(top2) == ["d1", "d2", "d3", "d6"]
        beta_first = query_items(session, pooled["ana"], q1, PoolSettings(order_run="beta"))
        assert _ids(beta_first) == ["d3", "d6", "d2", "d7", "d1", "d4"]
        only_beta = query_items(session, pooled["ana"], q1, PoolSettings(runs=("beta",)))
        assert _ids(only_beta) == ["d3", "d6", "d2", "d7"]
        assert query_items(session, pooled["ana"], q1, PoolSettings(runs=())) == []


def test_items_carry_only_the_raters_own_judgment_and_no_score(pooled):
    db, q1, d = pooled["db"], pooled["q"]["q1"], pooled["d"]
    with db.transaction() as session:
        set_grade(session, pooled["ben"], q1, d["d1"], 5)
        set_grade(session, pooled["ben"], q1, d["d2"], 4)
        set_grade(session, pooled["ana"], q1, d["d2"], 1)
        skip(session, pooled["ana"], q1, d["d3"], reason="page in Polish")
    with db.reading() as session:
        items = {item.external_id: item for item in query_items(session, pooled["ana"], q1)}
    assert items["d1"].grade is None and not items["d1"].judged
    assert items["d2"].grade == 1
    assert items["d3"].skipped and items["d3"].note == "page in Polish"
    fields = {field.name for field in dataclasses.fields(Item)}
    assert not fields & {"score", "rank", "rater", "raters", "grades"}


def test_shuffle_is_stable_per_rater_and_query_and_differs_between_raters(pooled):
    db, q1 = pooled["db"], pooled["q"]["q1"]
    pool = PoolSettings(order="shuffle", seed=7)
    with db.reading() as session:
        first = _ids(query_items(session, pooled["ana"], q1, pool))
        again = _ids(query_items(session, pooled["ana"], q1, pool))
        other_run_order = _ids(
            query_items(session, pooled["ana"], q1, dataclasses.replace(pool, order_run="beta"))
        )
        orders = {
            tuple(_ids(query_items(session, rater, q1, pool)))
            for rater in (pooled["ana"], pooled["ben"])
        }
        seeds = {
            tuple(_ids(query_items(session, pooled["ana"], q1, dataclasses.replace(pool, seed=s))))
            for s in range(5)
        }
    assert first == again == other_run_order
    assert sorted(first) == ["d1", "d2", "d3", "d4", "d6", "d7"]
    assert len(orders) == 2 and len(seeds) > 1


def test_queue_is_the_assignment_or_every_query(pooled):
    db, q = pooled["db"], pooled["q"]
    with db.transaction() as session:
        assign_queries(session, pooled["ben"], [q["q2"], q["q1"]])
    with db.reading() as session:
        assert [entry.external_id for entry in rater_queue(session, pooled["ben"])] == ["q2", "q1"]
        assert [entry.external_id for entry in rater_queue(session, pooled["ana"])] == [
            "q1",
            "q2",
            "q3",
        ]


def test_progress_counts_own_graded_and_skipped_over_the_pool(pooled):
    db, q, d = pooled["db"], pooled["q"], pooled["d"]
    with db.transaction() as session:
        set_grade(session, pooled["ana"], q["q1"], d["d1"], 3)
        skip(session, pooled["ana"], q["q1"], d["d6"])
        set_grade(session, pooled["ana"], q["q2"], d["d5"], 0)
        set_grade(session, pooled["ben"], q["q1"], d["d2"], 2)
        set_grade(session, pooled["ana"], q["q1"], d["d8"], 2)  # not in q1's pool
    with db.reading() as session:
        per_query = queue_progress(session, pooled["ana"])
        overall = overall_progress(session, pooled["ana"])
        items = query_items(session, pooled["ana"], q["q1"])
        top1 = queue_progress(session, pooled["ana"], PoolSettings(depth=1))
    assert per_query == {q["q1"]: Progress(1, 1, 6), q["q2"]: Progress(1, 0, 2)}
    assert overall == Progress(2, 1, 8) and overall.done == 3
    assert items_progress(items) == per_query[q["q1"]]
    assert top1 == {q["q1"]: Progress(1, 0, 2), q["q2"]: Progress(1, 0, 2)}


def test_progress_follows_the_assignment(pooled):
    db, q = pooled["db"], pooled["q"]
    with db.transaction() as session:
        assign_queries(session, pooled["ana"], [q["q2"]])
    with db.reading() as session:
        assert set(queue_progress(session, pooled["ana"])) == {q["q2"]}


def test_pool_settings_round_trip_and_refusals(pooled):
    db = pooled["db"]
    with db.reading() as session:
        assert pool_settings(session) == PoolSettings()
    chosen = PoolSettings(depth=5, runs=("beta",), order="shuffle", order_run="beta", seed=3)
    with db.transaction() as session:
        set_pool_settings(session, chosen)
    with db.reading() as session:
        assert pool_settings(session) == chosen
        assert _ids(query_items(session, pooled["ana"], pooled["q"]["q1"])) != []
    with db.transaction() as session:
        set_pool_settings(session, PoolSettings())
    with db.reading() as session:
        assert pool_settings(session) == PoolSettings()
    with pytest.raises(StoreError, match="at least 1"), db.transaction() as session:
        set_pool_settings(session, PoolSettings(depth=0))
    with pytest.raises(StoreError, match="no run called gamma"), db.transaction() as session:
        set_pool_settings(session, PoolSettings(runs=("gamma",)))


def test_raters_runs_and_the_size_of_the_pool(pooled):
    db = pooled["db"]
    with db.transaction() as session:
        retired = add_rater(session, "cy")
        set_rater_active(session, retired.id, False)
    with db.reading() as session:
        assert all_rater_names(session) == ["ana", "ben", "cy"]
        assert run_names(session) == ["alpha", "beta"]
        # q1: d1-d4 and d6, d7 (d2, d3 in both); q2: d5, d8
        assert pooled_pair_count(session, PoolSettings()) == 8
        assert pooled_pair_count(session, PoolSettings(depth=1)) == 4  # d1, d3; d5, d8
        assert pooled_pair_count(session, PoolSettings(runs=("beta",))) == 5
        assert pooled_pair_count(session, PoolSettings(runs=())) == 0


def test_total_progress_adds_up_counts():
    parts = [Progress(1, 2, 5), Progress(0, 0, 3), Progress(4, 1, 6)]
    assert total_progress(parts) == sum(parts, Progress()) == Progress(5, 3, 14)
    assert total_progress([]) == Progress()
