"""Keys repeated anywhere in an imported file, found by sorting integer codes.

An import logs the integer key values of each chunk's rows (ids of queries, documents and
raters; ranks), in file order; at the end ``KeyLog.repeats`` sorts them (a stable sort, so
rows of one key stay in file order) and names every row whose key repeats an earlier row's.
It keeps a few bytes a row (each chunk's columns in the smallest integers that hold them),
not the rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

STEP = 1 << 16  # rows compared at once while sorted keys are read
MISSING = -1  # a key value that failed its check
PACKED_LIMIT = 2**63  # keys packed into one int64 (times the rows) must stay below


def _compact(values: np.ndarray) -> np.ndarray:
    """``values`` in the smallest signed integers that hold them."""
    largest = int(values.max()) if len(values) else 0
    for kind in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(kind).max:
            return values.astype(kind)
    return values


class KeyLog:
    """The key columns ``names`` of a file's rows, logged a chunk at a time from its first
    row on: a row's position in the file is its index in the log."""

    def __init__(self, names: Sequence[str]) -> None:
        self.rows = 0
        self._columns: dict[str, list[np.ndarray]] = {name: [] for name in dict.fromkeys(names)}

    def add(self, first: int, columns: Mapping[str, pd.Series]) -> None:
        """The key values of a chunk's rows (row i at position ``first + i``, the row after
        the last logged one; a missing value leaves the row out of the keys that hold it)."""
        assert first == self.rows, "chunks are logged in file order"
        for name, chunks in self._columns.items():
            values = pd.Series(columns[name]).to_numpy(dtype=np.int64, na_value=MISSING)
            chunks.append(_compact(values))
        self.rows += len(chunks[-1])

    def repeats(self, key: Sequence[str], limit: int) -> tuple[int, list[tuple]]:
        """How many rows repeat the ``key`` of an earlier row (rows missing a key value aside),
        and the first ``limit`` of them in file order as ``(position, first position, *key)``."""
        if not self.rows:
            return 0, []
        columns = [self._column(name) for name in key]
        packed = _packed(columns, self.rows)
        if packed is None:  # too wide for one integer
            return _repeats_by_columns(columns, limit)
        packed.sort()  # key * rows + position: in key order, then in file order
        repeat = np.zeros(len(packed), dtype=bool)
        for start in range(0, len(packed) - 1, STEP):  # a slice at a time: little memory
            keys = packed[start : start + STEP + 1] // self.rows
            repeat[start + 1 : start + len(keys)] = keys[1:] == keys[:-1]
        rows = np.flatnonzero(repeat)
        rows = rows[np.argsort(packed[rows] % self.rows, kind="stable")[:limit]]
        found = []
        for row in rows.tolist():
            value, position = divmod(int(packed[row]), self.rows)
            first = int(packed[np.searchsorted(packed, value * self.rows)]) % self.rows
            found.append((position, first, *(int(column[position]) for column in columns)))
        return int(repeat.sum()), found

    def _column(self, name: str) -> np.ndarray:
        """A logged column whole (its chunks joined once, then kept joined)."""
        chunks = self._columns[name]
        if len(chunks) > 1:
            chunks[:] = [np.concatenate(chunks)]
        return chunks[0]


def _packed(columns: list[np.ndarray], rows: int) -> np.ndarray | None:
    """Each row's key values as one integer times ``rows``, plus the row's position (a row
    missing a value gets a negative key of its own); None where that does not fit in 63 bits."""
    spans = [int(column.max()) + 1 for column in columns]
    if math.prod(max(span, 1) for span in spans) * rows >= PACKED_LIMIT:
        return None
    packed = np.zeros(rows, dtype=np.int64)
    missing = np.zeros(rows, dtype=bool)
    for column, span in zip(columns, spans):
        packed *= span
        packed += column
        missing |= column == MISSING
    packed *= rows
    for start in range(0, rows, STEP):
        packed[start : start + STEP] += np.arange(start, min(start + STEP, rows))
    if missing.any():
        where = np.flatnonzero(missing)
        packed[where] = -(where + 1) * rows + where
    return packed


def _repeats_by_columns(columns: list[np.ndarray], limit: int) -> tuple[int, list[tuple]]:
    """``KeyLog.repeats`` for keys too wide to pack: the columns sorted together."""
    order = np.lexsort(columns[::-1])  # stable: positions ascending within a key
    repeat = np.ones(len(order), dtype=bool)
    repeat[0] = False
    for column in columns:
        ordered = column[order]
        repeat[1:] &= ordered[1:] == ordered[:-1]
        repeat &= ordered != MISSING
    rows = np.flatnonzero(repeat)
    starts = np.flatnonzero(~repeat)  # where each key starts in the order
    found = []
    for position in np.sort(order[rows])[:limit].tolist():
        at = int(np.flatnonzero(order == position)[0])
        first = int(order[starts[np.searchsorted(starts, at, side="right") - 1]])
        found.append((position, first, *(int(column[position]) for column in columns)))
    return len(rows), found
