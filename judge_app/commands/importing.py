"""Import queries, documents, a run and judgments (``judge-app import``, File ▸ Import…):
each file read, checked and written a chunk at a time, all of them in one transaction.

The memory an import takes grows with the distinct query, document and rater ids it names,
and by a few integers a row: a chunk (``records.CHUNK_ROWS`` rows at most) is checked and
written into the import's transaction (judgments straight into their table, a run's results
into a TEMP table they are written from at the end: ``store.bulk``, ``store.bulk_judgments``),
and the integer keys of its rows are logged, to find keys repeated anywhere in a file by
sorting them (``store.repeated_keys.KeyLog``). Once a file has a problem its rows are read and
checked but no longer written. A problem in any file (or, with ``strict``, a query or document
the database does not know) raises ``ImportFileError`` and rolls the whole import back:
nothing is ever committed half-way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from sqlalchemy.orm import Session

from judge_app.errors import UsageError, quoted
from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, ProblemList, nothing_in
from judge_app.io.exchange import formats
from judge_app.io.grade_maps import GradeMap
from judge_app.io.readers import Chunk, FileReader
from judge_app.names import ADJUDICATED, is_role, name_key, rater_key, similar_reason
from judge_app.store import bulk
from judge_app.store.bulk_judgments import JudgmentWriter
from judge_app.store.database import Database, opened
from judge_app.store.errors import StoreError
from judge_app.store.models import AUTOMATIC, Document, Query, Rater
from judge_app.store.people import rater_kinds
from judge_app.store.query_texts import query_ids_of_texts, texts_clash
from judge_app.store.repeated_keys import KeyLog

# progress(step, done, total): step names what is being written, done and total count lines
ImportProgress = Callable[[str, int, int], None]
# the table that holds the ids of a file's key columns (None: the value is its own key)
KEY_MODELS: dict[str, bulk.NamedModel | None] = {
    "query_id": Query,
    "doc_id": Document,
    "rater": Rater,
    "rank": None,
}


@dataclass(frozen=True)
class ImportOptions:
    """The files of one import (any of the four, and another tool's file or folder,
    ``source``) and how to read them: the run's name, the rater of a qrels file (or of a
    format without raters), whether ids the database does not know are refused, the
    source's ``format`` (recognised by its shape when None) and its ``grade_map``."""

    queries: Path | None = None
    documents: Path | None = None
    run: Path | None = None
    run_name: str | None = None
    judgments: Path | None = None
    rater: str | None = None
    strict: bool = False
    source: Path | None = None
    format: str | None = None
    grade_map: str | None = None

    @property
    def files(self) -> list[Path]:
        paths = (self.queries, self.documents, self.run, self.judgments, self.source)
        return [path for path in paths if path]

    def checked(self) -> ImportOptions:
        """These options, or a usage error."""
        if not self.files:
            raise UsageError(
                "give at least one of --queries, --documents, --run, --judgments, --from"
            )
        if (self.format or self.grade_map) and not self.source:
            raise UsageError("--format and --grade-map are for the file given with --from")
        if self.format:
            formats.named(self.format)
        if self.grade_map:
            GradeMap.parse(self.grade_map)
        return self

    def source_format(self) -> formats.Format:
        """The format of ``source``: the one named, else the one its shape tells."""
        assert self.source is not None
        return formats.named(self.format) if self.format else formats.recognised(self.source)


@dataclass
class ImportSummary:
    """What an import wrote, one line per file, for the user."""

    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.lines)


def import_files(
    database: Database | str,
    options: ImportOptions,
    *,
    progress: ImportProgress | None = None,
) -> ImportSummary:
    """Import the files of ``options`` into ``database`` (an open one, or a path or URL: a
    SQLite file it creates is removed again if the import fails), all or nothing: the files
    are read, checked and written in one transaction; with ``strict``, unknown ids are
    refused. A problem anywhere raises ImportFileError with those of every file (up to 20
    listed, all counted) and writes nothing."""
    readers = _readers(options.checked())  # every file opened before the database is
    summary = ImportSummary()
    with (
        opened(database, create=True) as found,
        found.transaction() as session,
        bulk.import_cache(session),
    ):
        strict = options.strict
        work = _Import(session, bulk.IdCache(session, strict=strict), strict, progress)
        for kind, reader in readers:
            try:
                line = _WRITERS[kind](work, reader)
                problems, total = reader.finish()
            except ImportFileError as error:  # a file it could not read past
                line, problems, total = None, error.problems, error.total
            work.problems.merge(problems, total)
            if line and not total:
                summary.lines.append(line + _not_kept(reader))
            work.report(_HOLDS[kind], reader.records.line_count, reader)
        work.problems.raise_if_any()
    return summary


