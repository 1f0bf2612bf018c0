"""Gold files: ``query_id,doc_id,grade`` with a header, as CSV, TSV or JSON Lines (by the
extension), read with every cell checked as every input file is (``readers.FileReader``),
and written back as CSV (``write_gold``) that reads again to the same items.

A pair given twice with the same grade is one item; given twice with different grades, it
is a problem. What only a database can tell (an unknown query, a document no run retrieved)
is added to the file's problems by whoever asks (``GoldFile.refuse``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.io.errors import MAX_PROBLEMS, ImportFileError
from judge_app.io.exports import write_csv
from judge_app.io.readers import FileReader
from judge_app.io.schemas import repeated_rows

GOLD_COLUMNS = ["query_id", "doc_id", "grade"]
PAIR = ["query_id", "doc_id"]


class GoldFile:
    """A gold file read whole and its cells checked.

    ``rows`` holds ``query_id, doc_id, grade`` of every row of the file, row i being its
    i-th record; a value that failed its check is missing. ``finish`` raises every problem
    found, with its line, as one ImportFileError.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._reader = FileReader(self.path, "gold")
        chunks = [chunk.frame for chunk in self._reader.chunks()]
        self.rows = pd.concat(chunks, ignore_index=True)[GOLD_COLUMNS]
        self._refuse_other_grades()

    @property
    def usable(self) -> np.ndarray:
        """Which rows have every value (a row with a problem in a cell has not)."""
        return self.rows.notna().all(axis=1).to_numpy()

    def items(self) -> pd.DataFrame:
        """Each pair of the usable rows once, with its grade, in the order of the file."""
        rows = self.rows[self.usable].drop_duplicates(PAIR)
        return rows.astype({"grade": "int64"}).reset_index(drop=True)

    def refuse(self, bad: np.ndarray, column: str, reason: Callable[[pd.Series], str]) -> None:
        """A problem in ``column`` of every row where ``bad`` holds, said by ``reason(row)``."""
        positions = np.flatnonzero(bad)
        for position in positions[:MAX_PROBLEMS]:
            row = self.rows.iloc[int(position)]
            self._reader.problems.add(int(position), self._reader.column(column), reason(row))
        self._reader.problems.count(max(len(positions) - MAX_PROBLEMS, 0))

    def finish(self) -> None:
        """ImportFileError with the problems found (up to 20 listed, all counted), if any."""
        problems, total = self._reader.finish()
        if total:
            raise ImportFileError(problems, total)

    def _refuse_other_grades(self) -> None:
        """A problem for every row giving a pair another grade than its first usable row."""
        usable = self.rows[self.usable].reset_index()  # "index": the row's position
        other = [
            (row, first)
            for row, first in repeated_rows(usable, PAIR)
            if _grade(usable, row) != _grade(usable, first)
        ]
        for row, first in other[:MAX_PROBLEMS]:
            query, doc, grade = usable.loc[row, GOLD_COLUMNS]
            reason = (
                f"the same pair with another grade (query_id {query}, doc_id {doc}: "
                f"{grade} here, {_grade(usable, first)} there)"
            )
            position, first_position = int(usable.at[row, "index"]), int(usable.at[first, "index"])
            self._reader.problems.add_repeat(position, first_position, reason)
        self._reader.problems.count(max(len(other) - MAX_PROBLEMS, 0))


def _grade(rows: pd.DataFrame, row: int) -> int:
    return int(rows.at[row, "grade"])


def write_gold(items: pd.DataFrame, path: Path) -> int:
    """Write ``items`` (``query_id, doc_id, grade``) as a gold file (CSV, text cells made
    inert, whole or not at all); returns the rows written."""
    return write_csv(items[GOLD_COLUMNS], path)
