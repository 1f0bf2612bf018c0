"""Opening a judge_app database: the one object the rest of the code uses."""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from judge_app.io import live_files
from judge_app.store import schema
from judge_app.store.errors import ReadOnlyDatabaseError, StoreError
from judge_app.store.failures import (
    conflicted,
    described,
    in_words,
    interrupted,
    moved,
    read_only,
)

BUSY_TIMEOUT_MS = 5_000
"""How long SQLite itself waits for another writer's lock before a unit of work retries."""
RETRY_SECONDS = 120.0
"""How long a unit of work is retried while other writers are in its way."""
FIRST_PAUSE, LONGEST_PAUSE = 0.02, 1.0
"""Seconds between retries: doubling from the first to the longest, with jitter."""
T = TypeVar("T")
FileId = tuple[int, int]
"""A file's device and inode: which file a path named when the database was opened."""


def database_url(path_or_url: str | Path) -> URL:
    """An SQLAlchemy URL for a file path (SQLite) or a URL given as text."""
    text = str(path_or_url)
    if "://" in text:
        try:
            return make_url(text)
        except ArgumentError as error:
            raise StoreError(f"{text!r} is not a database URL: {error}") from None
    return URL.create("sqlite+pysqlite", database=str(Path(text).expanduser().resolve()))


@dataclass
class _SharedEngine:
    """The one engine of a database in this process, and how many open handles use it."""

    key: str | None  # None: not shared (an in-memory database)
    engine: Engine
    users: int = 0
    at_head: bool = False  # its schema was found (or brought) at head
    writable: bool = False  # opened for writing: WAL on, schema upgraded
    file_id: FileId | None = None  # a SQLite file's, once opened
    lock: threading.Lock = field(default_factory=threading.Lock)


_ENGINES: dict[str, _SharedEngine] = {}
_ENGINES_LOCK = threading.Lock()


class Database:
    """An open judge_app database: the transactions made on it.

    ``transaction()`` is one unit of work that writes (on SQLite it begins IMMEDIATE, so two
    processes queue for the lock instead of failing half-way); ``reading()`` is a read-only
    snapshot. Every handle on one database in this process shares one engine (see
    ``open_database``); ``close()`` lets go of this handle's share of it.
    """

    def __init__(self, shared: _SharedEngine, *, read_only: bool = False) -> None:
        self._shared: _SharedEngine | None = shared
        self.engine = shared.engine
        self.read_only = read_only
        self._writer = sessionmaker(self.engine, expire_on_commit=False)
        # one snapshot a reading: SQLite's read transaction is one; PostgreSQL's default, READ
        # COMMITTED, would let each statement see the commits made since the one before
        snapshot = (
            {"isolation_level": "REPEATABLE READ"}
            if self.url.get_backend_name() == "postgresql"
            else {}
        )
        self._reader = sessionmaker(
            self.engine.execution_options(sqlite_begin="DEFERRED", **snapshot),
            expire_on_commit=False,
        )

    @property
    def url(self) -> URL:
        return self.engine.url

    def describe(self) -> str:
        """The database as a user would name it: a file path or a URL without password."""
        return described(self.url)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One unit of work: committed when the block ends, rolled back if it raises.

        Its start waits (and retries, for up to RETRY_SECONDS) while another writer holds
        a SQLite file; for work that may also conflict half-way, as on PostgreSQL, use
        ``write``, which can run the work again."""
        self._check_writable()
        with _translated_errors(self):
            transaction = _retried(self._begun)
            with transaction.session as session, transaction:
                yield session
        self._check_file(written=True)

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

        self._check_writable()
        with _translated_errors(self):
            result = _retried(attempt)
        self._check_file(written=True)
        return result

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.describe()} was opened read-only: nothing was changed")
        self._check_file()

    def _check_file(self, written: bool = False) -> None:
        """StoreError if a SQLite file is no longer the file opened (deleted, moved or
        replaced: SQLite would go on with the file it has open, and a change written to a
        deleted file is lost when the program ends); ``written``: a change was just made."""
        shared = self._shared
        if shared is None or not _moved(shared):
            return
        not_saved = " (this change was not saved)" if written else ""
        raise StoreError(moved(self.describe()) + not_saved)

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
        self._check_file()
        with _translated_errors(self), self._reader() as session:
            yield session

    def share(self) -> Database:
        """Another handle on this database (the same engine), for its taker to close."""
        shared = self._shared
        if shared is None:
            raise StoreError(f"{self.describe()} is closed")
        with _ENGINES_LOCK:
            shared.users += 1
        return Database(shared, read_only=self.read_only)

    def close(self) -> None:
        """Let go of this handle; the engine closes with the last handle on the database."""
        shared, self._shared = self._shared, None
        if shared is not None:
            _release(shared)

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
            if not conflicted(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause * random.uniform(0.5, 1.5))
        pause = min(pause * 2, LONGEST_PAUSE)


@contextmanager
def _translated_errors(database: Database) -> Iterator[None]:
    """Database errors as StoreError, in words a user can act on; the change is rolled back."""
    started = time.monotonic()
    try:
        yield
    except DBAPIError as error:
        if interrupted(error):
            raise KeyboardInterrupt from error
        waited = time.monotonic() - started
        raise StoreError(in_words(error, database.url, waited)) from error


def _file_id(path: str | Path) -> FileId | None:
    """The file at ``path`` (its metadata only: never opened), None if there is none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _moved(shared: _SharedEngine) -> bool:
    """Whether the SQLite file ``shared`` opened is no longer at its path."""
    return shared.file_id is not None and _file_id(str(shared.engine.url.database)) != (
        shared.file_id
    )


