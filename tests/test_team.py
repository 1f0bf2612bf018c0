"""A team database on the real PostgreSQL server (issue 30): connected as the rater ana, the
server itself refuses every way to read or change another rater's grades, the campaign, the
gold items, the automatic grades, the settings and the roles; a lead's login sees and changes
everything. Tested with raw SQL through ana's own login, and through judge_app's store."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from judge_app.cli import main
from judge_app.errors import JudgeAppError
from judge_app.store import open_database
from judge_app.store.gold import set_gold
from judge_app.store.judgments import current_state, set_grade
from judge_app.store.people import rater
from judge_app.store.reads import judgments_frame
from judge_app.store.team import add_member, init_team, members, remove_member, team_roles

pytestmark = pytest.mark.postgres

REFUSED = ("permission denied", "row-level security", "must be owner", "must have")


@dataclass
class Team:
    url: str  # the owner's
    logins: dict[str, str]  # person: their login
    ids: dict[str, int]  # rater name: id

    def as_(self, person: str) -> Engine:
        """An engine connected as ``person``'s own login (the server trusts 127.0.0.1)."""
        url = make_url(self.url).set(username=self.logins[person], password="secret")
        return create_engine(url, isolation_level="AUTOCOMMIT")


def _drop_roles(admin: Connection, roles: list[str]) -> None:
    for role in roles:
        if admin.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
            admin.exec_driver_sql(f'DROP OWNED BY "{role}"')
            admin.exec_driver_sql(f'DROP ROLE "{role}"')


@pytest.fixture
def team(pg_url: str) -> Iterator[Team]:
    """The demo on PostgreSQL with a gold item and an automatic judge's grade, its team set
    up by the owner: ana and ben raters, lena a lead (names made unique on the server)."""
    suffix = uuid.uuid4().hex[:6]
    names = {"ana": f"ana_{suffix}", "ben": f"ben_{suffix}", "lena": f"lena_{suffix}"}
    with open_database(pg_url) as database:
        assert main(["demo", pg_url]) == 0
        with database.transaction() as session:
            for old, new in (("ana", names["ana"]), ("ben", names["ben"])):
                rater(session, old).name = new
            set_gold(session, 1, 1, 3)
            session.execute(
                text(
                    "INSERT INTO rater (id, name, created_at, active, kind) VALUES "
                    "(900, 'llm', now(), true, 'automatic')"
                )
            )
            session.execute(
                text(
                    "INSERT INTO automatic_judge VALUES (900, 'llm', 'qwen', 'abc', 'Grade it', "
                    "'http://127.0.0.1:1/v1', NULL, now())"
                )
            )
            session.execute(
                text(
                    "INSERT INTO auto_judgment VALUES (900, 1, 1, 2.0, NULL, '2', 'f00', 30, 1, "
                    "120, now())"
                )
            )
        init_team(database)
        for person in ("ana", "ben"):
            add_member(database, names[person], "secret")
        add_member(database, names["lena"], "secret", lead=True)
        with database.reading() as session:
            ids = {person: rater(session, names[person]).id for person in ("ana", "ben")}
        roles = team_roles(make_url(pg_url).database or "")
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        yield Team(pg_url, names, ids)
    finally:
        with admin.connect() as connection:
            _drop_roles(connection, [*names.values(), roles.lead, roles.rater])
        admin.dispose()


def refused(connection: Connection, statement: str) -> bool:
    """Whether the server refuses ``statement`` (permission or row-level security)."""
    try:
        connection.exec_driver_sql(statement)
    except DBAPIError as error:
        return any(reason in str(error.orig) for reason in REFUSED)
    return False


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


def test_the_command_line_sets_up_a_team(pg_url, capsys, monkeypatch):
    suffix = uuid.uuid4().hex[:6]
    assert main(["demo", pg_url]) == 0
    roles = team_roles(make_url(pg_url).database or "")
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        monkeypatch.setattr("sys.stdin.isatty", lambda: False)
        assert main(["team", "add", pg_url, f"x_{suffix}"]) == 2  # no password to give it
        assert "set JUDGE_APP_PASSWORD" in capsys.readouterr().err
        monkeypatch.setenv("JUDGE_APP_PASSWORD", "secret")
        assert main(["team", "add", pg_url, f"x_{suffix}"]) == 1
        assert "no team database yet: run judge-app team init DB" in capsys.readouterr().err
        assert main(["team", "init", pg_url]) == 0
        assert f"{roles.rater} (raters:" in capsys.readouterr().out
        assert main(["team", "add", pg_url, f"x_{suffix}", "--lead"]) == 0
        assert main(["team", "list", pg_url]) == 0
        assert capsys.readouterr().out.splitlines()[-1].split() == [f"x_{suffix}", "lead"]
        assert main(["team", "remove", pg_url, f"x_{suffix}"]) == 0
        assert "judgments stay" in capsys.readouterr().out
    finally:
        with admin.connect() as connection:
            _drop_roles(connection, [f"x_{suffix}", roles.lead, roles.rater])
        admin.dispose()


@pytest.fixture(autouse=True)
def _no_password_from_the_environment(monkeypatch):
    monkeypatch.delenv("JUDGE_APP_PASSWORD", raising=False)
    assert "JUDGE_APP_PASSWORD" not in os.environ
