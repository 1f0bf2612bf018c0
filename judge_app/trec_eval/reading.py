"""trec_eval's two input files, read as trec_eval 10.0 reads them.

Qrels: ``qid iter docno rel``, exactly four fields separated by blanks (space, tab, CR, VT,
FF); a line starting with ``#`` is a comment; any other line, a blank one included, that does
not have four fields is malformed. ``rel`` is read as C's ``atol`` reads it (``2.7`` is 2,
``x`` is 0).

Results: ``qid Q0 docno rank sim runid``, six fields or more (the rest of the line is
ignored); blank lines are skipped, and so is a line whose first non-blank character is ``#``.
``sim`` is read as C's ``atof`` (``1.5x`` is 1.5, ``x`` is 0); the rank is not used; the run
id is the last line's.

A file of ordinary lines (single spaces, no comment) is read by pyarrow's multithreaded CSV
reader straight from the file (its bytes are scanned in blocks first, never held whole), the
query ids dictionary-encoded; one with tabs, runs of blanks or comments is tidied first;
anything else (more fields, numbers C reads its own way) line by line, which also names the
line of a problem.
Text must be UTF-8 (trec_eval takes bytes; it could not tell a wrong byte either) and hold no
NUL character.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from judge_app.io import live_files
from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, Problem
from judge_app.io.text import NUL_REASON, read_bytes, read_text

STDIN = "-"
STDIN_NAME = "standard input"
SCAN_BLOCK = 1 << 22  # bytes of a file checked at a time before pyarrow reads it
_OTHER_BLANKS = (b"\t", b"\r", b"\x0b", b"\x0c")  # C's isspace() but space and newline
_BLANK_RUNS = re.compile(rb"[ \t\r\x0b\x0c]+")
_SKIPPED_RESULTS = re.compile(rb"^ ?(#[^\n]*)?\n", re.MULTILINE)  # blank and comment lines
_QRELS_COMMENTS = re.compile(rb"^#[^\n]*\n", re.MULTILINE)
_LINE_EDGES = re.compile(rb"^ | $", re.MULTILINE)
_ATOL = re.compile(rb"[+-]?[0-9]+")
_ATOF = re.compile(
    rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9a-z_]*\))?"
    rb"|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
    rb"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)",
    re.IGNORECASE,
)
_LONG = 2**63
_QUERY_IDS = pa.dictionary(pa.int32(), pa.string())
QRELS_FIELDS = ["query", "iteration", "doc", "rel"]
RESULTS_FIELDS = ["query", "q0", "doc", "rank", "sim", "runid"]
QRELS_SHAPE = "a qrels line has 4 fields (query, iteration, document, relevance)"
RESULTS_SHAPE = "a results line has 6 fields (query, Q0, document, rank, score, run id)"


@dataclass(frozen=True)
class Qrels:
    """A qrels file: ``query``, ``doc`` (strings; ``query`` may be dictionary-encoded) and
    ``rel`` (int64), one row a line."""

    path: str
    table: pa.Table


@dataclass(frozen=True)
class Results:
    """A results file: ``query``, ``doc`` (strings; ``query`` may be dictionary-encoded) and
    ``sim`` (float64), one row a line, and the run id of its last line."""

    path: str
    table: pa.Table
    runid: str


def read_qrels(path: str | Path) -> Qrels:
    """The qrels file at ``path``, or ImportFileError naming its lines that are wrong."""
    if str(path) != STDIN and _plain_file(Path(path), b"\n\n"):
        table = _csv(str(path), QRELS_FIELDS, "rel", pa.int64())
        if table is not None and table.num_rows:
            return Qrels(str(path), table)
    data, name = _bytes(path)
    table = None
    if b"\x00" not in data and b"\n\n" not in data and not data.startswith(b"\n"):
        if _plain(data):
            table = _csv(data, QRELS_FIELDS, "rel", pa.int64())
        if table is None:  # blanks, comments: tidied (a blank line is malformed: not read)
            tidy = _BLANK_RUNS.sub(b" ", _QRELS_COMMENTS.sub(b"", _ended(data)))
            if b"\n \n" not in tidy and not tidy.startswith((b"\n", b" \n")):
                table = _csv(_LINE_EDGES.sub(b"", tidy), QRELS_FIELDS, "rel", pa.int64())
    if table is None:
        table = _qrels_by_line(name, data)
    if table.num_rows == 0:
        raise ImportFileError([Problem(name, None, None, "has no qrels lines")])
    return Qrels(name, table)


def read_results(path: str | Path) -> Results:
    """The results file at ``path`` (``-``: standard input), or ImportFileError naming its
    lines that are wrong."""
    if str(path) != STDIN and _plain_file(Path(path), b"\n#"):
        table = _csv(str(path), RESULTS_FIELDS, "sim", pa.float64())
        if table is not None and table.num_rows:
            return Results(str(path), table, _last_runid_of(Path(path)))
    data, name = _bytes(path)
    table = None
    if _plain(data) and not data.startswith(b"#") and b"\n#" not in data:
        table = _csv(data, RESULTS_FIELDS, "sim", pa.float64())
    if table is None and b"\x00" not in data:  # blanks, comments: tidied
        tidy = _SKIPPED_RESULTS.sub(b"", _BLANK_RUNS.sub(b" ", _ended(data)))
        table = _csv(_LINE_EDGES.sub(b"", tidy), RESULTS_FIELDS, "sim", pa.float64())
    if table is None:
        table, runid = _results_by_line(name, data)
    else:
        runid = _last_runid(data)
    if table.num_rows == 0:
        raise ImportFileError([Problem(name, None, None, "has no results lines")])
    return Results(name, table, runid)


def lines_of(path: str, kind: str, query: str, doc: str) -> list[int]:
    """The lines of a ``qrels`` or ``results`` file where ``doc`` is listed for ``query``
    (none for standard input, read once)."""
    if path == STDIN_NAME:
        return []
    data, _ = _bytes(path)
    wanted = (query.encode(), doc.encode())
    found = []
    for number, fields in _records(path, data, kind):
        if (fields[0], fields[2]) == wanted:
            found.append(number)
    return found


def _bytes(path: str | Path) -> tuple[bytes, str]:
    if str(path) == STDIN:
        return sys.stdin.buffer.read(), STDIN_NAME
    return read_bytes(Path(path)), str(path)


def _plain_file(path: Path, refused: bytes) -> bool:
    """Whether the file at ``path`` is :func:`_plain` and holds no ``refused`` pair of bytes
    (its start counting as after a newline): read in blocks, so that its bytes are never all
    held beside pyarrow's table."""
    if live_files.is_live(path):
        return False  # refused by _bytes
    try:
        with path.open("rb") as handle:
            last = b"\n"
            while block := handle.read(SCAN_BLOCK):
                if not _plain(block) or refused in block or last + block[:1] == refused:
                    return False
                last = block[-1:]
    except OSError:
        return False  # read again by _bytes, which names the problem
    return True


