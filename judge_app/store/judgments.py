"""Writing one rater's judgments: grade, skip, clear, note, and undo/redo from the history.

Every function takes a Session and does not commit: the caller's unit of work commits it
(``db.write(...)``, which runs it again if another writer got in its way). Each change appends
one row to ``judgment_event``; a call that changes nothing appends nothing and returns None.

Where the rater has an open hidden repeat of the pair (``RepeatJudgment``, ``open_repeat``),
the rater's changes of the pair are changes of the repeat, in events marked ``repeat``: their
first judgment stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Row, and_, exists, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from judge_app.store.errors import StoreError
from judge_app.store.models import (
    GRADE_MAX,
    GRADE_MIN,
    Judgment,
    JudgmentEvent,
    RepeatJudgment,
    utcnow,
)

UNDOABLE_ACTIONS = ("set", "skip", "clear", "note")


@dataclass(frozen=True)
class JudgmentState:
    """What a rater said of a pair: a grade, or skipped (grade None); with an optional note."""

    grade: int | None
    skipped: bool = False
    note: str | None = None


def judgment_rows(session: Session) -> list[Row[tuple[int, int, int, int, int | None]]]:
    """Every judgment's id, rater, query, document and grade, by rater, query and document."""
    return list(
        session.execute(
            select(Judgment.id, Judgment.rater_id, Judgment.query_id, Judgment.document_id,
                   Judgment.grade)
            .order_by(Judgment.rater_id, Judgment.query_id, Judgment.document_id)
        )
    )  # fmt: skip


def set_judgment_times(session: Session, times: list[dict[str, object]]) -> None:
    """Give judgments (each ``{"id", "duration_ms", "judged_at"}``) the time they took and
    the moment they were made; their grades, and so their history, are as they were."""
    if times:
        session.execute(update(Judgment), times)


def validate_grade(grade: object) -> int:
    """The grade as an int, or StoreError if it is not a whole number from 0 to 5."""
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise StoreError(f"grade {grade!r} is not a whole number from {GRADE_MIN} to {GRADE_MAX}")
    if not GRADE_MIN <= grade <= GRADE_MAX:
        raise StoreError(f"grade {grade} is outside {GRADE_MIN}–{GRADE_MAX}")
    return grade


def current_state(
    session: Session,
    rater_id: int,
    query_id: int,
    document_id: int,
    *,
    repeats_since: datetime | None = None,
) -> JudgmentState | None:
    """The rater's judgment of the pair as they see it (their open repeat's, where there is
    one), or None if there is none."""
    return state_of(rater_sees(session, (rater_id, query_id, document_id), repeats_since))


def open_repeat(since: datetime | None) -> ColumnElement[bool]:
    """Which hidden repeats are the rater's view of their pair (and take their changes):
    those still pending, and those answered since ``since``, the start of the session that
    showed them (None: pending ones only). In a later session the pair is their judgment
    again, which the repeat never changed."""
    pending = RepeatJudgment.judged_at.is_(None)
    return pending if since is None else or_(pending, RepeatJudgment.judged_at >= since)


def repeat_of(rater: Any, query: Any, document: Any) -> ColumnElement[bool]:
    """Whether a ``RepeatJudgment`` row is the repeat of the pair (``rater``, ``query``,
    ``document``): columns or values, as a join condition."""
    return and_(
        RepeatJudgment.rater_id == rater,
        RepeatJudgment.query_id == query,
        RepeatJudgment.document_id == document,
    )


def state_of(judgment: Judgment | RepeatJudgment | None) -> JudgmentState | None:
    """What ``judgment`` says (None: there is no judgment, or a repeat is still pending)."""
    if judgment is None or (judgment.grade is None and not judgment.skipped):
        return None
    return JudgmentState(judgment.grade, judgment.skipped, judgment.note)


def locked_judgment(session: Session, key: tuple[int, int, int]) -> Judgment | None:
    """The (rater, query, document) judgment, locked until the transaction ends where the
    database locks rows (PostgreSQL): a concurrent change of it waits, then reads this one.

    A change reads its judgment once, with this, and changes what it read: a second read
    could see a judgment that another transaction committed after the first (PostgreSQL
    reads each statement afresh), and record a wrong old state in the history."""
    return _locked(session, Judgment, key)


def locked_repeat(
    session: Session, key: tuple[int, int, int], *where: ColumnElement[bool]
) -> RepeatJudgment | None:
    """The rater's hidden repeat of the pair (if it meets ``where``), locked as
    ``locked_judgment`` locks."""
    return _locked(session, RepeatJudgment, key, *where)


