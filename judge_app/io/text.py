"""An input file's format (from its name) and its text (checked to be UTF-8), without pandas:
evaluating TREC files starts without it.

A NUL character is not refused here but in the cell that holds it (``NUL_REASON``), so that
the problem names its line and column: no database stores one in a text.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from judge_app.io import live_files
from judge_app.io.errors import ImportFileError, Problem

DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSON_LINES = {".jsonl", ".ndjson"}
BLOCK_BYTES = 2**20
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
UTF16_SAMPLE = 4096  # the bytes looked at for UTF-16 without a BOM
NUL_REASON = "contains a NUL character (\\u0000), which no text may hold"
NULS = (b"\x00", b"\\u0000")  # a NUL byte, or JSON's escape of one


def file_format(path: Path) -> str:
    """'csv', 'tsv', 'jsonl' or 'trec', from the file name's extension."""
    suffix = path.suffix.lower()
    if suffix in DELIMITERS:
        return "csv" if DELIMITERS[suffix] == "," else "tsv"
    if suffix in JSON_LINES:
        return "jsonl"
    return "trec"


def _refuse_live(path: Path) -> None:
    """ImportFileError for a file of a database this process has open: reading it would
    drop the process's SQLite locks on it."""
    if live_files.is_live(path):
        raise ImportFileError([Problem(str(path), None, None, live_files.LIVE_REASON)])


def _unreadable(path: Path, error: OSError) -> ImportFileError:
    if isinstance(error, FileNotFoundError):
        reason = "file not found"
    elif isinstance(error, IsADirectoryError):
        reason = "is a folder, not a file"
    else:
        reason = f"cannot read: {error.strerror}"
    return ImportFileError([Problem(str(path), None, None, reason)])


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or ImportFileError saying why they cannot be read."""
    _refuse_live(path)
    try:
        return path.read_bytes()
    except OSError as error:
        raise _unreadable(path, error) from None


def read_text(path: Path, data: bytes | None = None) -> str:
    """The file's text (from ``data``, its bytes, if already read): UTF-8 with or without a
    BOM, or ImportFileError saying why not."""
    if data is None:
        data = read_bytes(path)
    _refuse_utf16(path, data)
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _not_utf8(path, data, 0, error) from None
    if not text.strip():
        raise ImportFileError([Problem(str(path), None, None, "file is empty")])
    return text


def check_text_file(path: Path) -> tuple[int, bool]:
    """Check the file as ``read_text`` does, a block at a time so that it is never held whole;
    return its number of lines and whether it may hold a NUL character (a NUL byte, or JSON's
    ``\\u0000``)."""
    _refuse_live(path)
    try:
        handle = path.open("rb")
    except OSError as error:
        raise _unreadable(path, error) from None
    lines, has_text, not_utf8, first, last, nul = 0, False, None, True, b"", False
    pending: list[bytes] = []
    with handle:
        while True:
            try:
                block = handle.read(BLOCK_BYTES)
            except OSError as error:
                raise _unreadable(path, error) from None
            if first:
                _refuse_utf16(path, block)
                block, first = block.removeprefix(codecs.BOM_UTF8), False
            if block and b"\n" not in block:  # a long line: checked once it ends
                pending.append(block)
                continue
            data = b"".join([*pending, block])
            end = data.rfind(b"\n") + 1 if block else len(data)
            piece, pending = data[:end], [data[end:]]
            nul = nul or any(mark in piece for mark in NULS)
            if not_utf8 is None:
                try:
                    text = piece.decode("utf-8")
                except UnicodeDecodeError as error:
                    not_utf8 = _not_utf8(path, piece, lines, error)
                else:
                    has_text = has_text or bool(text.strip())
            lines += piece.count(b"\n")
            last = piece[-1:] or last
            if not block:
                break
    if not_utf8 is not None:
        raise not_utf8
    if not has_text:
        raise ImportFileError([Problem(str(path), None, None, "file is empty")])
    return lines + (last != b"\n"), nul


def _refuse_utf16(path: Path, head: bytes) -> None:
    """ImportFileError if the file's first bytes ``head`` are UTF-16: a UTF-16 byte-order mark,
    or NUL bytes in many even or many odd places but few of the others (UTF-16 text mostly
    of ASCII characters)."""
    sample = head[:UTF16_SAMPLE]
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    many = len(sample) // 2 * 0.3
    if head.startswith(UTF16_BOMS) or (max(even, odd) > many and min(even, odd) < many / 10):
        raise ImportFileError([Problem(str(path), None, None, "UTF-16: save as UTF-8")])


def _not_utf8(
    path: Path, data: bytes, lines_before: int, error: UnicodeDecodeError
) -> ImportFileError:
    """``data`` (text from line ``lines_before`` + 1 on) is not UTF-8 where ``error`` says."""
    line = lines_before + data.count(b"\n", 0, error.start) + 1
    line_start = data.rfind(b"\n", 0, error.start) + 1
    column = len(data[line_start : error.start].decode("utf-8", errors="replace")) + 1
    reason = f"not UTF-8: byte 0x{data[error.start]:02x} at character {column}"
    return ImportFileError([Problem(str(path), line, None, reason)])
