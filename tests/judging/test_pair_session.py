"""A rater's preference judging without a window: the pair shown, a choice kept at once and
written in the store's canonical order, undo and redo, a failed write bringing its pair back,
and the plan's pairs shared by two raters of a query."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.judging.pair_session import LEFT, RIGHT, PairChange, PairSession
from judge_app.store import open_database
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade
from judge_app.store.pair_queue import PairSettings, set_pair_settings
from judge_app.store.people import add_rater
from judge_app.store.preferences import preferences_frame


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def anywhere(request, db):
    """The test's database: SQLite, or a PostgreSQL database of its own (as a lead)."""
    if request.param == "sqlite":
        yield db
        return
    database = open_database(request.getfixturevalue("pg_url"))
    yield database
    database.close()


@pytest.fixture
def campaign(anywhere, tmp_path):
    """Query q1 pooling d1–d5 and q2 pooling d6–d7 (run ``alpha``); raters ana and ben; ben
    graded d5 of q1 0 and d4 5; at most 4 candidates and 5 pairs per query."""
    rows = [("q1", f"d{n}", n) for n in range(1, 6)] + [("q2", "d6", 1), ("q2", "d7", 2)]
    run = tmp_path / "alpha.csv"
    pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]).to_csv(run, index=False)
    db = anywhere
    import_files(db, ImportOptions(run=run, run_name="alpha"))
    with db.transaction() as session:
        queries = query_ids(session, ["q1", "q2"])
        documents = document_ids(session, [f"d{n}" for n in range(1, 8)])
        ana, ben = add_rater(session, "ana").id, add_rater(session, "ben").id
        set_grade(session, ben, queries["q1"], documents["d5"], 0)
        set_grade(session, ben, queries["q1"], documents["d4"], 5)
        set_pair_settings(session, PairSettings(top=4, budget=5))
    return {"db": db, "q": queries, "d": documents, "ana": ana, "ben": ben}


def pairs_session(campaign, rater: str = "ana") -> PairSession:
    session = PairSession(campaign["db"], campaign[rater], rater)
    session.open_query(0)
    return session


def write(session: PairSession, change: PairChange) -> str:
    """Write ``change`` as the write queue would, and settle it."""
    return session.settle(change, session.database.write(change.write), None)


def stored(campaign) -> list[tuple[str, str, str, str, str | None]]:
    with campaign["db"].reading() as session:
        frame = preferences_frame(session)
    return [
        (row.rater, row.doc_a, row.doc_b, row.choice, row.shown_left) for row in frame.itertuples()
    ]


def test_the_candidates_leave_out_a_document_graded_0_and_put_the_graded_first(campaign):
    session = pairs_session(campaign)
    d = campaign["d"]
    assert session.ranked == [d["d4"], d["d1"], d["d2"], d["d3"]]  # d5: graded 0
    assert session.shown is not None and session.shown.pair in session.seeds
    assert session.query_progress().total == 5  # the budget, under the 6 pairs of 4
    assert session.progress[campaign["q"]["q2"]].total == 1  # two documents: one pair


def test_a_choice_of_a_side_is_stored_in_canonical_order_with_the_side_shown(campaign):
    session = pairs_session(campaign)
    shown = session.shown
    assert shown is not None
    change = session.choose(RIGHT, duration_ms=900)
    assert session.shown is not None and session.shown.pair != shown.pair  # the next, at once
    assert session.query_progress().done == 1
    assert write(session, change).startswith("Saved: right better")
    [(rater, doc_a, doc_b, choice, left)] = stored(campaign)
    right = shown.right.external_id
    assert (rater, left) == ("ana", shown.left.external_id)
    assert choice == ("a" if doc_a == right else "b")  # the right one is the better
    assert sorted((doc_a, doc_b)) == sorted((shown.left.external_id, right))


def test_undo_brings_the_pair_back_and_redo_chooses_it_again(campaign):
    session = pairs_session(campaign)
    first = session.shown
    assert first is not None
    write(session, session.choose("equal"))
    assert write(session, session.undo()) == "Undone: the pair is to choose again"
    assert session.shown is not None and session.shown.pair == first.pair
    assert stored(campaign) == []
    assert write(session, session.redo()) == "Redone: the pair is chosen as before"
    assert [row[3] for row in stored(campaign)] == ["equal"]
    assert session.shown is not None and session.shown.pair != first.pair
    assert write(session, session.undo()).startswith("Undone")
    assert write(session, session.undo()) == "Nothing to undo in this session"


def test_a_failed_write_takes_the_choice_back_and_shows_its_pair_again(campaign):
    session = pairs_session(campaign)
    first = session.shown
    assert first is not None
    change = session.choose(LEFT)
    said = session.settle(change, None, RuntimeError("disk I/O error"))
    assert said.startswith("Not saved (left better") and "Choose again" in said
    assert session.shown == first and session.query_progress().done == 0
    assert stored(campaign) == []


def test_a_note_is_written_with_the_choice(campaign):
    session = pairs_session(campaign)
    session.keep_note("both are about the wrong city")
    write(session, session.choose("neither"))
    with campaign["db"].reading() as reading:
        assert list(preferences_frame(reading)["note"]) == ["both are about the wrong city"]


def test_two_raters_of_a_query_share_its_seed_pairs_and_the_plan_stops_within_the_budget(
    campaign,
):
    seen = {}
    for rater in ("ana", "ben"):
        session = pairs_session(campaign, rater)
        chosen = []
        while session.shown is not None:
            chosen.append(session.shown.pair)
            write(session, session.choose(LEFT))
        seen[rater] = chosen
        assert len(session.seeds) < len(chosen) <= 5 and len(set(chosen)) == len(chosen)
        progress = session.query_progress()
        assert progress.done == progress.total == len(chosen)  # done: at the budget, or settled
        assert session.next_unfinished() == 1  # q2 still has its pair
    assert set(session.seeds) <= set(seen["ana"]) & set(seen["ben"])


def test_a_session_started_again_resumes_where_the_rater_was(campaign):
    session = pairs_session(campaign)
    for _ in range(2):
        write(session, session.choose(LEFT))
    again = pairs_session(campaign)
    assert again.query_progress().done == 2
    assert again.shown is not None and again.shown.pair not in again.mine
    assert again.overall_progress().done == 2
