"""Preferences on a team database (issue 30's rules, issue 36's tables): a rater's login
records and reads its own preferences only, writes history naming itself only, and changes no
one else's."""

from __future__ import annotations

import pytest
from team_support import refused, team

from judge_app.store import open_database
from judge_app.store.preferences import preferences_frame, record_preference

pytestmark = pytest.mark.postgres
__all__ = ["team"]  # the fixture


def test_a_rater_records_and_reads_only_their_own_preferences(team):
    ana, ben = team.ids["ana"], team.ids["ben"]
    with open_database(team.url) as owner:
        owner.write(lambda s: record_preference(s, ben, 1, 1, 2, "a"))
    with open_database(team.url_of("ana"), create=False) as database:
        database.write(lambda s: record_preference(s, ana, 1, 2, 3, "equal", left=3))
        with database.reading() as session:
            frame = preferences_frame(session)
    assert frame["rater"].tolist() == [team.logins["ana"]]
    engine = team.as_("ana")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql(
                f"UPDATE preference SET choice = 'b' WHERE rater_id = {ben}"
            ).rowcount in (0, -1)
            assert refused(
                connection,
                "INSERT INTO preference (rater_id, query_id, document_a_id, document_b_id, "
                f"choice, judged_at) VALUES ({ben}, 1, 2, 4, 'a', now())",
            )
            assert refused(
                connection,
                "INSERT INTO preference_event (rater_id, query_id, document_a_id, "
                f"document_b_id, action, new_choice, at, login) VALUES ({ana}, 1, 2, 4, 'set', "
                "'a', now(), 'someone_else')",
            )
            assert refused(connection, f"DELETE FROM preference_event WHERE rater_id = {ana}")
    finally:
        engine.dispose()
    with open_database(team.url) as owner, owner.reading() as session:
        assert sorted(preferences_frame(session)["choice"]) == ["a", "equal"]


def test_a_raters_login_compares_pairs_seeing_only_their_own(team):
    """The pair session under row-level security: the plan reads what the login may (its own
    grades and choices, the runs) and its choices are written as its own."""
    from judge_app.judging.pair_session import LEFT, PairSession

    ana = team.ids["ana"]
    with open_database(team.url) as owner:
        owner.write(lambda s: record_preference(s, team.ids["ben"], 1, 1, 2, "a", note="BEN"))
    with open_database(team.url_of("ana"), create=False) as database:
        session = PairSession(database, ana, team.logins["ana"])
        session.open_query(0)
        assert session.others == []  # ben's choice is not the login's to read
        for _ in range(2):
            change = session.choose(LEFT)
            session.settle(change, database.write(change.write), None)
        with database.reading() as reading:
            assert len(preferences_frame(reading)) == 2
        again = PairSession(database, ana, team.logins["ana"])
        assert again.overall_progress().done == 2