def recognised_format(path: Path) -> str:
    """The title of the format another tool's file (or folder) at ``path`` has, told by its
    shape; ImportFileError saying what was expected if none fits."""
    return formats.recognised(path).title


def _not_kept(reader: FileReader) -> str:
    """What of another tool's file was not imported, counted: never dropped silently."""
    counts = reader.records.not_kept
    if not counts:
        return ""
    return "; not kept: " + ", ".join(f"{what} ({count})" for what, count in sorted(counts.items()))


def _readers(options: ImportOptions) -> list[tuple[str, FileReader]]:
    """A reader of every file, with its kind (queries, documents, run, judgments), in order
    (another tool's file last, a reader per kind it holds); one ImportFileError with the
    problems of all those that cannot be read (not found, not UTF-8 text, empty, TREC qrels
    without a rater, a file of no format judge_app recognises)."""
    problems = ProblemList()
    readers = []
    for kind, path in (
        ("queries", options.queries),
        ("documents", options.documents),
        ("run", options.run),
        ("judgments", options.judgments),
    ):
        if path is None:
            continue
        rater = options.rater if kind == "judgments" else None
        run_name = options.run_name if kind == "run" else None
        try:
            reader = FileReader(Path(path), _HOLDS[kind], rater=rater, run_name=run_name)
            readers.append((kind, reader))
        except ImportFileError as error:
            problems.merge(error.problems, error.total)
    if options.source is not None:
        try:
            readers += _source_readers(options)
        except ImportFileError as error:
            problems.merge(error.problems, error.total)
    problems.raise_if_any()
    return readers


def _source_readers(options: ImportOptions) -> list[tuple[str, FileReader]]:
    """A reader of each kind of record another tool's file (or folder) holds."""
    assert options.source is not None
    grade_map = GradeMap.parse(options.grade_map) if options.grade_map else None
    readers = []
    for kind, records in options.source_format().sources(Path(options.source)):
        reader = FileReader(
            records.path, kind, rater=options.rater, records=records, grade_map=grade_map
        )
        readers.append(("run" if kind == "results" else kind, reader))
    return readers


