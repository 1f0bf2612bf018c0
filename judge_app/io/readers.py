"""Readers of the input files (DESIGN section 7): every row checked before anything is written.

Each reader returns a ``Table``: a typed DataFrame and the records it came from, so a later
check (an unknown query under ``--strict``, say) can still name the line. A file with any
problem raises ``ImportFileError`` listing up to 20 of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.io.errors import ProblemList
from judge_app.io.records import Records, file_format, read_records, read_whitespace
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
    report_duplicates,
)

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


@dataclass(frozen=True)
class Table:
    """Checked rows of one file: ``frame`` is typed; row i came from ``records`` row i."""

    records: Records
    frame: pd.DataFrame

    @property
    def path(self) -> Path:
        return self.records.path

    def __len__(self) -> int:
        return len(self.frame)


def _find_columns(
    records: Records, required: list[str], optional: list[str], problems: ProblemList
) -> dict[str, str]:
    """Map our column names to the file's, by name or alias, case-insensitively."""
    by_lower = {column.lower(): column for column in records.frame.columns}
    found: dict[str, str] = {}
    for name in required + optional:
        for alias in ALIASES.get(name, (name,)):
            if alias in by_lower and by_lower[alias] not in found.values():
                found[name] = by_lower[alias]
                break
    missing = [name for name in required if name not in found]
    if missing:
        header = ", ".join(records.frame.columns) or "nothing"
        for name in missing:
            problems.add(
                records.problem(None, name, f"missing column '{name}' (the header has: {header})")
            )
        problems.raise_if_any()
    return found


def _cells(records: Records, columns: dict[str, str], name: str) -> pd.Series:
    """The file's cells of column ``name`` as strings ("" everywhere if the file lacks it)."""
    if name in columns:
        return records.frame[columns[name]].astype("str")
    return _constant(records, "")


def read_queries(path: Path) -> Table:
    """Queries: ``query_id,text[,description]`` as CSV, TSV or JSONL."""
    records = read_records(path)
    problems = ProblemList()
    columns = _find_columns(records, ["query_id", "text"], ["description"], problems)
    checks = {
        "query_id": check_id(_cells(records, columns, "query_id"), "query id"),
        "text": check_text(_cells(records, columns, "text"), required=True),
        "description": check_text(_cells(records, columns, "description")),
    }
    return _finish(records, columns, checks, problems, [("query_id",)], "query")


def read_documents(path: Path) -> Table:
    """Documents: ``doc_id[,title,url,body]`` as CSV, TSV or JSONL."""
    records = read_records(path)
    problems = ProblemList()
    columns = _find_columns(records, ["doc_id"], ["title", "url", "body"], problems)
    checks = {"doc_id": check_id(_cells(records, columns, "doc_id"), "document id")}
    for name in ("title", "url", "body"):
        checks[name] = check_text(_cells(records, columns, name))
    return _finish(records, columns, checks, problems, [("doc_id",)], "document")


def read_results(path: Path, run_name: str | None = None) -> tuple[Table, str]:
    """A run: CSV/TSV/JSONL ``query_id,doc_id,rank[,score]``, or a TREC run file.

    A TREC run is ordered as trec_eval orders it (score descending, ties by document id
    descending) and ranked 1, 2, … per query; its rank column is not used. The run's name is
    ``run_name``, else the TREC tag, else the file name without extension.
    """
    if file_format(path) == "trec":
        return _read_trec_run(path, run_name)
    records = read_records(path)
    problems = ProblemList()
    columns = _find_columns(records, ["query_id", "doc_id", "rank"], ["score"], problems)
    checks = {
        "query_id": check_id(_cells(records, columns, "query_id"), "query id"),
        "doc_id": check_id(_cells(records, columns, "doc_id"), "document id"),
        "rank": check_whole(_cells(records, columns, "rank"), 1, None, "rank"),
        "score": check_score(_cells(records, columns, "score")),
    }
    keys = [("query_id", "rank"), ("query_id", "doc_id")]
    table = _finish(records, columns, checks, problems, keys, "result")
    return table, run_name or path.stem


