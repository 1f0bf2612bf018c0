"""Failures made for real: a file or folder unwritable, even for root (the CI runs as root, for
whom ``chmod`` changes nothing): ``chattr +i`` there, ``chmod`` for anyone else; and another
program holding a database's writes."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) cannot be written inside the block, by anyone."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", path]).returncode:
        pytest.skip("running as root without chattr: cannot make a file read-only for root")
    try:
        assert not os.access(path, os.W_OK)
        yield
    finally:
        subprocess.run(["chattr", "-i", path], check=True)


def deleted(path: Path) -> None:
    """Delete a SQLite database file and the files SQLite keeps beside it."""
    for end in ("", "-wal", "-shm"):
        path.with_name(path.name + end).unlink(missing_ok=True)


def plain(message: str) -> bool:
    """Whether a message is free of what a user should never read: URLs of SQLite files,
    exception class names, driver jargon."""
    jargon = ("sqlite+pysqlite", "Error:", "Error(", "OperationalError", "psycopg", "sqlalchemy")
    return not any(word in message for word in jargon)


def hold_writes(database):
    """Another program writing to ``database`` (a SQLite file or a PostgreSQL URL) until the
    returned connection's ``commit()``."""
    if "://" not in str(database):
        other = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        return other
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(database).set(drivername="postgresql")
    other = psycopg.connect(url.render_as_string(hide_password=False))
    other.execute("LOCK TABLE judgment IN EXCLUSIVE MODE")
    return other
