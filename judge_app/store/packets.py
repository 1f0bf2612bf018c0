"""Rater packets: one rater's work as a self-contained SQLite file, judged offline and merged.

A packet holds the rater's queue (assigned queries, or all when none are assigned), those
queries' results and documents, the runs, the settings (rubric), the rater and the rater's own
judgments with their history; no other rater's. Rows keep their ids, so a packet merges back
into the database it came from.

The database records each packet it issues (``Packet``: an unguessable id, the rater, the
history event it was made at), in the same unit of work that writes the file. A merge looks
the packet's id up there and takes the rater and the base from that record, never from the
packet file, which anyone can edit: a packet the database did not issue, or one that names
anyone but its rater or holds what the database would refuse, is refused whole, with the
reason.

Merging copies the packet's new history into the database as ``merge`` events and sets each
changed judgment to the packet's. A pair changed in the database too since the packet was made
is a conflict: it is reported, the packet's value is kept (the rater's latest offline word, as
a lead merging a packet expects) and the database's value stays in the history before it.
Merging the same packet twice changes nothing: the record says how far it was merged.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import Table, insert, select, text
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ColumnElement

from judge_app.store.database import Database, open_database
from judge_app.store.errors import StoreError
from judge_app.store.judgments import (
    JudgmentState,
    event_states,
    locked_judgment,
    new_event,
    state_of,
)
from judge_app.store.models import (
    GRADE_MAX,
    GRADE_MIN,
    Assignment,
    Base,
    Document,
    Judgment,
    JudgmentEvent,
    Packet,
    Query,
    Rater,
    Result,
    Run,
    Setting,
    utcnow,
)
from judge_app.store.packet_schema import check_packet_schema
from judge_app.store.people import assigned_queries, rater
from judge_app.store.settings import REPEAT_SHARE, get_setting, set_setting

DATABASE_ID = "database.id"
PACKET_ID, PACKET_SOURCE, PACKET_RATER = "packet.id", "packet.source", "packet.rater"
PACKET_BASE = "packet.base_event"  # its rater's last history event the packet holds
PACKET_MADE = "packet.exported_at"
IDS_PER_STATEMENT = 10_000
SETTINGS = "SELECT key, value FROM setting WHERE key LIKE 'packet.%'"
RATERS = "SELECT id, name FROM rater ORDER BY id"
EVENTS = (
    "SELECT id, rater_id, query_id, document_id, action, old_grade, old_skipped, old_note, "
    "new_grade, new_skipped, new_note, at FROM judgment_event ORDER BY id"
)
JUDGMENTS = (
    "SELECT id, rater_id, query_id, document_id, grade, skipped, note, duration_ms "
    "FROM judgment ORDER BY id"
)
"""A packet's rows as its file holds them: plain SQL, so that no value is converted (or
fails to be) before it is checked."""
PacketRows = list[tuple[Table, list[dict]]]


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
    """Write ``rater_name``'s packet to ``out`` (a new file; StoreError if it exists) and
    record it as issued: the file is written under a hidden name, the record committed, and
    only then the file named ``out``."""
    out = Path(out)
    if out.exists():
        raise StoreError(f"{out} already exists: choose a new file for the packet")
    part = out.with_name(f".{out.name}.{secrets.token_hex(4)}.part")
    try:
        with database.transaction() as source:
            person = rater(source, rater_name)
            tables = _packet_rows(source, person.id, assigned_queries(source, person.id))
            settings = _issue(source, person, tables)
            _write_packet(part, tables, settings)
        # named only once recorded: a packet at its name is whole and issued, whenever the
        # export is cut short (a kill leaves at most a hidden .part file)
        part.rename(out)
    except BaseException:
        _remove_packet_file(part)
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


def _issue(session: Session, person: Rater, tables: PacketRows) -> dict[str, str]:
    """Record a new packet of ``person``'s holding ``tables``; the settings it carries."""
    if get_setting(session, DATABASE_ID) is None:
        set_setting(session, DATABASE_ID, secrets.token_hex(16))
    events = dict(tables)[JudgmentEvent.__table__]
    issued = Packet(
        id=secrets.token_hex(16),
        rater_id=person.id,
        issued_at=utcnow(),
        base_event=max((event["id"] for event in events), default=0),
    )
    session.add(issued)
    session.flush()
    return {
        PACKET_ID: issued.id,
        PACKET_SOURCE: str(get_setting(session, DATABASE_ID)),
        PACKET_RATER: person.name,
        PACKET_BASE: str(issued.base_event),
        PACKET_MADE: issued.issued_at.isoformat(timespec="seconds"),
    }


