"""Output files written whole or not at all, without pandas.

A file is written under a temporary name beside it and renamed into place once complete: a
write cut short (a full disk, an error half-way) leaves no partial file, and an older file of
that name stays as it was. Only a regular file is ever replaced: a symbolic link is written
through (its target replaced, the link kept), and standard output (``-``), a pipe or a device
is written to as a stream. A path that cannot be written is an ExportError naming it and why.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from judge_app.io import live_files
from judge_app.io.errors import ExportError

STDOUT = "-"
"""The path that names standard output."""


def check_output(path: Path) -> None:
    """ExportError unless a file can be written at ``path`` (checked before any work): a
    regular file (or a new one), through a symbolic link to where it points, or what is
    written as a stream: standard output (``-``), a pipe or a device."""
    path = Path(path)
    if str(path) == STDOUT or _streamed(path):
        return
    path = _real(path)
    folder = path.parent
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


def _streamed(path: Path) -> bool:
    """Whether ``path`` is (or links to) something other than a regular file or a folder: a
    pipe, a device, a socket. Such a thing is written to as it is, never replaced."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _real(path: Path) -> Path:
    """Where ``path`` leads: a symbolic link's target (the file replaced is the one it points
    to, and the link stays a link), else ``path``."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _holds_a_database(path: Path) -> bool:
    """Whether the file at ``path`` (not open in this process) starts like a SQLite file."""
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


@contextmanager
def output_file(path: Path, newline: str | None = None) -> Iterator[TextIO]:
    """A UTF-8 text file to write at ``path``, put in place only once written whole (through
    a symbolic link, at its target); standard output (``-``), a pipe or a device is written
    to as it is."""
    path = Path(path)
    if str(path) == STDOUT and not hasattr(sys.stdout, "buffer"):  # a text stream put there
        check_output(path)
        yield sys.stdout
        return
    with _destination(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline=newline)
        try:
            yield text
        finally:
            text.detach()  # flushed into ``raw``, which stays the destination's to close


def output_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all, as :func:`output_file` writes text."""
    with _destination(Path(path)) as raw:
        raw.write(data)


@contextmanager
def _destination(path: Path) -> Iterator[BinaryIO]:
    """Where an output's bytes go: standard output (``-``, left open), a pipe or a device as
    it is, else a hidden file beside the regular file (or a symbolic link's target) that
    replaces it once written whole; ExportError naming ``path`` if it cannot be written."""
    check_output(path)
    if str(path) == STDOUT:
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if _streamed(path):
        try:
            with path.open("wb") as handle:
                yield handle
        except OSError as error:
            raise _cannot_write(path, error.strerror or str(error)) from None
        return
    target = _real(path)
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        with partial.open("xb") as handle:
            yield handle
        partial.replace(target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise _cannot_write(path, error.strerror or str(error)) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _cannot_write(path: Path, reason: str) -> ExportError:
    return ExportError(f"cannot write {path}: {reason}")
