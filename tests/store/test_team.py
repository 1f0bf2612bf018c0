"""A team database on the real PostgreSQL server (issue 30): connected as the rater ana, the
server itself refuses every way to read or change another rater's grades, the campaign, the
gold items, the automatic grades, the settings and the roles; a lead's login sees and changes
everything. Tested with raw SQL through ana's own login, and through judge_app's store."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from team_support import drop_roles, refused, team

from judge_app.cli import main
from judge_app.commands.packets import PacketExport, PacketMerge, export_packet, merge_packet
from judge_app.commands.raters import RaterChoice, rater_choice, rater_for
from judge_app.errors import JudgeAppError
from judge_app.store import open_database
from judge_app.store.active_sample import Drawn, replace_active_sample
from judge_app.store.judgments import current_state, set_grade
from judge_app.store.rater_queue import rater_queue
from judge_app.store.reads import history_frame, judgments_frame
from judge_app.store.settings import set_setting
from judge_app.store.team import (
    Access,
    access,
    add_member,
    init_team,
    members,
    remove_member,
    team_roles,
)

pytestmark = pytest.mark.postgres
__all__ = ["team"]  # the fixture


def test_a_rater_reads_only_their_own_rows(team):
    engine = team.as_("ana")
    ana, ben = team.ids["ana"], team.ids["ben"]
    try:
        with engine.connect() as connection:
            for table in ("judgment", "judgment_event", "assignment"):
                owners = connection.exec_driver_sql(f"SELECT DISTINCT rater_id FROM {table}")
                assert {row[0] for row in owners} <= {ana}, table
            assert connection.exec_driver_sql("SELECT count(*) FROM judgment").scalar() > 0
            named = connection.exec_driver_sql("SELECT name FROM rater").scalars().all()
            assert named == [team.logins["ana"]]  # no other rater, no automatic judge
            for table in ("query", "document", "run", "result"):  # the campaign
                assert connection.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar() > 0
            assert (
                connection.exec_driver_sql(
                    f"SELECT count(*) FROM judgment WHERE rater_id = {ben}"
                ).scalar()
                == 0
            )
    finally:
        engine.dispose()


def test_a_rater_changes_no_one_elses_grades_by_any_statement(team):
    engine = team.as_("ana")
    ben = team.ids["ben"]
    try:
        with engine.connect() as connection:
            for statement in (
                f"UPDATE judgment SET grade = 0 WHERE rater_id = {ben}",
                f"DELETE FROM judgment WHERE rater_id = {ben}",
            ):
                assert connection.exec_driver_sql(statement).rowcount in (0, -1), statement
            ana = team.ids["ana"]
            assert refused(
                connection, f"UPDATE judgment SET rater_id = {ben} WHERE rater_id = {ana}"
            )
            for history in (  # the history is written once, by its own rater, and kept
                f"UPDATE judgment_event SET new_grade = 0 WHERE rater_id = {ben}",
                f"DELETE FROM judgment_event WHERE rater_id = {ana}",
            ):
                assert refused(connection, history), history
            assert refused(
                connection,
                "INSERT INTO judgment (query_id, document_id, rater_id, grade, skipped, judged_at) "
                f"VALUES (1, 1, {ben}, 0, false, now())",
            )
            assert refused(
                connection,
                "INSERT INTO judgment_event (rater_id, query_id, document_id, action, new_grade, "
                f"new_skipped, at) VALUES ({ben}, 1, 1, 'grade', 0, false, now())",
            )
        with open_database(team.url) as owner, owner.reading() as session:
            frame = judgments_frame(session)
            assert (frame["rater"] == team.logins["ben"]).sum() > 0  # ben's grades all there
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM gold_item",
        "SELECT * FROM auto_judgment",
        "SELECT * FROM automatic_judge",
        "SELECT * FROM packet",
        "SELECT * FROM active_sample",
        "UPDATE query SET text = 'changed'",
        "DELETE FROM result",
        "INSERT INTO run (name) VALUES ('mine')",
        "UPDATE setting SET value = 'x'",
        "INSERT INTO setting VALUES ('rubric.0.label', 'mine')",
        "DELETE FROM setting",
        "UPDATE repeat_judgment SET rater_id = rater_id + 1",
        "DELETE FROM auto_judgment",
        "UPDATE gold_item SET grade = 0",
        "INSERT INTO gold_item VALUES (1, 2, 5, now())",
        "UPDATE rater SET login = NULL",
        "INSERT INTO rater (name, created_at, active, kind) VALUES ('other', now(), true, 'human')",
        "DELETE FROM assignment",
        "ALTER TABLE judgment DISABLE ROW LEVEL SECURITY",
        "DROP POLICY judge_app_own ON judgment",
        "CREATE ROLE mallory LOGIN",
    ],
)
def test_the_server_refuses_a_rater_every_other_read_and_change(team, statement):
    engine = team.as_("ana")
    try:
        with engine.connect() as connection:
            assert refused(connection, statement)
    finally:
        engine.dispose()


def test_a_rater_cannot_become_a_lead_or_another_rater(team):
    roles = team_roles(make_url(team.url).database or "")
    engine = team.as_("ana")
    try:
        with engine.connect() as connection:
            for role in (roles.lead, team.logins["ben"], team.logins["lena"]):
                assert refused(connection, f'SET ROLE "{role}"') or _denied_role(connection, role)
            assert refused(connection, f'GRANT "{roles.lead}" TO "{team.logins["ana"]}"')
            ben = team.logins["ben"]
            for statement in (f"ALTER ROLE \"{ben}\" PASSWORD 'mine'", f'DROP ROLE "{ben}"'):
                assert refused(connection, statement), statement
    finally:
        engine.dispose()


def _denied_role(connection: Connection, role: str) -> bool:
    try:
        connection.exec_driver_sql(f'SET ROLE "{role}"')
    except DBAPIError as error:
        return "permission denied" in str(error.orig)
    return False


def test_a_lead_sees_and_changes_everything(team):
    engine = team.as_("lena")
    try:
        with engine.connect() as connection:
            raters = connection.exec_driver_sql("SELECT DISTINCT rater_id FROM judgment")
            assert {team.ids["ana"], team.ids["ben"]} <= {row[0] for row in raters}
            for table in ("gold_item", "auto_judgment", "automatic_judge", "rater"):
                assert connection.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar() > 0
            assert connection.exec_driver_sql("UPDATE query SET text = text").rowcount > 0
            assert (
                connection.exec_driver_sql(
                    f"UPDATE judgment SET grade = grade WHERE rater_id = {team.ids['ben']}"
                ).rowcount
                > 0
            )
    finally:
        engine.dispose()


def test_through_the_store_a_rater_grades_and_reads_only_their_own(team):
    url = make_url(team.url).set(username=team.logins["ana"], password="secret")
    with open_database(url.render_as_string(hide_password=False), create=False) as database:
        with database.transaction() as session:
            set_grade(session, team.ids["ana"], 2, 2, 4)
        with database.reading() as session:
            frame = judgments_frame(session)
            state = current_state(session, team.ids["ana"], 2, 2)
    assert set(frame["rater"]) == {team.logins["ana"]}
    assert state is not None and state.grade == 4


def test_members_are_listed_and_removed_keeping_their_work(team):
    with open_database(team.url) as database:
        listed = {(member.login, member.lead) for member in members(database)}
        assert listed == {(team.logins["ana"], False), (team.logins["ben"], False),
                          (team.logins["lena"], True)}  # fmt: skip
        removed = remove_member(database, team.logins["ben"])
        assert removed.login == team.logins["ben"] and not removed.lead
        assert {member.login for member in members(database)} == {
            team.logins["ana"],
            team.logins["lena"],
        }
        with pytest.raises(JudgeAppError, match="already has a login"):
            add_member(database, team.logins["ana"], "secret")
        with database.reading() as session:
            frame = judgments_frame(session)
    assert (frame["rater"] == team.logins["ben"]).sum() > 0


def test_team_needs_postgresql(tmp_path):
    with open_database(tmp_path / "one.sqlite") as database:
        with pytest.raises(JudgeAppError, match="a team needs a PostgreSQL database"):
            init_team(database)


def test_the_command_line_sets_up_a_team(pg_owner_url, capsys, monkeypatch):
    suffix = uuid.uuid4().hex[:6]
    assert main(["demo", pg_owner_url]) == 0
    roles = team_roles(make_url(pg_owner_url).database or "")
    admin = create_engine(pg_owner_url, isolation_level="AUTOCOMMIT")
    try:
        monkeypatch.setattr("sys.stdin.isatty", lambda: False)
        assert main(["team", "add", pg_owner_url, f"x_{suffix}"]) == 2  # no password to give it
        assert "set JUDGE_APP_PASSWORD" in capsys.readouterr().err
        monkeypatch.setenv("JUDGE_APP_PASSWORD", "secret")
        assert main(["team", "add", pg_owner_url, f"x_{suffix}"]) == 1
        assert "no team database yet: run judge-app team init DB" in capsys.readouterr().err
        assert main(["team", "init", pg_owner_url]) == 0
        assert f"{roles.rater} (raters:" in capsys.readouterr().out
        assert main(["team", "add", pg_owner_url, f"x_{suffix}", "--lead"]) == 0
        assert main(["team", "list", pg_owner_url]) == 0
        assert capsys.readouterr().out.splitlines()[-1].split() == [f"x_{suffix}", "lead"]
        assert main(["team", "remove", pg_owner_url, f"x_{suffix}"]) == 0
        assert "judgments stay" in capsys.readouterr().out
    finally:
        with admin.connect() as connection:
            drop_roles(connection, [f"x_{suffix}", roles.lead, roles.rater])
        admin.dispose()


@pytest.fixture(autouse=True)
def _no_password_from_the_environment(monkeypatch):
    monkeypatch.delenv("JUDGE_APP_PASSWORD", raising=False)
    assert "JUDGE_APP_PASSWORD" not in os.environ


def _history(url: str) -> list[tuple[str, str, str | None]]:
    """(rater, action, login) of every history event, as ``url``'s login reads them."""
    with open_database(url, create=False) as database, database.reading() as session:
        frame = history_frame(session)
    return list(zip(frame["rater"], frame["action"], frame["login"]))