def _write_packet(out: Path, tables: PacketRows, settings: dict[str, str]) -> None:
    """Make the packet file ``out``: ``tables``' rows and the packet's ``settings``."""
    with open_database(out) as packet, packet.transaction() as session:
        for table, rows in tables:
            if rows:
                session.execute(insert(table), rows)
        for key, value in settings.items():
            set_setting(session, key, value)


def _remove_packet_file(out: Path) -> None:
    """Remove what a packet file cut short left: the file and SQLite's files beside it."""
    for leftover in (out, *(Path(f"{out}{end}") for end in ("-wal", "-shm"))):
        leftover.unlink(missing_ok=True)


def _packet_rows(session: Session, rater_id: int, queue: list[int]) -> PacketRows:
    """Every row a packet holds, table by table in an order foreign keys allow."""
    in_queue = Query.id.in_(queue) if queue else Query.id.is_(None)
    judged = select(Judgment.document_id).where(
        Judgment.rater_id == rater_id, Judgment.query_id.in_(queue)
    )
    listed = select(Result.document_id).where(Result.query_id.in_(queue))
    documents = Document.id.in_(listed.union(judged).scalar_subquery())
    runs = Run.id.in_(select(Result.run_id).where(Result.query_id.in_(queue)).scalar_subquery())
    # a hidden repeat stays in the database that scheduled it: the packet holds neither its
    # history nor the setting that would schedule new ones offline
    mine = [
        JudgmentEvent.rater_id == rater_id,
        JudgmentEvent.query_id.in_(queue),
        JudgmentEvent.repeat.is_(False),
    ]
    selections: list[tuple[type[Base], list[ColumnElement[bool]]]] = [
        (
            Setting,
            [
                Setting.key != DATABASE_ID,
                Setting.key.not_like("packet.%"),
                Setting.key != REPEAT_SHARE,
            ],
        ),
        (Rater, [Rater.id == rater_id]),
        (Query, [in_queue]),
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


@dataclass(frozen=True)
class PacketClaims:
    """What a packet file says, each value of the type and range the database holds, but not
    yet trusted: its rows are events and judgments that belong to no session."""

    path: Path
    packet_id: str
    rater: str
    base: int
    raters: list[tuple[object, object]]
    events: list[JudgmentEvent]
    judgments: list[Judgment]


def merge_packet(database: Database, path: Path) -> MergeOutcome:
    """Merge the packet at ``path`` into ``database`` (one unit of work) as the rater the
    database issued it to; StoreError, and nothing merged, if it did not issue it or the
    packet holds anything that rater could not have written."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"{path}: no such packet file")
    claims = _read_packet(path)

    def merge(session: Session) -> MergeOutcome:
        issued = _issued(session, claims, database.describe())
        person = session.get_one(Rater, issued.rater_id)
        _check_rater(claims, person)
        _check_base(claims, issued)
        _check_known(session, claims, database.describe())
        after = issued.base_event if issued.merged_through is None else issued.merged_through
        fresh = [event for event in claims.events if event.id > after]
        judgments = {_key(judgment): judgment for judgment in claims.judgments}
        _check_history(claims.path, fresh, judgments)
        outcome = _apply(session, person, fresh, judgments)
        if fresh:
            issued.merged_through = fresh[-1].id
        return outcome

    return database.write(merge)  # run again if a rater's grade came in at the same moment


def _read_packet(path: Path) -> PacketClaims:
    """What the packet file at ``path`` says; StoreError if it holds values of the wrong type
    or range, which no judge_app wrote."""
    check_packet_schema(path)  # before any row of it is read
    with open_database(path, read_only=True) as packet, packet.reading() as session:
        settings: dict[str, object] = dict(session.execute(text(SETTINGS)).all())
        if any(settings.get(key) is None for key in (PACKET_ID, PACKET_RATER, PACKET_BASE)):
            raise StoreError(f"{path} is a judge_app database but not a rater packet")
        raters = [(row.id, row.name) for row in session.execute(text(RATERS))]
        events = session.execute(text(EVENTS)).mappings().all()
        judgments = session.execute(text(JUDGMENTS)).mappings().all()
    try:
        return PacketClaims(
            path,
            str(settings[PACKET_ID]),
            str(settings[PACKET_RATER]),
            _whole_setting(settings[PACKET_BASE], PACKET_BASE),
            raters,
            [_event(row) for row in events],
            [_judgment(row) for row in judgments],
        )
    except ValueError as error:
        raise _refused(path, str(error)) from None


def _refused(path: Path, reason: str) -> StoreError:
    """The error that refuses the packet at ``path`` for ``reason``."""
    return StoreError(f"{path}: {reason}; nothing was merged")


def _whole_setting(value: object, key: str) -> int:
    """A packet setting that holds a whole number, as one; ValueError otherwise."""
    try:
        return int(str(value))
    except ValueError:
        raise ValueError(f"{key} {value!r} is not a whole number") from None


def _whole(value: object, what: str) -> int:
    """``value`` if it is a whole number; ValueError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} {value!r} is not a whole number")
    return value


