"""A team database on the test PostgreSQL server, for the tests of issue 30: the demo with a
gold item and an automatic judge's grade, its team set up by the owner (raters ana and ben,
lena a lead), each connecting with their own login."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError

from judge_app.cli import main
from judge_app.store import open_database
from judge_app.store.gold_items import set_gold
from judge_app.store.people import rater
from judge_app.store.team import add_member, init_team, team_roles

REFUSED = ("permission denied", "row-level security", "must be owner", "must have")


@dataclass
class Team:
    url: str  # the owner's
    logins: dict[str, str]  # person: their login
    ids: dict[str, int]  # rater name: id

    def url_of(self, person: str) -> str:
        """The database's URL with ``person``'s own login (the server trusts 127.0.0.1)."""
        url = make_url(self.url).set(username=self.logins[person], password="secret")
        return url.render_as_string(hide_password=False)

    def as_(self, person: str) -> Engine:
        """An engine connected as ``person``'s own login."""
        return create_engine(self.url_of(person), isolation_level="AUTOCOMMIT")


def drop_roles(admin: Connection, roles: list[str]) -> None:
    for role in roles:
        if admin.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
            admin.exec_driver_sql(f'DROP OWNED BY "{role}"')
            admin.exec_driver_sql(f'DROP ROLE "{role}"')


@pytest.fixture
def team(pg_owner_url: str) -> Iterator[Team]:
    """The demo on PostgreSQL with a gold item and an automatic judge's grade, its team set
    up by the owner: ana and ben raters, lena a lead (names made unique on the server)."""
    suffix = uuid.uuid4().hex[:6]
    names = {"ana": f"ana_{suffix}", "ben": f"ben_{suffix}", "lena": f"lena_{suffix}"}
    with open_database(pg_owner_url) as database:
        assert main(["demo", pg_owner_url]) == 0
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
        roles = team_roles(make_url(pg_owner_url).database or "")
    admin = create_engine(pg_owner_url, isolation_level="AUTOCOMMIT")
    try:
        yield Team(pg_owner_url, names, ids)
    finally:
        with admin.connect() as connection:
            drop_roles(connection, [*names.values(), roles.lead, roles.rater])
        admin.dispose()


def refused(connection: Connection, statement: str) -> bool:
    """Whether the server refuses ``statement`` (permission or row-level security)."""
    try:
        connection.exec_driver_sql(statement)
    except DBAPIError as error:
        return any(reason in str(error.orig) for reason in REFUSED)
    return False
