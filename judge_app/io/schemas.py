"""Columns of each input file and the checks that turn raw cells into typed values.

Checks are vectorised over whole columns (a million rows take a fraction of a second); only
the failing cells are looked at one by one, to say what is wrong with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judge_app.io.errors import MAX_PROBLEMS, ProblemList
from judge_app.io.records import Records

ID_MAX_LENGTH = 255
WHOLE_MAX = 2**31 - 1  # the largest INTEGER of PostgreSQL (ranks, durations)
TRUE_WORDS = {"true", "1", "yes", "y", "t"}
FALSE_WORDS = {"false", "0", "no", "n", "f", ""}


@dataclass(frozen=True)
class Check:
    """A column's typed values, which rows failed, and how to describe a failed cell."""

    values: pd.Series
    bad: np.ndarray
    reason: Callable[[str], str]


def check_id(cells: pd.Series, noun: str) -> Check:
    stripped = cells.str.strip()
    lengths = stripped.str.len()
    bad = ((lengths == 0) | (lengths > ID_MAX_LENGTH)).to_numpy()

    def reason(cell: str) -> str:
        if not cell.strip():
            return f"empty {noun}"
        return f"{noun} is longer than {ID_MAX_LENGTH} characters"

    return Check(stripped, bad, reason)


def check_text(cells: pd.Series, required: bool = False) -> Check:
    values = cells.where(cells.str.strip() != "", None)
    bad = values.isna().to_numpy() if required else np.zeros(len(cells), dtype=bool)
    return Check(values, bad, lambda cell: "empty text")


def _numbers(cells: pd.Series) -> pd.Series:
    """Cells as floats (NaN where not a number), parsing each distinct cell once."""
    codes, uniques = pd.factorize(cells.str.strip())
    parsed = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
    parsed = parsed.astype("float64").to_numpy()
    return pd.Series(np.where(codes >= 0, parsed[codes], np.nan), index=cells.index)


def check_whole(
    cells: pd.Series, low: int, high: int | None, noun: str, optional: bool = False
) -> Check:
    """Whole numbers in [low, high] (``2`` and ``2.0`` pass, ``2.5`` and ``high`` do not).

    With ``optional``, an empty cell is a missing value (NA) rather than a problem.
    """
    numbers = _numbers(cells)
    finite = np.isfinite(numbers.to_numpy())
    whole = finite & (np.floor(numbers.to_numpy()) == numbers.to_numpy())
    in_range = numbers.to_numpy() >= low
    in_range &= numbers.to_numpy() <= (high if high is not None else WHOLE_MAX)
    bad = ~(whole & in_range)
    span = f"{low}–{high}" if high is not None else f"{low} or more"

    def reason(cell: str) -> str:
        text = cell.strip()
        if not text:
            return f"missing {noun}"
        number = pd.to_numeric(text, errors="coerce")
        if pd.isna(number) or not np.isfinite(number):
            return f"{text!r} is not a {noun} (a whole number {span})"
        if number != np.floor(number):
            return f"{noun} {text} is not a whole number"
        if high is None and number > WHOLE_MAX:
            return f"{noun} {text} is too large (at most {WHOLE_MAX})"
        return f"{noun} {text} is outside {span}"

    values = pd.Series(np.where(bad, 0, numbers.fillna(0)).astype("int64"), index=cells.index)
    if optional:
        empty = (cells.str.strip() == "").to_numpy()
        return Check(values.astype("Int64").mask(empty), bad & ~empty, reason)
    return Check(values, bad, reason)


def check_grade(cells: pd.Series, optional: bool = False) -> Check:
    """Grades 0–5; with ``optional`` an empty cell is a missing grade (NA)."""
    return check_whole(cells, 0, 5, "grade", optional)


def check_score(cells: pd.Series) -> Check:
    """An optional finite number."""
    numbers = _numbers(cells)
    empty = (cells.str.strip() == "").to_numpy()
    bad = ~empty & ~np.isfinite(numbers.to_numpy())
    return Check(numbers, bad, lambda cell: f"score {cell.strip()!r} is not a number")


def check_bool(cells: pd.Series, noun: str) -> Check:
    lowered = cells.str.strip().str.lower()
    truthy = lowered.isin(TRUE_WORDS)
    bad = ~(truthy | lowered.isin(FALSE_WORDS)).to_numpy()
    return Check(truthy, bad, lambda cell: f"{noun} {cell!r} is not true or false")


def check_timestamp(cells: pd.Series) -> Check:
    """Optional ISO 8601 times, read as UTC and stored naive."""

    def reason(cell: str) -> str:
        return f"{cell.strip()!r} is not an ISO 8601 time"

    stripped = cells.str.strip()
    empty = (stripped == "").to_numpy()
    if empty.all():
        values = pd.Series(pd.NaT, index=cells.index, dtype="datetime64[ns]")
        return Check(values, np.zeros(len(cells), dtype=bool), reason)
    parsed = pd.to_datetime(
        stripped.where(~empty, None), utc=True, errors="coerce", format="ISO8601"
    )
    bad = ~empty & parsed.isna().to_numpy()
    values = parsed.dt.tz_localize(None)
    return Check(values, bad, reason)


def collect(records: Records, checks: dict[str, Check], problems: ProblemList) -> None:
    """Add the failed cells of ``checks`` (keyed by the file's column name) in line order."""
    found: list[tuple[int, str, str]] = []
    for column, check in checks.items():
        rows = np.flatnonzero(check.bad)
        for row in rows[:MAX_PROBLEMS]:
            cell = str(records.frame[column].iat[row]) if column in records.frame else ""
            found.append((int(row), column, check.reason(cell)))
        problems.total += max(len(rows) - MAX_PROBLEMS, 0)
    for row, column, reason in sorted(found):
        problems.add(records.problem(row, column, reason))


def report_duplicates(
    records: Records,
    frame: pd.DataFrame,
    key: list[str],
    describe: str,
    problems: ProblemList,
    skip: np.ndarray | None = None,
) -> None:
    """A problem for every row whose ``key`` repeats an earlier row's (rows in ``skip`` aside)."""
    if skip is None or not skip.any():
        repeated = frame.duplicated(subset=key, keep=False).to_numpy()
    else:
        repeated = np.zeros(len(frame), dtype=bool)
        repeated[~skip] = frame[~skip].duplicated(subset=key, keep=False).to_numpy()
    if not repeated.any():
        return
    subset = frame.loc[repeated, key]
    first_row = {}
    for position, values in zip(np.flatnonzero(repeated), subset.itertuples(index=False)):
        values = tuple(values)
        if values not in first_row:
            first_row[values] = position
            continue
        label = ", ".join(f"{name} {value}" for name, value in zip(key, values))
        problems.add(
            records.problem(
                int(position),
                None,
                f"duplicate {describe} ({label}); first on line {records.line(first_row[values])}",
            )
        )
