"""Export a database's judgments (``judge-app export``, File ▸ Export…): every rater
judgment as CSV, one grade per (query, document) as TREC qrels, the raters' grades combined
as the evaluation combines them, the history of every judgment as CSV, each change with
the login that made it, or the campaign in another tool's format (``io.exchange``). A file
is written whole or not at all."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import UsageError
from judge_app.io.exchange.format_names import FORMAT_NAMES
from judge_app.io.exports import ById, format_grade, write_qrels
from judge_app.io.outputs import check_output
from judge_app.metrics.aggregation import ADJUDICATED, aggregate_codes, parse_method

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.store import Database
    from judge_app.store.rows import Names

KINDS = ("judgments", "qrels", "history", "format")
Step = Callable[[str], None]
"""Told each step as it begins ("reading the judgments", …); it may raise to stop."""


@dataclass(frozen=True)
class ExportOptions:
    """What to write where: ``judgments`` CSV, ``qrels`` with the raters' grades combined
    by ``aggregate`` (a method or ``rater:NAME``), adjudicated grades preferred or left out,
    the ``history`` CSV, or another tool's ``format`` (named by ``format``; its grades of a
    pair, where it holds one, combined as the qrels')."""

    kind: str
    path: Path
    aggregate: str = "mean"
    adjudicated: bool = True
    format: str | None = None

    def checked(self) -> ExportOptions:
        """These options, or a usage error; an ExportError if ``path`` cannot be written."""
        if self.kind not in KINDS:
            raise UsageError(f"export {', '.join(KINDS)}, not {self.kind}")
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        if self.kind == "format":
            from judge_app.io.exchange.formats import named

            if not self.format:
                raise UsageError("--to needs --format: " + ", ".join(FORMAT_NAMES))
            if named(self.format).folder:
                return self  # a folder: checked by its writer
        elif self.format:
            raise UsageError("--format is for --to")
        check_output(self.path)
        return self


@dataclass(frozen=True)
class Exported:
    """What an export wrote: the file, its ``count`` of rows and what they are."""

    path: Path
    count: int
    rows: str  # "judgments", "changes of judgments", "graded pairs (mean)"
    not_written: tuple[tuple[str, int], ...] = ()  # what the format could not hold, counted

    def __str__(self) -> str:
        text = f"{self.path}: {self.count:,} {self.rows}"
        if self.not_written:
            text += "; not written: " + ", ".join(f"{what} ({n})" for what, n in self.not_written)
        return text


def export(
    database: Database | str, options: ExportOptions, *, step: Step | None = None
) -> Exported:
    """Write what ``options`` ask from ``database`` (an open one, or a path or URL, opened
    read-only). Judgments stream from the database to the file a chunk at a time; qrels are
    combined from the graded judgments' integer keys."""
    from judge_app.io.exports import write_history_csv, write_judgments_csv
    from judge_app.store import rows
    from judge_app.store.database import opened

    options.checked()  # before the database is read
    step = step or (lambda _name: None)
    step("reading the judgments")
    with opened(database, read_only=True) as found, found.reading() as session:
        db = database if isinstance(database, str) else found.describe()
        if options.kind == "history":
            step("writing")
            count = write_history_csv(rows.history_in_order(session), options.path)
            return Exported(options.path, count, "changes of judgments")
        if options.kind == "judgments":
            step("writing")
            count = write_judgments_csv(rows.judgments_in_order(session), options.path)
            return Exported(options.path, count, "judgments")
        keys = rows.graded_keys(session)  # all a qrels needs: the graded ones
        queries = rows.names(session, "query", "external_id", ordered=True)
        documents = rows.names(session, "document", "external_id", ordered=True)
        raters = rows.names(session, "rater", "name").by_id
        if options.kind == "format":
            step("combining the grades")
            combined = _grades(keys, queries, documents, raters, options, db)
            return _export_format(session, options, db, combined, step)
    step("combining the grades")
    method = parse_method(options.aggregate)
    query, document, rater, grade = keys
    width = len(documents.ordered_ids)  # a pair's code: its query's place, then its document's
    pairs = queries.place[query] * width + documents.place[document]
    pairs, grades = _combined(pairs, rater, grade, raters, method, options.adjudicated, db)
    query_ids, doc_ids = (np.array(ids.in_order(), dtype=object) for ids in (queries, documents))
    values, which = np.unique(grades, return_inverse=True)  # few: format each once
    texts = np.array([format_grade(value) for value in values.tolist()], dtype=object)
    step("writing")
    count = write_qrels(
        query_ids[pairs // width].tolist(),
        doc_ids[pairs % width].tolist(),
        texts[which].tolist(),
        options.path,
    )
    return Exported(options.path, count, f"graded pairs ({method})")


def _grades(
    keys: tuple[np.ndarray, ...],
    queries: Names,
    documents: Names,
    raters: ById,
    options: ExportOptions,
    db: str,
) -> list[tuple[str, str, float]]:
    """``(query id, document id, grade)`` of every graded pair, as the qrels combine them."""
    method = parse_method(options.aggregate)
    query, document, rater, grade = keys
    width = len(documents.ordered_ids)
    pairs = queries.place[query] * width + documents.place[document]
    pairs, grades = _combined(pairs, rater, grade, raters, method, options.adjudicated, db)
    query_ids, doc_ids = (np.array(ids.in_order(), dtype=object) for ids in (queries, documents))
    return list(
        zip(query_ids[pairs // width].tolist(), doc_ids[pairs % width].tolist(), grades.tolist())
    )


def _export_format(
    session: Session,
    options: ExportOptions,
    db: str,
    grades: list[tuple[str, str, float]],
    step: Step,
) -> Exported:
    """The campaign written in ``options.format``."""
    from judge_app.io.exchange.formats import named
    from judge_app.store.exchange_rows import campaign_of

    campaign = campaign_of(session, Path(db).stem or "judge_app", options.aggregate, grades)
    step("writing")
    assert options.format is not None
    written = named(options.format).write(campaign, options.path)
    lost = tuple(sorted(written.not_written.items()))
    return Exported(options.path, written.count, written.rows, lost)


def _combined(
    pairs: np.ndarray,
    rater: np.ndarray,
    grade: np.ndarray,
    raters: ById,
    method: str,
    prefer_adjudicated: bool,
    db: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair code of the graded judgments once, ascending, and its grade by ``method``;
    a usage error if the one rater asked for has no grade."""
    if not method.startswith("rater:"):
        adjudicated = _id_of(raters, ADJUDICATED)
        return aggregate_codes(pairs, rater, grade, method, adjudicated, prefer_adjudicated)
    name = method[len("rater:") :]
    graded = {raters[code] for code in np.unique(rater).tolist()}
    if name not in graded:
        from judge_app.options import check_known

        check_known([name], [rater for rater in graded if rater is not None], "rater",
                    "aggregate", db)  # fmt: skip
    mine = rater == _id_of(raters, name)
    order = np.argsort(pairs[mine])
    return pairs[mine][order], grade[mine][order].astype(np.float64)


def _id_of(raters: ById, name: str) -> int:
    """The id of the rater ``name``, -1 if there is none."""
    named = raters.items() if isinstance(raters, dict) else enumerate(raters)
    return next((key for key, known in named if known == name), -1)
