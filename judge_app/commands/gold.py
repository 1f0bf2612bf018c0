"""Gold items (``judge-app gold``, Lead ▸ Gold items…, the adjudication's Mark as gold): the
(query, document) pairs whose grade a lead knows. Raters judge them like any pair, and their
grades are later compared with the gold grade, which is nobody's judgment: nothing the
evaluation or agreement reads changes (``store.gold_items``).

One ``GoldOptions`` asks one thing: import a file, mark pairs, remove pairs, export the
items, or list them. A change is all or nothing: a pair raters could never see (an unknown
query or document, or a document no run retrieved for the query) is refused, with its line
in a file, and nothing is marked. A pair outside the pool (below the pool depth in every
pooled run) is marked with a warning: no rater sees it until the pool changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError, UsageError, quoted
from judge_app.io.errors import MAX_PROBLEMS
from judge_app.io.exports import csv_text, utc_text
from judge_app.io.gold_files import GOLD_COLUMNS, GoldFile, write_gold
from judge_app.io.outputs import check_output
from judge_app.names import normal_id
from judge_app.numbers import count_text
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.database import Database, opened
from judge_app.store.gold_items import (
    best_ranks,
    clear_gold,
    gold_frame,
    gold_grades,
    set_gold_items,
)
from judge_app.store.models import GRADE_MAX, GRADE_MIN
from judge_app.store.rater_queue import pool_settings
from judge_app.writers.tables import text_table

Pair = tuple[str, str]
"""A (query id, document id) pair, as the files and the user name them."""
Mark = tuple[str, str, int]
"""A pair and its gold grade."""
LIST_COLUMNS = ["query_id", "doc_id", "grade", "marked_at"]
OUTPUTS = ("table", "csv", "json")
SHOWN_PAIRS = 5
"""Pairs a warning or a refusal names before it says how many more there are."""


@dataclass(frozen=True)
class GoldOptions:
    """One thing to do with the gold items: import the file ``import_path``
    (``query_id,doc_id,grade`` with a header), ``mark`` pairs with grades, ``remove`` pairs,
    write them to ``export_path`` (a file ``import_path`` reads back); or, none of these
    given, list them."""

    import_path: Path | None = None
    mark: tuple[Mark, ...] = ()
    remove: tuple[Pair, ...] = ()
    export_path: Path | None = None

    @property
    def action(self) -> str:
        """``import``, ``mark``, ``remove``, ``export`` or ``list``."""
        return next((name for name, value in self._asked() if value), "list")

    def checked(self) -> GoldOptions:
        """These options, or a usage error; an ExportError if ``export_path`` cannot be
        written."""
        given = [f"--{name}" for name, value in self._asked() if value]
        if len(given) > 1:
            raise UsageError(f"give one of --import, --mark, --remove, --export: not {given[0]} "
                             f"and {given[1]}")  # fmt: skip
        for query_id, doc_id, grade in self.mark:
            if not GRADE_MIN <= grade <= GRADE_MAX:
                raise UsageError(f"{query_id}:{doc_id}={grade}: a grade is 0–5", "mark")
        _refuse_twice([mark[:2] for mark in self.mark], "mark")
        _refuse_twice(list(self.remove), "remove")
        if self.export_path is not None:
            if self.export_path.suffix.lower() != ".csv":
                raise UsageError(
                    f"writes CSV: name the file .csv, not {self.export_path}", "export"
                )
            check_output(self.export_path)
        return self

    def _asked(self) -> list[tuple[str, object]]:
        return [("import", self.import_path), ("mark", self.mark), ("remove", self.remove),
                ("export", self.export_path)]  # fmt: skip


@dataclass(frozen=True)
class GoldOutcome:
    """What a gold action did, in words (``summary``, and ``warnings`` about items no rater
    sees), and every gold item afterwards: ``query_id, doc_id, grade, marked_at,
    doc_title`` (``items``)."""

    summary: str
    warnings: tuple[str, ...]
    items: pd.DataFrame

    def __str__(self) -> str:
        return "\n".join([self.summary, *(f"warning: {text}" for text in self.warnings)])


def parse_pairs(text: str, option: str = "remove") -> tuple[Pair, ...]:
    """``"q1:d3, q2:d9"`` → pairs: each a query id, a colon, a document id (split at the first
    colon, so a document id may hold one), each id trimmed and in Unicode NFC."""
    pairs = []
    for part in text.split(","):
        if not part.strip():
            continue
        query_id, colon, doc_id = part.partition(":")
        if not colon or not normal_id(query_id) or not normal_id(doc_id):
            raise UsageError(f"{quoted(part.strip())}: write QUERY_ID:DOC_ID", option)
        pairs.append((normal_id(query_id), normal_id(doc_id)))
    if not pairs:
        raise UsageError("needs at least one pair: q1:d3,q2:d9", option)
    return tuple(pairs)


def parse_marks(text: str) -> tuple[Mark, ...]:
    """``"q1:d3=2,q2:d9=0"`` → pairs with their grades (split at the last ``=``)."""
    marks = []
    for part in text.split(","):
        if not part.strip():
            continue
        pair, equals, grade = part.rpartition("=")
        if not equals or not (grade.strip().isascii() and grade.strip().isdigit()):
            raise UsageError(f"{quoted(part.strip())}: write QUERY_ID:DOC_ID=GRADE", "mark")
        (query_id, doc_id), = parse_pairs(pair, "mark")  # fmt: skip
        marks.append((query_id, doc_id, int(grade)))
    if not marks:
        raise UsageError("needs at least one pair: q1:d3=2", "mark")
    return tuple(marks)


def gold(database: Database | str, options: GoldOptions) -> GoldOutcome:
    """Do what ``options`` ask on ``database`` (an open one, or a path or URL, opened
    read-only to list or export the gold items; a change in one unit of work)."""
    options.checked()
    with opened(database, read_only=options.action in ("list", "export")) as found:
        return _done(found, options)


def _done(database: Database, options: GoldOptions) -> GoldOutcome:
    """``gold`` on the open ``database``."""
    action = options.action
    if action == "import":
        assert options.import_path is not None
        return _import(database, GoldFile(options.import_path))
    if action == "mark":
        marks = pd.DataFrame(list(options.mark), columns=GOLD_COLUMNS)
        return database.write(lambda session: _marked(session, marks, None))
    if action == "remove":
        return database.write(lambda session: _removed(session, options.remove))
    with database.reading() as session:
        items = gold_frame(session, titles=True)
    count = count_text(len(items), "gold item")
    if action == "export":
        assert options.export_path is not None
        write_gold(items, options.export_path)
        return GoldOutcome(f"{options.export_path}: {count}", (), items)
    return GoldOutcome(count, (), items)


def as_text(outcome: GoldOutcome, output: str = "table") -> str:
    """The gold items as ``gold --list --format`` prints them: ``csv`` and ``json`` in full
    (``marked_at`` in UTC to the microsecond), ``table`` for people (to the second)."""
    if output not in OUTPUTS:
        raise UsageError(f"must be one of {', '.join(OUTPUTS)}", "format")
    items = outcome.items[LIST_COLUMNS]
    stamps = [utc_text(moment) for moment in items["marked_at"]]
    if output == "json":
        records = items.assign(marked_at=stamps).to_dict("records")
        return json.dumps([{**row, "grade": int(row["grade"])} for row in records],
                          ensure_ascii=False) + "\n"  # fmt: skip
    if output == "csv":
        return csv_text(items.assign(marked_at=stamps))
    if items.empty:
        return "no gold items\n"
    shown = items.assign(marked_at=[stamp[:19].replace("T", " ") for stamp in stamps])
    table = text_table(shown.rename(columns={"marked_at": "marked_at (UTC)"}).to_dict("records"))
    return f"{outcome.summary}\n\n{table}\n"


# the changes ----------------------------------------------------------------------------------


def _import(database: Database, file: GoldFile) -> GoldOutcome:
    """The file's items marked, or (ImportFileError) nothing marked."""
    if file.rows.empty:
        file.finish()
        with database.reading() as session:
            items = gold_frame(session, titles=True)
        return GoldOutcome(f"{file.path}: no gold items in the file: nothing marked", (), items)
    outcome = database.write(lambda session: _marked(session, file.rows, file))
    return GoldOutcome(f"{file.path}: {outcome.summary}", outcome.warnings, outcome.items)


