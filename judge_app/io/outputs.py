"""Output files written whole or not at all, without pandas.

A file is written under a temporary name beside it and renamed into place once complete: a
write cut short (a full disk, an error half-way) leaves no partial file, and an older file of
that name stays as it was. A path that cannot be written is an ExportError naming it and why.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from judge_app.io import live_files
from judge_app.io.errors import ExportError


def check_output(path: Path) -> None:
    """ExportError unless a file can be written at ``path`` (checked before any work)."""
    path, folder = Path(path), Path(path).parent
    if live_files.is_live(path):
        raise _cannot_write(path, live_files.LIVE_REASON)
    if path.is_dir():
        raise _cannot_write(path, "is a folder, not a file")
    if not folder.exists():
        raise _cannot_write(path, f"folder {folder} does not exist")
    if not folder.is_dir():
        raise _cannot_write(path, f"{folder} is not a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise _cannot_write(path, "permission denied")
    if path.is_file() and _holds_a_database(path):
        raise _cannot_write(path, "is a SQLite database: choose another file")


def _holds_a_database(path: Path) -> bool:
    """Whether the file at ``path`` (not open in this process) starts like a SQLite file."""
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


@contextmanager
def output_file(path: Path, newline: str | None = None) -> Iterator[TextIO]:
    """A UTF-8 text file to write at ``path``, put in place only once written whole."""
    path = Path(path)
    check_output(path)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        with partial.open("x", encoding="utf-8", newline=newline) as handle:
            yield handle
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise _cannot_write(path, error.strerror or str(error)) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def output_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all, as :func:`output_file` writes text."""
    path = Path(path)
    check_output(path)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise _cannot_write(path, error.strerror or str(error)) from None


def _cannot_write(path: Path, reason: str) -> ExportError:
    return ExportError(f"cannot write {path}: {reason}")
