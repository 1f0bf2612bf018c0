"""A lead's assignment plans: every query to N raters in turn, or a share to all of them."""

from __future__ import annotations

import pytest

from judge_app.store import StoreError
from judge_app.store.assignments import (
    current_assignments,
    plan_assignments,
    write_assignments,
)
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import current_state, set_grade
from judge_app.store.people import add_rater, assign_queries, assigned_queries

QUERIES = list(range(101, 118))  # 17 queries
RATERS = [1, 2, 3, 4, 5]


@pytest.mark.parametrize("copies", [1, 2, 3, 5])
def test_every_query_goes_to_n_distinct_raters_with_an_even_load(copies):
    plan = plan_assignments(QUERIES, RATERS, copies=copies)
    for query in QUERIES:
        holders = [rater for rater, queue in plan.queues.items() if query in queue]
        assert len(holders) == copies
    loads = plan.load().values()
    assert max(loads) - min(loads) <= 1 and sum(loads) == copies * len(QUERIES)
    for queue in plan.queues.values():
        assert queue == sorted(queue)  # in the order of the queries
    assert set(plan.judges_per_query().values()) == {copies} and not plan.shared


def test_a_share_goes_to_every_rater_and_the_rest_to_one_each():
    plan = plan_assignments(QUERIES, RATERS, share=0.2)
    assert len(plan.shared) == round(0.2 * len(QUERIES)) == 3
    judges = plan.judges_per_query()
    assert {query for query, count in judges.items() if count == len(RATERS)} == plan.shared
    assert {judges[query] for query in QUERIES if query not in plan.shared} == {1}
    loads = plan.load().values()
    assert max(loads) - min(loads) <= 1
    spread = sorted(QUERIES.index(query) for query in plan.shared)
    assert spread[0] == 0 and spread[-1] > len(QUERIES) // 2  # spread over the list
    assert plan_assignments(QUERIES, RATERS, share=1).judges_per_query() == {
        query: len(RATERS) for query in QUERIES
    }
    assert not plan_assignments(QUERIES, RATERS, share=0).shared


@pytest.mark.parametrize(
    ("raters", "options", "message"),
    [
        ([], {"copies": 1}, "at least one rater"),
        (RATERS, {"copies": 6}, "1 to 5 raters"),
        (RATERS, {"copies": 0}, "1 to 5 raters"),
        (RATERS, {}, "either"),
        (RATERS, {"copies": 1, "share": 0.5}, "either"),
        (RATERS, {"share": 1.5}, "0 to 100 %"),
    ],
)
def test_impossible_plans_are_refused(raters, options, message):
    with pytest.raises(StoreError, match=message):
        plan_assignments(QUERIES, raters, **options)


def test_writing_appends_or_replaces_queues_and_keeps_judgments(db):
    with db.transaction() as session:
        ids = list(query_ids(session, [f"q{n}" for n in range(1, 7)]).values())
        ana, ben = add_rater(session, "ana").id, add_rater(session, "ben").id
        assign_queries(session, ana, ids[:1])
        document = document_ids(session, ["d1"])["d1"]
        set_grade(session, ana, ids[0], document, 3)
    plan = plan_assignments(ids, [ana, ben], copies=1)
    with db.transaction() as session:
        added = write_assignments(session, plan)
    with db.reading() as session:
        assert added == 5  # ana had ids[0] already
        assert assigned_queries(session, ana) == [ids[0], ids[2], ids[4]]
        assert assigned_queries(session, ben) == [ids[1], ids[3], ids[5]]
        assert current_assignments(session) == {ana: {ids[0], ids[2], ids[4]},
                                                ben: {ids[1], ids[3], ids[5]}}  # fmt: skip
    with db.transaction() as session:
        write_assignments(session, plan_assignments(ids[3:], [ana], copies=1), replace=True)
    with db.reading() as session:
        assert assigned_queries(session, ana) == ids[3:]
        assert assigned_queries(session, ben) == [ids[1], ids[3], ids[5]]
        assert current_state(session, ana, ids[0], document).grade == 3
