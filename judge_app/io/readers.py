"""Readers of the input files (DESIGN section 7): every row checked before anything is kept.

A ``FileReader`` reads one file of queries, documents, results, judgments or gold items a
chunk at a time
(``records``), so the memory it takes does not grow with the file; each chunk comes back as a
typed DataFrame, and the problems of its cells gather in the reader's ``problems``, named by
file, line, column and reason. Keys repeated across the whole file are found by whoever keeps
the rows: the importer in the database, ``read_judgments`` and ``read_results`` in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from judge_app.errors import quoted, shortened
from judge_app.io.errors import FileProblems, ImportFileError, Problem
from judge_app.io.grade_maps import GradeMap
from judge_app.io.records import RecordFile, open_records
from judge_app.io.schemas import (
    Check,
    check_bool,
    check_grade,
    check_id,
    check_score,
    check_text,
    check_timestamp,
    check_whole,
    collect,
    refuse_nul,
    repeated_rows,
)
from judge_app.io.text import file_format

ALIASES = {
    "query_id": ("query_id", "qid", "query", "topic", "topic_id"),
    "doc_id": ("doc_id", "docid", "docno", "document_id", "document"),
    "rater": ("rater", "rater_name", "annotator", "judge", "assessor"),
    "grade": ("grade", "relevance", "rel", "label", "judgment"),
    "text": ("text", "query_text", "title"),
    "description": ("description", "narrative", "desc"),
    "title": ("title", "doc_title"),
}
INERT_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "'")
EXPORTED_KINDS = ("judgments", "gold", "preferences")  # our exports made their text inert
RUN_FIELDS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
QRELS_FIELDS = ["query_id", "iteration", "doc_id", "grade"]

Cells = Callable[[str], pd.Series]  # the file's cells of one of our columns, as strings


@dataclass(frozen=True)
class Chunk:
    """Checked rows of one chunk of a file: ``frame`` is typed (a key cell that failed its
    check is missing); row i is the record at position ``first + i`` (its index among the
    file's records); the chunk ends about ``lines_read`` lines into the file."""

    frame: pd.DataFrame
    first: int
    lines_read: int


@dataclass(frozen=True)
class _Layout:
    """What a kind of file holds and how its cells are checked."""

    noun: str
    required: list[str]
    optional: list[str]
    keys: list[tuple[str, ...]]
    check: Callable[[Cells], dict[str, Check]]
    constants: dict[str, object] | None = None  # columns of the same value in every row


class FileReader:
    """One file of ``kind`` (queries, documents, results, judgments or gold) read a chunk at
    a time, every cell checked.

    ``rater`` names the rater of a TREC qrels file or of a file without a rater column; a run
    is named ``run_name``, else by its TREC tag, else by the file name without extension.
    Opening the file checks that it is UTF-8 text; reading it may raise ImportFileError for
    a file it cannot read past (not CSV or JSON, TREC lines with too few fields, a missing
    column). ``finish`` gives everything else found.
    """

    def __init__(
        self,
        path: Path,
        kind: str,
        *,
        rater: str | None = None,
        run_name: str | None = None,
        records: RecordFile | None = None,
        grade_map: GradeMap | None = None,
    ) -> None:
        self.path = Path(path)
        self.kind = kind
        self.foreign = foreign = records is not None
        self.trec = not foreign and file_format(self.path) == "trec"
        self.trec = self.trec and kind in ("results", "judgments")
        self.layout = _LAYOUTS[(kind, self.trec)]
        if records is None:
            records = open_records(self.path, self.layout.required if self.trec else None)
        self.records = records
        if kind == "judgments" and (self.trec or records.names_no_rater) and not rater:
            what = "TREC qrels name" if self.trec else "this format names"
            reason = f"{what} no rater: give the rater's name (--rater; in the window, Rater)"
            raise ImportFileError([Problem(str(self.path), None, None, reason)])
        self.rater = rater
        self.grade_map = grade_map if kind == "judgments" else None
        self.problems = FileProblems(str(self.path))
        self.rows = 0  # the records read so far
        self._run_name = run_name
        self._required = [n for n in self.layout.required if not (n == "rater" and rater)]
        self._columns: dict[str, str] = {}
        self._seen: dict[str, None] = {}
        self._tags: list[str] = []
        self._constants: dict[tuple[int, str], pd.Series] = {}  # columns the file lacks

    @property
    def keys(self) -> list[tuple[str, ...]]:
        """The columns whose values no two rows may share, each set on its own."""
        return self.layout.keys

    @property
    def run_name(self) -> str:
        first_tag = self._tags[0] if self._tags else None
        return self._run_name or first_tag or self.path.stem

    def chunks(self) -> Iterator[Chunk]:
        """The file's rows, a chunk at a time, checked (at least one chunk, perhaps empty)."""
        for records in self.records.chunks():
            frame = records.frame
            if self.kind in EXPORTED_KINDS and not (self.trec or self.foreign):
                frame = _restore_inert(frame)
            if self.rater and self.records.rater_fallback and "rater" in frame:
                frame = frame.assign(rater=frame["rater"].mask(frame["rater"] == "", self.rater))
            self._find_columns(list(frame.columns))
            checks = self._checks(frame)
            if self.records.may_hold_nul:
                checks = {name: refuse_nul(check) for name, check in checks.items()}
            named = {self.column(name): check for name, check in checks.items()}
            collect(named, records.first, self.problems)
            typed = pd.DataFrame({name: check.values for name, check in checks.items()})
            typed = typed.assign(**(self.layout.constants or {}))
            for name in {name for key in self.keys for name in key}:
                if checks[name].bad.any():
                    typed[name] = typed[name].mask(checks[name].bad)
            if self.trec and self.kind == "results":
                for tag in frame["tag"].unique()[:6]:
                    if tag not in self._tags and len(self._tags) < 6:
                        self._tags.append(str(tag))
            self.rows += len(typed)
            yield Chunk(typed, records.first, records.last_line)
        if not self.records.fixed_columns:
            self._refuse_missing_columns()

    def _checks(self, frame: pd.DataFrame) -> dict[str, Check]:
        """The layout's checks of a chunk's cells, grades through the grade map if any."""
        if self.grade_map is None:
            checks = self.layout.check(lambda name: self._cells(frame, name))
            if self.foreign and "grade" in checks:
                checks["grade"] = _hinted(checks["grade"])
            return checks
        grades = self._cells(frame, "grade")
        mapped, unmapped = self.grade_map.apply(grades)
        checks = self.layout.check(
            lambda name: mapped if name == "grade" else self._cells(frame, name)
        )
        checks["grade"] = self.grade_map.refuse_unmapped(checks["grade"], grades, unmapped)
        return checks

    def column(self, name: str) -> str:
        """The file's name of our column ``name`` (``name`` itself where the file lacks it)."""
        return self.records.labels.get(name) or self._columns.get(name, name)

    def add_repeat(
        self, position: int, first: int, key: tuple[str, ...], values: tuple[object, ...]
    ) -> None:
        """The row at ``position`` repeats the ``key`` ``values`` of the row at ``first``."""
        label = ", ".join(f"{name} {value}" for name, value in zip(key, values))
        self.problems.add_repeat(position, first, f"duplicate {self.layout.noun} ({label})")

    def finish(self) -> tuple[list[Problem], int]:
        """The problems found (up to 20, with their lines) and how many there are; call once
        every chunk was read and every repeat added."""
        if self.trec and self.kind == "results" and not self._run_name and len(self._tags) > 1:
            shown = ", ".join(map(shortened, self._tags[:5]))
            self.problems.add_whole("tag", f"several run tags ({shown}): name the run")
        return self.problems.resolved(self.records.lines, self.records.items)

    def _find_columns(self, columns: list[str]) -> None:
        """Map our column names to the file's, by name or alias, case-insensitively: from the
        header, or from the keys seen so far in a JSON Lines file."""
        if self._seen and self.records.fixed_columns:
            return
        self._seen.update(dict.fromkeys(columns))
        by_lower = {column.lower(): column for column in self._seen}
        for name in self.layout.required + self.layout.optional:
            if name in self._columns:
                continue
            for alias in ALIASES.get(name, (name,)):
                if alias in by_lower and by_lower[alias] not in self._columns.values():
                    self._columns[name] = by_lower[alias]
                    break
        if self.records.fixed_columns:
            self._refuse_missing_columns()

    def _refuse_missing_columns(self) -> None:
        missing = [name for name in self._required if name not in self._columns]
        if missing:
            header = shortened(", ".join(self._seen)) or "nothing"
            reason = "missing column '{}' (the header has: {})"
            raise ImportFileError(
                [Problem(str(self.path), None, n, reason.format(n, header)) for n in missing]
            )

    def _cells(self, frame: pd.DataFrame, name: str) -> pd.Series:
        """The file's cells of column ``name`` as strings: where the file lacks it, the rater
        given for ``rater``, else ""."""
        column = self._columns.get(name)
        if column in frame:
            return frame[column].astype("str")
        value = (self.rater if name == "rater" else None) or ""
        if (len(frame), value) not in self._constants:
            self._constants[(len(frame), value)] = _constant(frame, value)
        return self._constants[(len(frame), value)]


def read_judgments(path: Path, rater: str | None = None) -> pd.DataFrame:
    """A whole judgments file, checked (repeated keys too), for commands that hold it in
    memory: ``query_id, doc_id, rater, grade, skipped, note`` and the extra columns of our
    export (``judged_at, duration_ms, query_text, doc_title``). See ``_judgment_checks``."""
    return _read_whole(FileReader(path, "judgments", rater=rater))


def read_results(path: Path) -> pd.DataFrame:
    """A whole CSV, TSV or JSON Lines run, checked: ``query_id, doc_id, rank, score``."""
    return _read_whole(FileReader(path, "results"))


def _read_whole(reader: FileReader) -> pd.DataFrame:
    chunks = list(reader.chunks())
    frame = pd.concat([chunk.frame for chunk in chunks], ignore_index=True)  # row = position
    for key in reader.keys:
        values = frame[list(key)]
        for row, first in repeated_rows(frame, list(key)):
            reader.add_repeat(row, first, key, tuple(values.iloc[row]))
    problems, total = reader.finish()
    if total:
        raise ImportFileError(problems, total)
    return frame


# --- the checks of each kind of file ---------------------------------------------------------


def _query_checks(cells: Cells) -> dict[str, Check]:
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "text": check_text(cells("text"), required=True),
        "description": check_text(cells("description")),
    }


