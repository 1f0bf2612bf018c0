"""A packet is a database someone else made (issue 31): before judge_app reads a row of it, its
schema is checked to be judge_app's own, object by object, read with SQLite's
``trusted_schema`` off and without running anything of it. A view (one that loops, or
multiplies rows), a trigger, an index or a table judge_app does not make is refused, and so is
a packet holding more history, or more preferences, than a rater makes offline: reading it
would cost without bound.
"""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from functools import cache
from pathlib import Path

from judge_app.store.errors import StoreError

MAX_EVENTS = 250_000
"""The most history events a packet may hold, and the most preferences: a rater grading one
result (or comparing one pair) every two seconds for a hundred hours makes 180,000."""
Schema = dict[tuple[str, str], str | None]
"""(type, name) of each object of a SQLite file → what it is made of (``_made_of``)."""


def check_packet_schema(path: Path) -> None:
    """StoreError, naming ``path`` and what is wrong, unless the packet's schema is exactly
    judge_app's and its history and its preferences each within ``MAX_EVENTS``."""
    theirs = _schema_of(path)
    ours = _our_schema()
    for (kind, name), sql in sorted(theirs.items()):
        if ours.get((kind, name), "") != sql:
            raise _refused(path, f"it holds the {kind} {name!r}, which judge_app does not make")
    missing = sorted(name for kind, name in ours.keys() - theirs.keys() if kind == "table")
    if missing:
        raise _refused(path, f"it lacks the table {missing[0]!r} of every packet")
    with closing(_connected(path)) as connection:
        counts = {
            what: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table, what in (("judgment_event", "history events"), ("preference", "preferences"))
        }
    for what, rows in counts.items():
        if rows > MAX_EVENTS:
            raise _refused(
                path, f"it holds {rows:,} {what}, more than a rater makes ({MAX_EVENTS:,})"
            )


def _schema_of(path: Path) -> Schema:
    """Each object of the SQLite file at ``path``, by what it is made of: a table by its
    columns (name, type, constraints, default, generated or not: the order of its constraints
    differs between two databases an upgrade made), a view or a trigger by its SQL, an index
    by its name."""
    try:
        with closing(_connected(path)) as connection:
            rows = connection.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchall()
            return {(kind, name): _made_of(connection, kind, name, sql) for kind, name, sql in rows}
    except sqlite3.DatabaseError as error:
        raise _refused(path, f"it is no judge_app packet ({error})") from None


def _made_of(connection: sqlite3.Connection, kind: str, name: str, sql: str | None) -> str | None:
    if kind == "table":
        quoted = '"' + name.replace('"', '""') + '"'
        return repr(connection.execute(f"PRAGMA table_xinfo({quoted})").fetchall())
    return None if kind == "index" else sql


def _connected(path: Path) -> sqlite3.Connection:
    """``path`` opened read-only, its schema trusted with nothing: no function of a view or a
    trigger of it runs with side effects."""
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    connection.execute("PRAGMA trusted_schema=OFF")
    return connection


@cache
def _our_schema() -> Schema:
    """The schema of a new judge_app database (made once per process, in a folder removed
    after)."""
    from judge_app.store.database import open_database

    with tempfile.TemporaryDirectory(prefix="judge-app-schema-") as folder:
        path = Path(folder) / "schema.sqlite"
        open_database(path).close()
        return _schema_of(path)


def _refused(path: Path, reason: str) -> StoreError:
    return StoreError(f"{path}: {reason}; nothing was merged")
