"""Reading an input file's records a chunk at a time, with where each record is.

Formats: CSV, TSV, JSON Lines (by extension) and whitespace-separated TREC files. Every cell
comes back as a string ("" where a value is missing); typing and checking are in ``schemas``.
A chunk holds at most ``CHUNK_ROWS`` records and about ``CHUNK_BYTES`` of the file, so the
memory a file takes does not grow with its length.
"""

from __future__ import annotations

import csv
import json
import re
import warnings
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, Problem
from judge_app.io.text import check_text_file, file_format

CHUNK_ROWS = 50_000
CHUNK_BYTES = 8 * 2**20


@dataclass(frozen=True)
class Records:
    """One chunk of a file's records: the cells as strings; ``first`` is the position of its
    first record (its index among the file's records), ``last_line`` about the line its last
    record is on."""

    frame: pd.DataFrame
    first: int
    last_line: int


class RecordFile:
    """An input file, checked to be UTF-8 text, read a chunk of records at a time.

    A record is named by its position, its index among the file's records (from 0), until a
    problem needs its line: ``lines`` reads the file again to say. Problems that stop the
    reading (a file that is not CSV or JSON, a TREC line with too few fields) raise
    ImportFileError from ``chunks``.
    """

    fixed_columns = True  # every record has the columns of the first chunk
    queries_by_text = False  # whether its query ids are query texts (``io.exchange``)
    rater_fallback = False  # whether the rater given fills a record's empty rater cell
    names_no_rater = False  # whether the format has no rater at all (a rater must be given)
    fills_only = False  # whether its texts only fill those the database lacks
    labels: dict[str, str] = {}  # our column → the format's name for it, in messages

    def __init__(self, path: Path) -> None:
        self.path = path
        self.line_count, self.may_hold_nul = check_text_file(path)
        self._size = path.stat().st_size
        self.not_kept: Counter[str] = Counter()  # what the file holds that is not imported

    @property
    def chunk_rows(self) -> int:
        """Records a chunk: ``CHUNK_ROWS``, fewer where lines are long."""
        line_bytes = self._size / max(self.line_count, 1)
        return max(1, min(CHUNK_ROWS, int(CHUNK_BYTES / line_bytes)))

    def chunks(self) -> Iterator[Records]:
        """The records, a chunk at a time (at least one chunk, perhaps empty)."""
        raise NotImplementedError

    def lines(self, positions: Collection[int]) -> dict[int, int]:
        """The line each record at ``positions`` starts on (in a file read to its end)."""
        wanted, found = set(positions), {}
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            records = (n for n, line in enumerate(handle, start=1) if self._is_record(line))
            for position, line in enumerate(records):
                if position in wanted:
                    found[position] = line
        return found

    def items(self, positions: Collection[int]) -> dict[int, str]:
        """The item of a JSON document each record at ``positions`` comes from (none here)."""
        return {}

    def _is_record(self, line: str) -> bool:
        """Whether a line of a file that could be read holds a record."""
        raise NotImplementedError


def open_records(path: Path, trec_names: list[str] | None = None) -> RecordFile:
    """The records of the file at ``path``, read by its extension: a TREC file has the fields
    ``trec_names`` (without them, it is read as TSV)."""
    fmt = file_format(path)
    if fmt == "jsonl":
        return JsonLinesFile(path)
    if fmt == "trec" and trec_names:
        return WhitespaceFile(path, trec_names)
    return DelimitedFile(path, "," if fmt == "csv" else "\t")


class DelimitedFile(RecordFile):
    """A CSV or TSV file with a header, read by pandas' C parser a chunk at a time."""

    def __init__(self, path: Path, sep: str) -> None:
        super().__init__(path)
        self.sep = sep
        self._rows = 0

    def chunks(self) -> Iterator[Records]:
        # Line ends are left as they are: pandas and the csv module both read \r\n, and a
        # quoted cell keeps the \r\n or \r inside it. index_col=False: a first row with more
        # fields than the header must not become an index (shifting every column by one);
        # pandas warns instead, which we make an error.
        self._rows = 0
        try:
            reader = pd.read_csv(
                self.path,
                sep=self.sep,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=True,
                engine="c",
                index_col=False,
                encoding="utf-8",
                chunksize=self.chunk_rows,
            )
        except pd.errors.EmptyDataError:
            raise ImportFileError([Problem(str(self.path), None, None, "file is empty")]) from None
        except _PARSER_ERRORS as error:
            raise ImportFileError([self._parse_problem(error)]) from None
        with reader:
            while True:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("error", pd.errors.ParserWarning)
                        frame = reader.get_chunk()
                except StopIteration:
                    return
                except _PARSER_ERRORS as error:
                    raise ImportFileError([self._parse_problem(error)]) from None
                frame = frame.reset_index(drop=True)  # no NaN: na_filter=False
                frame.columns = [str(column).strip() for column in frame.columns]
                first, self._rows = self._rows, self._rows + len(frame)
                yield Records(frame, first, self._rows + 1)  # a line a record, and the header

    def lines(self, positions: Collection[int]) -> dict[int, int]:
        """The line each record starts on, from the records as the csv module reads them
        again (pandas counts a record with a quoted line break as one line)."""
        wanted, found, count = set(positions), {}, 0
        starts = (line for line, _ in _delimited_records(self.path, self.sep))
        next(starts, None)  # the header
        for count, line in enumerate(starts, start=1):
            if count - 1 in wanted:
                found[count - 1] = line
        if count != self._rows:  # the csv module read the file differently: count plain lines
            return {position: position + 2 for position in wanted}
        return found

    def _parse_problem(self, error: Exception) -> Problem:
        """The problem pandas could not parse past, on the line where the record starts."""
        path = str(self.path)
        message = str(error).strip().splitlines()[-1]
        if isinstance(error, pd.errors.ParserWarning) or _PANDAS_FIELDS.search(message):
            header = None
            for line, record in _delimited_records(self.path, self.sep):
                if header is None:
                    header = len(record)
                elif len(record) > header:
                    reason = f"expected {header} fields, found {len(record)}"
                    return Problem(path, line, None, reason)
        if "EOF inside string" in message:
            last = None
            for last, _ in _delimited_records(self.path, self.sep):
                pass
            if last is not None:
                return Problem(path, last, None, "a quoted field is never closed")
        found = _PANDAS_LINE.search(message)
        said = int(found.group(1)) if found else None  # the line pandas names, if any
        return Problem(path, said, None, message.split("C error: ")[-1])


