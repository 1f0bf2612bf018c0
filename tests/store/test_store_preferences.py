"""Preferences in the store: one per rater, query and unordered pair, each change in the history
of the same transaction, undo and redo, reads and counts; the migration on PostgreSQL."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import create_engine, select, text

from judge_app.store import StoreError, open_database, schema
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.models import Preference, PreferenceEvent
from judge_app.store.people import add_rater
from judge_app.store.preferences import (
    canonical,
    clear_preference,
    latest_preference_event,
    preference_counts,
    preferences_frame,
    record_preference,
    redo_preference,
    set_preference_note,
    undo_preference,
)


@pytest.fixture
def ids(db):
    with db.transaction() as session:
        rater = add_rater(session, "ana").id
        other = add_rater(session, "ben").id
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2", "d3"])
    return rater, other, query, docs["d1"], docs["d2"], docs["d3"]


def _rows(db):
    with db.reading() as session:
        preferences = [
            (p.rater_id, p.document_a_id, p.document_b_id, p.choice, p.left_document_id, p.note)
            for p in session.scalars(select(Preference).order_by(Preference.id))
        ]
        events = [
            (e.action, e.old_choice, e.new_choice, e.document_a_id, e.document_b_id)
            for e in session.scalars(select(PreferenceEvent).order_by(PreferenceEvent.id))
        ]
    return preferences, events


def test_a_choice_is_stored_in_canonical_order_with_its_event(db, ids):
    rater, _, query, d1, d2, _ = ids
    db.write(lambda s: record_preference(s, rater, query, d2, d1, "a", left=d2, duration_ms=900))
    preferences, events = _rows(db)
    assert preferences == [(rater, d1, d2, "b", d2, None)]  # d2 (second in order) is better
    assert events == [("set", None, "b", d1, d2)]


def test_one_preference_per_rater_and_unordered_pair(db, ids):
    rater, other, query, d1, d2, _ = ids
    db.write(lambda s: record_preference(s, rater, query, d1, d2, "a", note="closer"))
    db.write(lambda s: record_preference(s, rater, query, d2, d1, "equal"))
    db.write(lambda s: record_preference(s, other, query, d1, d2, "neither"))
    preferences, events = _rows(db)
    assert preferences == [
        (rater, d1, d2, "equal", None, "closer"),  # the note stays
        (other, d1, d2, "neither", None, None),
    ]
    assert [event[:3] for event in events] == [
        ("set", None, "a"),
        ("set", "a", "equal"),
        ("set", None, "neither"),
    ]


def test_the_same_choice_again_changes_nothing(db, ids):
    rater, _, query, d1, d2, _ = ids
    first = db.write(lambda s: record_preference(s, rater, query, d1, d2, "skipped"))
    again = db.write(lambda s: record_preference(s, rater, query, d1, d2, "skipped"))
    assert first is not None and again is None
    assert len(_rows(db)[1]) == 1


def test_a_failed_transaction_keeps_neither_the_choice_nor_its_event(db, ids):
    rater, _, query, d1, d2, _ = ids
    with pytest.raises(RuntimeError), db.transaction() as session:
        record_preference(session, rater, query, d1, d2, "a")
        raise RuntimeError("the write failed after the choice")
    assert _rows(db) == ([], [])


def test_the_database_refuses_what_the_store_would_never_write(db, ids):
    rater, _, query, d1, d2, d3 = ids
    for values in (
        f"({rater}, {query}, {d2}, {d1}, 'a', NULL)",  # not canonical
        f"({rater}, {query}, {d1}, {d2}, 'maybe', NULL)",  # no such choice
        f"({rater}, {query}, {d1}, {d2}, 'a', {d3})",  # shown left but not of the pair
    ):
        with pytest.raises(StoreError, match="refused the change"), db.transaction() as session:
            session.execute(
                text(
                    "INSERT INTO preference (rater_id, query_id, document_a_id, document_b_id, "
                    f"choice, left_document_id, judged_at) VALUES {values[:-1]}, "
                    "'2026-01-01 00:00:00')"
                )
            )


def test_bad_arguments_are_refused_in_plain_words(db, ids):
    rater, _, query, d1, d2, d3 = ids
    with pytest.raises(StoreError, match="not one of a, b, equal, neither, skipped"):
        db.write(lambda s: record_preference(s, rater, query, d1, d2, "better"))
    with pytest.raises(StoreError, match="two different documents"):
        db.write(lambda s: record_preference(s, rater, query, d1, d1, "a"))
    with pytest.raises(StoreError, match="shown on the left must be one of the pair"):
        db.write(lambda s: record_preference(s, rater, query, d1, d2, "a", left=d3))
    with pytest.raises(StoreError, match="before adding a note"):
        db.write(lambda s: set_preference_note(s, rater, query, d1, d2, "why"))


def test_undo_and_redo_walk_the_history(db, ids):
    rater, _, query, d1, d2, d3 = ids
    start = db.write(lambda s: latest_preference_event(s, rater))
    db.write(lambda s: record_preference(s, rater, query, d1, d2, "a"))
    db.write(lambda s: record_preference(s, rater, query, d1, d2, "b"))
    db.write(lambda s: set_preference_note(s, rater, query, d2, d1, "on reflection"))
    db.write(lambda s: record_preference(s, rater, query, d1, d3, "equal"))
    db.write(lambda s: clear_preference(s, rater, query, d3, d1))
    assert [p[1:4] for p in _rows(db)[0]] == [(d1, d2, "b")]
    for _ in range(3):
        db.write(lambda s: undo_preference(s, rater, after_event_id=start))
    assert [(p[3], p[5]) for p in _rows(db)[0]] == [("b", None)]  # the note is undone too
    db.write(lambda s: redo_preference(s, rater, after_event_id=start))
    assert [(p[3], p[5]) for p in _rows(db)[0]] == [("b", "on reflection")]
    db.write(lambda s: undo_preference(s, rater, after_event_id=start))
    db.write(lambda s: undo_preference(s, rater, after_event_id=start))
    db.write(lambda s: undo_preference(s, rater, after_event_id=start))
    assert _rows(db)[0] == []
    assert db.write(lambda s: undo_preference(s, rater, after_event_id=start)) is None
    actions = [event[0] for event in _rows(db)[1]]
    assert (
        actions == ["set", "set", "note", "set", "clear"] + ["undo"] * 3 + ["redo"] + ["undo"] * 3
    )


def test_a_new_change_after_an_undo_leaves_nothing_to_redo(db, ids):
    rater, _, query, d1, d2, d3 = ids
    db.write(lambda s: record_preference(s, rater, query, d1, d2, "a"))
    db.write(lambda s: undo_preference(s, rater))
    db.write(lambda s: record_preference(s, rater, query, d1, d3, "b"))
    assert db.write(lambda s: redo_preference(s, rater)) is None


def test_the_frame_and_the_counts(db, ids):
    rater, other, query, d1, d2, d3 = ids
    db.write(lambda s: record_preference(s, rater, query, d2, d1, "a", left=d1, duration_ms=5))
    db.write(lambda s: record_preference(s, rater, query, d1, d3, "skipped"))
    db.write(lambda s: record_preference(s, other, query, d3, d2, "equal", note="same"))
    with db.reading() as session:
        frame = preferences_frame(session)
        counts = preference_counts(session)
    assert frame[
        ["query_id", "doc_a", "doc_b", "rater", "choice", "shown_left"]
    ].values.tolist() == [
        ["q1", "d1", "d2", "ana", "b", "d1"],
        ["q1", "d1", "d3", "ana", "skipped", None],
        ["q1", "d2", "d3", "ben", "equal", None],
    ]
    assert frame["duration_ms"].tolist()[0] == 5 and frame["note"].tolist()[2] == "same"
    assert counts == {
        "ana": {"a": 0, "b": 1, "equal": 0, "neither": 0, "skipped": 1},
        "ben": {"a": 0, "b": 0, "equal": 1, "neither": 0, "skipped": 0},
    }


def test_canonical_turns_the_choice_with_the_pair():
    assert canonical(3, 7, "a") == (3, 7, "a")
    assert canonical(7, 3, "a") == (3, 7, "b")
    assert canonical(7, 3, "equal") == (3, 7, "equal")


def test_the_migration_keeps_a_populated_postgresql_database(pg_owner_url):
    """A PostgreSQL database at 0008 with judgments upgrades to preferences keeping its rows;
    an event there names the login that wrote it; downgrading drops only the new tables."""
    database = open_database(pg_owner_url)
    with database.transaction() as session:
        rater = add_rater(session, "ana").id
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2"])
    database.close()
    engine = create_engine(pg_owner_url)
    with engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "0008")
        connection.exec_driver_sql(
            "INSERT INTO judgment (rater_id, query_id, document_id, grade, skipped, judged_at) "
            f"VALUES ({rater}, {query}, {docs['d1']}, 3, false, '2026-01-02')"
        )
    engine.dispose()
    with open_database(pg_owner_url) as upgraded:
        upgraded.write(lambda s: record_preference(s, rater, query, docs["d2"], docs["d1"], "a"))
        with upgraded.reading() as session:
            grades = session.execute(text("SELECT grade FROM judgment")).scalars().all()
            login = session.execute(text("SELECT login FROM preference_event")).scalar_one()
            user = session.execute(text("SELECT session_user")).scalar_one()
            frame = preferences_frame(session)
    assert grades == [3] and login == user
    assert frame[["doc_a", "doc_b", "choice"]].values.tolist() == [["d1", "d2", "b"]]
    engine = create_engine(pg_owner_url)
    with engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "0008")
        tables = connection.exec_driver_sql(
            "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('preference', 'preference_event')"
        ).scalar_one()
        kept = connection.exec_driver_sql("SELECT count(*) FROM judgment").scalar_one()
    engine.dispose()
    assert (tables, kept) == (0, 1)
