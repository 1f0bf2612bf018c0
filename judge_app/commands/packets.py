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

With ``pairs``, a packet also carries the preference pairs the pair plan (``judging.pair_plan``)
asks of its rater now, planned on this database's facts: every rater's grades and choices,
which the packet itself does not hold. The rater's choices are the packet's preferences; a
merge records each (a ``merge`` event), all or nothing with the grades. A pair chosen in both
places keeps the later choice: the rater's latest word, whichever side it was given on; one
chosen here since the packet was made is listed as a conflict.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from judge_app.judging.pair_plan import candidates, left_first, next_pair, seed_pairs, seeded
from judge_app.numbers import count_text
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
    PREFERENCE_CHOICES,
    Document,
    Judgment,
    JudgmentEvent,
    Packet,
    Preference,
    Query,
    Rater,
)
from judge_app.store.packets import (
    PACKET_BASE,
    PACKET_ID,
    PACKET_PAIRS,
    PACKET_RATER,
    PlannedPair,
    existing_ids,
    external_ids,
    issued_packet,
    mark_merged,
    packet_rows,
    pairs_setting,
    read_packet_file,
    record_packet,
    remove_packet_file,
    write_merged,
    write_packet_file,
)
from judge_app.store.pair_queue import most_pairs, pair_settings, query_pairs
from judge_app.store.people import assigned_queries, rater, rater_by_id
from judge_app.store.preferences import locked_preference, record_preference
from judge_app.store.rater_queue import pool_settings


@dataclass(frozen=True)
class PacketExport:
    """A packet to export: the ``rater`` whose work it holds, the new file ``out``, and
    whether it carries the preference ``pairs`` the rater is asked to compare."""

    rater: str
    out: Path
    pairs: bool = False


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
    pairs: int | None = None  # the preference pairs to compare, when it carries them

    def __str__(self) -> str:
        held = (
            f"{self.path}: packet of {self.rater} with {self.queries:,} queries, "
            f"{self.documents:,} documents, {self.results:,} results"
        )
        judged = f"{self.judgments:,} of their judgments"
        if self.pairs is None:
            return f"{held} and {judged}"
        return f"{held}, {judged} and {count_text(self.pairs, 'preference pair')} to compare"


@dataclass(frozen=True)
class Conflict:
    """A pair changed both in the database and in the packet since the packet was made."""

    query_id: str
    doc_id: str
    database: JudgmentState | None
    packet: JudgmentState | None


@dataclass(frozen=True)
class PreferenceConflict:
    """A pair of documents chosen on in the packet and, since the packet was made, here too,
    differently: both choices in words, and which was ``kept`` (``here`` or ``packet``)."""

    query_id: str
    documents: tuple[str, str]
    database: str
    packet: str
    kept: str


@dataclass
class PreferencesMerged:
    """What a merge did with the packet's preferences: added, changed, already equal, and
    ``kept`` as chosen here later."""

    added: int = 0
    changed: int = 0
    unchanged: int = 0
    kept: int = 0
    conflicts: list[PreferenceConflict] = field(default_factory=list)

    def lines(self) -> list[str]:
        kept = f", {self.kept:,} chosen here later and kept" if self.kept else ""
        lines = [
            f"preferences: {self.added:,} added, {self.changed:,} changed, "
            f"{self.unchanged:,} already equal{kept}"
        ]
        if self.conflicts:
            lines.append(
                f"{len(self.conflicts)} chosen both here and in the packet since it was made; "
                "the later choice kept:"
            )
            lines += [
                f"  {conflict.query_id} {' against '.join(conflict.documents)}: here "
                f"{conflict.database}, packet {conflict.packet}; {conflict.kept}'s kept"
                for conflict in self.conflicts
            ]
        return lines