def _document_checks(cells: Cells) -> dict[str, Check]:
    checks = {"doc_id": check_id(cells("doc_id"), "document id")}
    for name in ("title", "url", "body"):
        checks[name] = check_text(cells(name))
    return checks


def _result_checks(cells: Cells) -> dict[str, Check]:
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_id": check_id(cells("doc_id"), "document id"),
        "rank": check_whole(cells("rank"), 1, None, "rank"),
        "score": check_score(cells("score")),
    }


def _trec_run_checks(cells: Cells) -> dict[str, Check]:
    """A TREC run's rank column is not used: the importer ranks as trec_eval orders (score
    descending, ties by document id descending); its tag may name the run."""
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_id": check_id(cells("doc_id"), "document id"),
        "score": check_score(cells("score")),
        "tag": check_text(cells("tag")),
    }


def _judgment_checks(cells: Cells) -> dict[str, Check]:
    """Judgments: ``query_id, doc_id, rater, grade[, note]`` and the extra columns of our
    export; ``rater`` names the rater of a file without a rater column. Text cells our export
    made inert (a leading ``'``) were restored before."""
    grade = check_grade(cells("grade"), optional=True)
    skipped = check_bool(cells("skipped"), "skipped")
    # a row must have a grade or be skipped, not both: checked with the grade, so that its
    # problems come in line order with the others and all of them are counted
    conflict = (grade.values.notna().to_numpy() | grade.bad) == skipped.values.to_numpy()
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_id": check_id(cells("doc_id"), "document id"),
        "rater": check_id(cells("rater"), "rater"),
        "grade": replace(grade, bad=grade.bad | conflict, reason=_judgment_grade_reason(grade)),
        "skipped": skipped,
        "note": check_text(cells("note")),
        "judged_at": check_timestamp(cells("judged_at")),
        "duration_ms": check_whole(cells("duration_ms"), 0, None, "duration_ms", optional=True),
        "query_text": check_text(cells("query_text")),
        "doc_title": check_text(cells("doc_title")),
    }


