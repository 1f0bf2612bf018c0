"""Opening a judge_app database: the one object the rest of the code uses."""

from __future__ import annotations

import random
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from judge_app.store import schema
from judge_app.store.errors import StoreError

BUSY_TIMEOUT_MS = 5_000
"""How long SQLite itself waits for another writer's lock before a unit of work retries."""
RETRY_SECONDS = 120.0
"""How long a unit of work is retried while other writers are in its way."""
FIRST_PAUSE, LONGEST_PAUSE = 0.02, 1.0
"""Seconds between retries: doubling from the first to the longest, with jitter."""
# PostgreSQL's SQLSTATEs of a unit of work that lost a race to another one and was rolled
# back: serialization failure, deadlock, lock not available, and a row inserted at the same
# moment by another (the retry reads it and changes it instead)
CONFLICT_STATES = {"40001", "40P01", "55P03", "23505"}
T = TypeVar("T")


def database_url(path_or_url: str | Path) -> URL:
    """An SQLAlchemy URL for a file path (SQLite) or a URL given as text."""
    text = str(path_or_url)
    if "://" in text:
        try:
            return make_url(text)
        except ArgumentError as error:
            raise StoreError(f"{text!r} is not a database URL: {error}") from None
    return URL.create("sqlite+pysqlite", database=str(Path(text).expanduser().resolve()))


class Database:
    """An open judge_app database: an engine and the transactions made on it.

    ``transaction()`` is one unit of work that writes (on SQLite it begins IMMEDIATE, so two
    processes queue for the lock instead of failing half-way); ``reading()`` is a read-only
    snapshot.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writer = sessionmaker(engine, expire_on_commit=False)
        self._reader = sessionmaker(
            engine.execution_options(sqlite_begin="DEFERRED"), expire_on_commit=False
        )

    @property
    def url(self) -> URL:
        return self.engine.url

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def describe(self) -> str:
        """The database as a user would name it: a file path or a URL without password."""
        if self.is_sqlite:
            return self.url.database or ":memory:"
        return self.url.render_as_string(hide_password=True)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work: committed when the block ends, rolled back if it raises.

        Its start waits (and retries, for up to RETRY_SECONDS) while another writer holds
        a SQLite file; for work that may also conflict half-way, as on PostgreSQL, use
        ``write``, which can run the work again."""
        with _translated_errors(self):
            transaction = _retried(self._begun)
            with transaction.session as session, transaction:
                yield session

    def write(self, change: Callable[[Session], T]) -> T:
        """Run ``change`` as one unit of work and return what it returns.

        When another writer is in the way (a SQLite file locked beyond its busy timeout; a
        PostgreSQL deadlock, serialization failure or a row inserted at the same moment),
        the attempt is rolled back and ``change`` runs again after a growing pause, for up
        to RETRY_SECONDS: it must do nothing but its work on the session."""

        def attempt() -> T:
            transaction = self._begun()
            with transaction.session as session, transaction:
                return change(session)

        with _translated_errors(self):
            return _retried(attempt)

    def _begun(self) -> SessionTransaction:
        """The begun transaction of a new writing session (on SQLite: holding the lock)."""
        session = self._writer()
        transaction = session.begin()
        try:
            session.connection()
        except BaseException:
            session.close()
            raise
        return transaction

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for reads; nothing it does is committed."""
        with _translated_errors(self), self._reader() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _retried(attempt: Callable[[], T]) -> T:
    """``attempt()``, again after a pause each time it conflicts with another writer, until
    it succeeds, fails otherwise, or RETRY_SECONDS have passed."""
    deadline = time.monotonic() + RETRY_SECONDS
    pause = FIRST_PAUSE
    while True:
        try:
            return attempt()
        except DBAPIError as error:
            if not _conflicted(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause * random.uniform(0.5, 1.5))
        pause = min(pause * 2, LONGEST_PAUSE)


def _conflicted(error: DBAPIError) -> bool:
    """Whether ``error`` is another writer's doing, so that the same work may succeed later."""
    if isinstance(error.orig, sqlite3.OperationalError):
        reason = str(error.orig).lower()
        return "database is locked" in reason or "database is busy" in reason
    return getattr(error.orig, "sqlstate", None) in CONFLICT_STATES


@contextmanager
def _translated_errors(database: Database) -> Iterator[None]:
    """Database errors as StoreError, in words a user can act on; the change is rolled back."""
    try:
        yield
    except DBAPIError as error:
        raise StoreError(f"{database.describe()}: {_explained(error, database)}") from error


def _explained(error: DBAPIError, database: Database) -> str:
    """The driver's message, followed by what it means for the user where we know."""
    if _conflicted(error):
        return (
            "other programs were changing the same data at the same time; nothing of this "
            "change was written: try again"
        )
    reason = str(error.orig)
    if "disk i/o error" in reason.lower() and _disk_full(database):
        return f"{reason}: {_ADVICE['disk is full']}"  # SQLite says so only now and then
    for cause, advice in _ADVICE.items():
        if cause in reason.lower():
            return f"{reason}: {advice}"
    return reason


_ADVICE = {
    "malformed": "the file is damaged; restore it from a backup (judge_app keeps a copy "
    "beside it, named *.bak, before each schema upgrade)",
    "disk is full": "the disk is full; nothing of this change was written",
    "readonly": "the file or its folder cannot be written to; nothing was changed",
    "disk i/o error": "reading or writing the file failed (a failing disk, or a drive that "
    "went away?); nothing of this change was written",
}
FULL_BELOW = 1 << 20
"""A disk with less free space than this (bytes) is taken for full."""


def _disk_full(database: Database) -> bool:
    """Whether the disk that holds a SQLite database has (almost) no room left."""
    if not database.is_sqlite or not database.url.database:
        return False
    try:
        return shutil.disk_usage(Path(database.url.database).parent).free < FULL_BELOW
    except OSError:
        return False


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        if mode is not None:
            connection.exec_driver_sql(f"BEGIN {mode}")


def open_database(path_or_url: str | Path, *, create: bool = True) -> Database:
    """Open a judge_app database (creating a missing SQLite file if ``create``) and bring
    its schema to the newest.

    A SQLite file is opened with foreign keys, WAL, ``synchronous=FULL`` and a busy timeout;
    a copy is kept before a migration; a database from a newer judge_app is refused.
    """
    url = database_url(path_or_url)
    if url.get_backend_name() == "sqlite":
        _check_sqlite_file(url, create)
        engine = create_engine(url)
        _configure_sqlite(engine)
    else:
        try:
            engine = create_engine(url, pool_pre_ping=True)
        except (ArgumentError, ImportError) as error:
            raise StoreError(f"cannot use {url.render_as_string()}: {error}") from None
    database = Database(engine)
    try:
        schema.upgrade(engine)
    except DBAPIError as error:
        engine.dispose()
        raise StoreError(
            f"cannot open {database.describe()}: {_explained(error, database)}"
        ) from None
    except BaseException:
        engine.dispose()
        raise
    return database


def _check_sqlite_file(url: URL, create: bool) -> None:
    """Refuse paths that cannot hold a database, before SQLite makes an empty file there."""
    if not url.database or url.database == ":memory:":
        return
    path = Path(url.database)
    if not create and not path.exists():
        raise StoreError(f"there is no database at {path} (create one with: judge-app init {path})")
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a database file")
    if not path.parent.is_dir():
        raise StoreError(f"cannot create {path}: folder {path.parent} does not exist")
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                raise StoreError(f"{path} is not a SQLite database (it does not start like one)")
