"""A team on a PostgreSQL server (``judge-app team``): the campaign's roles and its people's
logins (``store.team``), said in words. The password of a new login is given by the caller
(the command line reads it from JUDGE_APP_PASSWORD or asks for it); judge_app never stores it."""

from __future__ import annotations

from judge_app.store import open_database
from judge_app.store.team import access, add_member, init_team, members, remove_member


def init(db: str) -> str:
    """Set up the team of the database ``db``; what each role may do."""
    with open_database(db, create=False) as database:
        roles = init_team(database)
    return (
        f"team roles ready: {roles.lead} (leads: see and change everything) and {roles.rater} "
        "(raters: read the queries, documents, results and rubric, and see and change only "
        "their own judgments). Next: judge-app team add DB NAME [--lead]"
    )


def add(db: str, rater: str, password: str, *, lead: bool = False) -> str:
    """A login for ``rater`` on ``db``."""
    with open_database(db, create=False) as database:
        member = add_member(database, rater, password, lead=lead)
    role = "lead" if member.lead else "rater"
    return f"login {member.login!r} added as a {role}: it connects as user {member.login!r}"


def remove(db: str, rater: str) -> str:
    """Drop ``rater``'s login on ``db``; their work stays."""
    with open_database(db, create=False) as database:
        member = remove_member(database, rater)
    return f"login {member.login!r} removed; {member.rater}'s judgments stay"


def listing(db: str) -> str:
    """The logins of ``db``'s team, one a line."""
    with open_database(db, create=False) as database:
        found = members(database)
    if not found:
        return "no logins yet: judge-app team add DB NAME [--lead]"
    width = max(len(member.login) for member in found)
    return "\n".join(
        f"{member.login:<{width}}  {'lead' if member.lead else 'rater'}" for member in found
    )


def check_lead(db: str, what: str) -> None:
    """JudgeAppError, in words, if the login connected to ``db`` is a rater's (on a team
    database), which cannot do ``what``: a lead's work."""
    with open_database(db, create=False) as database:
        access(database).check(what)
