"""A team database's roles, kept by PostgreSQL itself: what each person can do does not rest on
judge_app's code, which a rater could change or bypass with any SQL client.

``init_team`` (run by the database's owner) makes two group roles for the campaign, its leads
and its raters, grants each what it needs and turns row-level security on for the tables whose
rows belong to a rater. A rater's login, bound to one rater (``rater.login``), then reads the
queries, documents, results, settings (the rubric) and its own rater row, queue, judgments,
their history and repeats, writes only its own judgments, history and repeats, and reads
nothing else: no other rater's rows, no gold grade, no automatic judge or its grades, no packet
or active sample. A lead's login sees and changes everything. ``add_member`` makes a login and
binds it; ``remove_member`` drops the login and keeps the rater's work.

Every history event names the login that wrote it (``judgment_event.login``, the server's
``session_user``): a rater's row-level policy refuses an event naming another login. Who a
connection is (``access``) decides what the window and the command line offer: a rater's login
judges as its own rater only, and is told in words that a lead's page or command is not its to
open (the database would show it its own rows alone: a number made of them would mislead).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Engine, select, text, update

from judge_app.errors import JudgeAppError, quoted
from judge_app.names import known_name
from judge_app.store.database import Database
from judge_app.store.models import Rater
from judge_app.store.people import named_rater

HISTORIES = ("judgment_event", "preference_event")
OWN_ROWS = {
    "judgment": "SELECT, INSERT, UPDATE, DELETE",
    "judgment_event": "SELECT, INSERT",
    "repeat_judgment": "SELECT, INSERT, UPDATE, DELETE",
    "preference": "SELECT, INSERT, UPDATE, DELETE",
    "preference_event": "SELECT, INSERT",
    "assignment": "SELECT",
}
"""The tables whose rows belong to a rater (``rater_id``), with what a rater may do to its own."""
READ_ONLY = ("query", "document", "run", "result", "setting", "alembic_version", "active_order")
"""What every rater reads and none changes (the rubric is in ``setting``; ``active_order`` is
each sampled query's place in the queue's order, without the sample's scale or key)."""
RATER_ROW = "rater"
"""A rater reads its own row of it alone (the one its login is bound to)."""
LOGIN_LENGTH = 63
"""PostgreSQL's longest name."""


@dataclass(frozen=True)
class TeamRoles:
    """The campaign's two group roles: its leads' and its raters'."""

    lead: str
    rater: str


@dataclass(frozen=True)
class Member:
    """A login of the team: the rater it judges as, and whether it is a lead."""

    rater: str
    login: str
    lead: bool


LEAD, RATER, OWNER = "lead", "rater", "owner"


@dataclass(frozen=True)
class Access:
    """Who a connection is: on a team database its ``login``, its ``role`` (``LEAD``,
    ``RATER``, or ``OWNER`` for the database's owner or a superuser, who are in neither group
    and may do all a lead does) and the rater bound to the login, if any. Elsewhere (SQLite,
    or a PostgreSQL database before ``team init``) ``role`` is None: whoever opens it may do
    everything, as before teams."""

    login: str | None = None
    role: str | None = None
    rater: str | None = None

    @property
    def is_rater(self) -> bool:
        """Whether the connection is a rater's login, kept to that rater's own rows."""
        return self.role == RATER

    def refusal(self, what: str) -> str | None:
        """Why this connection cannot do ``what`` (a lead's work: "open the evaluation"),
        in words; None when it can."""
        if not self.is_rater:
            return None
        return (
            f"{self.login} is a rater's login: it cannot {what}, which is a lead's work "
            "(connect with a lead's login)"
        )

    def check(self, what: str) -> None:
        """JudgeAppError with ``refusal(what)`` unless this connection may do ``what``."""
        reason = self.refusal(what)
        if reason is not None:
            raise JudgeAppError(reason)

    def judging_as(self, asked: str | None) -> str | None:
        """The rater this connection judges as when ``asked`` (a name typed, None if none):
        a rater's login judges as its own rater only (JudgeAppError for another name);
        anyone else as asked (their history events name their login all the same)."""
        if not self.is_rater:
            return asked
        if self.rater is None:
            raise JudgeAppError(
                f"the login {self.login} judges for no rater: ask a lead to run "
                f"judge-app team add DB {self.login}"
            )
        if asked is not None and known_name(asked, [self.rater]) is None:
            raise JudgeAppError(
                f"connected as {self.login}, you judge as {quoted(self.rater)}: a rater's "
                f"login cannot judge as {quoted(asked)}"
            )
        return self.rater


_ACCESS: WeakKeyDictionary[Engine, Access] = WeakKeyDictionary()


def access(database: Database) -> Access:
    """Who ``database``'s connections are (read once per engine: one engine, one login)."""
    engine = database.engine
    known = _ACCESS.get(engine)
    if known is None:
        known = _ACCESS[engine] = _read_access(database)
    return known


def _read_access(database: Database) -> Access:
    if database.url.get_backend_name() != "postgresql":
        return Access()
    with database.reading() as session:
        connection = session.connection()
        login = str(connection.execute(text("SELECT session_user")).scalar_one())
        roles = team_roles(_database_name(connection))
        if not _role_exists(connection, roles.rater):
            return Access(login)
        bound = session.scalar(select(Rater.name).where(Rater.login == login))
        if _is_member(connection, login, roles.lead):
            role = LEAD  # a superuser too: a member of every role
        elif _is_member(connection, login, roles.rater):
            role = RATER
        else:
            role = OWNER  # no one else connects (``_rules``)
        return Access(login, role, bound)


def team_roles(database_name: str) -> TeamRoles:
    """The group roles of the campaign in database ``database_name`` (roles are the server's,
    shared by its databases: each campaign has its own)."""
    base = re.sub(r"[^a-z0-9_]+", "_", database_name.lower()).strip("_")[:40] or "campaign"
    return TeamRoles(lead=f"{base}_lead", rater=f"{base}_rater")


def init_team(database: Database) -> TeamRoles:
    """Make the campaign's roles and the rules that keep raters apart (again: it may be run
    twice, and after an upgrade that added tables). The database's owner runs it."""
    with database.transaction() as session:
        connection = session.connection()
        name = _database_name(connection)
        roles = team_roles(name)
        _check_owner(connection)
        for role in (roles.lead, roles.rater):
            if not _role_exists(connection, role):
                connection.exec_driver_sql(f"CREATE ROLE {_name(role)} NOLOGIN")
        for statement in _rules(roles, name):
            connection.exec_driver_sql(statement)
    return roles


def add_member(database: Database, rater: str, password: str, *, lead: bool = False) -> Member:
    """A login for ``rater`` (added to the campaign's raters if new), with ``password``, in the
    leads' role with ``lead``, else the raters'. Its name is the rater's (as stored)."""
    if not password:
        raise JudgeAppError("a login needs a password")
    with database.transaction() as session:
        connection = session.connection()
        roles = _initialised(connection)
        person = named_rater(session, rater)
        assert person is not None  # named_rater creates
        login = person.name
        if len(login.encode()) > LOGIN_LENGTH:
            raise JudgeAppError(f"{quoted(login)} is too long for a login ({LOGIN_LENGTH} bytes)")
        if person.login is not None or _role_exists(connection, login):
            raise JudgeAppError(f"{quoted(login)} already has a login: remove it first")
        group = roles.lead if lead else roles.rater
        connection.exec_driver_sql(  # DDL takes no parameters: the password is quoted
            f"CREATE ROLE {_name(login)} LOGIN PASSWORD {_literal(password)} IN ROLE {_name(group)}"
        )
        person.login = login
    return Member(rater=login, login=login, lead=lead)


def remove_member(database: Database, rater: str) -> Member:
    """Drop ``rater``'s login; the rater and their work stay."""
    with database.transaction() as session:
        connection = session.connection()
        roles = _initialised(connection)
        person = named_rater(session, rater, create=False)
        if person is None or person.login is None:
            raise JudgeAppError(f"{quoted(rater)} has no login on this database")
        login = person.login
        member = Member(person.name, login, _is_member(connection, login, roles.lead))
        session.execute(update(Rater).where(Rater.id == person.id).values(login=None))
        connection.exec_driver_sql(f"DROP ROLE IF EXISTS {_name(login)}")
    return member


def members(database: Database) -> list[Member]:
    """The team's logins, by rater name."""
    with database.reading() as session:
        connection = session.connection()
        roles = _initialised(connection)
        rows = session.execute(
            select(Rater.name, Rater.login).where(Rater.login.is_not(None)).order_by(Rater.name)
        )
        return [
            Member(name, login, _is_member(connection, login, roles.lead))
            for name, login in rows
            if login is not None
        ]


def _rules(roles: TeamRoles, database_name: str) -> Iterable[str]:
    lead, rater = _name(roles.lead), _name(roles.rater)
    # only the team (and the owner) connect: PostgreSQL lets every login connect by default
    yield f"REVOKE CONNECT ON DATABASE {_name(database_name)} FROM PUBLIC"
    yield f"GRANT CONNECT ON DATABASE {_name(database_name)} TO {lead}, {rater}"
    yield f"GRANT USAGE ON SCHEMA public TO {lead}, {rater}"
    yield f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {lead}"
    yield f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {lead}"
    yield f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {rater}"
    yield f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {rater}"
    yield f"GRANT SELECT ON {', '.join(READ_ONLY)} TO {rater}"
    yield f"GRANT SELECT ON {RATER_ROW} TO {rater}"
    # tables a later upgrade adds (made by the owner, who runs init): the leads' at once, no
    # rater's until init runs again and says what a rater may do with them
    yield f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO {lead}"
    yield f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO {lead}"
    mine = "(SELECT id FROM rater WHERE login = current_user)"
    for table, actions in OWN_ROWS.items():
        yield f"GRANT {actions} ON {table} TO {rater}"
        own = f"rater_id = {mine}"
        # a rater's history event names the login that wrote it (the column's default):
        # never another's
        written = f"{own} AND login = session_user" if table in HISTORIES else own
        yield from _policies(table, roles, own, written)
    yield from _policies(RATER_ROW, roles, "login = current_user")


def _policies(table: str, roles: TeamRoles, own: str, written: str | None = None) -> Iterable[str]:
    """Row-level security on ``table``: a lead's every row, a rater's rows where ``own``
    (rows the rater writes where ``written``, if given)."""
    yield f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY"
    for policy in ("judge_app_lead", "judge_app_own"):
        yield f"DROP POLICY IF EXISTS {policy} ON {table}"
    yield f"CREATE POLICY judge_app_lead ON {table} TO {_name(roles.lead)} USING (true)"
    yield (
        f"CREATE POLICY judge_app_own ON {table} TO {_name(roles.rater)} "
        f"USING ({own}) WITH CHECK ({written or own})"
    )


def _initialised(connection: Connection) -> TeamRoles:
    roles = team_roles(_database_name(connection))
    if not _role_exists(connection, roles.rater):
        raise JudgeAppError("this database is no team database yet: run judge-app team init DB")
    return roles


def _check_owner(connection: Connection) -> None:
    """Refused unless the one connected owns the database (or is a superuser); PostgreSQL
    only (``_database_name`` checked that)."""
    owner = connection.execute(
        text(
            "SELECT pg_has_role(current_user, datdba, 'MEMBER') OR "
            "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
            "FROM pg_database WHERE datname = current_database()"
        )
    ).scalar_one()
    if not owner:
        raise JudgeAppError("only the database's owner can set up its team")


def _database_name(connection: Connection) -> str:
    if connection.dialect.name != "postgresql":
        raise JudgeAppError(
            "a team needs a PostgreSQL database: on SQLite every person opens the same file"
        )
    return str(connection.execute(text("SELECT current_database()")).scalar_one())


def _role_exists(connection: Connection, role: str) -> bool:
    found = connection.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :role"), {"role": role})
    return found.first() is not None


def _is_member(connection: Connection, login: str, group: str) -> bool:
    if not _role_exists(connection, login):
        return False
    member = text("SELECT pg_has_role(:login, :group, 'MEMBER')")
    return bool(connection.execute(member, {"login": login, "group": group}).scalar_one())


def _name(identifier: str) -> str:
    """``identifier`` quoted for PostgreSQL."""
    return '"' + identifier.replace('"', '""') + '"'


def _literal(value: str) -> str:
    """``value`` as a PostgreSQL string literal (standard_conforming_strings, PostgreSQL's
    default since 9.1: a backslash is itself)."""
    return "'" + value.replace("'", "''") + "'"