def _judgment_grade_reason(grade: Check) -> Callable[[str], str]:
    """Why a grade cell failed, where an empty cell or a good grade failed for ``skipped``."""

    def explain(cell: str) -> str:
        if not cell.strip():
            return "missing grade"
        if not check_grade(pd.Series([cell], dtype=object)).bad[0]:
            return "a skipped judgment has no grade"
        return grade.reason(cell)

    return explain


def _qrels_checks(cells: Cells) -> dict[str, Check]:
    """TREC qrels ``qid iteration docid grade``, all of one rater."""
    grade = check_grade(cells("grade"))
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_id": check_id(cells("doc_id"), "document id"),
        "rater": check_id(cells("rater"), "rater"),
        "grade": replace(
            grade, values=grade.values.astype("Int64"), reason=_qrels_grade_reason(grade)
        ),
    }


def _qrels_grade_reason(grade: Check) -> Callable[[str], str]:
    def explain(cell: str) -> str:
        text = grade.reason(cell)
        if cell.strip().startswith("-"):
            text += " (trec_eval's negative 'unjudged' grades are not judgments: leave them out)"
        return text

    return explain


def _gold_checks(cells: Cells) -> dict[str, Check]:
    """Gold items ``query_id, doc_id, grade``: a grade that failed its check is missing (NA),
    so that no made-up grade is compared with another row's."""
    grade = check_grade(cells("grade"))
    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_id": check_id(cells("doc_id"), "document id"),
        "grade": replace(grade, values=grade.values.astype("Int64").mask(grade.bad)),
    }


