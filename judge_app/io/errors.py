"""The one error an import raises: every problem found, each with file, line, column and reason."""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.errors import JudgeAppError

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file. ``line`` is 1-based; None for the whole file."""

    file: str
    line: int | None
    column: str | None
    reason: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f" line {self.line}"
        if self.column:
            where += f", column {self.column}"
        return f"{where}: {self.reason}"


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

    @property
    def full(self) -> bool:
        return len(self.problems) >= MAX_PROBLEMS

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportFileError(self.problems, self.total)


class ExportError(JudgeAppError):
    """Data that cannot be written in the asked format; nothing was written."""