def test_each_history_event_names_the_login_that_made_it(team, tmp_path):
    ana, ben, lena = (team.logins[person] for person in ("ana", "ben", "lena"))
    with open_database(team.url_of("ana"), create=False) as database:
        with database.transaction() as session:
            set_grade(session, team.ids["ana"], 2, 2, 4)
    with open_database(team.url_of("lena"), create=False) as database:
        with database.transaction() as session:  # a lead enters ben's grade from his sheet
            set_grade(session, team.ids["ben"], 2, 2, 1)
        packet = tmp_path / "ana.judge"
        export_packet(database, PacketExport(ana, packet))
    with open_database(packet, create=False) as offline, offline.transaction() as session:
        set_grade(session, team.ids["ana"], 3, 3, 5)  # offline, where there are no logins
    with open_database(team.url_of("lena"), create=False) as database:
        merged = merge_packet(database, PacketMerge(packet))
    assert merged.updated + merged.added == 1
    events = _history(team.url)
    assert events == [(ana, "set", ana), (ben, "set", lena), (ana, "merge", lena)]
    assert _history(team.url_of("ana")) == [event for event in events if event[0] == ana]
    engine = team.as_("ana")  # a rater's event never names another login
    try:
        with engine.connect() as connection:
            assert refused(
                connection,
                "INSERT INTO judgment_event (rater_id, query_id, document_id, action, new_grade, "
                f"new_skipped, at, login) VALUES ({team.ids['ana']}, 1, 1, 'set', 0, false, "
                f"now(), '{lena}')",
            )
    finally:
        engine.dispose()


