"""The files plain file I/O must never touch: those of the SQLite databases this process has
open.

Closing any descriptor of a file drops every POSIX lock the process holds on it (SQLite's "How
To Corrupt An SQLite Database File", section 2.2): reading such a file as an import, even for a
moment, can let another program delete the WAL a confirmed grade is still in, and writing an
export over it destroys it. The store registers each database file it opens; the readers and
writers of ``io`` refuse those files.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")
_LIVE: Counter[Path] = Counter()
_LOCK = threading.Lock()


def _files(database: Path) -> list[Path]:
    database = Path(database).resolve()
    return [database.with_name(database.name + end) for end in SQLITE_COMPANIONS]


def opened(database: Path) -> None:
    """This process opened the SQLite database file ``database``."""
    with _LOCK:
        _LIVE.update(_files(database))


def closed(database: Path) -> None:
    """This process closed the SQLite database file ``database``."""
    with _LOCK:
        _LIVE.subtract(_files(database))
        for path in [path for path, count in _LIVE.items() if count <= 0]:
            del _LIVE[path]


def is_live(path: Path) -> bool:
    """Whether ``path`` is (a file of) a SQLite database this process has open."""
    with _LOCK:
        return Path(path).resolve() in _LIVE


LIVE_REASON = "is a database this program has open, not a file to read or write"