def _marked(session: Session, rows: pd.DataFrame, file: GoldFile | None) -> GoldOutcome:
    """Mark ``rows`` (``query_id, doc_id, grade``; of ``file``, whose problems name their
    lines, or given by the user) gold; an error, and nothing marked, for a pair raters could
    never see."""
    placed = _placed(session, rows)
    known_query = placed["query"].notna()
    known_document = known_query & placed["document"].notna()
    refusals = (
        (
            placed["usable"] & ~known_query,
            "query_id",
            lambda row: f"unknown query {quoted(row.query_id)}",
        ),
        (
            known_query & ~known_document,
            "doc_id",
            lambda row: f"unknown document {quoted(row.doc_id)}",
        ),
        (
            known_document & placed["rank"].isna(),
            "doc_id",
            lambda row: (
                f"no run retrieved document {quoted(row.doc_id)} for query "
                f"{quoted(row.query_id)}: raters would never see it"
            ),
        ),
    )
    _refuse(file, placed, refusals)
    usable = placed[placed["usable"]].drop_duplicates(["query_id", "doc_id"])
    items = list(
        zip(usable["query"].tolist(), usable["document"].tolist(), usable["grade"].tolist())
    )
    known = gold_grades(session)
    before = [known.get((query, document)) for query, document, _grade in items]
    set_gold_items(session, items)
    new = sum(grade is None for grade in before)
    unchanged = sum(old == grade for old, (*_pair, grade) in zip(before, items))
    summary = (
        f"{count_text(len(items), 'gold item')} marked: {new:,} new, "
        f"{len(items) - new - unchanged:,} new grades for known items, {unchanged:,} unchanged"
    )
    depth = pool_settings(session).depth
    outside = usable[(usable["pooled_rank"].fillna(depth + 1) > depth).to_numpy(dtype=bool)]
    warnings: tuple[str, ...] = ()
    if len(outside):
        warnings = (
            f"{count_text(len(outside), 'gold item')} outside the pool (not in the top {depth} "
            f"of any pooled run): no rater sees {'it' if len(outside) == 1 else 'them'} until "
            f"the pool changes: {_pairs_text(outside)}",
        )
    return GoldOutcome(summary, warnings, gold_frame(session, titles=True))