def test_a_raters_login_judges_as_its_own_rater_only(team):
    ana = team.logins["ana"]
    with open_database(team.url_of("ana"), create=False) as database:
        assert access(database) == Access(ana, "rater", ana)
        assert rater_for(database, ana.upper()) == (team.ids["ana"], ana)
        with pytest.raises(JudgeAppError, match=f"connected as {ana}, you judge as '{ana}'"):
            rater_for(database, team.logins["ben"], create=True)
        assert rater_choice(database, last=team.logins["ben"]) == RaterChoice(ana, [ana])
    with open_database(team.url_of("lena"), create=False) as database:
        assert access(database).role == "lead"  # a lead may enter any rater's grades
        assert rater_for(database, team.logins["ben"]) == (team.ids["ben"], team.logins["ben"])
    with open_database(team.url, create=False) as database:
        assert access(database) == Access("postgres", "lead", None)  # a superuser


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--db", "DB"],
        ["agreement", "--db", "DB"],
        ["info", "DB"],
        ["raters", "DB"],
        ["export", "DB", "--qrels", "out.qrels"],
        ["report", "DB", "--out", "out.html"],
        ["assign", "DB", "--raters", "x,y", "--copies", "1"],
        ["packet", "merge", "DB", "ana.judge"],
    ],
)
def test_a_lead_command_says_a_raters_login_cannot_run_it(team, command, capsys, tmp_path):
    ana = team.url_of("ana")
    argv = [ana if word == "DB" else word for word in command]
    argv = [str(tmp_path / word) if word.startswith(("out.", "ana.")) else word for word in argv]
    assert main(argv) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        f"judge-app {command[0]}: {team.logins['ana']} is a rater's login: it cannot run "
        f"judge-app {command[0]}, which is a lead's work (connect with a lead's login)\n"
    )
    assert not any(tmp_path.iterdir())  # nothing written


