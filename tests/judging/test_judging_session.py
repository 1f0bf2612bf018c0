"""A rater's judging session without a window: a change shows at once as pending, is written
elsewhere (here by hand or by the ordered write queue) and settles as saved or unsaved."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.judging.changes import NOTHING_TO_UNDO, Change
from judge_app.judging.session import JudgingSession
from judge_app.store import StoreError
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade
from judge_app.store.people import add_rater
from judge_app.store.rater_queue import PoolSettings, Progress, query_items
from judge_app.store.write_queue import WriteQueue


@pytest.fixture
def campaign(db, tmp_path):
    """Queries q1 (d1, d2, d3) and q2 (d4, d5) of run ``alpha``; rater ana, with q1's d2
    graded 4 already by ana and d1 graded 0 by ben (whom ana never sees)."""
    rows = [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 3), ("q2", "d4", 1), ("q2", "d5", 2)]
    run = tmp_path / "alpha.csv"
    pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]).to_csv(run, index=False)
    import_files(db, ImportOptions(run=run, run_name="alpha"))
    with db.transaction() as session:
        queries = query_ids(session, ["q1", "q2"])
        documents = document_ids(session, [f"d{n}" for n in range(1, 6)])
        ana = add_rater(session, "ana").id
        ben = add_rater(session, "ben").id
        set_grade(session, ana, queries["q1"], documents["d2"], 4)
        set_grade(session, ben, queries["q1"], documents["d1"], 0)
    return {"db": db, "q": queries, "d": documents, "ana": ana}


@pytest.fixture
def judging(campaign) -> JudgingSession:
    session = JudgingSession(campaign["db"], campaign["ana"], "ana")
    session.open_query(0)
    return session


def write(judging: JudgingSession, change: Change):
    """Write ``change`` as the write queue would, and settle it."""
    return judging.settle(change, judging.database.write(change.write), None)


def stored(campaign) -> dict[str, int | None]:
    """ana's grades of q1 in the database, by document."""
    with campaign["db"].reading() as session:
        items = query_items(session, campaign["ana"], campaign["q"]["q1"], PoolSettings())
    return {item.external_id: item.grade for item in items}


def test_the_queue_and_the_open_query_show_only_the_raters_own_judgments(judging):
    assert [query.external_id for query in judging.queue] == ["q1", "q2"]
    assert judging.query is not None and judging.query.external_id == "q1"
    assert [(item.external_id, item.grade) for item in judging.items] == [
        ("d1", None), ("d2", 4), ("d3", None),
    ]  # fmt: skip
    assert judging.query_progress() == Progress(graded=1, total=3)
    assert judging.overall_progress() == Progress(graded=1, total=5)
    assert judging.first_unjudged() == 0
    assert judging.next_unjudged(0) == 2 and judging.next_unjudged(2) == 0  # wraps round


def test_a_grade_shows_at_once_as_pending_and_then_as_saved(judging, campaign):
    change = judging.grade(0, 3, duration_ms=1200)
    assert judging.items[0].grade == 3 and judging.pending_at(0)
    assert judging.query_progress().graded == 2  # counted before it is written
    assert stored(campaign)["d1"] is None
    assert change.pair == (campaign["q"]["q1"], campaign["d"]["d1"])
    outcome = write(judging, change)
    assert outcome.ok and outcome.message == "Saved: grade 3 (Relevant) for d1 (query q1)"
    assert outcome.event is not None and outcome.event.new_grade == 3
    assert not judging.pending_at(0) and judging.items[0].grade == 3
    assert stored(campaign)["d1"] == 3


def test_a_failed_write_shows_what_the_database_holds_and_keeps_the_change_as_unsaved(judging):
    change = judging.grade(1, 0)
    assert judging.items[1].grade == 0
    outcome = judging.settle(change, None, StoreError("the disk is full"))
    assert not outcome.ok and outcome.error == "the disk is full"
    assert outcome.message == "Not saved: grade 0 for d2 (query q1)"
    assert judging.items[1].grade == 4 and judging.unsaved_at(1) == "grade 0"
    assert write(judging, judging.grade(1, 1)).ok  # saved at last: no longer unsaved
    assert judging.unsaved_at(1) is None and judging.items[1].grade == 1


def test_an_unexpected_error_is_said_in_words_without_its_type(judging):
    outcome = judging.settle(judging.clear(1), None, ZeroDivisionError("division by zero"))
    assert (
        outcome.error == "An unexpected problem in judge_app (please report it): division by zero"
    )