@dataclass
class _Import:
    """What the writers of the files of one import share."""

    session: Session
    ids: bulk.IdCache
    strict: bool
    progress: ImportProgress | None
    problems: ProblemList = field(default_factory=ProblemList)
    filled: dict[type, set[str]] = field(default_factory=lambda: {Query: set(), Document: set()})
    raters: dict[str, str] = field(default_factory=dict)  # a name as written → the rater's
    rater_keys: dict[str, str] = field(default_factory=dict)  # rater_key → the rater's name
    similar_keys: dict[str, str] = field(default_factory=dict)  # name_key → the first name
    automatic: set[str] = field(default_factory=set)  # the automatic judges' names
    by_text: dict[str, str | None] = field(default_factory=dict)  # a query text → its id

    def __post_init__(self) -> None:
        for name, kind in rater_kinds(self.session):
            if kind == AUTOMATIC:
                self.automatic.add(name)  # refused by ``_rater_of``, even written exactly
            else:
                self.raters[name] = name
            self.rater_keys.setdefault(rater_key(name), name)
            self.similar_keys.setdefault(name_key(name), name)

    def refused(self, reader: FileReader) -> bool:
        """Whether the import is refused already: its writes are then left out."""
        return bool(self.problems.total or reader.problems.total)

    def report(self, step: str, done: int, reader: FileReader) -> None:
        if self.progress:
            total = reader.records.line_count
            self.progress(step, min(done, total), total)

    def query_ids(self, reader: FileReader, chunk: Chunk) -> Chunk:
        """``chunk`` with its query ids as the database knows them, where the file names
        queries by their text: a text is the id of the database's query of that exact text,
        else (new to the database) the id of a new query. A problem where several queries
        have the text, or where the text is the id of a query whose text differs."""
        if not reader.records.queries_by_text:
            return chunk
        texts = chunk.frame["query_id"]
        new = [text for text in texts.dropna().unique().tolist() if text not in self.by_text]
        if new:
            self.by_text.update(query_ids_of_texts(self.session, new))
        for row in np.flatnonzero(texts.map(self.by_text).isna() & texts.notna()):
            text = texts.iat[row]
            reason = f"{quoted(text)} is {texts_clash(self.session, text)}"
            reader.problems.add(chunk.first + int(row), reader.column("query_id"), reason)
        frame = chunk.frame.assign(query_id=texts.map(self.by_text).where(texts.notna(), None))
        return replace(chunk, frame=frame)

    def refuse_unknown(self, reader: FileReader, chunk: Chunk) -> None:
        """Under --strict: a problem for every row naming a query or document that is
        neither in the database nor in the import's queries or documents."""
        if not self.strict:
            return
        for key, model, noun in (("query_id", Query, "query"), ("doc_id", Document, "document")):
            if not self.ids.unknown[model]:
                continue
            values = chunk.frame[key]
            rows = np.flatnonzero(values.isin(self.ids.unknown[model]).to_numpy(dtype=bool))
            for row in rows[:MAX_PROBLEMS]:
                reason = f"unknown {noun} {quoted(values.iat[row])} (--strict)"
                reader.problems.add(chunk.first + int(row), key, reason)
            reader.problems.count(max(len(rows) - MAX_PROBLEMS, 0))

    def known_raters(self, reader: FileReader, chunk: Chunk) -> pd.Series:
        """The chunk's rater column, each name as the rater it names: the database's (or the
        first this import gave) written without case or extra spaces ("  Ben  " is "ben"),
        ``adjudicated`` for the lead's role however written. A problem for the first row of
        each name new to the database that differs from a known one only by the spaces
        between words: one person would become two raters."""
        column = chunk.frame["rater"]
        codes, names = pd.factorize(column)
        first_rows = dict(zip(*np.unique(codes, return_index=True)))
        for code, name in enumerate(names):
            if name not in self.raters:
                self.raters[name] = self._rater_of(
                    name, reader, chunk.first + int(first_rows[code])
                )
        rater_names = [self.raters[name] for name in names]
        if rater_names == list(names):
            return column
        return pd.Series(np.asarray(rater_names, dtype=object)[codes], index=column.index)

    def _rater_of(self, name: str, reader: FileReader, row: int) -> str:
        """The rater ``name`` (first written at ``row``) stands for."""
        if is_role(name):
            return ADJUDICATED
        known = self.rater_keys.setdefault(rater_key(name), name)
        if known in self.automatic:
            reason = (
                f"{quoted(known)} is an automatic judge: its grades are not imported as a person's"
            )
            reader.problems.add(row, reader.column("rater"), reason)
        if known == name:
            other = self.similar_keys.setdefault(name_key(name), name)
            if other != name:
                reader.problems.add(row, reader.column("rater"), similar_reason(name, other))
        return known

    def find_repeats(self, reader: FileReader, log: KeyLog) -> None:
        """A problem for every row whose key repeats an earlier row's."""
        for key in reader.keys:
            total, rows = log.repeats(key, MAX_PROBLEMS)
            for position, first, *values in rows:
                shown = tuple(
                    self.ids.name(model, value) if (model := KEY_MODELS[name]) else value
                    for name, value in zip(key, values)
                )
                reader.add_repeat(position, first, key, shown)
            reader.problems.count(total - len(rows))

    def fill_texts(self, chunk: Chunk) -> None:
        """Give queries and documents created by a judgments export their text back (the first
        text the file gives each, where the database has none)."""
        for key, column, model, text_field in (
            ("query_id", "query_text", Query, "text"),
            ("doc_id", "doc_title", Document, "title"),
        ):
            if column not in chunk.frame:
                continue
            pairs = chunk.frame[[key, column]].dropna()
            pairs = pairs[~pairs[key].isin(self.filled[model])].drop_duplicates(key)
            if len(pairs):
                ids, texts = self.ids.ids(model, pairs[key]).tolist(), pairs[column].tolist()
                bulk.fill_missing_texts(self.session, model, text_field, ids, texts)
                self.filled[model].update(pairs[key])


def _key_log(reader: FileReader) -> KeyLog:
    """A log of the key columns of ``reader``'s rows."""
    return KeyLog([name for key in reader.keys for name in key])


