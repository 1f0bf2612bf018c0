"""Importing files into a database: all files checked first, then one transaction.

A problem in any file (or, with ``strict``, a query or document the database does not know)
raises ``ImportFileError`` before anything is written; a failure while writing rolls the
whole import back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from sqlalchemy.orm import Session

from judge_app.io import readers
from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, ProblemList
from judge_app.io.readers import Table
from judge_app.store import bulk
from judge_app.store.database import Database
from judge_app.store.models import Document, Query

# progress(step, done, total): step names what is being written
ImportProgress = Callable[[str, int, int], None]


@dataclass
class ImportSummary:
    """What an import wrote, one line per file, for the user."""

    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Inputs:
    """Checked files ready to be written; made by ``read_inputs``."""

    queries: Table | None = None
    documents: Table | None = None
    run: tuple[Table, str] | None = None
    judgments: Table | None = None


def read_inputs(
    *,
    queries: Path | None = None,
    documents: Path | None = None,
    run: Path | None = None,
    run_name: str | None = None,
    judgments: Path | None = None,
    rater: str | None = None,
) -> Inputs:
    """Read and check every file, raising one ImportFileError with the problems of all."""
    inputs = Inputs()
    problems = ProblemList()
    reads = {
        "queries": (queries, readers.read_queries),
        "documents": (documents, readers.read_documents),
        "run": (run, lambda path: readers.read_results(path, run_name)),
        "judgments": (judgments, lambda path: readers.read_judgments(path, rater)),
    }
    for name, (path, read) in reads.items():
        if path is None:
            continue
        try:
            setattr(inputs, name, read(Path(path)))
        except ImportFileError as error:
            for problem in error.problems:
                problems.add(problem)
            problems.total += error.total - len(error.problems)
    problems.raise_if_any()
    return inputs


def _check_known(session: Session, inputs: Inputs) -> None:
    """Under --strict: every query and document named must be in the database or the files."""
    problems = ProblemList()
    given_queries = set(inputs.queries.frame["query_id"]) if inputs.queries else set()
    given_documents = set(inputs.documents.frame["doc_id"]) if inputs.documents else set()
    tables = [inputs.run[0]] if inputs.run else []
    tables += [inputs.judgments] if inputs.judgments else []
    for table in tables:
        for key, model, given, noun in (
            ("query_id", Query, given_queries, "query"),
            ("doc_id", Document, given_documents, "document"),
        ):
            named = set(table.frame[key]) - given
            unknown = bulk.missing_ids(session, model, "external_id", named)
            if not unknown:
                continue
            rows = table.frame.index[table.frame[key].isin(unknown)]
            for row in rows[:MAX_PROBLEMS]:
                problems.add(
                    table.records.problem(
                        int(row), key, f"unknown {noun} {table.frame[key].iat[row]!r} (--strict)"
                    )
                )
            problems.total += max(len(rows) - MAX_PROBLEMS, 0)
    problems.raise_if_any()


def import_files(
    database: Database,
    *,
    strict: bool = False,
    progress: ImportProgress | None = None,
    **files: Path | str | None,
) -> ImportSummary:
    """Import any of the four kinds of file (keywords of ``read_inputs``), all or nothing."""
    return write_inputs(database, read_inputs(**files), strict=strict, progress=progress)


def write_inputs(
    database: Database,
    inputs: Inputs,
    *,
    strict: bool = False,
    progress: ImportProgress | None = None,
) -> ImportSummary:
    """Write checked files in one transaction; with ``strict``, unknown ids are refused."""
    summary = ImportSummary()

    def step(name: str) -> bulk.Progress | None:
        return (lambda done, total: progress(name, done, total)) if progress else None

    with database.transaction() as session:
        if strict:
            _check_known(session, inputs)
        if inputs.queries:
            count = bulk.upsert_queries(session, inputs.queries.frame)
            summary.lines.append(f"{inputs.queries.path}: {count} queries")
        if inputs.documents:
            count = bulk.upsert_documents(session, inputs.documents.frame)
            summary.lines.append(f"{inputs.documents.path}: {count} documents")
        if inputs.run:
            table, name = inputs.run
            bulk.replace_run(session, name, table.frame, progress=step("results"))
            queries_in_run = table.frame["query_id"].nunique()
            summary.lines.append(
                f"{table.path}: run {name!r}, {len(table)} results for {queries_in_run} queries"
            )
        if inputs.judgments:
            frame = inputs.judgments.frame
            counts = bulk.import_judgments(session, frame, progress=step("judgments"))
            _fill_texts(session, frame)
            summary.lines.append(
                f"{inputs.judgments.path}: {counts.added} judgments added, {counts.changed} "
                f"changed, {counts.unchanged} unchanged"
            )
    return summary


def _fill_texts(session: Session, frame: pd.DataFrame) -> None:
    """Give queries and documents created by a judgments export their text back."""
    for key, column, model, field_name in (
        ("query_id", "query_text", Query, "text"),
        ("doc_id", "doc_title", Document, "title"),
    ):
        if column in frame and frame[column].notna().any():
            pairs = frame[[key, column]].set_axis(["external_id", "value"], axis=1)
            bulk.fill_missing_texts(session, model, field_name, pairs)