def rater_sees(
    session: Session, key: tuple[int, int, int], repeats_since: datetime | None = None
) -> Judgment | RepeatJudgment | None:
    """What the rater's changes of the pair change, locked: their open hidden repeat of it
    (``open_repeat``) where there is one, else their judgment."""
    return locked_repeat(session, key, open_repeat(repeats_since)) or locked_judgment(session, key)


_Row = TypeVar("_Row", Judgment, RepeatJudgment)


def _locked(
    session: Session, model: type[_Row], key: tuple[int, int, int], *where: ColumnElement[bool]
) -> _Row | None:
    rater_id, query_id, document_id = key
    return session.scalars(
        select(model)
        .where(
            model.rater_id == rater_id,
            model.query_id == query_id,
            model.document_id == document_id,
            *where,
        )
        .with_for_update()
    ).first()


def set_grade(
    session: Session,
    rater_id: int,
    query_id: int,
    document_id: int,
    grade: int,
    *,
    duration_ms: int | None = None,
    note: str | None = None,
    repeats_since: datetime | None = None,
) -> JudgmentEvent | None:
    """Grade a pair, keeping its note, or with ``note`` (one written before the grade);
    ``repeats_since``: the start of the rater's session (``open_repeat``)."""
    grade = validate_grade(grade)
    key = (rater_id, query_id, document_id)
    judgment = rater_sees(session, key, repeats_since)
    if note is None and judgment is not None:
        note = judgment.note
    new = JudgmentState(grade, False, note)
    return _change(session, key, judgment, new, "set", duration_ms)


def skip(
    session: Session,
    rater_id: int,
    query_id: int,
    document_id: int,
    *,
    reason: str | None = None,
    duration_ms: int | None = None,
    repeats_since: datetime | None = None,
) -> JudgmentEvent | None:
    """Mark a pair as "cannot judge"; a reason, if given, becomes its note."""
    key = (rater_id, query_id, document_id)
    judgment = rater_sees(session, key, repeats_since)
    note = reason if reason is not None else (judgment.note if judgment else None)
    return _change(session, key, judgment, JudgmentState(None, True, note), "skip", duration_ms)


def clear(
    session: Session,
    rater_id: int,
    query_id: int,
    document_id: int,
    *,
    repeats_since: datetime | None = None,
) -> JudgmentEvent | None:
    """Remove the rater's judgment of a pair (its history stays)."""
    key = (rater_id, query_id, document_id)
    return _change(session, key, rater_sees(session, key, repeats_since), None, "clear")


def set_note(
    session: Session,
    rater_id: int,
    query_id: int,
    document_id: int,
    note: str | None,
    *,
    repeats_since: datetime | None = None,
) -> JudgmentEvent | None:
    """Set or remove (empty or None) the note of a graded or skipped pair."""
    key = (rater_id, query_id, document_id)
    judgment = rater_sees(session, key, repeats_since)
    if state_of(judgment) is None:
        raise StoreError("grade or skip the result before adding a note")
    assert judgment is not None
    new = JudgmentState(judgment.grade, judgment.skipped, note or None)
    return _change(session, key, judgment, new, "note")


def latest_event_id(session: Session, rater_id: int) -> int:
    """The id of the rater's latest history event (0 if none): the bound of a session's undo."""
    latest = session.scalar(
        select(func.max(JudgmentEvent.id)).where(JudgmentEvent.rater_id == rater_id)
    )
    return latest or 0


def changes_since(session: Session, rater_id: int, after_event_id: int) -> int:
    """How many changes the rater made after the change ``after_event_id``."""
    return (
        session.scalar(
            select(func.count())
            .select_from(JudgmentEvent)
            .where(JudgmentEvent.rater_id == rater_id, JudgmentEvent.id > after_event_id)
        )
        or 0
    )


def undo(session: Session, rater_id: int, *, after_event_id: int = 0) -> JudgmentEvent | None:
    """Revert the rater's latest change not yet undone; None when there is nothing to undo.

    Only changes after event ``after_event_id`` are reached: a judging session passes the
    latest event at its start, so that an undo never reverts an earlier session's grade."""
    undone = aliased(JudgmentEvent)
    target = session.scalars(
        select(JudgmentEvent)
        .where(
            JudgmentEvent.rater_id == rater_id,
            JudgmentEvent.id > after_event_id,
            JudgmentEvent.action.in_((*UNDOABLE_ACTIONS, "redo")),
            ~exists().where(undone.reverts == JudgmentEvent.id, undone.action == "undo"),
        )
        .order_by(JudgmentEvent.id.desc())
        .limit(1)
    ).first()
    if target is None:
        return None
    return _revert(session, target, "undo")