PREFERENCE_CHOICES = ("a", "b", "equal", "neither", "skipped")


def _preference_checks(cells: Cells) -> dict[str, Check]:
    """Preferences ``query_id, doc_a, doc_b, rater, choice`` (of document a against b: ``a``,
    ``b``, ``equal``, ``neither`` or ``skipped``) and ``shown_left, note, judged_at,
    duration_ms``; that a row's documents differ and ``shown_left`` is one of them is checked
    by the importer, which sees the row whole."""
    given = cells("choice")
    choice = given.str.strip().str.lower()

    def reason(cell: str) -> str:
        return f"choice {quoted(cell.strip())} is not one of {', '.join(PREFERENCE_CHOICES)}"

    return {
        "query_id": check_id(cells("query_id"), "query id"),
        "doc_a": check_id(cells("doc_a"), "document id"),
        "doc_b": check_id(cells("doc_b"), "document id"),
        "rater": check_id(cells("rater"), "rater"),
        "choice": Check(
            choice, ~choice.isin(PREFERENCE_CHOICES).to_numpy(dtype=bool), reason, given
        ),
        "shown_left": check_text(cells("shown_left")),
        "note": check_text(cells("note")),
        "judged_at": check_timestamp(cells("judged_at")),
        "duration_ms": check_whole(cells("duration_ms"), 0, None, "duration_ms", optional=True),
    }


_LAYOUTS = {
    ("queries", False): _Layout("query", ["query_id", "text"], ["description"], [("query_id",)],
                                _query_checks),
    ("documents", False): _Layout("document", ["doc_id"], ["title", "url", "body"], [("doc_id",)],
                                  _document_checks),
    ("results", False): _Layout("result", ["query_id", "doc_id", "rank"], ["score"],
                                [("query_id", "rank"), ("query_id", "doc_id")], _result_checks),
    ("results", True): _Layout("result", RUN_FIELDS, [], [("query_id", "doc_id")],
                               _trec_run_checks),
    ("judgments", False): _Layout(
        "judgment", ["query_id", "doc_id", "grade", "rater"],
        ["note", "skipped", "judged_at", "duration_ms", "query_text", "doc_title"],
        [("query_id", "doc_id", "rater")], _judgment_checks,
    ),
    ("judgments", True): _Layout("judgment", QRELS_FIELDS, [], [("query_id", "doc_id")],
                                 _qrels_checks, {"skipped": False, "note": None}),
    ("gold", False): _Layout("gold item", ["query_id", "doc_id", "grade"], [],
                             [("query_id", "doc_id")], _gold_checks),
    ("preferences", False): _Layout(
        "preference", ["query_id", "doc_a", "doc_b", "rater", "choice"],
        ["shown_left", "note", "judged_at", "duration_ms"], [], _preference_checks,
    ),
}  # fmt: skip


def _hinted(grade: Check) -> Check:
    """A grade check of another tool's file, whose failed grades point to a grade map."""

    def explain(cell: str) -> str:
        reason = grade.reason(cell)
        if cell.strip() and not reason.startswith("a skipped"):
            reason += " (a grade map, --grade-map FROM=TO,…, turns the file's grades into 0–5)"
        return reason

    return replace(grade, reason=explain)


def _constant(frame: pd.DataFrame, value: str) -> pd.Series:
    return pd.Series(value, index=frame.index, dtype="str")


def _restore_inert(frame: pd.DataFrame) -> pd.DataFrame:
    """Undo ``exports.make_inert``: drop the ``'`` it put before a risky first character."""

    def restore(cells: pd.Series) -> pd.Series:
        quoted = cells.str.startswith("'")
        if not quoted.any():
            return cells
        escaped = quoted & cells.str[1:2].isin(INERT_PREFIXES)
        return cells.where(~escaped, cells.str[1:])

    return frame.apply(restore) if len(frame) else frame
