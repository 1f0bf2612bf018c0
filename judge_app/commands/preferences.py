"""Preference judgments in and out of a database (``judge-app preferences``): import a CSV or
JSON Lines file of them all or nothing, export them, and summarise them (counts, agreement
between raters, each rater's intransitive triples).

A file holds ``query_id, doc_a, doc_b, rater, choice`` and optionally ``shown_left, note,
judged_at, duration_ms`` (``store.preferences.PREFERENCE_COLUMNS``); ``choice`` is of document
a against b. Its documents may come in either order; the store keeps one order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from judge_app.agreement.preference_agreement import (
    PreferenceAgreement,
    intransitive_triples,
    preference_agreement,
)
from judge_app.io.errors import ImportFileError
from judge_app.io.exports import utc_text, write_csv
from judge_app.io.outputs import output_file
from judge_app.io.readers import Chunk, FileReader
from judge_app.io.text import file_format
from judge_app.numbers import DIGITS
from judge_app.store import bulk
from judge_app.store.database import Database, opened
from judge_app.store.preferences import (
    PREFERENCE_COLUMNS,
    preference_counts,
    preferences_frame,
    record_preference,
)
from judge_app.writers.preferences import agreement_cells, interval_words


@dataclass(frozen=True)
class PreferenceSummary:
    """What a database's preferences say: each rater's counts by choice, the raters'
    agreement and each rater's intransitive triples (``rater, cyclic, triples, share``)."""

    counts: dict[str, dict[str, int]]
    agreement: PreferenceAgreement
    intransitive: pd.DataFrame


def import_preferences(database: Database | str, path: Path) -> str:
    """Import the preferences of the file at ``path`` into ``database``, all or nothing: every
    row is checked first (ImportFileError naming file, line, column and reason), then all are
    recorded in one transaction, each with its history event (action ``import``). Returns a
    line saying what was imported."""
    reader = FileReader(Path(path), "preferences")
    chunks = list(reader.chunks())
    frame = pd.concat([chunk.frame for chunk in chunks], ignore_index=True)
    _check_rows(reader, chunks)
    problems, total = reader.finish()
    if total:
        raise ImportFileError(problems, total)
    changed = 0
    with opened(database, create=True) as found, found.transaction() as session:
        queries = bulk.query_ids(session, frame["query_id"].unique())
        docs = bulk.document_ids(session, pd.concat([frame["doc_a"], frame["doc_b"]]).unique())
        raters = bulk.rater_ids(session, frame["rater"].unique())
        for row in frame.itertuples(index=False):
            left = docs.get(row.shown_left) if isinstance(row.shown_left, str) else None
            event = record_preference(
                session,
                raters[row.rater],
                queries[row.query_id],
                docs[row.doc_a],
                docs[row.doc_b],
                row.choice,
                left=left,
                note=row.note if isinstance(row.note, str) else None,
                duration_ms=None if pd.isna(row.duration_ms) else int(row.duration_ms),
                judged_at=None if pd.isna(row.judged_at) else row.judged_at.to_pydatetime(),
                action="import",
            )
            changed += event is not None
    return f"{path}: {len(frame)} preferences read, {changed} recorded or changed"


def _check_rows(reader: FileReader, chunks: list[Chunk]) -> None:
    """The problems a row shows only whole: the same document twice, a ``shown_left`` that is
    neither of the pair, a rater's pair of a query given twice (in either order)."""
    first: dict[tuple[str, str, str, str], int] = {}
    for chunk in chunks:
        rows = chunk.frame[["query_id", "doc_a", "doc_b", "rater", "shown_left"]]
        for offset, (query, doc_a, doc_b, rater, left) in enumerate(rows.itertuples(index=False)):
            position = chunk.first + offset
            if isinstance(doc_a, str) and doc_a == doc_b:
                reason = "the same document on both sides: a preference compares two"
                reader.problems.add(position, reader.column("doc_b"), reason)
                continue
            if isinstance(left, str) and left.strip() not in (doc_a, doc_b):
                reason = f"shown_left {left!r} is neither {doc_a!r} nor {doc_b!r}"
                reader.problems.add(position, reader.column("shown_left"), reason)
            values = (query, doc_a, doc_b, rater)
            if not all(isinstance(value, str) for value in values):
                continue
            key = (query, rater, *sorted((doc_a, doc_b)))
            if key in first:
                label = f"query_id {query}, rater {rater}, documents {key[2]} and {key[3]}"
                reader.problems.add_repeat(position, first[key], f"duplicate preference ({label})")
            else:
                first[key] = position


def export_preferences(database: Database | str, path: Path) -> int:
    """Write every preference of ``database`` to ``path``: JSON Lines for ``.jsonl`` or
    ``.ndjson``, else CSV with text cells made inert; returns the rows written. The file
    imports back as it was."""
    with opened(database, read_only=True) as found, found.reading() as session:
        frame = preferences_frame(session)
    frame["judged_at"] = [utc_text(moment.to_pydatetime()) for moment in frame["judged_at"]]
    if file_format(Path(path)) == "jsonl":
        with output_file(Path(path)) as out:
            for record in frame.astype(object).where(frame.notna(), None).to_dict("records"):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return len(frame)
    return write_csv(frame[PREFERENCE_COLUMNS], path)


def summarise_preferences(database: Database | str) -> PreferenceSummary:
    """Each rater's counts, the raters' agreement on their shared pairs and each rater's
    intransitive triples, from ``database``'s preferences."""
    with opened(database, read_only=True) as found, found.reading() as session:
        frame = preferences_frame(session)
        counts = preference_counts(session)
    return PreferenceSummary(counts, preference_agreement(frame), intransitive_triples(frame))


def preference_agreement_of(database: Database | str) -> PreferenceAgreement | None:
    """The raters' agreement on the preferences of ``database`` (the figures of
    ``summarise_preferences`` and of the report); None where no one made any."""
    with opened(database, read_only=True) as found, found.reading() as session:
        frame = preferences_frame(session)
    return preference_agreement(frame) if len(frame) else None


def summary_text(summary: PreferenceSummary) -> str:
    """The summary as ``preferences summary`` prints it."""
    if not summary.counts:
        return "no preference judgments"
    counts = pd.DataFrame.from_dict(summary.counts, orient="index")
    counts.index.name = "rater"
    agreement = summary.agreement
    share, alpha = agreement_cells(agreement, DIGITS)
    lines = [
        "Preferences by rater and choice",
        counts.reset_index().to_string(index=False),
        "",
        f"Agreement over {agreement.units} pairs chosen on by two raters or more: "
        f"share agreeing {share}, Krippendorff's alpha (nominal) {alpha}",
        *([f"  {said}"] if (said := interval_words(agreement)) else []),
        "",
        "Intransitive triples (x over y over z over x) among each rater's ordered triples",
        summary.intransitive.round(4).to_string(index=False),
    ]
    return "\n".join(lines) + "\n"