_PARSER_ERRORS = (pd.errors.ParserError, pd.errors.ParserWarning, ValueError, csv.Error)
_PANDAS_LINE = re.compile(r"line (\d+)")
_PANDAS_FIELDS = re.compile(r"Expected \d+ fields")


def _delimited_records(path: Path, sep: str) -> Iterator[tuple[int, list[str]]]:
    """``(first line, cells)`` of each record pandas reads (the header first).

    Like pandas, lines that are empty or hold only spaces and tabs (other than ``sep``) are
    skipped; a line of empty cells (``,,``) or a quoted empty cell (``""``) is a record.
    The csv module reads the text split at \n alone.
    """
    blank = " \t".replace(sep, "")
    last = ""

    def physical_lines(handle: Iterable[str]) -> Iterator[str]:
        nonlocal last
        for last in handle:
            yield last

    with path.open(encoding="utf-8-sig", newline="\n") as handle:
        reader = csv.reader(physical_lines(handle), delimiter=sep)
        previous_end = 0
        try:
            for record in reader:
                start, previous_end = previous_end + 1, reader.line_num
                single = previous_end == start
                if not record or (single and not last.rstrip("\n").rstrip("\r").strip(blank)):
                    continue
                yield start, record
        except csv.Error:
            return


class JsonLinesFile(RecordFile):
    """A JSON Lines file: one object a line, its keys naming the columns."""

    fixed_columns = False  # a key may first appear in a later chunk

    def chunks(self) -> Iterator[Records]:
        path, size = str(self.path), self.chunk_rows
        rows: list[dict[str, str]] = []
        problems: list[Problem] = []
        total = first = number = 0
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                row, found = _json_record(path, number, line)
                total += len(found)
                problems += found[: MAX_PROBLEMS - len(problems)]
                if row is not None:
                    rows.append(row)
                if len(rows) == size:
                    yield Records(pd.DataFrame(rows, dtype=object).fillna(""), first, number)
                    rows, first = [], first + len(rows)
        if rows:
            yield Records(pd.DataFrame(rows, dtype=object).fillna(""), first, number)
        if total:
            raise ImportFileError(problems, total)

    def _is_record(self, line: str) -> bool:
        return bool(line.strip())


def _json_record(path: str, number: int, line: str) -> tuple[dict[str, str] | None, list[Problem]]:
    """A JSON Lines line's cells (None for a blank line or one that is not an object), and
    what is wrong with it."""
    if not line.strip():
        return None, []
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        return None, [Problem(path, number, None, f"not JSON: {error.msg}")]
    except RecursionError:
        return None, [Problem(path, number, None, "not JSON: nested too deeply")]
    except ValueError as error:  # an integer of more than 4300 digits
        return None, [Problem(path, number, None, f"not JSON: {error}")]
    if not isinstance(value, dict):
        return None, [Problem(path, number, None, "not a JSON object")]
    row, problems = {}, []
    for key, cell in value.items():
        if isinstance(cell, (dict, list)):
            problems.append(Problem(path, number, key, "a list or object, not a value"))
        row[str(key).strip()] = _json_cell(cell)
    return row, problems


def _json_cell(cell: object) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "true" if cell else "false"
    return str(cell)


class WhitespaceFile(RecordFile):
    """A TREC file: ``len(names)`` whitespace-separated values a line, no header; lines
    beginning with ``#`` are comments."""

    def __init__(self, path: Path, names: list[str]) -> None:
        super().__init__(path)
        self.names = names

    def chunks(self) -> Iterator[Records]:
        fields, size = len(self.names), self.chunk_rows
        rows: list[list[str]] = []
        problems: list[Problem] = []
        total = first = number = 0
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                if not self._is_record(line):
                    continue
                parts = line.split()
                if len(parts) != fields:
                    total += 1
                    if len(problems) < MAX_PROBLEMS:
                        reason = f"expected {fields} fields, found {len(parts)}"
                        problems.append(Problem(str(self.path), number, None, reason))
                    continue
                rows.append(parts)
                if len(rows) == size:
                    yield self._chunk(rows, first, number)
                    rows, first = [], first + len(rows)
        if rows or not first:
            yield self._chunk(rows, first, number)
        if total:
            raise ImportFileError(problems, total)

    def _is_record(self, line: str) -> bool:
        parts = line.split(maxsplit=1)
        return bool(parts) and not parts[0].startswith("#")

    def _chunk(self, rows: list[list[str]], first: int, last_line: int) -> Records:
        return Records(pd.DataFrame(rows, columns=self.names, dtype="str"), first, last_line)