def _keyed(row: RowMapping, where: str) -> dict[str, int]:
    """The row's id and its rater, query and document ids, each checked to be a number."""
    return {
        name: _whole(row[name], f"{where}: {name}")
        for name in ("id", "rater_id", "query_id", "document_id")
    }


def _event(row: RowMapping) -> JudgmentEvent:
    """A packet's history row, checked; ValueError saying what the database would refuse."""
    where = f"history event {row['id']}"
    ids = _keyed(row, where)
    old = _event_state(where, row["old_grade"], row["old_skipped"], row["old_note"])
    new = _event_state(where, row["new_grade"], row["new_skipped"], row["new_note"])
    at = _time(row["at"])
    if at is None:
        raise ValueError(f"{where}: at {row['at']!r} is not a time")
    key = (ids["rater_id"], ids["query_id"], ids["document_id"])
    event = new_event(key, old, new, str(row["action"]), at)
    event.id = ids["id"]
    return event


def _judgment(row: RowMapping) -> Judgment:
    """A packet's judgment, checked; ValueError saying what the database would refuse."""
    where = f"judgment {row['id']}"
    ids = _keyed(row, where)
    state = _state(where, row["grade"], row["skipped"], row["note"])
    duration = row["duration_ms"]
    if duration is not None and _whole(duration, f"{where}: duration_ms") < 0:
        raise ValueError(f"{where}: duration_ms {duration} is not a whole number of milliseconds")
    return Judgment(
        **ids, grade=state.grade, skipped=state.skipped, note=state.note, duration_ms=duration
    )


def _event_state(where: str, grade: object, skipped: object, note: object) -> JudgmentState | None:
    """A history event's state before or after, checked; None where there was no judgment."""
    if skipped is None and grade is None and note is None:
        return None
    return _state(where, grade, skipped, note)


def _state(where: str, grade: object, skipped: object, note: object) -> JudgmentState:
    """A judgment's (grade, skipped, note) as a packet holds them, checked; ValueError
    saying what the database would refuse."""
    if skipped not in (0, 1):
        raise ValueError(f"{where}: skipped {skipped!r} is neither true nor false")
    if note is not None and not isinstance(note, str):
        raise ValueError(f"{where}: note {note!r} is not text")
    if skipped:
        if grade is not None:
            raise ValueError(f"{where}: skipped yet graded {grade!r}")
        return JudgmentState(None, True, note)
    if grade is None:
        raise ValueError(f"{where}: neither graded nor skipped")
    if isinstance(grade, bool) or not isinstance(grade, int) or not GRADE_MIN <= grade <= GRADE_MAX:
        raise ValueError(
            f"{where}: grade {grade!r} is not a whole number from {GRADE_MIN} to {GRADE_MAX}"
        )
    return JudgmentState(grade, False, note)


def _time(value: object) -> datetime | None:
    """The time ``value`` says, as the store keeps times (UTC, no zone); None if it is none."""
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is None else None


