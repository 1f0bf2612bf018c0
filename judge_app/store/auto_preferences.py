"""Automatic judges' preferences (``auto_preference``) and what a pairwise judge reads: the
pairs the humans chose on and the texts of a pair's query and documents.

An automatic judge's preferences are never ``preference`` rows: the judging window,
``preferences summary`` and export, agreement and ``eval --measure Compat`` read that table
alone, so no automatic choice can be counted as a rater's or replace one. The judge is an
automatic rater (``store.automatic``); a pair is in the canonical order of
``store.preferences.canonical``. Every function takes a Session and does not commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.orm import Session, aliased

from judge_app.store.automatic import is_automatic
from judge_app.store.errors import StoreError
from judge_app.store.models import (
    AUTO_CHOICES,
    HUMAN,
    AutoPreference,
    Document,
    Preference,
    Query,
    Rater,
    utcnow,
)

if TYPE_CHECKING:
    import pandas as pd

PairKey = tuple[int, int, int]
"""A pair as the database knows it: query id, document a's id, document b's (a < b)."""
BATCH = 500
"""Pairs a statement names at once: a bound list SQLite and PostgreSQL both take."""


@dataclass(frozen=True)
class AutoChoice:
    """A judge's answer for a pair (ids are the database's, a < b): the ``choice`` of the
    two orders combined, or None and the ``failure``; each order's choice (relative to the
    canonical order; None where it failed) and words; the hash of both requests; their
    tokens and milliseconds together."""

    query_id: int
    document_a_id: int
    document_b_id: int
    choice: str | None
    failure: str | None = None
    choice_ab: str | None = None
    choice_ba: str | None = None
    answer_ab: str | None = None
    answer_ba: str | None = None
    prompt_sha: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    duration_ms: int | None = None
    judged_at: datetime | None = None


@dataclass(frozen=True)
class PairText:
    """What a prompt shows of one document."""

    external_id: str
    title: str | None
    url: str | None
    body: str | None


def write_auto_preferences(session: Session, rater_id: int, answers: Iterable[AutoChoice]) -> int:
    """Store an automatic judge's answers, each replacing its earlier answer for the pair
    (its own only). Returns how many were written; StoreError for a rater that is no
    automatic judge, a pair not in canonical order, an unknown choice or a failure without
    its reason."""
    if not is_automatic(session, rater_id):
        raise StoreError("only an automatic judge's preferences are written here")
    rows = [_row(rater_id, answer) for answer in answers]
    key = tuple_(
        AutoPreference.query_id, AutoPreference.document_a_id, AutoPreference.document_b_id
    )
    for start in range(0, len(rows), BATCH):
        chunk = rows[start : start + BATCH]
        chosen = [(row["query_id"], row["document_a_id"], row["document_b_id"]) for row in chunk]
        session.execute(
            delete(AutoPreference).where(AutoPreference.rater_id == rater_id, key.in_(chosen))
        )
        session.execute(AutoPreference.__table__.insert(), chunk)
    session.flush()
    return len(rows)


def _row(rater_id: int, answer: AutoChoice) -> dict[str, Any]:
    """The row of ``answer``, checked."""
    if answer.document_a_id >= answer.document_b_id:
        raise StoreError("an automatic preference's pair must be in canonical order (a < b)")
    for choice in (answer.choice, answer.choice_ab, answer.choice_ba):
        if choice is not None and choice not in AUTO_CHOICES:
            raise StoreError(f"choice {choice!r} is not one of {', '.join(AUTO_CHOICES)}")
    if answer.choice is None and not answer.failure:
        raise StoreError("an automatic preference without a choice needs its failure's reason")
    return {
        "rater_id": rater_id,
        "query_id": answer.query_id,
        "document_a_id": answer.document_a_id,
        "document_b_id": answer.document_b_id,
        "choice": answer.choice,
        "failure": None if answer.choice is not None else answer.failure,
        "choice_ab": answer.choice_ab,
        "choice_ba": answer.choice_ba,
        "answer_ab": answer.answer_ab,
        "answer_ba": answer.answer_ba,
        "prompt_sha": answer.prompt_sha,
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "duration_ms": answer.duration_ms,
        "judged_at": answer.judged_at or utcnow(),
    }


def preferences_cached(session: Session, rater_id: int) -> dict[PairKey, tuple[str | None, bool]]:
    """Pair → (request hash, whether it failed) of the judge's answers: a rerun asks again
    only pairs missing here or whose requests changed (and, when asked to, those that
    failed)."""
    statement = select(
        AutoPreference.query_id,
        AutoPreference.document_a_id,
        AutoPreference.document_b_id,
        AutoPreference.prompt_sha,
        AutoPreference.choice.is_(None),
    ).where(AutoPreference.rater_id == rater_id)
    return {
        (query, a, b): (sha, bool(failed))
        for query, a, b, sha, failed in session.execute(statement)
    }


def auto_preferences_frame(session: Session, rater_id: int) -> pd.DataFrame:
    """Every answer of the judge: ``query_id, doc_a, doc_b, choice, choice_ab, choice_ba,
    failure`` (external ids; a choice None where it failed), by query and pair."""
    import pandas as pd

    doc_a, doc_b = aliased(Document), aliased(Document)
    statement = (
        select(
            Query.external_id, doc_a.external_id, doc_b.external_id, AutoPreference.choice,
            AutoPreference.choice_ab, AutoPreference.choice_ba, AutoPreference.failure,
        )
        .join(Query, Query.id == AutoPreference.query_id)
        .join(doc_a, doc_a.id == AutoPreference.document_a_id)
        .join(doc_b, doc_b.id == AutoPreference.document_b_id)
        .where(AutoPreference.rater_id == rater_id)
        .order_by(Query.external_id, doc_a.external_id, doc_b.external_id)
    )  # fmt: skip
    columns = ["query_id", "doc_a", "doc_b", "choice", "choice_ab", "choice_ba", "failure"]
    return pd.DataFrame(list(session.execute(statement)), columns=columns).astype(object)


def human_pairs(session: Session) -> list[PairKey]:
    """The pairs a human rater chose on (a choice other than ``skipped``), in order of
    query, document a and document b (external ids)."""
    doc_a, doc_b = aliased(Document), aliased(Document)
    chosen = (
        select(Preference.query_id, Preference.document_a_id, Preference.document_b_id)
        .join(Rater, Rater.id == Preference.rater_id)
        .where(Rater.kind == HUMAN, Preference.choice != "skipped")
        .distinct()
        .subquery()
    )
    statement = (
        select(chosen.c.query_id, chosen.c.document_a_id, chosen.c.document_b_id)
        .join(Query, Query.id == chosen.c.query_id)
        .join(doc_a, doc_a.id == chosen.c.document_a_id)
        .join(doc_b, doc_b.id == chosen.c.document_b_id)
        .order_by(Query.external_id, doc_a.external_id, doc_b.external_id)
    )
    return [(query, a, b) for query, a, b in session.execute(statement)]


def query_texts(
    session: Session, query_ids: Sequence[int]
) -> dict[int, tuple[str, str | None, str | None]]:
    """Query id → (external id, text, description) of ``query_ids``."""
    found = {}
    for start in range(0, len(query_ids), BATCH):
        chunk = list(query_ids[start : start + BATCH])
        statement = select(Query.id, Query.external_id, Query.text, Query.description).where(
            Query.id.in_(chunk)
        )
        found.update({row[0]: (row[1], row[2], row[3]) for row in session.execute(statement)})
    return found


def document_texts(
    session: Session, document_ids: Sequence[int], body_chars: int | None = None
) -> dict[int, PairText]:
    """Document id → what a prompt shows of it, the body cut to ``body_chars`` + 1
    characters (None: whole; one more tells that it was cut)."""
    body = Document.body if body_chars is None else func.substr(Document.body, 1, body_chars + 1)
    found = {}
    for start in range(0, len(document_ids), BATCH):
        chunk = list(document_ids[start : start + BATCH])
        statement = select(
            Document.id, Document.external_id, Document.title, Document.url, body
        ).where(Document.id.in_(chunk))
        found.update({row[0]: PairText(*row[1:]) for row in session.execute(statement)})
    return found
