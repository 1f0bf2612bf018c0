"""Import queries, documents, a run and judgments (``judge-app import``, File ▸ Import…):
every file read, checked and written a chunk at a time in one transaction, so that a
problem anywhere changes nothing (``store.imports``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge_app.errors import UsageError
from judge_app.store.imports import ImportProgress, database_for_import, read_inputs, write_inputs


@dataclass(frozen=True)
class ImportOptions:
    """The files of one import (any of the four) and how to read them: the run's name, the
    rater of a qrels file, and whether ids the database does not know are refused."""

    queries: Path | None = None
    documents: Path | None = None
    run: Path | None = None
    run_name: str | None = None
    judgments: Path | None = None
    rater: str | None = None
    strict: bool = False

    @property
    def files(self) -> list[Path]:
        return [path for path in (self.queries, self.documents, self.run, self.judgments) if path]

    def checked(self) -> ImportOptions:
        """These options, or a usage error."""
        if not self.files:
            raise UsageError("give at least one of --queries, --documents, --run, --judgments")
        return self


def import_files(db: str, options: ImportOptions, progress: ImportProgress | None = None) -> str:
    """Import the files into the database ``db`` (a SQLite file it creates is removed again
    if the import fails); one line per file of what was written."""
    options.checked()
    inputs = read_inputs(
        queries=options.queries,
        documents=options.documents,
        run=options.run,
        run_name=options.run_name,
        judgments=options.judgments,
        rater=options.rater,
    )
    with database_for_import(db) as database:
        return str(write_inputs(database, inputs, strict=options.strict, progress=progress))
