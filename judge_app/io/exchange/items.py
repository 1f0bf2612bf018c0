"""Records of another tool's file: each record taken from an item at a known place (a line,
or the path to an item of a JSON document), so that a problem names the item it is in.

A format's reader is an ``ItemFile`` of one kind (queries, documents or judgments) whose
``rows`` yield each record's cells under our column names, and count in ``not_kept`` what
the file holds that our model has no place for.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from pathlib import Path

import pandas as pd

from judge_app.io.errors import ImportFileError, Problem, ProblemList
from judge_app.io.exchange.json_places import Path as JsonPath
from judge_app.io.exchange.json_places import label_of, line_of, offset_of
from judge_app.io.records import RecordFile, Records
from judge_app.io.text import read_text

Where = int | tuple[str | int, ...]
"""Where a record is: a line, or the path to an item of a JSON document."""
COLUMNS = {
    "queries": ("query_id", "text", "description"),
    "documents": ("doc_id", "title", "url", "body"),
    "judgments": (
        "query_id", "doc_id", "rater", "grade", "skipped", "note", "judged_at", "duration_ms",
        "query_text",
    ),
}  # fmt: skip


class ItemFile(RecordFile):
    """One kind of record (``COLUMNS``) read from another tool's file."""

    rater_fallback = True
    fills_only = True  # another tool's texts never overwrite the database's

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(path)
        self.kind = kind
        self.columns = COLUMNS[kind]
        self._where: list[Where] = []
        self._problems = ProblemList()

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        """Each record's place and cells (any column left out is empty)."""
        raise NotImplementedError

    def refuse(self, where: Where, column: str | None, reason: str) -> None:
        """A problem the reading finds (a value of the wrong shape): the import is refused."""
        line, item = self._place(where)
        self._problems.add(Problem(str(self.path), line, column, reason, item))

    def chunks(self) -> Iterator[Records]:
        self._where, self._problems = [], ProblemList()
        self.not_kept.clear()
        rows: list[dict[str, str]] = []
        first = 0
        for where, row in self.rows():
            self._where.append(where)
            rows.append(row)
            if len(rows) == self.chunk_rows:
                yield self._records(rows, first)
                rows, first = [], first + len(rows)
        if rows or not first:
            yield self._records(rows, first)
        self._problems.raise_if_any()

    def lines(self, positions: Collection[int]) -> dict[int, int]:
        return {position: self._place(self._where[position])[0] for position in positions}

    def items(self, positions: Collection[int]) -> dict[int, str]:
        return {
            position: label_of(where)
            for position in positions
            if isinstance(where := self._where[position], tuple)
        }

    def _records(self, rows: list[dict[str, str]], first: int) -> Records:
        frame = pd.DataFrame(rows, columns=list(self.columns), dtype=object).fillna("")
        last = self._where[-1] if self._where else 0
        return Records(frame, first, last if isinstance(last, int) else self.line_count)

    def _place(self, where: Where) -> tuple[int, str | None]:
        """The line of ``where``, and the item it names in a JSON document."""
        if isinstance(where, int):
            return where, None
        return self._line_of_item(where), label_of(where)

    def _line_of_item(self, path: JsonPath) -> int:
        raise NotImplementedError


class JsonDocumentFile(ItemFile):
    """A file holding one JSON document, read whole (``data``)."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(path, kind)
        self.text = read_text(path)
        try:
            self.data = json.loads(self.text)
        except json.JSONDecodeError as error:
            reason = f"not JSON: {error.msg}"
            raise ImportFileError([Problem(str(path), error.lineno, None, reason)]) from None
        except (RecursionError, ValueError) as error:
            reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
            raise ImportFileError([Problem(str(path), None, None, f"not JSON: {reason}")]) from None

    def _line_of_item(self, path: JsonPath) -> int:
        return line_of(self.text, offset_of(self.text, path))

    def expect(self, value: object, kind: type, where: Where, what: str) -> bool:
        """Whether ``value`` is a ``kind`` (dict or list); if not, a problem naming ``what``."""
        if isinstance(value, kind):
            return True
        wanted = "an object" if kind is dict else "a list"
        self.refuse(where, None, f"{what} is not {wanted}")
        return False


def cell(file: ItemFile, value: object, where: Where, column: str) -> str:
    """A JSON value as a cell's text: "" for null, ``true``/``false``, numbers as JSON writes
    them; a list or an object is a problem (and an empty cell)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        file.refuse(where, column, "a list or object, not a value")
        return ""
    return str(value)


def count_fields(file: ItemFile, item: dict, kept: Collection[str], what: str) -> None:
    """Count in ``file.not_kept`` each field of ``item`` (an object of the format) that holds
    something and is not among ``kept``."""
    for key, value in item.items():
        if key not in kept and value not in (None, "", [], {}, False):
            file.not_kept[f"{what} {key}"] += 1