def _write_texts(
    work: _Import, reader: FileReader, model: type[Query | Document], noun: str
) -> str:
    """Queries or documents: each chunk's rows added or updated at once."""
    key, fields = reader.keys[0][0], reader.layout.required[1:] + reader.layout.optional
    log, count = _key_log(reader), 0
    for chunk in reader.chunks():
        chunk = work.query_ids(reader, chunk) if model is Query else chunk
        ids = work.ids.ids(model, chunk.frame[key], given=True)
        if reader.records.fills_only:
            _fill_texts(work, model, ids, chunk.frame, fields)
        else:
            bulk.update_texts(work.session, model, ids, chunk.frame, fields)
        log.add(chunk.first, {key: ids})
        count += len(chunk.frame)
        work.report(noun, chunk.lines_read, reader)
    work.find_repeats(reader, log)
    return f"{reader.path}: {count} {noun}" if count else _nothing_imported(reader, noun)


def _fill_texts(
    work: _Import,
    model: type[Query | Document],
    ids: pd.Series,
    frame: pd.DataFrame,
    fields: list[str],
) -> None:
    """Another tool's texts: each field set where the file has it and the database not."""
    for name in fields:
        given = frame[name].notna().to_numpy(dtype=bool) & ids.notna().to_numpy(dtype=bool)
        if given.any():
            values = frame[name][given].tolist()
            bulk.fill_missing_texts(work.session, model, name, ids[given].tolist(), values)


def _write_queries(work: _Import, reader: FileReader) -> str:
    return _write_texts(work, reader, Query, "queries")


def _write_documents(work: _Import, reader: FileReader) -> str:
    return _write_texts(work, reader, Document, "documents")


def _write_run(work: _Import, reader: FileReader) -> str | None:
    """A run's results staged, then written in place of the run's old ones (a TREC run ranked
    as trec_eval orders it)."""
    log = _key_log(reader)
    with bulk.staging_table(work.session, bulk.RESULT_STAGE) as stage:
        for chunk in reader.chunks():
            staged = bulk.stage_results(work.session, stage, work.ids, chunk.frame)
            keys = {"query_id": staged["query_id"], "doc_id": staged["document_id"]}
            log.add(chunk.first, keys | ({"rank": staged["rank"]} if "rank" in staged else {}))
            work.refuse_unknown(reader, chunk)
            work.report("results", chunk.lines_read, reader)
        work.find_repeats(reader, log)
        if not reader.rows:  # it would replace the run with nothing
            reader.problems.add_whole(None, nothing_in("results", "nothing was imported"))
        if work.refused(reader):
            return None
        name = reader.run_name
        results, queries = bulk.write_run(work.session, stage, name, ranked=not reader.trec)
    return f"{reader.path}: run {name!r}, {results} results for {queries} queries"


def _write_judgments(work: _Import, reader: FileReader) -> str | None:
    """Judgments written a chunk at a time, added to or merged into the stored ones (once a
    problem is found, the rest is only checked)."""
    log, writer = _key_log(reader), JudgmentWriter(work.session)
    for chunk in reader.chunks():
        chunk = work.query_ids(reader, chunk)
        frame = chunk.frame
        keys = {
            "rater": work.ids.ids(Rater, work.known_raters(reader, chunk)),
            "query_id": work.ids.ids(Query, frame["query_id"]),
            "doc_id": work.ids.ids(Document, frame["doc_id"]),
        }
        log.add(chunk.first, keys)
        work.refuse_unknown(reader, chunk)
        work.fill_texts(chunk)
        if not (work.refused(reader) or writer.clash):
            ids = {"query_id": keys["query_id"], "document_id": keys["doc_id"]}
            writer.write(frame, ids | {"rater_id": keys["rater"]})
        work.report("judgments", chunk.lines_read, reader)
    work.find_repeats(reader, log)
    if work.refused(reader):
        return None
    if writer.clash:  # a key written meanwhile by another program (the file repeats none)
        raise StoreError(
            f"{reader.path}: another program wrote some of these judgments during the import: "
            "nothing was imported; import the file again"
        )
    if not reader.rows:
        return _nothing_imported(reader, "judgments")
    counts = writer.counts
    return (
        f"{reader.path}: {counts.added} judgments added, {counts.changed} changed, "
        f"{counts.unchanged} unchanged"
    )


def _nothing_imported(reader: FileReader, noun: str) -> str:
    """The summary of a file without rows: adding or updating nothing, it is no error."""
    return f"{reader.path}: no {noun} in the file: nothing imported"


# what each file holds (its kind of reader, and the step its progress names)
_HOLDS = {name: name for name in ("queries", "documents", "judgments")} | {"run": "results"}
_WRITERS = {
    "queries": _write_queries,
    "documents": _write_documents,
    "run": _write_run,
    "judgments": _write_judgments,
}
