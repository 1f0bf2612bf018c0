"""The one error an import raises: every problem found, each with file, line, column and reason."""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Collection
from dataclasses import dataclass

from judge_app.errors import JudgeAppError

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file. ``line`` is 1-based; None for the whole file;
    ``item`` names the item of a JSON document (``query_doc_pairs[3].judgements[0]``), whose
    line alone may not say (a document written on one line)."""

    file: str
    line: int | None
    column: str | None
    reason: str
    item: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f" line {self.line}"
        if self.item:
            where += f" ({self.item})"
        if self.column:
            where += f", column {self.column}"
        return f"{where}: {self.reason}"


def nothing_in(noun: str, outcome: str) -> str:
    """Why a file without rows (a header, blank lines or comments at most) is refused."""
    return f"has no {noun}: {outcome}"


class ImportFileError(JudgeAppError):
    """Input that cannot be imported; nothing was written. Lists up to 20 problems."""

    def __init__(self, problems: list[Problem], total: int | None = None) -> None:
        self.problems = problems[:MAX_PROBLEMS]
        self.total = max(total or 0, len(problems))
        lines = [str(problem) for problem in self.problems]
        if self.total > len(self.problems):
            lines.append(f"… and {self.total - len(self.problems)} more problems")
        super().__init__("\n".join(lines))


class ProblemList:
    """Collects problems up to the limit while counting all of them."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.total = 0

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def merge(self, problems: list[Problem], total: int) -> None:
        """Add the problems one file listed, counting all ``total`` it found."""
        for problem in problems:
            self.add(problem)
        self.total += total - len(problems)

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportFileError(self.problems, self.total)


class FileProblems:
    """The problems of one file while it is read a chunk at a time, all of them counted.

    Rows are named by their position in the file (see ``records.RecordFile``) until the file
    is read, when ``resolved`` turns positions into lines. Listed are: problems with the whole
    file first, then the first MAX_PROBLEMS problems of rows in line order (whatever order
    they were found in), then the first repeated keys.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.total = 0
        self._whole: list[tuple[str | None, str]] = []
        self._rows: list[tuple[int, str, str]] = []
        self._repeats: list[tuple[int, int, str]] = []

    def add(self, position: int, column: str, reason: str) -> None:
        """A problem with one cell."""
        self.total += 1
        if len(self._rows) < MAX_PROBLEMS or (position, column, reason) < self._rows[-1]:
            insort(self._rows, (position, column, reason))
            del self._rows[MAX_PROBLEMS:]

    def add_repeat(self, position: int, first: int, reason: str) -> None:
        """A row whose key repeats the row at position ``first`` (named by its line)."""
        self.total += 1
        if len(self._repeats) < MAX_PROBLEMS:
            self._repeats.append((position, first, reason))

    def add_whole(self, column: str | None, reason: str) -> None:
        """A problem with the whole file (no line)."""
        self.total += 1
        self._whole.append((column, reason))

    def count(self, unlisted: int) -> None:
        """Problems found but not worth listing (more of a kind already listed)."""
        self.total += unlisted

    def resolved(
        self,
        lines: Callable[[Collection[int]], dict[int, int]],
        items: Callable[[Collection[int]], dict[int, str]] | None = None,
    ) -> tuple[list[Problem], int]:
        """The listed problems with their lines (``lines`` maps positions to lines, ``items``
        to the items of a JSON document), and the number of all problems."""
        whole = [Problem(self.file, None, column, reason) for column, reason in self._whole]
        rows = self._rows[: MAX_PROBLEMS - len(whole)]
        repeats = self._repeats[: MAX_PROBLEMS - len(whole) - len(rows)]
        wanted = {row[0] for row in rows} | {p for repeat in repeats for p in repeat[:2]}
        line = lines(wanted) if wanted else {}
        item = items(wanted) if wanted and items else {}
        listed = whole + [
            Problem(self.file, line[position], column, reason, item.get(position))
            for position, column, reason in rows
        ]
        listed += [
            Problem(
                self.file,
                line[position],
                None,
                f"{reason}; first on line {line[first]}" + _in(item.get(first)),
                item.get(position),
            )
            for position, first, reason in repeats
        ]
        return listed, self.total


def _in(item: str | None) -> str:
    return f" ({item})" if item else ""


class ExportError(JudgeAppError):
    """Data that cannot be written in the asked format; nothing was written."""