def test_changes_of_one_result_on_their_way_show_the_latest_until_the_last_settles(
    judging, campaign
):
    first, second = judging.grade(0, 2), judging.grade(0, 5)
    assert judging.items[0].grade == 5
    first_event = judging.database.write(first.write)
    assert judging.settle(first, first_event, None).ok
    assert judging.items[0].grade == 5 and judging.pending_at(0)  # the second still on its way
    outcome = judging.settle(second, None, StoreError("locked"))
    assert judging.items[0].grade == 2  # what the database holds: the first was written
    assert outcome.message == "Not saved: grade 5 for d1 (query q1)"
    assert stored(campaign)["d1"] == 2


def test_a_change_settled_after_the_rater_moved_on_counts_in_its_querys_progress(judging):
    change = judging.skip(0, reason="in Finnish")
    judging.open_query(1)
    assert judging.overall_progress() == Progress(graded=1, skipped=1, total=5)
    assert write(judging, change).message == "Saved: skipped (cannot judge) for d1 (query q1)"
    assert judging.overall_progress() == Progress(graded=1, skipped=1, total=5)
    unsaved = judging.clear(0)  # d4 of q2, open now
    judging.open_query(0)
    judging.settle(unsaved, None, StoreError("locked"))
    assert judging.progress[judging.queue[1].id] == Progress(total=2)  # q2 counted again
    assert judging.items[0].skipped and judging.items[0].note == "in Finnish"


def test_a_query_opened_while_a_change_is_on_its_way_shows_it_as_it_will_be(judging):
    change = judging.grade(2, 1)
    judging.open_query(1)
    judging.open_query(0)  # read again from the database, which does not hold it yet
    assert judging.items[2].grade == 1 and judging.pending_at(2)
    write(judging, change)
    assert judging.items[2].grade == 1 and not judging.pending_at(2)


def test_notes_keep_the_grade(judging):
    saved = write(judging, judging.set_note(1, "outdated"))
    assert saved.message == "Saved: note saved for d2 (query q1)"
    assert judging.items[1].grade == 4 and judging.items[1].note == "outdated"
    removed = write(judging, judging.set_note(1, ""))
    assert removed.message == "Saved: note removed for d2 (query q1)"
    assert judging.items[1].note is None


def test_undo_and_redo_show_what_the_store_changed(judging):
    write(judging, judging.grade(0, 3))
    judging.open_query(1)
    undone = write(judging, judging.undo())
    assert undone.message == "Undone: now not judged (query q1)"
    assert judging.progress[judging.queue[0].id] == Progress(graded=1, total=3)
    judging.open_query(0)
    assert judging.items[0].grade is None
    assert write(judging, judging.redo()).message == "Redone: now grade 3 (Relevant) (query q1)"
    assert judging.items[0].grade == 3
    assert write(judging, judging.redo()).message == "Nothing to redo"
    failed = judging.settle(judging.undo(), None, StoreError("locked"))
    assert failed.message == "Undo failed" and failed.error == "locked"


def test_undo_reaches_only_the_changes_of_this_session(judging, campaign):
    """ana graded q1's d2 before this session began: undo leaves it, redo brings back no
    earlier undo; a session read again mid-judging (after an import) keeps the same reach."""
    nothing = write(judging, judging.undo())
    assert nothing.message == NOTHING_TO_UNDO and nothing.event is None
    assert stored(campaign)["d2"] == 4
    write(judging, judging.grade(0, 3))
    again = JudgingSession(campaign["db"], campaign["ana"], "ana", undo_after=judging.undo_after)
    again.open_query(0)
    assert write(again, again.undo()).message == "Undone: now not judged (query q1)"
    assert write(again, again.undo()).message == NOTHING_TO_UNDO
    assert stored(campaign) == {"d1": None, "d2": 4, "d3": None}
    later = JudgingSession(campaign["db"], campaign["ana"], "ana")  # the next day
    later.open_query(0)
    assert write(later, later.redo()).message == "Nothing to redo"
    assert stored(campaign)["d1"] is None


def test_changes_handed_to_the_write_queue_are_written_in_the_order_asked(judging, campaign):
    writes = WriteQueue()
    settled = []
    changes = [judging.grade(0, 1), judging.grade(2, 2), judging.grade(0, 5), judging.clear(1)]
    assert [item.grade for item in judging.items] == [5, None, 2]
    for change in changes:
        writes.submit(
            judging.database,
            change.write,
            lambda event, error, change=change: settled.append((change, event, error)),
        )
    assert writes.wait_idle(30)
    writes.close()
    outcomes = [judging.settle(*done) for done in settled]  # on the session's thread
    assert [outcome.ok for outcome in outcomes] == [True] * 4
    assert [done[0] for done in settled] == changes
    assert stored(campaign) == {"d1": 5, "d2": None, "d3": 2}
    assert [item.grade for item in judging.items] == [5, None, 2]
    assert not any(judging.pending_at(row) for row in range(3))
