"""The write queue: changes written in order on a thread of their own, none lost."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from judge_app.store import StoreError
from judge_app.store.people import add_rater, find_rater
from judge_app.store.write_queue import WriteQueue


def _recorder():
    outcomes = []

    def done(result, error):
        outcomes.append((result, None if error is None else str(error)))

    return outcomes, done


def test_changes_are_written_in_order_and_a_failure_stops_none_after_it(db):
    writes = WriteQueue()
    outcomes, done = _recorder()

    def broken(session):
        raise StoreError("no room")

    for name in ("ana", "ben"):
        writes.submit(db, lambda session, n=name: add_rater(session, n).name, done)
    writes.submit(db, broken, done)
    writes.submit(db, lambda session: add_rater(session, "chloe").name, done)
    assert writes.wait_idle(10)
    assert outcomes == [("ana", None), ("ben", None), (None, "no room"), ("chloe", None)]
    assert writes.queued == 0
    writes.close()


def test_a_change_waits_for_another_writer_off_the_callers_thread(db, db_path):
    writes = WriteQueue()
    outcomes, done = _recorder()
    other = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    writes.submit(db, lambda session: add_rater(session, "ana").name, done)  # returns at once
    assert not writes.wait_idle(0.3)
    assert writes.queued == 1 and writes.busy_seconds() >= 0.2
    other.execute("COMMIT")
    other.close()
    assert writes.wait_idle(30)
    assert outcomes == [("ana", None)] and writes.busy_seconds() == 0.0
    writes.close()


def test_a_change_outlives_the_handle_it_was_submitted_with(db, db_path):
    writes = WriteQueue()
    outcomes, done = _recorder()
    release = threading.Event()
    writes.submit(db, lambda session: release.wait(10), done)
    writes.submit(db, lambda session: add_rater(session, "ana").name, done)
    db.close()  # the window closed its database
    release.set()
    assert writes.wait_idle(10)
    assert outcomes == [(True, None), ("ana", None)]
    from judge_app.store import open_database

    with open_database(db_path) as reopened, reopened.reading() as session:
        assert find_rater(session, "ana") is not None
    writes.close()


def test_a_receiver_that_fails_stops_none_of_the_others(db, capsys):
    writes = WriteQueue()
    outcomes, done = _recorder()

    def failing_receiver(result, error):
        raise RuntimeError("Internal C++ object already deleted")

    writes.submit(db, lambda session: add_rater(session, "ana").name, failing_receiver)
    writes.submit(db, lambda session: add_rater(session, "ben").name, done)
    assert writes.wait_idle(10)
    assert outcomes == [("ben", None)]
    assert "already deleted" in capsys.readouterr().err
    writes.close()


def test_a_closed_queue_writes_what_it_had_and_takes_nothing_more(db):
    writes = WriteQueue()
    outcomes, done = _recorder()
    writes.submit(db, lambda session: add_rater(session, "ana").name, done)
    writes.close()
    assert writes.wait_idle(10) and outcomes == [("ana", None)]
    with pytest.raises(RuntimeError, match="closed"):
        writes.submit(db, lambda session: add_rater(session, "ben").name, done)
    assert writes.queued == 0
