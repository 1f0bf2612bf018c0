"""Export a database's judgments (``judge-app export``, File ▸ Export…): every rater
judgment as CSV, or one grade per (query, document) as TREC qrels, the raters' grades
combined as the evaluation combines them. A file is written whole or not at all."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judge_app.commands.evaluate import aggregated
from judge_app.errors import UsageError
from judge_app.io.outputs import check_output
from judge_app.metrics.aggregation import parse_method

KINDS = ("judgments", "qrels")
Step = Callable[[str], None]
"""Told each step as it begins ("reading the judgments", …); it may raise to stop."""


@dataclass(frozen=True)
class ExportOptions:
    """What to write where: ``judgments`` CSV, or ``qrels`` with the raters' grades
    combined by ``aggregate`` (a method or ``rater:NAME``), adjudicated grades preferred
    or left out."""

    kind: str
    path: Path
    aggregate: str = "mean"
    adjudicated: bool = True

    def checked(self) -> ExportOptions:
        """These options, or a usage error; an ExportError if ``path`` cannot be written."""
        if self.kind not in KINDS:
            raise UsageError(f"export {', '.join(KINDS)}, not {self.kind}")
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        check_output(self.path)
        return self


def export(db: str, options: ExportOptions, step: Step | None = None) -> str:
    """Write what ``options`` ask from the database ``db``; what was written, in words."""
    from judge_app.io.exports import write_judgments_csv, write_qrels
    from judge_app.store import open_database, reads

    options.checked()  # before the database is read
    step = step or (lambda _name: None)
    step("reading the judgments")
    with open_database(db, read_only=True) as database, database.reading() as session:
        if options.kind == "judgments":
            judgments = reads.judgments_frame(session)
        else:
            judgments = reads.grades_frame(session)  # all a qrels needs: the graded ones
    if options.kind == "judgments":
        step("writing")
        count = write_judgments_csv(judgments, options.path)
        return f"{options.path}: {count:,} judgments"
    step("combining the grades")
    grades = aggregated(judgments, options.aggregate, db, options.adjudicated)
    step("writing")
    count = write_qrels(grades, options.path)
    return f"{options.path}: {count:,} graded pairs ({parse_method(options.aggregate)})"
