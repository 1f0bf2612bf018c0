"""Reading an input file into raw text records with the line each starts on.

Formats: CSV, TSV, JSON Lines (by extension) and whitespace-separated TREC files. Every cell
comes back as a string ("" where a value is missing); typing and checking are in ``schemas``.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.io.errors import ImportFileError, Problem
from judge_app.io.text import file_format, read_text


@dataclass
class Records:
    """The cells of a file as strings, one row per record, and where each record starts."""

    path: Path
    frame: pd.DataFrame
    _line_numbers: Callable[[], np.ndarray] = field(repr=False)
    _lines: np.ndarray | None = field(default=None, repr=False)

    def line(self, row: int) -> int:
        """The 1-based line on which record ``row`` (0-based position) starts."""
        if self._lines is None:
            self._lines = self._line_numbers()
        return int(self._lines[row])

    def problem(self, row: int | None, column: str | None, reason: str) -> Problem:
        return Problem(str(self.path), None if row is None else self.line(row), column, reason)


def read_records(path: Path, fmt: str | None = None) -> Records:
    """Parse a CSV/TSV/JSONL file with a header (or keys) naming its columns."""
    fmt = fmt or file_format(path)
    text = read_text(path)
    if fmt == "jsonl":
        return _read_json_lines(path, text)
    return _read_delimited(path, text, "," if fmt == "csv" else "\t")


_PANDAS_LINE = re.compile(r"line (\d+)")


def _read_delimited(path: Path, text: str, sep: str) -> Records:
    # Line ends are left as they are: pandas and the csv module both read \r\n, and a quoted
    # cell keeps the \r\n or \r inside it.
    try:
        # index_col=False: a first row with more fields than the header must not become an
        # index (shifting every column by one); pandas warns instead, which we make an error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                io.StringIO(text),
                sep=sep,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=True,
                engine="c",
                index_col=False,
            )
    except pd.errors.EmptyDataError:
        raise ImportFileError([Problem(str(path), None, None, "file is empty")]) from None
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError, csv.Error) as error:
        raise ImportFileError([_parse_problem(path, text, sep, error)]) from None
    frame = frame.fillna("")
    frame.columns = [str(column).strip() for column in frame.columns]
    return Records(path, frame, lambda: _delimited_line_numbers(text, sep, len(frame)))


def _parse_problem(path: Path, text: str, sep: str, error: Exception) -> Problem:
    """The problem pandas could not parse past, on the line where the record starts.

    pandas counts a record with a quoted line break as one line, so its line numbers are
    recomputed here from the records as the csv module reads them.
    """
    message = str(error).strip().splitlines()[-1]
    if isinstance(error, pd.errors.ParserWarning) or _PANDAS_FIELDS.search(message):
        header = None
        for line, record in _delimited_records(text, sep):
            if header is None:
                header = len(record)
            elif len(record) > header:
                return Problem(
                    str(path), line, None, f"expected {header} fields, found {len(record)}"
                )
    if "EOF inside string" in message:
        starts = [line for line, _ in _delimited_records(text, sep)]
        if starts:
            return Problem(str(path), starts[-1], None, "a quoted field is never closed")
    found = _PANDAS_LINE.search(message)
    line = int(found.group(1)) if found else None
    return Problem(str(path), line, None, message.split("C error: ")[-1])


_PANDAS_FIELDS = re.compile(r"Expected \d+ fields")


def _delimited_records(text: str, sep: str) -> Iterator[tuple[int, list[str]]]:
    """``(first line, cells)`` of each record pandas reads (the header first).

    Like pandas, lines that are empty or hold only spaces and tabs (other than ``sep``) are
    skipped; a line of empty cells (``,,``) or a quoted empty cell (``""``) is a record.
    The csv module reads the text split at \n alone, as ``lines`` is.
    """
    blank = " \t".replace(sep, "")
    lines = text.split("\n")
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    previous_end = 0
    try:
        for record in reader:
            start, previous_end = previous_end + 1, reader.line_num
            single = previous_end == start
            if not record or (single and not lines[start - 1].rstrip("\r").strip(blank)):
                continue
            yield start, record
    except csv.Error:
        return


def _delimited_line_numbers(text: str, sep: str, rows: int) -> np.ndarray:
    """The starting line of each data record, skipping the header and blank lines."""
    starts = [line for line, _ in _delimited_records(text, sep)]
    lines = np.array(starts[1:], dtype=np.int64)
    if len(lines) != rows:  # the csv module read the file differently: count plain lines
        lines = np.arange(2, rows + 2, dtype=np.int64)
    return lines


def _read_json_lines(path: Path, text: str) -> Records:
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(Problem(str(path), number, None, f"not JSON: {error.msg}"))
            continue
        except RecursionError:
            problems.append(Problem(str(path), number, None, "not JSON: nested too deeply"))
            continue
        except ValueError as error:  # an integer of more than 4300 digits
            problems.append(Problem(str(path), number, None, f"not JSON: {error}"))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(str(path), number, None, "not a JSON object"))
            continue
        row = {}
        for key, cell in value.items():
            if isinstance(cell, (dict, list)):
                problems.append(Problem(str(path), number, key, "a list or object, not a value"))
            row[str(key).strip()] = _json_cell(cell)
        rows.append(row)
        lines.append(number)
    if problems:
        raise ImportFileError(problems)
    frame = pd.DataFrame(rows, dtype=object).fillna("")
    line_array = np.array(lines, dtype=np.int64)
    return Records(path, frame, lambda: line_array)


def _json_cell(cell: object) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "true" if cell else "false"
    return str(cell)


def read_whitespace(path: Path, fields: int, names: list[str]) -> Records:
    """Parse a TREC file: ``fields`` whitespace-separated values a line, no header.

    Lines beginning with ``#`` are comments.
    """
    text = read_text(path)
    rows: list[list[str]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != fields:
            problems.append(
                Problem(str(path), number, None, f"expected {fields} fields, found {len(parts)}")
            )
            if len(problems) >= 20:
                break
            continue
        rows.append(parts)
        lines.append(number)
    if problems:
        raise ImportFileError(problems)
    frame = pd.DataFrame(rows, columns=names, dtype="str")
    line_array = np.array(lines, dtype=np.int64)
    return Records(path, frame, lambda: line_array)
