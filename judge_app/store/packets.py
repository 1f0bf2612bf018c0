"""Rater packets: one rater's work as a self-contained SQLite file, judged offline and merged.

A packet holds the rater's queue (assigned queries, or all when none are assigned), those
queries' results and documents, the runs, the settings (rubric), the rater and the rater's own
judgments with their history; no other rater's. Rows keep their ids, so a packet merges back
into the database it came from (its identity, the ``database.id`` setting, is checked).

Merging copies the packet's new history into the database as ``merge`` events and sets each
changed judgment to the packet's. A pair changed in the database too since the packet was made
is a conflict: it is reported, the packet's value is kept (the rater's latest offline word, as
a lead merging a packet expects) and the database's value stays in the history before it.
Merging the same packet twice changes nothing: the database remembers how far it merged.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import Table, func, insert, select
from sqlalchemy.orm import Session

from judge_app.store.database import Database, open_database
from judge_app.store.errors import StoreError
from judge_app.store.judgments import (
    JudgmentState,
    current_state,
    event_states,
    locked_judgment,
    new_event,
    state_of,
)
from judge_app.store.models import (
    Assignment,
    Document,
    Judgment,
    JudgmentEvent,
    Query,
    Rater,
    Result,
    Run,
    Setting,
    utcnow,
)
from judge_app.store.people import all_query_ids, assigned_queries, rater
from judge_app.store.settings import get_setting, set_setting

DATABASE_ID = "database.id"
PACKET_ID, PACKET_SOURCE, PACKET_RATER = "packet.id", "packet.source", "packet.rater"
PACKET_BASE = "packet.base_event"  # the last history event the packet was made with
PACKET_MADE = "packet.exported_at"


@dataclass(frozen=True)
class PacketContents:
    """What went into a packet."""

    path: Path
    rater: str
    queries: int
    documents: int
    results: int
    judgments: int


@dataclass(frozen=True)
class Conflict:
    """A pair changed both in the database and in the packet since the packet was made."""

    query_id: str
    doc_id: str
    database: JudgmentState | None
    packet: JudgmentState | None


@dataclass
class MergeOutcome:
    """What a merge changed: pairs added, updated, cleared, and the conflicts among them."""

    rater: str
    added: int = 0
    updated: int = 0
    cleared: int = 0
    unchanged: int = 0
    events: int = 0
    conflicts: list[Conflict] = field(default_factory=list)


def export_packet(database: Database, rater_name: str, out: Path) -> PacketContents:
    """Write ``rater_name``'s packet to ``out`` (a new file; StoreError if it exists)."""
    out = Path(out)
    if out.exists():
        raise StoreError(f"{out} already exists: choose a new file for the packet")
    with database.transaction() as source:
        person = rater(source, rater_name)
        queue = assigned_queries(source, person.id) or all_query_ids(source)
        if get_setting(source, DATABASE_ID) is None:
            set_setting(source, DATABASE_ID, uuid.uuid4().hex)
        tables = _packet_rows(source, person.id, queue)
        base = source.scalar(select(func.max(JudgmentEvent.id))) or 0
        settings = {
            PACKET_ID: uuid.uuid4().hex,
            PACKET_SOURCE: get_setting(source, DATABASE_ID),
            PACKET_RATER: person.name,
            PACKET_BASE: str(base),
            PACKET_MADE: utcnow().isoformat(timespec="seconds"),
        }
    try:
        with open_database(out) as packet, packet.transaction() as session:
            for table, rows in tables:
                if rows:
                    session.execute(insert(table), rows)
            for key, value in settings.items():
                set_setting(session, key, value)
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    counts = {table.name: len(rows) for table, rows in tables}
    return PacketContents(
        out,
        person.name,
        counts["query"],
        counts["document"],
        counts["result"],
        counts["judgment"],
    )


def _packet_rows(
    session: Session, rater_id: int, queue: list[int]
) -> list[tuple[Table, list[dict]]]:
    """Every row a packet holds, table by table in an order foreign keys allow."""
    in_queue = [Query.id.in_(queue)] if queue else [Query.id.is_(None)]
    judged = select(Judgment.document_id).where(
        Judgment.rater_id == rater_id, Judgment.query_id.in_(queue)
    )
    listed = select(Result.document_id).where(Result.query_id.in_(queue))
    documents = Document.id.in_(listed.union(judged).scalar_subquery())
    runs = Run.id.in_(select(Result.run_id).where(Result.query_id.in_(queue)).scalar_subquery())
    mine = [JudgmentEvent.rater_id == rater_id, JudgmentEvent.query_id.in_(queue)]
    selections = [
        (Setting, [Setting.key != DATABASE_ID, Setting.key.not_like("packet.%")]),
        (Rater, [Rater.id == rater_id]),
        (Query, in_queue),
        (Document, [documents]),
        (Run, [runs]),
        (Result, [Result.query_id.in_(queue)]),
        (Assignment, [Assignment.rater_id == rater_id]),
        (Judgment, [Judgment.rater_id == rater_id, Judgment.query_id.in_(queue)]),
        (JudgmentEvent, mine),
    ]
    return [
        (
            model.__table__,
            [
                dict(row)
                for row in session.execute(select(model.__table__).where(*where)).mappings()
            ],
        )
        for model, where in selections
    ]