def _plain(data: bytes) -> bool:
    """Whether ``data`` has no blank but spaces and newlines, and no NUL: then pyarrow's reader
    splits its lines as trec_eval does (or fails, for a run of spaces)."""
    return b"\x00" not in data and not any(blank in data for blank in _OTHER_BLANKS)


def _ended(data: bytes) -> bytes:
    return data if data.endswith(b"\n") else data + b"\n"


def _csv(source: bytes | str, names: list[str], number: str, kind: pa.DataType) -> pa.Table | None:
    """``query`` (dictionary-encoded: few distinct ids), ``doc`` and the ``number`` column of
    single-spaced lines of ``names``' fields, from bytes or a file's path, by pyarrow's CSV
    reader; None if the lines are not all like that, or if a number is one C would read its
    own way."""
    from pyarrow import csv

    types = {name: pa.string() for name in names} | {number: kind, "query": _QUERY_IDS}
    try:
        table = csv.read_csv(
            io.BytesIO(source) if isinstance(source, bytes) else source,
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=csv.ConvertOptions(
                column_types=types,
                include_columns=["query", "doc", number],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    if table[number].null_count:  # "nan", "NA" and the like: Arrow's nulls, C's numbers
        return None
    return table


def _last_runid_of(path: Path) -> str:
    """The run id of the last line of a results file read by pyarrow, from its end."""
    size = path.stat().st_size
    tail = 1 << 12
    with path.open("rb") as handle:
        while True:
            handle.seek(max(size - tail, 0))
            data = handle.read()
            whole = tail >= size
            if not whole:  # its first line may be cut
                cut = data.find(b"\n")
                data = data[cut + 1 :] if cut >= 0 else b""
            runid = _last_runid(data)
            if runid or whole:
                return runid
            tail *= 4


def _last_runid(data: bytes) -> str:
    """The run id of the last line of a results file read by pyarrow (six fields a line)."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode()
        end = start - 1
    return ""


def _records(name: str, data: bytes, kind: str) -> Iterator[tuple[int, list[bytes]]]:
    """Each data line of a file as (line number, its fields); ImportFileError for lines that
    are wrong, up to MAX_PROBLEMS of them named."""
    if b"\x00" in data or not _is_utf8(data):
        _refuse_text(name, data)
    problems: list[Problem] = []
    total = 0
    last = data.count(b"\n") + 1
    for number, line in enumerate(data.split(b"\n"), start=1):
        if kind == "qrels":
            if line.startswith(b"#"):
                continue
            fields = line.split()
            if len(fields) == 4:
                yield number, fields
                continue
            if number == last and not line:
                continue  # the end of the file, after its last newline
            reason = f"{QRELS_SHAPE}, this one {len(fields)}"
        else:
            fields = line.split()
            if not fields or fields[0].startswith(b"#"):
                continue
            if len(fields) >= 6:
                yield number, fields
                continue
            reason = f"{RESULTS_SHAPE} (or more), this one {len(fields)}"
        total += 1
        if len(problems) < MAX_PROBLEMS:
            problems.append(Problem(name, number, None, reason))
    if total:
        raise ImportFileError(problems, total)


def _qrels_by_line(name: str, data: bytes) -> pa.Table:
    records = list(_records(name, data, "qrels"))
    return pa.table(
        {
            "query": pa.array([fields[0].decode() for _, fields in records], pa.string()),
            "doc": pa.array([fields[2].decode() for _, fields in records], pa.string()),
            "rel": pa.array([atol(fields[3]) for _, fields in records], pa.int64()),
        }
    )


def _results_by_line(name: str, data: bytes) -> tuple[pa.Table, str]:
    records = list(_records(name, data, "results"))
    table = pa.table(
        {
            "query": pa.array([fields[0].decode() for _, fields in records], pa.string()),
            "doc": pa.array([fields[2].decode() for _, fields in records], pa.string()),
            "sim": pa.array(np.array([atof(fields[4]) for _, fields in records], np.float64)),
        }
    )
    return table, records[-1][1][5].decode() if records else ""


def atol(text: bytes) -> int:
    """C's ``atol``: the whole number ``text`` starts with, 0 if none (clamped to a long)."""
    found = _ATOL.match(text)
    if found is None:
        return 0
    return max(-_LONG, min(_LONG - 1, int(found.group())))


def atof(text: bytes) -> float:
    """C's ``atof``: the number ``text`` starts with (decimal, hexadecimal, inf or nan), 0.0
    if none."""
    found = _ATOF.match(text)
    if found is None:
        return 0.0
    number = found.group().decode().lower()
    digits = number.lstrip("+-")
    if digits.startswith("0x"):
        return float.fromhex(number)
    if digits.startswith("nan"):
        return -np.nan if number.startswith("-") else np.nan
    return float(number)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _refuse_text(name: str, data: bytes) -> None:
    """ImportFileError for text with a NUL character or not UTF-8, naming where."""
    if b"\x00" in data:
        numbers = [n for n, line in enumerate(data.split(b"\n"), 1) if b"\x00" in line]
        problems = [Problem(name, number, None, NUL_REASON) for number in numbers]
        raise ImportFileError(problems[:MAX_PROBLEMS], len(problems))
    read_text(Path(name), data)  # raises, naming the line that is not UTF-8
