"""What a database driver's error means, in a sentence a user can act on.

SQLite (through sqlite3) and PostgreSQL (through psycopg) report failures in their own words
and SQLAlchemy wraps them with the SQL and a URL; a user reads none of that. Every message of
the store about a failed open, read or write is made here: it names the file (a path, never
a URL) or the server, and says what happened and what to do.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from pathlib import Path

from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

# PostgreSQL's SQLSTATEs of a unit of work that lost a race to another one and was rolled
# back: serialization failure, deadlock, lock not available, and a row inserted at the same
# moment by another (the retry reads it and changes it instead)
CONFLICT_STATES = {"40001", "40P01", "55P03", "23505"}
INSUFFICIENT_PRIVILEGE = "42501"
"""PostgreSQL's SQLSTATE of a statement a grant or a row-level policy refuses."""
FULL_BELOW = 1 << 20
"""A disk with less free space than this (bytes) is taken for full."""
BACKUP_ADVICE = (
    "restore it from a backup (judge_app keeps a copy beside it, named *.bak, before each "
    "schema upgrade)"
)


def described(url: URL) -> str:
    """A database as a user would name it: a file path, or a URL without its password (not
    even masked: the window keeps this in its recent databases, and reopened so, libpq finds
    the password where the user keeps it, in ~/.pgpass or PGPASSWORD)."""
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    return url._replace(password=None).render_as_string()  # set() keeps a password given None


def conflicted(error: DBAPIError) -> bool:
    """Whether ``error`` is another writer's doing, so that the same work may succeed later."""
    if isinstance(error.orig, sqlite3.OperationalError):
        reason = str(error.orig).lower()
        return "database is locked" in reason or "database is busy" in reason
    return getattr(error.orig, "sqlstate", None) in CONFLICT_STATES


def interrupted(error: DBAPIError) -> bool:
    """Whether SQLite stopped the statement for a signal (Ctrl+C: ``database._signals_due``)."""
    return getattr(error.orig, "sqlite_errorname", "") == "SQLITE_INTERRUPT"


def moved(path: str | Path) -> str:
    """The words for a database file that is no longer where it was opened."""
    return (
        f"The database file was deleted or moved: {path}. Nothing more can be saved to it: "
        "put it back, or open it where it is now"
    )


def read_only(path: str | Path) -> str:
    """The words for a database file (or folder) this process cannot write to."""
    file = Path(path)
    if file.exists() and not os.access(file, os.W_OK):
        return (
            f"The database file {file} is read-only: ask for write access or open a copy; "
            "nothing was changed"
        )
    return (
        f"The folder of the database file {file} is read-only (SQLite keeps its journal "
        "beside the file): ask for write access or open a copy elsewhere; nothing was changed"
    )


def in_words(error: DBAPIError, url: URL, waited: float = 0.0) -> str:
    """What ``error``, raised on the database at ``url`` after ``waited`` seconds, means."""
    if url.get_backend_name() == "sqlite":
        return _sqlite_words(error, url, waited)
    return _server_words(error, url)


