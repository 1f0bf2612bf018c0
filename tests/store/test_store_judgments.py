"""Writes of one rater's judgments, their history, and undo/redo from it."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from judge_app.store import StoreError, reads
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import (
    JudgmentState,
    clear,
    current_state,
    latest_event_id,
    redo,
    set_grade,
    set_note,
    skip,
    undo,
)
from judge_app.store.models import Judgment, utcnow
from judge_app.store.people import add_rater


@pytest.fixture
def pair(db):
    """(rater id, query id, [document ids]) for one rater and one query with three documents."""
    with db.transaction() as session:
        rater = add_rater(session, "ana")
        query = query_ids(session, ["q1"])["q1"]
        documents = document_ids(session, ["d1", "d2", "d3"])
    return rater.id, query, [documents["d1"], documents["d2"], documents["d3"]]


def state(db, rater, query, document):
    with db.reading() as session:
        return current_state(session, rater, query, document)


def events(db):
    with db.reading() as session:
        return reads.history_frame(session)


def test_set_grade_writes_judgment_and_event(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        event = set_grade(session, rater, query, d1, 3, duration_ms=1200)
    assert event is not None and event.old_skipped is None and event.new_grade == 3
    assert state(db, rater, query, d1) == JudgmentState(3)
    with db.reading() as session:
        judgment = session.scalars(select(Judgment)).one()
    assert judgment.duration_ms == 1200 and judgment.judged_at is not None
    history = events(db)
    assert history[["action", "new_grade"]].values.tolist() == [["set", 3]]


def test_same_grade_again_changes_nothing(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 2)
    with db.transaction() as session:
        assert set_grade(session, rater, query, d1, 2) is None
    assert len(events(db)) == 1


@pytest.mark.parametrize("grade", [7, -1, 2.5, "3", True, None])
def test_invalid_grades_are_refused(db, pair, grade):
    rater, query, (d1, *_) = pair
    with pytest.raises(StoreError), db.transaction() as session:
        set_grade(session, rater, query, d1, grade)
    assert state(db, rater, query, d1) is None
    assert events(db).empty


def test_database_refuses_out_of_range_grade_even_without_validation(db, pair):
    rater, query, (d1, *_) = pair
    with pytest.raises(IntegrityError), db.engine.begin() as connection:
        connection.execute(
            Judgment.__table__.insert().values(
                rater_id=rater, query_id=query, document_id=d1, grade=6, skipped=False,
                judged_at=utcnow(),
            )
        )  # fmt: skip


def test_skip_with_reason_then_grade_keeps_note(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        skip(session, rater, query, d1, reason="page does not load")
    assert state(db, rater, query, d1) == JudgmentState(None, True, "page does not load")
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 1)
    assert state(db, rater, query, d1) == JudgmentState(1, False, "page does not load")


def test_clear_removes_row_and_keeps_history(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 4)
    with db.transaction() as session:
        event = clear(session, rater, query, d1)
    assert event.old_grade == 4 and event.new_skipped is None
    assert state(db, rater, query, d1) is None
    assert events(db)["action"].tolist() == ["set", "clear"]
    with db.transaction() as session:
        assert clear(session, rater, query, d1) is None


def test_note_needs_a_judgment_and_can_be_removed(db, pair):
    rater, query, (d1, *_) = pair
    with pytest.raises(StoreError, match="before adding a note"), db.transaction() as session:
        set_note(session, rater, query, d1, "why")
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 2)
        set_note(session, rater, query, d1, "outdated prices")
    assert state(db, rater, query, d1).note == "outdated prices"
    with db.transaction() as session:
        set_note(session, rater, query, d1, "")
    assert state(db, rater, query, d1) == JudgmentState(2)


def test_undo_and_redo_walk_the_history_several_steps(db, pair):
    rater, query, (d1, d2, d3) = pair
    steps = [(d1, 3), (d2, 1), (d1, 5), (d3, 0)]
    for document, grade in steps:
        with db.transaction() as session:
            set_grade(session, rater, query, document, grade)

    def grades():
        return [getattr(state(db, rater, query, d), "grade", None) for d in (d1, d2, d3)]

    assert grades() == [5, 1, 0]
    expected_after_undos = [[5, 1, None], [3, 1, None], [3, None, None], [None, None, None]]
    for expected in expected_after_undos:
        with db.transaction() as session:
            assert undo(session, rater) is not None
        assert grades() == expected
    with db.transaction() as session:
        assert undo(session, rater) is None
    for expected in reversed([[5, 1, 0]] + expected_after_undos[:-1]):
        with db.transaction() as session:
            assert redo(session, rater) is not None
        assert grades() == expected
    with db.transaction() as session:
        assert redo(session, rater) is None
    history = events(db)
    assert history["action"].tolist() == ["set"] * 4 + ["undo"] * 4 + ["redo"] * 4
    assert history["reverts"].notna().sum() == 8


def test_new_change_after_undo_drops_the_redo(db, pair):
    rater, query, (d1, d2, _) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 3)
        set_grade(session, rater, query, d2, 2)
        undo(session, rater)
        set_grade(session, rater, query, d1, 4)
        assert redo(session, rater) is None
        undo(session, rater)  # undoes d1 4 -> 3
        assert current_state(session, rater, query, d1) == JudgmentState(3)
        undo(session, rater)  # d2's grade was undone already: next is d1's first grade
        assert current_state(session, rater, query, d1) is None
        assert current_state(session, rater, query, d2) is None


def test_undo_after_redo_reverts_the_redo(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 3)
        undo(session, rater)
        redo(session, rater)
        assert current_state(session, rater, query, d1) == JudgmentState(3)
        undo(session, rater)
        assert current_state(session, rater, query, d1) is None
        redo(session, rater)
        assert current_state(session, rater, query, d1) == JudgmentState(3)


def test_undo_restores_a_cleared_and_a_skipped_judgment(db, pair):
    rater, query, (d1, d2, _) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 2)
        set_note(session, rater, query, d1, "careful")
        clear(session, rater, query, d1)
        skip(session, rater, query, d2, reason="paywall")
        set_grade(session, rater, query, d2, 1)
        undo(session, rater)
        assert current_state(session, rater, query, d2) == JudgmentState(None, True, "paywall")
        undo(session, rater)
        undo(session, rater)
        assert current_state(session, rater, query, d1) == JudgmentState(2, False, "careful")


def test_undo_is_per_rater(db, pair):
    rater, query, (d1, *_) = pair
    with db.transaction() as session:
        other = add_rater(session, "ben").id
        set_grade(session, rater, query, d1, 3)
        set_grade(session, other, query, d1, 1)
        undo(session, rater)
        assert current_state(session, rater, query, d1) is None
        assert current_state(session, other, query, d1) == JudgmentState(1)


def test_a_failed_transaction_leaves_no_trace(db, pair):
    rater, query, (d1, *_) = pair
    with pytest.raises(RuntimeError), db.transaction() as session:
        set_grade(session, rater, query, d1, 3)
        raise RuntimeError("power cut")
    assert state(db, rater, query, d1) is None
    assert events(db).empty


def test_undo_and_redo_reach_no_change_before_the_bound(db, pair):
    """A judging session passes the rater's latest event at its start: yesterday's grade and
    yesterday's undone grade are out of reach; today's changes are undone and redone."""
    rater, query, (d1, d2, d3) = pair
    with db.transaction() as session:
        set_grade(session, rater, query, d1, 3)
        set_grade(session, rater, query, d3, 1)
        undo(session, rater)  # yesterday's undone grade of d3: no redo may bring it back
        bound = latest_event_id(session, rater)
    assert bound > 0
    with db.transaction() as session:
        assert undo(session, rater, after_event_id=bound) is None
        assert redo(session, rater, after_event_id=bound) is None
        set_grade(session, rater, query, d2, 4)
        set_grade(session, rater, query, d1, 5)
        assert undo(session, rater, after_event_id=bound) is not None
        assert undo(session, rater, after_event_id=bound) is not None
        assert undo(session, rater, after_event_id=bound) is None
        assert current_state(session, rater, query, d1) == JudgmentState(3)
        assert current_state(session, rater, query, d2) is None
        assert redo(session, rater, after_event_id=bound) is not None
        assert redo(session, rater, after_event_id=bound) is not None
        assert redo(session, rater, after_event_id=bound) is None
        assert current_state(session, rater, query, d1) == JudgmentState(5)
        assert current_state(session, rater, query, d3) is None
        assert undo(session, rater) is not None  # unbounded, as before: reaches back
        assert latest_event_id(session, 999) == 0
