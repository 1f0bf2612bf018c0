"""Columns of each input file and the checks that turn raw cells into typed values.

Checks are vectorised over whole columns (a million rows take a fraction of a second); only
the failing cells are looked at one by one, to say what is wrong with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judge_app.errors import quoted, shortened
from judge_app.io.errors import MAX_PROBLEMS, FileProblems
from judge_app.io.text import NUL_REASON

ID_MAX_LENGTH = 255
WHOLE_MAX = 2**31 - 1  # the largest INTEGER of PostgreSQL (ranks, durations)
TRUE_WORDS = {"true", "1", "yes", "y", "t"}
FALSE_WORDS = {"false", "0", "no", "n", "f", ""}


@dataclass(frozen=True)
class Check:
    """A column's typed values, which rows failed, and how to describe a failed cell (one of
    ``cells``, the column as read)."""

    values: pd.Series
    bad: np.ndarray
    reason: Callable[[str], str]
    cells: pd.Series


def check_id(cells: pd.Series, noun: str) -> Check:
    """Ids (and rater names) trimmed of surrounding spaces and in Unicode NFC, 1 to
    ID_MAX_LENGTH characters long."""
    stripped = cells.str.strip()
    wide = ~stripped.str.isascii().to_numpy(dtype=bool, na_value=True)  # ASCII is NFC
    if wide.any():
        stripped = stripped.mask(wide, stripped[wide].str.normalize("NFC"))
    lengths = stripped.str.len()
    bad = ((lengths == 0) | (lengths > ID_MAX_LENGTH)).to_numpy()

    def reason(cell: str) -> str:
        if not cell.strip():
            return f"empty {noun}"
        return f"{noun} is longer than {ID_MAX_LENGTH} characters"

    return Check(stripped, bad, reason, cells)


def check_text(cells: pd.Series, required: bool = False) -> Check:
    values = cells.where(cells.str.strip() != "", None)
    bad = values.isna().to_numpy() if required else np.zeros(len(cells), dtype=bool)
    return Check(values, bad, lambda cell: "empty text", cells)


def refuse_nul(check: Check) -> Check:
    """``check`` with the cells that hold a NUL character failed too, and left out where its
    values are text (so that none reaches a database before the import is refused)."""
    nul = check.cells.str.contains("\x00", regex=False).to_numpy(dtype=bool)
    if not nul.any():
        return check

    def reason(cell: str) -> str:
        return NUL_REASON if "\x00" in cell else check.reason(cell)

    text = check.values.dtype == object or isinstance(check.values.dtype, pd.StringDtype)
    values = check.values.mask(nul) if text else check.values
    return Check(values, check.bad | nul, reason, check.cells)


def _distinct(cells: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's code among the distinct cells (stripped of spaces), and for each distinct
    cell whether it is empty and its number (NaN where it is not one): every distinct cell is
    parsed once. Code -1, a missing cell, stands for an empty one."""
    codes, uniques = pd.factorize(cells.str.strip())
    texts = pd.Series(uniques, dtype=object)
    numbers = pd.to_numeric(texts, errors="coerce").astype("float64").to_numpy()
    empty = (texts == "").to_numpy(dtype=bool)
    return codes, np.append(empty, True), np.append(numbers, np.nan)


def check_whole(
    cells: pd.Series, low: int, high: int | None, noun: str, optional: bool = False
) -> Check:
    """Whole numbers in [low, high] (``2`` and ``2.0`` pass, ``2.5`` and ``high`` do not).

    With ``optional``, an empty cell is a missing value (NA) rather than a problem.
    """
    codes, empty, numbers = _distinct(cells)
    good = np.isfinite(numbers) & (np.floor(numbers) == numbers) & (numbers >= low)
    good &= numbers <= (high if high is not None else WHOLE_MAX)
    bad = ~good[codes]
    span = f"{low}–{high}" if high is not None else f"{low} or more"

    def reason(cell: str) -> str:
        text = cell.strip()
        if not text:
            return f"missing {noun}"
        number = pd.to_numeric(text, errors="coerce")
        if pd.isna(number) or not np.isfinite(number):
            return f"{quoted(text)} is not a {noun} (a whole number {span})"
        shown = shortened(text)
        if number != np.floor(number):
            return f"{noun} {shown} is not a whole number"
        if high is None and number > WHOLE_MAX:
            return f"{noun} {shown} is too large (at most {WHOLE_MAX})"
        return f"{noun} {shown} is outside {span}"

    values = pd.Series(np.where(good, numbers, 0).astype("int64")[codes], index=cells.index)
    if optional:
        missing = empty[codes]
        return Check(values.astype("Int64").mask(missing), bad & ~missing, reason, cells)
    return Check(values, bad, reason, cells)


def check_grade(cells: pd.Series, optional: bool = False) -> Check:
    """Grades 0–5; with ``optional`` an empty cell is a missing grade (NA)."""
    return check_whole(cells, 0, 5, "grade", optional)


def check_score(cells: pd.Series) -> Check:
    """An optional finite number."""
    codes, empty, numbers = _distinct(cells)
    bad = ~(empty | np.isfinite(numbers))[codes]
    values = pd.Series(numbers[codes], index=cells.index)
    return Check(values, bad, lambda cell: f"score {quoted(cell.strip())} is not a number", cells)


def check_bool(cells: pd.Series, noun: str) -> Check:
    lowered = cells.str.strip().str.lower()
    truthy = lowered.isin(TRUE_WORDS)
    bad = ~(truthy | lowered.isin(FALSE_WORDS)).to_numpy()
    return Check(truthy, bad, lambda cell: f"{noun} {quoted(cell)} is not true or false", cells)


def check_timestamp(cells: pd.Series) -> Check:
    """Optional ISO 8601 times, read as UTC and stored naive."""

    def reason(cell: str) -> str:
        return f"{quoted(cell.strip())} is not an ISO 8601 time"

    stripped = cells.str.strip()
    empty = (stripped == "").to_numpy()
    if empty.all():
        values = pd.Series(pd.NaT, index=cells.index, dtype="datetime64[ns]")
        return Check(values, np.zeros(len(cells), dtype=bool), reason, cells)
    parsed = pd.to_datetime(
        stripped.where(~empty, None), utc=True, errors="coerce", format="ISO8601"
    )
    bad = ~empty & parsed.isna().to_numpy()
    values = parsed.dt.tz_localize(None)
    return Check(values, bad, reason, cells)


def collect(checks: dict[str, Check], first: int, problems: FileProblems) -> None:
    """Add the failed cells of ``checks`` (keyed by the file's column name); row i of the
    checked columns is the record at position ``first + i``."""
    for column, check in checks.items():
        rows = np.flatnonzero(check.bad)
        for row in rows[:MAX_PROBLEMS]:
            problems.add(first + int(row), column, check.reason(str(check.cells.iat[row])))
        problems.count(max(len(rows) - MAX_PROBLEMS, 0))


def repeated_rows(frame: pd.DataFrame, key: list[str]) -> list[tuple[int, int]]:
    """``(row, first row)`` of every row whose ``key`` repeats an earlier row's, in row order
    (rows missing a key value aside)."""
    usable = frame[key].notna().all(axis=1).to_numpy()
    repeated = np.zeros(len(frame), dtype=bool)
    repeated[usable] = frame[usable].duplicated(subset=key, keep=False).to_numpy()
    first_row: dict[tuple, int] = {}
    found = []
    keys = frame.loc[repeated, key].itertuples(index=False)
    for row, values in zip(np.flatnonzero(repeated), keys):
        first = first_row.setdefault(tuple(values), int(row))
        if first != row:
            found.append((int(row), first))
    return found
