"""``reads.change_stamp`` moves with every change of a preference (a choice made, changed,
cleared, undone), so that a shown page computes its figures again, and stays put when nothing
changed; on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from judge_app.store import open_database
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.people import add_rater
from judge_app.store.preferences import clear_preference, record_preference, undo_preference
from judge_app.store.reads import change_stamp


def _stamp(db):
    with db.reading() as session:
        return change_stamp(session)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request):
    url = request.getfixturevalue("db_path" if request.param == "sqlite" else "pg_url")
    with open_database(url) as database:
        yield database


def test_the_stamp_moves_with_every_change_of_a_preference(db):
    with db.transaction() as session:
        rater = add_rater(session, "ana").id
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2"])
    pair = (rater, query, docs["d1"], docs["d2"])
    stamps = [_stamp(db)]
    assert _stamp(db) == stamps[0]  # read again, the same

    def changed(change) -> None:
        with db.transaction() as session:
            change(session)
        stamps.append(_stamp(db))

    changed(lambda session: record_preference(session, *pair, "a"))
    changed(lambda session: record_preference(session, *pair, "equal"))
    changed(lambda session: clear_preference(session, *pair))
    changed(lambda session: undo_preference(session, rater))  # the pair's "equal" is back
    assert len(set(stamps)) == len(stamps), stamps
    with db.transaction() as session:
        assert record_preference(session, *pair, "equal") is None  # the same choice again
    assert _stamp(db) == stamps[-1]