def redo(session: Session, rater_id: int, *, after_event_id: int = 0) -> JudgmentEvent | None:
    """Re-apply the rater's latest undone change, unless a new change came after the undo;
    only an undo after event ``after_event_id`` is redone (see ``undo``)."""
    last_change = (
        select(JudgmentEvent.id)
        .where(JudgmentEvent.rater_id == rater_id, JudgmentEvent.action.in_(UNDOABLE_ACTIONS))
        .order_by(JudgmentEvent.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    redone = aliased(JudgmentEvent)
    target = session.scalars(
        select(JudgmentEvent)
        .where(
            JudgmentEvent.rater_id == rater_id,
            JudgmentEvent.action == "undo",
            JudgmentEvent.id > after_event_id,
            JudgmentEvent.id > last_change,
            ~exists().where(redone.reverts == JudgmentEvent.id, redone.action == "redo"),
        )
        .order_by(JudgmentEvent.id.desc())
        .limit(1)
    ).first()
    if target is None:
        return None
    return _revert(session, target, "redo")


def event_states(event: JudgmentEvent) -> tuple[JudgmentState | None, JudgmentState | None]:
    """The pair's state before and after ``event`` (None: no judgment)."""
    return (
        _state(event.old_grade, event.old_skipped, event.old_note),
        _state(event.new_grade, event.new_skipped, event.new_note),
    )


def new_event(
    key: tuple[int, int, int],
    old: JudgmentState | None,
    new: JudgmentState | None,
    action: str,
    at: datetime,
    *,
    reverts: int | None = None,
    repeat: bool = False,
) -> JudgmentEvent:
    """The history row of a change of the (rater, query, document) ``key`` from ``old``
    to ``new`` (None: no judgment), not yet added to a session; ``repeat``: of the rater's
    hidden repeat of the pair."""
    rater_id, query_id, document_id = key
    return JudgmentEvent(
        rater_id=rater_id,
        query_id=query_id,
        document_id=document_id,
        action=action,
        old_grade=old.grade if old else None,
        old_skipped=old.skipped if old else None,
        old_note=old.note if old else None,
        new_grade=new.grade if new else None,
        new_skipped=new.skipped if new else None,
        new_note=new.note if new else None,
        at=at,
        reverts=reverts,
        repeat=repeat,
    )


def _revert(session: Session, event: JudgmentEvent, action: str) -> JudgmentEvent:
    key = (event.rater_id, event.query_id, event.document_id)
    new, _ = event_states(event)
    judgment = locked_repeat(session, key) if event.repeat else locked_judgment(session, key)
    if event.repeat and judgment is None:
        raise StoreError("that change was of a repeat that no longer exists")
    reverted = _change(session, key, judgment, new, action, reverts=event.id, force=True)
    assert reverted is not None  # forced: an event even where nothing changes
    return reverted


def _state(grade: int | None, skipped: bool | None, note: str | None) -> JudgmentState | None:
    return None if skipped is None else JudgmentState(grade, skipped, note)


def _change(
    session: Session,
    key: tuple[int, int, int],
    judgment: Judgment | RepeatJudgment | None,
    new: JudgmentState | None,
    action: str,
    duration_ms: int | None = None,
    *,
    reverts: int | None = None,
    force: bool = False,
) -> JudgmentEvent | None:
    """Make ``judgment`` (as ``locked_judgment`` read it; None: there is none) ``new``
    and append the event; None if nothing changes. A repeat cleared is pending again."""
    old = state_of(judgment)
    if old == new and not force:
        return None
    rater_id, query_id, document_id = key
    now = utcnow()
    repeat = isinstance(judgment, RepeatJudgment)
    if isinstance(judgment, RepeatJudgment):
        state = new or JudgmentState(None)
        judgment.grade, judgment.skipped, judgment.note = state.grade, state.skipped, state.note
        judgment.judged_at = None if new is None else now
        if action in ("set", "skip") or new is None:
            judgment.duration_ms = duration_ms
    elif new is None:
        if judgment is not None:
            session.delete(judgment)
    else:
        if judgment is None:
            judgment = Judgment(rater_id=rater_id, query_id=query_id, document_id=document_id)
            session.add(judgment)
        judgment.grade, judgment.skipped, judgment.note = new.grade, new.skipped, new.note
        judgment.judged_at = now
        if action in ("set", "skip"):
            judgment.duration_ms = duration_ms
    event = new_event(key, old, new, action, now, reverts=reverts, repeat=repeat)
    session.add(event)
    session.flush()
    return event