SIGNAL_STEPS = 100_000
"""How many steps of SQLite's machine a statement runs between calls of ``_signals_due``
(a few milliseconds; the calls cost nothing measurable)."""


def _signals_due() -> int:
    """SQLite calls this while a statement runs: Python runs there the signal handlers that
    are due (in the main thread), so Ctrl+C stops a long statement at once (sqlite3 then
    raises "interrupted", ``KeyboardInterrupt`` again past ``_translated_errors``) instead
    of when it ends, minutes later."""
    return 0


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=FULL")
        # a file may come from anyone: no function of its views or triggers runs with side
        # effects (judge_app's own schema needs none)
        cursor.execute("PRAGMA trusted_schema=OFF")
        cursor.close()
        dbapi_connection.set_progress_handler(_signals_due, SIGNAL_STEPS)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        if mode is not None:
            connection.exec_driver_sql(f"BEGIN {mode}")


def open_database(
    path_or_url: str | Path, *, create: bool = True, read_only: bool = False
) -> Database:
    """Open a judge_app database (creating a missing SQLite file if ``create``) and bring
    its schema to the newest; ``read_only``: change nothing, and refuse a database that is
    not at the newest schema.

    Every open of one database in this process shares one engine (the window, its workers,
    a second open of the same file): SQLite keeps the locks of its connections to a file in
    one place per process, and no plain file I/O ever touches an open database (closing any
    descriptor of a file drops every POSIX lock the process holds on it). A SQLite file gets
    WAL, ``synchronous=FULL``, foreign keys and a busy timeout; a copy is kept before a
    migration; a database from a newer judge_app is refused.
    """
    url = database_url(path_or_url)
    with _ENGINES_LOCK:
        open_already = _ENGINES.get(_engine_key(url) or "")
    if open_already is not None and _moved(open_already):
        raise StoreError(moved(described(url)))
    if url.get_backend_name() == "sqlite":
        _check_sqlite_path(url, create and not read_only)
        if not read_only:
            _check_sqlite_writable(url)
    with _ENGINES_LOCK:
        shared = _shared_engine(url, read_only)
        shared.users += 1
    try:
        with shared.lock:
            _prepare(shared, read_only)
    except BaseException:
        _release(shared)
        raise
    return Database(shared, read_only=read_only)


def _shared_engine(url: URL, read_only: bool) -> _SharedEngine:
    """The engine this process has on ``url``, made if there is none (caller holds the lock)."""
    key = _engine_key(url)
    shared = _ENGINES.get(key) if key else None
    if shared is None:
        shared = _SharedEngine(key, _new_engine(url, read_only))
        if key:
            _ENGINES[key] = shared
            if url.get_backend_name() == "sqlite":
                live_files.opened(Path(str(url.database)))
    return shared


def _engine_key(url: URL) -> str | None:
    """What names one database: the resolved file, or the whole URL; None for memory."""
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            return None
        return "sqlite:" + str(Path(url.database).resolve())
    return url.render_as_string(hide_password=False)


def _new_engine(url: URL, read_only: bool) -> Engine:
    if url.get_backend_name() == "sqlite":
        if read_only and _on_read_only_media(url):
            # nothing can write it, so SQLite may read it without the shared-memory file it
            # could not create beside it
            uri = f"{Path(str(url.database)).as_uri()}?immutable=1"
            engine = create_engine(
                url, creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False)
            )
        else:
            engine = create_engine(url)
        _configure_sqlite(engine)
        return engine
    try:
        return create_engine(url, pool_pre_ping=True)
    except ImportError as error:
        reason = f"its driver is not installed ({error.name or error})"
        raise StoreError(f"Cannot use {described(url)}: {reason}") from None
    except ArgumentError as error:
        raise StoreError(f"Cannot use {described(url)}: {error}") from None