def test_a_leads_login_runs_the_lead_commands(team, capsys):
    lena = team.url_of("lena")
    assert main(["eval", "--db", lena, "--format", "json"]) == 0
    assert main(["info", lena]) == 0
    assert team.logins["ben"] in capsys.readouterr().out


def test_a_login_turned_off_is_said_in_words_and_nothing_changes(team):
    admin = create_engine(team.url, isolation_level="AUTOCOMMIT")
    ana = team.logins["ana"]
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER ROLE "{ana}" NOLOGIN')
        with pytest.raises(JudgeAppError) as refusal:
            open_database(team.url_of("ana"), create=False)
        assert str(refusal.value) == (
            f"The PostgreSQL server at 127.0.0.1:5432 no longer lets {ana} connect (the login "
            "was turned off or removed from the team); nothing was changed. Ask a lead"
        )
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER ROLE "{ana}" LOGIN')
        admin.dispose()


def test_a_connection_that_asks_for_tls_the_server_lacks_is_said_in_words(team):
    url = team.url_of("ana") + "?sslmode=require"
    with pytest.raises(JudgeAppError) as refusal:
        open_database(url, create=False)
    assert str(refusal.value).startswith("The encrypted connection to 127.0.0.1:5432 failed: ")
    assert "sslmode" in str(refusal.value) and "nothing was changed" in str(refusal.value)


def test_a_raters_queue_takes_the_active_order_without_reading_the_sample(team):
    with open_database(team.url, create=False) as owner, owner.transaction() as session:
        queries = [query.id for query in rater_queue(session, team.ids["ana"])]
        drawn = [Drawn(query, 1.0, float(len(queries) - place)) for place, query in
                 enumerate(queries[:3])]  # fmt: skip
        replace_active_sample(session, 900, drawn)
        set_setting(session, "pool.query_order", "active")
    expected = [*reversed(queries[:3]), *queries[3:]]
    with open_database(team.url_of("ana"), create=False) as database:
        with database.reading() as session:
            assert [query.id for query in rater_queue(session, team.ids["ana"])] == expected
    engine = team.as_("ana")
    try:
        with engine.connect() as connection:
            assert refused(connection, "SELECT key FROM active_sample")
            places = connection.exec_driver_sql("SELECT * FROM active_order ORDER BY place")
            assert [tuple(row) for row in places] == [(query, place + 1) for place, query in
                                                      enumerate(reversed(queries[:3]))]  # fmt: skip
    finally:
        engine.dispose()


def test_a_login_outside_the_team_cannot_even_connect(team):
    stranger = f"stranger_{uuid.uuid4().hex[:6]}"
    admin = create_engine(team.url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE ROLE "{stranger}" LOGIN')
        url = make_url(team.url).set(username=stranger).render_as_string(hide_password=False)
        with pytest.raises(JudgeAppError) as refusal:
            open_database(url, create=False)
        assert str(refusal.value) == (
            f"{stranger} is not in the team of {url}; nothing was changed. Ask its owner to run "
            "judge-app team add"
        )
    finally:
        with admin.connect() as connection:
            drop_roles(connection, [stranger])
        admin.dispose()