def _issued(session: Session, claims: PacketClaims, here: str) -> Packet:
    """This database's record of the packet, locked while the merge runs."""
    issued = session.get(Packet, claims.packet_id, with_for_update=True)
    if issued is None:
        raise _refused(
            claims.path,
            f"packet {claims.packet_id!r} was not issued by this database ({here}): merge it "
            "into the database it was exported from; a packet exported before judge_app "
            "recorded the packets it issues cannot be merged: export a new one",
        )
    return issued


def _check_rater(claims: PacketClaims, person: Rater) -> None:
    """Refuse a packet that names anyone but ``person``, the rater it was issued to."""
    issued_to = f"the packet was issued to {person.name!r} (rater {person.id})"
    if claims.rater != person.name:
        raise _refused(claims.path, f"{PACKET_RATER} says {claims.rater!r}, but {issued_to}")
    for rater_id, name in claims.raters:
        if (rater_id, name) != (person.id, person.name):
            raise _refused(claims.path, f"it holds rater {name!r} (id {rater_id}), but {issued_to}")
    rows: list[tuple[str, Judgment | JudgmentEvent]]
    rows = [("judgment", row) for row in claims.judgments]
    rows += [("history event", row) for row in claims.events]
    for what, row in rows:
        if row.rater_id != person.id:
            raise _refused(
                claims.path, f"{what} {row.id} is rater {row.rater_id}'s, but {issued_to}"
            )


def _check_base(claims: PacketClaims, issued: Packet) -> None:
    """Refuse a packet that claims another base than the one it was issued at."""
    if claims.base != issued.base_event:
        raise _refused(
            claims.path,
            f"{PACKET_BASE} says {claims.base}, but this database issued it at event "
            f"{issued.base_event}",
        )


def _check_known(session: Session, claims: PacketClaims, here: str) -> None:
    """Refuse a packet whose history names a query or document this database does not have."""
    for name, model in (("query", Query), ("document", Document)):
        naming = {getattr(event, f"{name}_id"): event.id for event in claims.events}
        unknown = sorted(naming.keys() - _existing(session, model, list(naming)))
        if unknown:
            raise _refused(
                claims.path,
                f"history event {naming[unknown[0]]} names {name} id {unknown[0]}, which "
                f"{here} does not have",
            )


def _existing(session: Session, model: type[Query] | type[Document], ids: list[int]) -> set[int]:
    """Those of ``ids`` that are rows of ``model`` here."""
    found: set[int] = set()
    for start in range(0, len(ids), IDS_PER_STATEMENT):
        chunk = ids[start : start + IDS_PER_STATEMENT]
        found.update(session.scalars(select(model.id).where(model.id.in_(chunk))))
    return found


def _check_history(
    path: Path, events: list[JudgmentEvent], judgments: dict[tuple[int, int, int], Judgment]
) -> None:
    """Refuse a packet where a pair's judgment is not what its last history event made it."""
    for key, changes in _by_pair(events).items():
        _, said = event_states(changes[-1])
        judgment = judgments.get(key)
        if state_of(judgment) != said:
            _, query_id, document_id = key
            held = (
                f"judgment {judgment.id}"
                if judgment
                else f"the absent judgment of query id {query_id}, document id {document_id}"
            )
            raise _refused(path, f"{held} is not what history event {changes[-1].id} says")


def _key(judgment: Judgment) -> tuple[int, int, int]:
    return (judgment.rater_id, judgment.query_id, judgment.document_id)


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
    judgments: dict[tuple[int, int, int], Judgment],
) -> MergeOutcome:
    """Bring each pair the packet's ``events`` changed to its state in the packet's
    ``judgments``, with history."""
    outcome = MergeOutcome(person.name)
    for key, changes in _by_pair(events).items():
        judgment, offline = locked_judgment(session, key), judgments.get(key)
        final, here = state_of(offline), state_of(judgment)
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
        duration_ms = offline.duration_ms if offline else None
        _set_judgment(session, key, judgment, final, changes[-1].at, duration_ms)
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
        session.scalars(select(Query.external_id).where(Query.id == query_id)).one(),
        session.scalars(select(Document.external_id).where(Document.id == document_id)).one(),
    )