def _on_read_only_media(url: URL) -> bool:
    """Whether a SQLite file can be neither written nor given the files SQLite keeps beside
    it (a read-only disk or folder, without a -wal or -shm file there)."""
    path = Path(str(url.database))
    companions = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
    return (
        path.exists()
        and not os.access(path.parent, os.W_OK)
        and not any(companion.exists() for companion in companions)
    )


def is_open(path_or_url: str | Path) -> bool:
    """Whether this process holds the database open (through any handle)."""
    key = _engine_key(database_url(path_or_url))
    with _ENGINES_LOCK:
        return key is not None and key in _ENGINES


def _release(shared: _SharedEngine) -> None:
    """One handle fewer on ``shared``; the last one closes its connections."""
    with _ENGINES_LOCK:
        shared.users -= 1
        if shared.users > 0:
            return
        if shared.key is not None and _ENGINES.get(shared.key) is shared:
            del _ENGINES[shared.key]
            if shared.engine.dialect.name == "sqlite":
                live_files.closed(Path(str(shared.engine.url.database)))
    shared.engine.dispose()


def _prepare(shared: _SharedEngine, read_only: bool) -> None:
    """Check (``read_only``) or bring (otherwise) the database's schema to head, once per
    engine; translate what the driver says into words."""
    if shared.writable or (read_only and shared.at_head):
        return
    engine = shared.engine
    try:
        if read_only:
            schema.check_at_head(engine)
        else:
            if engine.dialect.name == "sqlite":
                _use_wal(engine)
            schema.upgrade(engine)
            shared.writable = True
    except DBAPIError as error:
        if interrupted(error):
            raise KeyboardInterrupt from error
        words = in_words(error, engine.url)
        if not read_only and "SQLITE_READONLY" in getattr(error.orig, "sqlite_errorname", ""):
            raise ReadOnlyDatabaseError(words) from None
        raise StoreError(words) from None
    shared.at_head = True
    if engine.dialect.name == "sqlite" and shared.file_id is None:
        shared.file_id = _file_id(str(engine.url.database))


def _use_wal(engine: Engine) -> None:
    """Put a SQLite file in WAL mode (it stays so: the mode is kept in the file)."""
    with engine.connect() as connection:
        connection.execution_options(sqlite_begin=None)  # not inside a transaction
        connection.exec_driver_sql("PRAGMA journal_mode=WAL")


def _check_sqlite_path(url: URL, create: bool) -> None:
    """Refuse paths that cannot hold a database, before SQLite makes an empty file there.

    Only the file's metadata is looked at (``stat``): opening it would drop the locks of
    this process's connections to it. Its content is checked by SQLite itself."""
    if not url.database or url.database == ":memory:":
        return
    path = Path(url.database)
    if not create and not path.exists():
        raise StoreError(f"there is no database at {path} (create one with: judge-app init {path})")
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a database file")
    if not path.parent.is_dir():
        raise StoreError(f"cannot create {path}: folder {path.parent} does not exist")


def _check_sqlite_writable(url: URL) -> None:
    """ReadOnlyDatabaseError for an existing SQLite file that this process cannot write (a
    read-only file, folder or disk): SQLite would open it and refuse every change."""
    path = Path(str(url.database))
    if url.database in (None, "", ":memory:") or not path.exists():
        return
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        raise ReadOnlyDatabaseError(read_only(path))


def open_writable_if_possible(path_or_url: str | Path, *, create: bool = True) -> Database:
    """``open_database`` for writing; a database this process cannot write to (a read-only
    file, folder or disk) is opened read-only instead, as its ``read_only`` says."""
    try:
        return open_database(path_or_url, create=create)
    except ReadOnlyDatabaseError:
        return open_database(path_or_url, create=False, read_only=True)


@contextmanager
def opened(
    database: Database | str | Path, *, read_only: bool = False, create: bool = False
) -> Iterator[Database]:
    """The database a use case is given: ``database`` itself if it is open (it stays open),
    else the database at that path or URL, open for the block: ``read_only`` for a use case
    that only reads; with ``create``, a missing SQLite file is made, and removed again if the
    block fails (and nothing else in this process opened it meanwhile), so that a refused
    import leaves nothing behind."""
    if isinstance(database, Database):
        yield database
        return
    url = database_url(database)
    path = Path(url.database) if url.get_backend_name() == "sqlite" and url.database else None
    created = create and path is not None and url.database != ":memory:" and not path.exists()
    try:
        with open_database(database, create=create, read_only=read_only) as found:
            yield found
    except BaseException:
        if created and not is_open(database):
            assert path is not None
            for suffix in ("", "-wal", "-shm", "-journal"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
        raise