@dataclass
class MergeOutcome:
    """What a merge changed: pairs added, updated, cleared, and the conflicts among them;
    and the packet's ``preferences`` (None: it holds none)."""

    rater: str
    added: int = 0
    updated: int = 0
    cleared: int = 0
    unchanged: int = 0
    events: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    packet: Path | None = None  # the file merged
    preferences: PreferencesMerged | None = None

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
        if self.preferences is not None:
            lines += self.preferences.lines()
        return "\n".join(lines)


def export_packet(database: Database | str, options: PacketExport) -> PacketContents:
    """Write the packet of ``options.rater`` of ``database`` (an open one, or a path or URL)
    to ``options.out`` (a new file; StoreError if it exists) and record it as issued: the
    file is written under a hidden name, the record committed, and only then the file named
    ``out``. With ``options.pairs`` the packet carries the preference pairs to compare."""
    out = Path(options.out)
    if out.exists():
        raise StoreError(f"{out} already exists: choose a new file for the packet")
    part = out.with_name(f".{out.name}.{secrets.token_hex(4)}.part")
    try:
        with opened(database) as found, found.transaction() as source:
            person = rater(source, options.rater)
            queue = assigned_queries(source, person.id)
            tables = packet_rows(source, person.id, queue)
            settings = record_packet(source, person, tables)
            pairs = _pair_plan(source, person.id, queue) if options.pairs else None
            if pairs is not None:
                settings[PACKET_PAIRS] = pairs_setting(pairs)
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
        None if pairs is None else len(pairs),
    )


def _pair_plan(session: Session, rater_id: int, queue: list[int]) -> list[PlannedPair]:
    """The pairs the pair plan asks ``rater_id`` to compare now, query by query of ``queue``,
    as the pair screen would show them one after another: the seed pairs they lack, then
    adaptive pairs, each chosen as if those before it were, up to ``most_pairs``; each with
    the document shown on the left."""
    pool, settings = pool_settings(session), pair_settings(session)
    planned: list[PlannedPair] = []
    for query_id in queue:
        facts = query_pairs(session, rater_id, query_id, pool)
        ranked = candidates(facts.grades, facts.fused, settings.top)
        seeds = seed_pairs(ranked, seeded(pool.seed, rater_id, query_id))
        everyone = [(a, b, choice) for _rater, a, b, choice in facts.choices]
        asked = {(a, b) for rater_of, a, b, _choice in facts.choices if rater_of == rater_id}
        budget = most_pairs(settings, len(ranked))
        while (pair := next_pair(seeds, ranked, everyone, asked, budget)) is not None:
            asked.add(pair)
            left = pair[0] if left_first(pool.seed, rater_id, query_id, pair) else pair[1]
            planned.append(PlannedPair(query_id, *pair, left))
    return planned


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
    preferences: list[Preference]


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
        if claims.preferences:
            outcome.preferences = _apply_preferences(session, person, issued, claims.preferences)
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
            [_preference(row) for row in packet.preferences],
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


