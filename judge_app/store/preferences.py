"""Writing and reading preference judgments: which of two documents is better for a query.

A pair is stored once per rater and query, in canonical order (the smaller document id is
``a``); callers name the two documents in any order and give the choice relative to that
order (``FIRST``: the first named is better), and this module turns both around where needed.
Every function that writes takes a Session and does not commit: the caller's unit of work
commits the change and its ``preference_event`` together (``db.write(...)``). A call that
changes nothing appends nothing and returns None.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session, aliased

from judge_app.store.errors import StoreError
from judge_app.store.models import (
    PREFERENCE_CHOICES,
    Document,
    Preference,
    PreferenceEvent,
    Query,
    Rater,
    utcnow,
)

if TYPE_CHECKING:
    import pandas as pd

FIRST, SECOND, EQUAL, NEITHER, SKIPPED = PREFERENCE_CHOICES
"""The choices: ``a`` (the first document is better), ``b``, ``equal``, ``neither`` (both not
relevant) and ``skipped``."""
UNDOABLE_ACTIONS = ("set", "clear", "note")
SWAPPED = {FIRST: SECOND, SECOND: FIRST}
PREFERENCE_COLUMNS = [
    "query_id", "doc_a", "doc_b", "rater", "choice", "shown_left", "note", "judged_at",
    "duration_ms",
]  # fmt: skip
"""The columns of a preferences frame, file and export."""


@dataclass(frozen=True)
class PreferenceState:
    """What a rater said of a pair (``choice`` relative to the canonical order), with a note."""

    choice: str
    note: str | None = None


def validate_choice(choice: object) -> str:
    """``choice`` if it is one of ``PREFERENCE_CHOICES``, else StoreError."""
    if choice not in PREFERENCE_CHOICES:
        raise StoreError(f"choice {choice!r} is not one of {', '.join(PREFERENCE_CHOICES)}")
    return str(choice)


def canonical(first: int, second: int, choice: str | None = None) -> tuple[int, int, str | None]:
    """The pair (``first``, ``second``) in canonical order, with ``choice`` (given of the
    pair in the order named) turned to match; StoreError for a document paired with itself."""
    if first == second:
        raise StoreError("a preference compares two different documents")
    if first < second:
        return first, second, choice
    return second, first, SWAPPED.get(choice, choice) if choice is not None else None


def record_preference(
    session: Session,
    rater_id: int,
    query_id: int,
    first: int,
    second: int,
    choice: str,
    *,
    left: int | None = None,
    note: str | None = None,
    duration_ms: int | None = None,
    judged_at: datetime | None = None,
    action: str = "set",
) -> PreferenceEvent | None:
    """Record the rater's ``choice`` between documents ``first`` and ``second`` (relative to
    that order), keeping the pair's note unless ``note`` is given; ``left``: the document shown
    on the left; ``judged_at``: when it was made, if not now (an import's). The preference and
    its history event are written in the caller's transaction."""
    a, b, canonical_choice = canonical(first, second, validate_choice(choice))
    assert canonical_choice is not None
    if left is not None and left not in (a, b):
        raise StoreError("the document shown on the left must be one of the pair")
    key = (rater_id, query_id, a, b)
    row = locked_preference(session, key)
    if note is None and row is not None:
        note = row.note
    new = PreferenceState(canonical_choice, note)
    return _change(session, key, row, new, action, shown=(left, duration_ms, judged_at))


def clear_preference(
    session: Session, rater_id: int, query_id: int, first: int, second: int
) -> PreferenceEvent | None:
    """Remove the rater's preference of the pair (its history stays)."""
    a, b, _ = canonical(first, second)
    key = (rater_id, query_id, a, b)
    return _change(session, key, locked_preference(session, key), None, "clear")


def set_preference_note(
    session: Session, rater_id: int, query_id: int, first: int, second: int, note: str | None
) -> PreferenceEvent | None:
    """Set or remove (empty or None) the note of a pair the rater has a preference of."""
    a, b, _ = canonical(first, second)
    key = (rater_id, query_id, a, b)
    row = locked_preference(session, key)
    if row is None:
        raise StoreError("choose between the two results before adding a note")
    return _change(session, key, row, PreferenceState(row.choice, note or None), "note")


def latest_preference_event(session: Session, rater_id: int) -> int:
    """The id of the rater's latest preference event (0 if none): the bound of a session's
    undo."""
    latest = session.scalar(
        select(func.max(PreferenceEvent.id)).where(PreferenceEvent.rater_id == rater_id)
    )
    return latest or 0


def undo_preference(
    session: Session, rater_id: int, *, after_event_id: int = 0
) -> PreferenceEvent | None:
    """Revert the rater's latest preference change (after ``after_event_id``) not yet undone;
    None when there is nothing to undo."""
    undone = aliased(PreferenceEvent)
    target = session.scalars(
        select(PreferenceEvent)
        .where(
            PreferenceEvent.rater_id == rater_id,
            PreferenceEvent.id > after_event_id,
            PreferenceEvent.action.in_((*UNDOABLE_ACTIONS, "redo")),
            ~exists().where(undone.reverts == PreferenceEvent.id, undone.action == "undo"),
        )
        .order_by(PreferenceEvent.id.desc())
        .limit(1)
    ).first()
    return None if target is None else _revert(session, target, "undo")


def redo_preference(
    session: Session, rater_id: int, *, after_event_id: int = 0
) -> PreferenceEvent | None:
    """Re-apply the rater's latest undone preference change, unless a new change came after
    the undo (see ``undo_preference``)."""
    last_change = (
        select(PreferenceEvent.id)
        .where(PreferenceEvent.rater_id == rater_id, PreferenceEvent.action.in_(UNDOABLE_ACTIONS))
        .order_by(PreferenceEvent.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    redone = aliased(PreferenceEvent)
    target = session.scalars(
        select(PreferenceEvent)
        .where(
            PreferenceEvent.rater_id == rater_id,
            PreferenceEvent.action == "undo",
            PreferenceEvent.id > after_event_id,
            PreferenceEvent.id > func.coalesce(last_change, 0),
            ~exists().where(redone.reverts == PreferenceEvent.id, redone.action == "redo"),
        )
        .order_by(PreferenceEvent.id.desc())
        .limit(1)
    ).first()
    return None if target is None else _revert(session, target, "redo")


def preferences_frame(session: Session) -> pd.DataFrame:
    """Every preference as ``PREFERENCE_COLUMNS`` (external ids, the rater's name, ``shown_left``
    the document shown on the left or None), by query, pair and rater."""
    import pandas as pd

    doc_a, doc_b, left = aliased(Document), aliased(Document), aliased(Document)
    statement = (
        select(
            Query.external_id, doc_a.external_id, doc_b.external_id, Rater.name,
            Preference.choice, left.external_id, Preference.note, Preference.judged_at,
            Preference.duration_ms,
        )
        .join(Query, Query.id == Preference.query_id)
        .join(doc_a, doc_a.id == Preference.document_a_id)
        .join(doc_b, doc_b.id == Preference.document_b_id)
        .join(Rater, Rater.id == Preference.rater_id)
        .outerjoin(left, left.id == Preference.left_document_id)
        .order_by(Query.external_id, doc_a.external_id, doc_b.external_id, Rater.name)
    )  # fmt: skip
    frame = pd.DataFrame(list(session.execute(statement)), columns=PREFERENCE_COLUMNS)
    for column in ("shown_left", "note"):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    frame["duration_ms"] = frame["duration_ms"].astype("Int64")
    frame["judged_at"] = pd.to_datetime(frame["judged_at"])
    return frame


def preference_counts(session: Session) -> dict[str, dict[str, int]]:
    """Each rater's number of preferences by choice (raters with none left out)."""
    counts: dict[str, dict[str, int]] = {}
    rows = session.execute(
        select(Rater.name, Preference.choice, func.count())
        .join(Rater, Rater.id == Preference.rater_id)
        .group_by(Rater.name, Preference.choice)
        .order_by(Rater.name, Preference.choice)
    )
    for name, choice, count in rows:
        counts.setdefault(name, dict.fromkeys(PREFERENCE_CHOICES, 0))[choice] = count
    return counts


def locked_preference(session: Session, key: tuple[int, int, int, int]) -> Preference | None:
    """The (rater, query, a, b) preference, locked where the database locks rows until the
    transaction ends (as ``judgments.locked_judgment``: a change reads its row once, with
    this); None if there is none."""
    rater_id, query_id, a, b = key
    return session.scalars(
        select(Preference)
        .where(
            Preference.rater_id == rater_id,
            Preference.query_id == query_id,
            Preference.document_a_id == a,
            Preference.document_b_id == b,
        )
        .with_for_update()
    ).first()


def _state(row: Preference | None) -> PreferenceState | None:
    return None if row is None else PreferenceState(row.choice, row.note)


def _revert(session: Session, event: PreferenceEvent, action: str) -> PreferenceEvent:
    key = (event.rater_id, event.query_id, event.document_a_id, event.document_b_id)
    old = None if event.old_choice is None else PreferenceState(event.old_choice, event.old_note)
    reverted = _change(
        session, key, locked_preference(session, key), old, action, event.id, force=True
    )
    assert reverted is not None  # forced: an event even where nothing changes
    return reverted


def _change(
    session: Session,
    key: tuple[int, int, int, int],
    row: Preference | None,
    new: PreferenceState | None,
    action: str,
    reverts: int | None = None,
    *,
    force: bool = False,
    shown: tuple[int | None, int | None, datetime | None] | None = None,
) -> PreferenceEvent | None:
    """Make ``row`` (as ``locked_preference`` read it; None: there is none) ``new`` and append
    the event; None if nothing changes. ``shown``: the document shown on the left, the time the
    choice took and when it was made (None: now), of a choice made (a note, an undo or a redo
    keeps them as they were)."""
    old = _state(row)
    if old == new and not force:
        return None
    rater_id, query_id, a, b = key
    now: datetime = utcnow()
    if new is None:
        if row is not None:
            session.delete(row)
    else:
        if row is None:
            row = Preference(rater_id=rater_id, query_id=query_id, document_a_id=a, document_b_id=b)
            session.add(row)
        row.choice, row.note, row.judged_at = new.choice, new.note, now
        if shown is not None:
            row.left_document_id, row.duration_ms, made = shown
            row.judged_at = made or now
    event = PreferenceEvent(
        rater_id=rater_id,
        query_id=query_id,
        document_a_id=a,
        document_b_id=b,
        action=action,
        old_choice=old.choice if old else None,
        old_note=old.note if old else None,
        new_choice=new.choice if new else None,
        new_note=new.note if new else None,
        at=now,
        reverts=reverts,
    )
    session.add(event)
    session.flush()
    return event