def merge_packet(database: Database, path: Path) -> MergeOutcome:
    """Merge the packet at ``path`` into ``database`` (one transaction)."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"{path}: no such packet file")
    with open_database(path, create=False) as packet, packet.reading() as session:
        keys = (PACKET_ID, PACKET_SOURCE, PACKET_RATER, PACKET_BASE)
        meta = {key: get_setting(session, key) for key in keys}
        if None in meta.values():
            raise StoreError(f"{path} is a judge_app database but not a rater packet")
        person = session.scalars(select(Rater).where(Rater.name == meta[PACKET_RATER])).one()
        events = session.scalars(
            select(JudgmentEvent)
            .where(JudgmentEvent.rater_id == person.id, JudgmentEvent.id > int(meta[PACKET_BASE]))
            .order_by(JudgmentEvent.id)
        ).all()
        finals = {key: current_state(session, *key) for key in _by_pair(events)}
        durations = {
            (query, document): ms
            for query, document, ms in session.execute(
                select(Judgment.query_id, Judgment.document_id, Judgment.duration_ms).where(
                    Judgment.rater_id == person.id
                )
            )
        }

    def merge(session: Session) -> MergeOutcome:
        if get_setting(session, DATABASE_ID) != meta[PACKET_SOURCE]:
            raise StoreError(
                f"{path} was made from another database than {database.describe()}: "
                "merge it into the database it was exported from"
            )
        target = rater(session, meta[PACKET_RATER])
        if target.id != person.id:
            raise StoreError(f"{path}: rater {person.name!r} is not the same rater here")
        done_key = f"packet.merged.{meta[PACKET_ID]}"
        done = int(get_setting(session, done_key) or 0)
        fresh = [event for event in events if event.id > done]
        outcome = _apply(session, person, fresh, finals, durations)
        if fresh:
            set_setting(session, done_key, str(fresh[-1].id))
        return outcome

    return database.write(merge)  # run again if a rater's grade came in at the same moment


def _by_pair(events: Iterable[JudgmentEvent]) -> dict[tuple[int, int, int], list[JudgmentEvent]]:
    """``events`` grouped by (rater, query, document), pairs in order of first change."""
    grouped: dict[tuple[int, int, int], list[JudgmentEvent]] = {}
    for event in events:
        grouped.setdefault((event.rater_id, event.query_id, event.document_id), []).append(event)
    return grouped


def _apply(
    session: Session,
    person: Rater,
    events: list[JudgmentEvent],
    finals: dict[tuple[int, int, int], JudgmentState | None],
    durations: dict[tuple[int, int], int | None],
) -> MergeOutcome:
    """Bring each pair the packet changed to the packet's state, with history."""
    outcome = MergeOutcome(person.name)
    for key, changes in _by_pair(events).items():
        judgment = locked_judgment(session, key)
        final, here = finals[key], state_of(judgment)
        base, _ = event_states(changes[0])
        if here == final:
            outcome.unchanged += 1
            continue
        if here == base:  # only the packet changed it: its history follows on from ours
            steps = [(*event_states(change), change.at) for change in changes]
        else:
            outcome.conflicts.append(Conflict(*_external_ids(session, key), here, final))
            steps = [(here, final, changes[-1].at)]
        for old, new, at in steps:
            session.add(new_event(key, old, new, "merge", at))
        outcome.events += len(steps)
        _set_judgment(session, key, judgment, final, changes[-1].at, durations.get(key[1:]))
        if final is None:
            outcome.cleared += 1
        elif here is None:
            outcome.added += 1
        else:
            outcome.updated += 1
    session.flush()
    return outcome


def _set_judgment(
    session: Session,
    key: tuple[int, int, int],
    judgment: Judgment | None,
    state: JudgmentState | None,
    at: datetime,
    duration_ms: int | None,
) -> None:
    """Make the ``judgment`` read (locked) for ``key`` say ``state`` (None: remove it)."""
    if state is None:
        if judgment is not None:
            session.delete(judgment)
        return
    if judgment is None:
        rater_id, query_id, document_id = key
        judgment = Judgment(rater_id=rater_id, query_id=query_id, document_id=document_id)
        session.add(judgment)
    judgment.grade, judgment.skipped, judgment.note = state.grade, state.skipped, state.note
    judgment.judged_at, judgment.duration_ms = at, duration_ms


def _external_ids(session: Session, key: tuple[int, int, int]) -> tuple[str, str]:
    _, query_id, document_id = key
    return (
        session.scalar(select(Query.external_id).where(Query.id == query_id)),
        session.scalar(select(Document.external_id).where(Document.id == document_id)),
    )