def _preference(row: RowMapping) -> Preference:
    """A packet's preference, checked; ValueError saying what the database would refuse."""
    where = f"preference {row['id']}"
    names = ("id", "rater_id", "query_id", "document_a_id", "document_b_id")
    ids = {name: _whole(row[name], f"{where}: {name}") for name in names}
    a, b = ids["document_a_id"], ids["document_b_id"]
    if a >= b:
        raise ValueError(f"{where}: document_a_id {a} is not below document_b_id {b}")
    choice, left, note = row["choice"], row["left_document_id"], row["note"]
    if choice not in PREFERENCE_CHOICES:
        known = ", ".join(PREFERENCE_CHOICES)
        raise ValueError(f"{where}: choice {choice!r} is not one of {known}")
    if left is not None and _whole(left, f"{where}: left_document_id") not in (a, b):
        raise ValueError(f"{where}: left_document_id {left} is neither document {a} nor {b}")
    if note is not None and not isinstance(note, str):
        raise ValueError(f"{where}: note {note!r} is not text")
    duration = row["duration_ms"]
    if duration is not None and _whole(duration, f"{where}: duration_ms") < 0:
        raise ValueError(f"{where}: duration_ms {duration} is not a whole number of milliseconds")
    judged_at = _time(row["judged_at"])
    if judged_at is None:
        raise ValueError(f"{where}: judged_at {row['judged_at']!r} is not a time")
    return Preference(
        **ids, choice=choice, left_document_id=left, note=note, judged_at=judged_at,
        duration_ms=duration,
    )  # fmt: skip


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
    rows: list[tuple[str, Judgment | JudgmentEvent | Preference]]
    rows = [("judgment", row) for row in claims.judgments]
    rows += [("history event", row) for row in claims.events]
    rows += [("preference", row) for row in claims.preferences]
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
    """Refuse a packet whose history or preferences name a query or document this database
    does not have."""
    rows: list[tuple[str, JudgmentEvent | Preference, list[str]]]
    rows = [("history event", event, ["query_id", "document_id"]) for event in claims.events]
    rows += [
        ("preference", preference, ["query_id", "document_a_id", "document_b_id"])
        for preference in claims.preferences
    ]
    for name, model in (("query", Query), ("document", Document)):
        naming: dict[int, str] = {}
        for what, row, columns in rows:
            for column in columns:
                if column.startswith(name):
                    naming[getattr(row, column)] = f"{what} {row.id}"
        unknown = sorted(naming.keys() - existing_ids(session, model, list(naming)))
        if unknown:
            raise _refused(
                claims.path,
                f"{naming[unknown[0]]} names {name} id {unknown[0]}, which {here} does not have",
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


def _apply_preferences(
    session: Session, person: Rater, issued: Packet, preferences: list[Preference]
) -> PreferencesMerged:
    """Record each of the packet's ``preferences`` as the rater's (a ``merge`` event), unless
    the pair was chosen here later; list the pairs chosen here too since the packet was made,
    and differently."""
    merged = PreferencesMerged()
    for offline in preferences:
        key = (person.id, offline.query_id, offline.document_a_id, offline.document_b_id)
        here = locked_preference(session, key)
        if here is None:
            _record(session, offline)
            merged.added += 1
            continue
        choice, when = here.choice, here.judged_at
        note = here.note if offline.note is None else offline.note  # as record_preference
        if (choice, here.note) == (offline.choice, note):
            merged.unchanged += 1
        elif when > offline.judged_at:
            merged.kept += 1
            merged.conflicts.append(_preference_conflict(session, offline, choice, "here"))
        else:
            _record(session, offline)
            merged.changed += 1
            if when > issued.issued_at:
                merged.conflicts.append(_preference_conflict(session, offline, choice, "packet"))
    return merged


def _record(session: Session, offline: Preference) -> None:
    """Record the packet's preference ``offline`` here as it was made, as a ``merge``."""
    record_preference(
        session, offline.rater_id, offline.query_id, offline.document_a_id, offline.document_b_id,
        offline.choice, left=offline.left_document_id, note=offline.note,
        duration_ms=offline.duration_ms, judged_at=offline.judged_at, action="merge",
    )  # fmt: skip


def _preference_conflict(
    session: Session, offline: Preference, here: str, kept: str
) -> PreferenceConflict:
    key = (offline.rater_id, offline.query_id)
    query, first = external_ids(session, (*key, offline.document_a_id))
    _, second = external_ids(session, (*key, offline.document_b_id))
    words = {"a": f"{first} better", "b": f"{second} better", "equal": "equally good",
             "neither": "neither relevant", "skipped": "skipped"}  # fmt: skip
    return PreferenceConflict(query, (first, second), words[here], words[offline.choice], kept)


def _said(state: JudgmentState | None) -> str:
    """A judgment state in words: ``3``, ``skipped``, ``none``."""
    if state is None:
        return "none"
    return "skipped" if state.skipped else str(state.grade)
