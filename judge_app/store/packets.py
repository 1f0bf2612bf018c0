"""Rater packets as stored: the rows of one rater's packet, the packet file written and read
back as plain rows, and the database's record of the packets it issued. Deciding what a
packet may hold and merging it is the use case's (``commands.packets``).

A packet holds the rater's queue (assigned queries, or all when none are assigned), those
queries' results and documents, the runs, the settings (rubric), the rater and the rater's own
judgments with their history; no other rater's. Rows keep their ids, so a packet merges back
into the database it came from. A packet may also carry the preference pairs its rater is asked
to compare (``packet.pairs``: ``PlannedPair``s, as JSON); the choices made offline are the
packet's ``preference`` rows. Every function that takes a Session does not commit.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, astuple, dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Table, insert, select, text
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ColumnElement

from judge_app.store.database import open_database
from judge_app.store.errors import StoreError
from judge_app.store.judgments import JudgmentState, new_event
from judge_app.store.models import (
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
from judge_app.store.settings import REPEAT_SHARE, get_setting, set_setting

DATABASE_ID = "database.id"
PACKET_ID, PACKET_SOURCE, PACKET_RATER = "packet.id", "packet.source", "packet.rater"
PACKET_BASE = "packet.base_event"  # its rater's last history event the packet holds
PACKET_MADE = "packet.exported_at"
PACKET_PAIRS = "packet.pairs"  # the preference pairs the packet asks for, if it carries any
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
PREFERENCES = (
    "SELECT id, rater_id, query_id, document_a_id, document_b_id, choice, left_document_id, "
    "note, judged_at, duration_ms FROM preference ORDER BY id"
)
"""A packet's rows as its file holds them: plain SQL, so that no value is converted (or
fails to be) before it is checked."""
PacketRows = list[tuple[Table, list[dict]]]


@dataclass(frozen=True)
class PacketFile:
    """What a packet file holds, as plain rows, not yet checked: its ``packet.*`` settings,
    its raters (id, name), its history events, its judgments and its preferences."""

    settings: dict[str, object]
    raters: list[tuple[object, object]]
    events: list[RowMapping]
    judgments: list[RowMapping]
    preferences: list[RowMapping]


@dataclass(frozen=True)
class PlannedPair:
    """A pair a packet asks its rater to compare for query ``query_id``: documents a and b in
    canonical order (as ``preference`` keeps them) and the one shown on the left."""

    query_id: int
    document_a_id: int
    document_b_id: int
    left_document_id: int


def packet_rows(session: Session, rater_id: int, queue: list[int]) -> PacketRows:
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


def record_packet(session: Session, person: Rater, tables: PacketRows) -> dict[str, str]:
    """Record a new packet of ``person``'s holding ``tables`` as issued by this database;
    the settings the packet file carries."""
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


def pairs_setting(pairs: list[PlannedPair]) -> str:
    """The value of ``PACKET_PAIRS`` that carries ``pairs``."""
    return json.dumps([asdict(pair) for pair in pairs], separators=(",", ":"))


def planned_pairs(session: Session) -> list[PlannedPair]:
    """The pairs the packet open in ``session`` asks its rater to compare, in the order asked
    (none in a packet exported without them, or in a database); StoreError if the setting is
    not what ``pairs_setting`` writes."""
    value = get_setting(session, PACKET_PAIRS)
    if value is None:
        return []
    try:
        items = json.loads(value)
        pairs = [PlannedPair(**item) for item in items] if isinstance(items, list) else None
    except (TypeError, ValueError):
        pairs = None
    if pairs is None or not all(type(id_) is int for pair in pairs for id_ in astuple(pair)):
        raise StoreError(f"{PACKET_PAIRS} holds no list of preference pairs")
    return pairs


def write_packet_file(out: Path, tables: PacketRows, settings: dict[str, str]) -> None:
    """Make the packet file ``out``: ``tables``' rows and the packet's ``settings``."""
    with open_database(out) as packet, packet.transaction() as session:
        for table, rows in tables:
            if rows:
                session.execute(insert(table), rows)
        for key, value in settings.items():
            set_setting(session, key, value)


def remove_packet_file(out: Path) -> None:
    """Remove what a packet file cut short left: the file and SQLite's files beside it."""
    for leftover in (out, *(Path(f"{out}{end}") for end in ("-wal", "-shm"))):
        leftover.unlink(missing_ok=True)


def read_packet_file(path: Path) -> PacketFile:
    """The rows of the packet file at ``path``, read as plain values once its schema is
    found to be one judge_app makes (``check_packet_schema``) and its settings a packet's;
    StoreError otherwise."""
    check_packet_schema(path)  # before any row of it is read
    with open_database(path, read_only=True) as packet, packet.reading() as session:
        settings: dict[str, object] = dict(session.execute(text(SETTINGS)).all())
        if any(settings.get(key) is None for key in (PACKET_ID, PACKET_RATER, PACKET_BASE)):
            raise StoreError(f"{path} is a judge_app database but not a rater packet")
        return PacketFile(
            settings,
            [(row.id, row.name) for row in session.execute(text(RATERS))],
            list(session.execute(text(EVENTS)).mappings().all()),
            list(session.execute(text(JUDGMENTS)).mappings().all()),
            list(session.execute(text(PREFERENCES)).mappings().all()),
        )


def issued_packet(session: Session, packet_id: str) -> Packet | None:
    """This database's record of the packet ``packet_id``, locked until the transaction
    ends; None if it did not issue it."""
    return session.get(Packet, packet_id, with_for_update=True)


def existing_ids(session: Session, model: type[Query] | type[Document], ids: list[int]) -> set[int]:
    """Those of ``ids`` that are rows of ``model`` here."""
    found: set[int] = set()
    for start in range(0, len(ids), IDS_PER_STATEMENT):
        chunk = ids[start : start + IDS_PER_STATEMENT]
        found.update(session.scalars(select(model.id).where(model.id.in_(chunk))))
    return found


def mark_merged(packet: Packet, through: int) -> None:
    """Record that ``packet`` (read by ``issued_packet``) is merged up to the history event
    ``through``."""
    packet.merged_through = through


def write_merged(
    session: Session,
    key: tuple[int, int, int],
    judgment: Judgment | None,
    steps: list[tuple[JudgmentState | None, JudgmentState | None, datetime]],
    duration_ms: int | None,
) -> None:
    """Write a merge of the (rater, query, document) ``key``: a ``merge`` history event for
    each of ``steps`` (old state, new state, when), and the ``judgment`` read (locked) for
    ``key`` made to say the last new state (None: removed)."""
    for old, new, at in steps:
        session.add(new_event(key, old, new, "merge", at))
    _, state, at = steps[-1]
    _set_judgment(session, key, judgment, state, at, duration_ms)


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


def external_ids(session: Session, key: tuple[int, int, int]) -> tuple[str, str]:
    """The query's and the document's ids, as the user knows them, of a (rater, query,
    document) key."""
    _, query_id, document_id = key
    return (
        session.scalars(select(Query.external_id).where(Query.id == query_id)).one(),
        session.scalars(select(Document.external_id).where(Document.id == document_id)).one(),
    )
