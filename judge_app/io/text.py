"""An input file's format (from its name) and its text (checked to be UTF-8), without pandas:
evaluating TREC files starts without it."""

from __future__ import annotations

import codecs
from pathlib import Path

from judge_app.io.errors import ImportFileError, Problem

DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSON_LINES = {".jsonl", ".ndjson"}


def file_format(path: Path) -> str:
    """'csv', 'tsv', 'jsonl' or 'trec', from the file name's extension."""
    suffix = path.suffix.lower()
    if suffix in DELIMITERS:
        return "csv" if DELIMITERS[suffix] == "," else "tsv"
    if suffix in JSON_LINES:
        return "jsonl"
    return "trec"


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or ImportFileError saying why they cannot be read."""
    name = str(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ImportFileError([Problem(name, None, None, "file not found")]) from None
    except IsADirectoryError:
        raise ImportFileError([Problem(name, None, None, "is a folder, not a file")]) from None
    except OSError as error:
        raise ImportFileError(
            [Problem(name, None, None, f"cannot read: {error.strerror}")]
        ) from None


def read_text(path: Path, data: bytes | None = None) -> str:
    """The file's text (from ``data``, its bytes, if already read): UTF-8 with or without a
    BOM, or ImportFileError saying why not."""
    name = str(path)
    if data is None:
        data = read_bytes(path)
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise ImportFileError([Problem(name, line, None, "binary file: contains NUL bytes")])
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[line_start : error.start].decode("utf-8", errors="replace")) + 1
        byte = data[error.start]
        raise ImportFileError(
            [Problem(name, line, None, f"not UTF-8: byte 0x{byte:02x} at character {column}")]
        ) from None
    if not text.strip():
        raise ImportFileError([Problem(name, None, None, "file is empty")])
    return text