def _read_trec_run(path: Path, run_name: str | None) -> tuple[Table, str]:
    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
    records = read_whitespace(path, 6, names)
    problems = ProblemList()
    checks = {
        "query_id": check_id(records.frame["query_id"], "query id"),
        "doc_id": check_id(records.frame["doc_id"], "document id"),
        "score": check_score(records.frame["score"]),
    }
    tags = records.frame["tag"].unique()
    if run_name is None and len(tags) > 1:
        shown = ", ".join(map(str, tags[:5]))
        problems.add(records.problem(None, "tag", f"several run tags ({shown}): name the run"))
    columns = {name: name for name in names}
    table = _finish(records, columns, checks, problems, [("query_id", "doc_id")], "result")
    frame = table.frame.assign(_row=np.arange(len(table.frame)))
    frame = frame.sort_values(
        ["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable"
    )
    frame["rank"] = frame.groupby("query_id", sort=False).cumcount() + 1
    frame = frame.sort_values("_row").drop(columns="_row")
    name = run_name or (str(tags[0]) if len(tags) else path.stem)  # no tag in an empty run
    return Table(records, frame[["query_id", "doc_id", "rank", "score"]]), name


def read_judgments(path: Path, rater: str | None = None) -> Table:
    """Judgments: CSV/TSV/JSONL ``query_id,doc_id,rater,grade[,note]`` (and the extra columns
    of our export: ``skipped, judged_at, duration_ms, query_text, doc_title``), or TREC qrels
    ``qid 0 docid grade``. ``rater`` names the rater of a qrels file or of a file without a
    rater column. Text cells our export made inert (a leading ``'``) are restored.
    """
    if file_format(path) == "trec":
        return _read_qrels(path, rater)
    records = read_records(path)
    records.frame = _restore_inert(records.frame)
    problems = ProblemList()
    required = ["query_id", "doc_id", "grade"] + ([] if rater else ["rater"])
    optional = ["rater", "note", "skipped", "judged_at", "duration_ms", "query_text", "doc_title"]
    columns = _find_columns(records, required, optional, problems)
    raters = _cells(records, columns, "rater") if "rater" in columns else _constant(records, rater)
    grade = check_grade(_cells(records, columns, "grade"), optional=True)
    skipped = check_bool(_cells(records, columns, "skipped"), "skipped")
    # a row must have a grade or be skipped, not both: checked with the grade, so that its
    # problems come in line order with the others and all of them are counted
    conflict = (grade.values.notna().to_numpy() | grade.bad) == skipped.values.to_numpy()
    checks = {
        "query_id": check_id(_cells(records, columns, "query_id"), "query id"),
        "doc_id": check_id(_cells(records, columns, "doc_id"), "document id"),
        "rater": check_id(raters, "rater"),
        "grade": Check(grade.values, grade.bad | conflict, _judgment_grade_reason(grade.reason)),
        "skipped": skipped,
        "note": check_text(_cells(records, columns, "note")),
        "judged_at": check_timestamp(_cells(records, columns, "judged_at")),
        "duration_ms": check_whole(
            _cells(records, columns, "duration_ms"), 0, None, "duration_ms", optional=True
        ),
        "query_text": check_text(_cells(records, columns, "query_text")),
        "doc_title": check_text(_cells(records, columns, "doc_title")),
    }
    key = [("query_id", "doc_id", "rater")]
    return _finish(records, columns, checks, problems, key, "judgment")


def _judgment_grade_reason(reason: Callable[[str], str]) -> Callable[[str], str]:
    """Why a grade cell failed, where an empty cell or a good grade failed for ``skipped``."""

    def explain(cell: str) -> str:
        if not cell.strip():
            return "missing grade"
        if not check_grade(pd.Series([cell], dtype=object)).bad[0]:
            return "a skipped judgment has no grade"
        return reason(cell)

    return explain


def _read_qrels(path: Path, rater: str | None) -> Table:
    names = ["query_id", "iteration", "doc_id", "grade"]
    records = read_whitespace(path, 4, names)
    problems = ProblemList()
    if not rater:
        problems.add(records.problem(None, None, "TREC qrels name no rater: give the rater's name"))
        problems.raise_if_any()
    grade = check_grade(records.frame["grade"])
    checks = {
        "query_id": check_id(records.frame["query_id"], "query id"),
        "doc_id": check_id(records.frame["doc_id"], "document id"),
        "rater": check_id(_constant(records, rater), "rater"),
        "grade": Check(grade.values, grade.bad, _qrels_grade_reason(grade.reason)),
    }
    columns = {name: name for name in names}
    table = _finish(records, columns, checks, problems, [("query_id", "doc_id")], "judgment")
    frame = table.frame.assign(grade=table.frame["grade"].astype("Int64"), skipped=False, note=None)
    return Table(records, frame)


def _qrels_grade_reason(reason: Callable[[str], str]) -> Callable[[str], str]:
    def explain(cell: str) -> str:
        text = reason(cell)
        if cell.strip().startswith("-"):
            text += " (trec_eval's negative 'unjudged' grades are not judgments: leave them out)"
        return text

    return explain


def _constant(records: Records, value: str | None) -> pd.Series:
    return pd.Series(value or "", index=records.frame.index, dtype="str")


def _restore_inert(frame: pd.DataFrame) -> pd.DataFrame:
    """Undo ``exports.make_inert``: drop the ``'`` it put before a risky first character."""

    def restore(cells: pd.Series) -> pd.Series:
        escaped = cells.str.startswith("'") & cells.str[1:2].isin(INERT_PREFIXES)
        return cells.where(~escaped, cells.str[1:]) if escaped.any() else cells

    return frame.apply(restore) if len(frame) else frame


def _finish(
    records: Records,
    columns: dict[str, str],
    checks: dict[str, Check],
    problems: ProblemList,
    keys: list[tuple[str, ...]],
    noun: str,
) -> Table:
    """Report failed cells and repeated keys, or return the typed table."""
    collect(records, {columns.get(name, name): check for name, check in checks.items()}, problems)
    frame = pd.DataFrame({name: check.values for name, check in checks.items()})
    for key in keys:
        # a row whose key cell failed its check holds a placeholder there, not a repeat
        unreadable = np.logical_or.reduce([checks[name].bad for name in key])
        report_duplicates(records, frame, list(key), noun, problems, skip=unreadable)
    problems.raise_if_any()
    return Table(records, frame)