def _sqlite_words(error: DBAPIError, url: URL, waited: float) -> str:
    path = described(url)
    reason = str(error.orig).lower()
    name = getattr(error.orig, "sqlite_errorname", "")
    if conflicted(error):
        return (
            f"The database {path} is locked by another program (busy for {_seconds(waited)}): "
            "nothing of this change was written; try again"
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in reason:
        return read_only(path)
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in reason:
        if not Path(path).exists():
            return moved(path)
        if not os.access(Path(path).parent, os.W_OK):
            return read_only(path)
        return f"The database file {path} cannot be opened: check its permissions"
    io_error = name.startswith("SQLITE_IOERR") or "disk i/o error" in reason
    # SQLite says the disk is full only now and then: an I/O error may be one too
    if name == "SQLITE_FULL" or "disk is full" in reason or (io_error and _disk_full(path)):
        return f"Cannot write to {path}: the disk is full; nothing of this change was written"
    if io_error:
        return (
            f"Reading or writing {path} failed (a failing disk, or a drive that went away?): "
            "nothing of this change was written"
        )
    if name == "SQLITE_NOTADB" or "not a database" in reason:
        return f"{path} is not a SQLite database (it does not start like one)"
    if name.startswith("SQLITE_CORRUPT") or "malformed" in reason:
        return f"The database file {path} is damaged: {BACKUP_ADVICE}"
    return f"The database {path} refused the change: {_first_line(str(error.orig))}"


def _server_words(error: DBAPIError, url: URL) -> str:
    if conflicted(error):
        return (
            "Other programs were changing the same data at the same time: nothing of this "
            "change was written; try again"
        )
    reason = str(error.orig)
    server = f"{url.host or 'localhost'}:{url.port or 5432}"
    refused = _refused_login(reason, url, server)
    if refused is not None:
        return refused
    if error.connection_invalidated or _CONNECTION.search(reason):
        return f"Cannot connect to the PostgreSQL server at {server}: {_server_reason(reason)}"
    if getattr(error.orig, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return (
            f"The login {url.username or 'connected'} may not do this on {described(url)}: "
            f"{_first_line(reason)}; nothing was changed (a rater's login reads and changes "
            "only its own judgments: ask a lead)"
        )
    return f"The database {described(url)} refused the change: {_first_line(reason)}"


def _refused_login(reason: str, url: URL, server: str) -> str | None:
    """The words for a login or an encryption the server refused, None if it is not that."""
    login = url.username or "this login"
    unchanged = "nothing was changed"
    if "password authentication failed" in reason:
        return (
            f"The PostgreSQL server at {server} refused the password of {login}: a wrong "
            f"password, or a login that has expired; {unchanged}. Give the right one in "
            f"~/.pgpass or PGPASSWORD, or ask a lead for a new one"
        )
    if "no password supplied" in reason:
        return (
            f"The PostgreSQL server at {server} asks for the password of {login}, and none was "
            f"given; {unchanged}. Put it in ~/.pgpass (host:port:database:{login}:password, "
            "readable by you alone) or in PGPASSWORD"
        )
    if "is not permitted to log in" in reason or ("role" in reason and "does not exist" in reason):
        return (
            f"The PostgreSQL server at {server} no longer lets {login} connect (the login was "
            f"turned off or removed from the team); {unchanged}. Ask a lead"
        )
    if "permission denied for database" in reason:
        return (
            f"{login} is not in the team of {described(url)}; {unchanged}. Ask its owner to "
            f"run judge-app team add"
        )
    if "SSL" in reason or "certificate" in reason:
        return (
            f"The encrypted connection to {server} failed: {_server_reason(reason)}. The URL's "
            "sslmode (verify-full checks the server's certificate against sslrootcert) must "
            f"match what the server offers; {unchanged}"
        )
    return None


_CONNECTION = re.compile(
    r"connection failed|connection to server|failed to resolve host|server closed the "
    r"connection|could not connect|terminating connection|connection is closed",
    re.IGNORECASE,
)
_SERVER_PREFIXES = re.compile(
    r'connection failed: |connection to server (at|on) "[^"]*"( \([^)]*\))?(, port \d+)? '
    r"failed: |FATAL:\s+|\[Errno -?\d+\] ",
)


def _server_reason(reason: str) -> str:
    """psycopg's account of a failed connection without its prefixes, on one line."""
    text = " ".join(_SERVER_PREFIXES.sub("", reason).split())
    return text[:1].lower() + text[1:] if text else "no answer"


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "no reason given"


def _disk_full(path: str) -> bool:
    """Whether the disk that holds a SQLite database has (almost) no room left."""
    try:
        return shutil.disk_usage(Path(path).parent).free < FULL_BELOW
    except OSError:
        return False