Refusal = tuple[pd.Series, str, Callable[[pd.Series], str]]


def _refuse(file: GoldFile | None, placed: pd.DataFrame, refusals: tuple[Refusal, ...]) -> None:
    """Raise the problems: the file's (with their lines, and those of its cells), or the
    pairs given's."""
    if file is not None:
        for bad, column, reason in refusals:
            file.refuse(bad.to_numpy(dtype=bool), column, reason)
        file.finish()
        return
    reasons = [
        f"{row.query_id}:{row.doc_id}: {reason(row)}"
        for bad, _column, reason in refusals
        for _index, row in placed[bad.to_numpy(dtype=bool)].iterrows()
    ]
    if reasons:
        more = len(reasons) - MAX_PROBLEMS
        shown = reasons[:MAX_PROBLEMS] + ([f"… and {more} more problems"] if more > 0 else [])
        raise JudgeAppError("nothing was marked:\n" + "\n".join(shown))


def _placed(session: Session, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with whether they are ``usable`` (no cell missing), the database's ``query``
    and ``document`` ids, and the pair's best ``rank`` in any run and ``pooled_rank`` in the
    pooled runs (NA where there is none)."""
    usable = rows.notna().all(axis=1)
    queries = query_ids(session, rows.loc[usable, "query_id"].unique().tolist(), create=False)
    documents = document_ids(session, rows.loc[usable, "doc_id"].unique().tolist(), create=False)
    placed = rows.assign(
        usable=usable,
        query=rows["query_id"].map(queries).where(usable).astype("Int64"),
        document=rows["doc_id"].map(documents).where(usable).astype("Int64"),
    )
    known = placed["query"].notna() & placed["document"].notna()
    pairs = set(zip(placed.loc[known, "query"].tolist(), placed.loc[known, "document"].tolist()))
    ranks = best_ranks(session, pairs, pool_settings(session).runs)
    return placed.merge(ranks, how="left", on=["query", "document"]).set_index(rows.index)


def _removed(session: Session, pairs: tuple[Pair, ...]) -> GoldOutcome:
    """Unmark ``pairs``; an error, and nothing unmarked, if one is no gold item."""
    queries = query_ids(session, [query_id for query_id, _doc in pairs], create=False)
    documents = document_ids(session, [doc_id for _query, doc_id in pairs], create=False)
    known = gold_grades(session)
    ids = [(queries.get(query_id), documents.get(doc_id)) for query_id, doc_id in pairs]
    missing = [pair for pair, key in zip(pairs, ids) if key not in known]
    if missing:
        shown = ", ".join(f"{query_id}:{doc_id}" for query_id, doc_id in missing[:SHOWN_PAIRS])
        more = len(missing) - SHOWN_PAIRS
        raise JudgeAppError(
            f"not gold: {shown}{f' and {more:,} more' if more > 0 else ''}: nothing was removed"
        )
    for query, document in ids:
        assert query is not None and document is not None  # known gold items
        clear_gold(session, query, document)
    return GoldOutcome(
        f"{count_text(len(pairs), 'gold item')} removed", (), gold_frame(session, titles=True)
    )


# words ----------------------------------------------------------------------------------------


def _pairs_text(rows: pd.DataFrame) -> str:
    """The first pairs of ``rows`` as ``q1:d3, q2:d9``, then how many more."""
    shown = [f"{query}:{doc}" for query, doc in zip(rows["query_id"], rows["doc_id"])]
    more = len(shown) - SHOWN_PAIRS
    return ", ".join(shown[:SHOWN_PAIRS]) + (f" and {more:,} more" if more > 0 else "")


def _refuse_twice(pairs: list[Pair], option: str) -> None:
    twice = sorted({pair for pair in pairs if pairs.count(pair) > 1})
    if twice:
        named = ", ".join(f"{query_id}:{doc_id}" for query_id, doc_id in twice)
        raise UsageError(f"names a pair twice: {named}", option)
