"""Rater packets (``judge-app packet``): one rater's work as a self-contained SQLite file, judged
offline, and merging it back into the database that issued it; the rows and the file as
stored are ``store.packets``.

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

from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from judge_app.store.database import Database, opened
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
    Document,
    Judgment,
    JudgmentEvent,
    Packet,
    Query,
    Rater,
)
from judge_app.store.packets import (
    PACKET_BASE,
    PACKET_ID,
    PACKET_RATER,
    existing_ids,
    external_ids,
    issued_packet,
    mark_merged,
    packet_rows,
    read_packet_file,
    record_packet,
    remove_packet_file,
    write_merged,
    write_packet_file,
)
from judge_app.store.people import assigned_queries, rater, rater_by_id


@dataclass(frozen=True)
class PacketExport:
    """A packet to export: the ``rater`` whose work it holds, and the new file ``out``."""

    rater: str
    out: Path


@dataclass(frozen=True)
class PacketMerge:
    """A packet to merge: the ``packet`` file."""

    packet: Path


@dataclass(frozen=True)
class PacketContents:
    """What went into a packet."""

    path: Path
    rater: str
    queries: int
    documents: int
    results: int
    judgments: int

    def __str__(self) -> str:
        return (
            f"{self.path}: packet of {self.rater} with {self.queries:,} queries, "
            f"{self.documents:,} documents, {self.results:,} results and "
            f"{self.judgments:,} of their judgments"
        )


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
    packet: Path | None = None  # the file merged

    def __str__(self) -> str:
        lines = [
            f"merged {self.packet} ({self.rater}), judgments: {self.added:,} added, "
            f"{self.updated:,} changed, {self.cleared:,} cleared, {self.unchanged:,} already "
            f"equal; history events: {self.events:,}"
        ]
        if self.conflicts:
            lines.append(
                f"{len(self.conflicts)} changed both here and in the packet; the packet's kept:"
            )
            lines += [
                f"  {conflict.query_id} {conflict.doc_id}: here {_said(conflict.database)}, "
                f"packet {_said(conflict.packet)}"
                for conflict in self.conflicts
            ]
        return "\n".join(lines)


def export_packet(database: Database | str, options: PacketExport) -> PacketContents:
    """Write the packet of ``options.rater`` of ``database`` (an open one, or a path or URL)
    to ``options.out`` (a new file; StoreError if it exists) and record it as issued: the
    file is written under a hidden name, the record committed, and only then the file named
    ``out``."""
    out = Path(options.out)
    if out.exists():
        raise StoreError(f"{out} already exists: choose a new file for the packet")
    part = out.with_name(f".{out.name}.{secrets.token_hex(4)}.part")
    try:
        with opened(database) as found, found.transaction() as source:
            person = rater(source, options.rater)
            tables = packet_rows(source, person.id, assigned_queries(source, person.id))
            settings = record_packet(source, person, tables)
            write_packet_file(part, tables, settings)
        # named only once recorded: a packet at its name is whole and issued, whenever the
        # export is cut short (a kill leaves at most a hidden .part file)
        part.rename(out)
    except BaseException:
        remove_packet_file(part)
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


def merge_packet(database: Database | str, options: PacketMerge) -> MergeOutcome:
    """Merge the packet file ``options.packet`` into ``database`` (an open one, or a path or
    URL; one unit of work) as the rater the database issued it to; StoreError, and nothing
    merged, if it did not issue it or the packet holds anything that rater could not have
    written."""
    path = Path(options.packet)
    if not path.is_file():
        raise StoreError(f"{path}: no such packet file")
    claims = _read_packet(path)

    def merge(session: Session) -> MergeOutcome:
        issued = _issued(session, claims, here)
        person = rater_by_id(session, issued.rater_id)
        _check_rater(claims, person)
        _check_base(claims, issued)
        _check_known(session, claims, here)
        after = issued.base_event if issued.merged_through is None else issued.merged_through
        fresh = [event for event in claims.events if event.id > after]
        judgments = {_key(judgment): judgment for judgment in claims.judgments}
        _check_history(claims.path, fresh, judgments)
        outcome = _apply(session, person, fresh, judgments)
        outcome.packet = path
        if fresh:
            mark_merged(issued, fresh[-1].id)
        return outcome

    with opened(database) as found:
        here = found.describe()
        return found.write(merge)  # run again if a rater's grade came in at the same moment


def _read_packet(path: Path) -> PacketClaims:
    """What the packet file at ``path`` says; StoreError if it holds values of the wrong type
    or range, which no judge_app wrote."""
    packet = read_packet_file(path)
    settings = packet.settings
    try:
        return PacketClaims(
            path,
            str(settings[PACKET_ID]),
            str(settings[PACKET_RATER]),
            _whole_setting(settings[PACKET_BASE], PACKET_BASE),
            packet.raters,
            [_event(row) for row in packet.events],
            [_judgment(row) for row in packet.judgments],
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
    issued = issued_packet(session, claims.packet_id)
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
        unknown = sorted(naming.keys() - existing_ids(session, model, list(naming)))
        if unknown:
            raise _refused(
                claims.path,
                f"history event {naming[unknown[0]]} names {name} id {unknown[0]}, which "
                f"{here} does not have",
            )


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
            outcome.conflicts.append(Conflict(*external_ids(session, key), here, final))
            steps = [(here, final, changes[-1].at)]
        write_merged(session, key, judgment, steps, offline.duration_ms if offline else None)
        outcome.events += len(steps)
        if final is None:
            outcome.cleared += 1
        elif here is None:
            outcome.added += 1
        else:
            outcome.updated += 1
    return outcome


def _said(state: JudgmentState | None) -> str:
    """A judgment state in words: ``3``, ``skipped``, ``none``."""
    if state is None:
        return "none"
    return "skipped" if state.skipped else str(state.grade)
