"""Rater packets with preference pairs (``packet export --pairs``): the pairs the plan asks of
the rater, planned on the whole database; the choices made offline merged back all or nothing,
as the packet's grades are; a packet without pairs merging as before."""

from __future__ import annotations

import re
import shutil
import sqlite3
from contextlib import closing, redirect_stderr, redirect_stdout
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from sqlalchemy import select

from judge_app.cli import main as cli
from judge_app.commands.packets import PacketExport, PacketMerge, export_packet, merge_packet
from judge_app.judging.pair_session import LEFT, RIGHT, PairSession
from judge_app.store import StoreError, open_database
from judge_app.store.judgments import set_grade
from judge_app.store.models import Document, Query, utcnow
from judge_app.store.packets import PACKET_PAIRS, PlannedPair, planned_pairs
from judge_app.store.pair_queue import PairSettings, set_pair_settings
from judge_app.store.people import add_rater, rater
from judge_app.store.preferences import SKIPPED, preferences_frame, record_preference
from judge_app.store.settings import set_setting

SIDES = {LEFT: "a", RIGHT: "b"}
"""A side's choice of the pair named (left, right)."""


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, planning 5 candidates and at most 7 pairs per query, with ana's and ben's
    choices of q01 (what the plan of chloe's pairs learns from) and chloe's own of a pair."""
    path = tmp_path_factory.mktemp("campaign") / "campaign.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
    with open_database(path) as database, database.transaction() as session:
        set_pair_settings(session, PairSettings(top=5, budget=7))
        q01 = session.scalar(select(Query.id).where(Query.external_id == "q01"))
        d = {doc: ids(session, "q01", doc)[1] for doc in ("d0101", "d0102", "d0103", "d0104")}
        for name in ("ana", "ben"):
            who = rater(session, name).id
            record_preference(session, who, q01, d["d0101"], d["d0102"], "a")
            record_preference(session, who, q01, d["d0103"], d["d0104"], "equal")
        record_preference(session, rater(session, "chloe").id, q01, d["d0101"], d["d0103"], "b")
    return path


@pytest.fixture
def source(campaign: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "source.sqlite"
    shutil.copy(campaign, copy)
    return copy


def ids(session, query: str, doc: str) -> tuple[int, int]:
    return (
        session.scalar(select(Query.id).where(Query.external_id == query)),
        session.scalar(select(Document.id).where(Document.external_id == doc)),
    )


def rater_id(path: Path, name: str) -> int:
    with open_database(path, create=False) as database, database.reading() as session:
        return rater(session, name).id


def external_ids(path: Path) -> dict[str, int]:
    with open_database(path, create=False) as database, database.reading() as session:
        return {ext: id_ for id_, ext in session.execute(select(Document.id, Document.external_id))}


def exported(source: Path, out: Path, name: str = "chloe", pairs: bool = True) -> Path:
    with open_database(source) as database:
        export_packet(database, PacketExport(name, out, pairs))
    return out


def pairs_of(packet: Path) -> list[PlannedPair]:
    with open_database(packet, create=False) as database, database.reading() as session:
        return planned_pairs(session)


def choose(session, rater_id: int, pair: PlannedPair, side: str, **shown) -> None:
    """Choose ``side`` (left, right, equal, neither, skipped) of ``pair`` as it is shown."""
    left = pair.left_document_id
    right = pair.document_b_id if left == pair.document_a_id else pair.document_a_id
    choice = SIDES.get(side, side)
    record_preference(session, rater_id, pair.query_id, left, right, choice, left=left, **shown)


def said(*args: object) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli([str(arg) for arg in args])
    return code, out.getvalue(), err.getvalue()


def dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


def test_the_packet_carries_the_pairs_the_pair_screen_would_show_here(source: Path, tmp_path: Path):
    """The oracle: chloe's pair screen on the database itself, every pair skipped (a skip
    teaches the plan nothing, as a pair still to choose), shows the packet's pairs in its
    order, each with the same side on the left."""
    planned = pairs_of(exported(source, tmp_path / "chloe.judge"))
    screen = []
    with open_database(source) as database:
        chloe = PairSession(database, rater_id(source, "chloe"), "chloe")
        for index in range(len(chloe.queue)):
            chloe.open_query(index)
            while (shown := chloe.shown) is not None:
                left = shown.left.document_id
                screen.append(PlannedPair(chloe.queue[index].id, *shown.pair, left))
                change = chloe.choose(SKIPPED)
                chloe.settle(change, database.write(change.write), None)

    def by_query(pairs: list[PlannedPair]) -> list[PlannedPair]:
        return sorted(pairs, key=lambda pair: pair.query_id)  # stable: each query's order kept

    assert by_query(planned) == by_query(screen)
    with open_database(source) as database, database.reading() as session:
        q01 = ids(session, "q01", "d0101")[0]
    q01_pairs = [pair for pair in planned if pair.query_id == q01]
    assert len(q01_pairs) == 7 - 1  # chloe chose one of q01's pairs already
    assert all(p.document_a_id < p.document_b_id for p in planned)
    assert all(p.left_document_id in (p.document_a_id, p.document_b_id) for p in planned)
    lefts = [p.left_document_id == p.document_a_id for p in planned]
    assert 0.3 < sum(lefts) / len(lefts) < 0.7  # sides shuffled
    assert len({pair.query_id for pair in planned}) == 16 and len(planned) == 16 * 7 - 1


def test_choices_filled_offline_merge_in_canonical_order_with_the_winner_chosen(
    source: Path, tmp_path: Path
):
    packet = exported(source, tmp_path / "chloe.judge")
    chloe = rater_id(source, "chloe")
    planned = pairs_of(packet)
    sides = [LEFT, RIGHT, "equal", "neither", "skipped", LEFT, RIGHT]
    filled = list(zip(planned, sides, strict=False))
    with open_database(packet, create=False) as database, database.transaction() as session:
        for pair, side in filled:
            choose(session, chloe, pair, side, duration_ms=1500)
        set_grade(session, chloe, *ids(session, "q16", "d1601"), 3)  # and a grade
    code, out, err = said("packet", "merge", source, packet)
    assert (code, err) == (0, ""), err
    assert "judgments: 1 added" in out
    assert "preferences: 7 added, 0 changed, 0 already equal" in out
    with open_database(source) as database, database.reading() as session:
        frame = preferences_frame(session)
        external = dict(session.execute(select(Document.id, Document.external_id)).all())
    merged = frame[frame["rater"] == "chloe"].set_index(["doc_a", "doc_b"])
    for pair, side in filled:
        left = external[pair.left_document_id]
        doc_a, doc_b = external[pair.document_a_id], external[pair.document_b_id]
        row = merged.loc[(doc_a, doc_b)]
        assert row["shown_left"] == left and row["duration_ms"] == 1500
        winner = {"a": doc_a, "b": doc_b}.get(row["choice"], row["choice"])
        expected = {LEFT: left, RIGHT: doc_b if left == doc_a else doc_a}.get(side, side)
        assert winner == expected, (side, row)
    internal = external_ids(source)
    canonical = frame[["doc_a", "doc_b"]].map(internal.get)
    assert (canonical["doc_a"] < canonical["doc_b"]).all()  # the store's one order of a pair
    assert list(frame.index) == list(
        frame.sort_values(["query_id", "doc_a", "doc_b", "rater"]).index
    )
    again = dump(source)
    code, out, _ = said("packet", "merge", source, packet)
    assert "preferences: 0 added, 0 changed, 7 already equal" in out
    assert dump(source) == again  # merged twice: nothing the second time


TAMPERINGS = {
    "a choice of no kind": (
        "UPDATE preference SET choice = 'up' WHERE id = 1",
        "preference 1: choice 'up' is not one of a, b, equal, neither, skipped",
    ),
    "a side as a choice": (
        "UPDATE preference SET choice = 'left' WHERE id = 2",
        "preference 2: choice 'left' is not one of",
    ),
    "a choice in capitals": (
        "UPDATE preference SET choice = 'EQUAL' WHERE id = 2",
        "preference 2: choice 'EQUAL' is not one of",
    ),
    "the left side of neither document": (
        "UPDATE preference SET left_document_id = document_a_id + document_b_id WHERE id = 2",
        r"preference 2: left_document_id \d+ is neither document \d+ nor \d+",
    ),
    "a pair out of order": (
        "UPDATE preference SET document_a_id = document_b_id, document_b_id = document_a_id, "
        "left_document_id = NULL WHERE id = 1",
        r"preference 1: document_a_id \d+ is not below document_b_id \d+",
    ),
    "an unknown document": (
        "UPDATE preference SET document_b_id = 99999, left_document_id = NULL WHERE id = 2",
        "preference 2 names document id 99999, which .* does not have",
    ),
    "another rater's": (
        "UPDATE preference SET rater_id = 1 WHERE id = 1",
        r"preference 1 is rater 1's, but the packet was issued to 'chloe'",
    ),
    "a time not a time": (
        "UPDATE preference SET judged_at = 'soon' WHERE id = 2",
        "preference 2: judged_at 'soon' is not a time",
    ),
    "a negative duration": (
        "UPDATE preference SET duration_ms = -1 WHERE id = 1",
        "preference 1: duration_ms -1 is not a whole number of milliseconds",
    ),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_bad_choice_is_refused_naming_it_and_nothing_is_merged(
    source: Path, tmp_path: Path, tampering: str
):
    packet = exported(source, tmp_path / "chloe.judge")
    chloe = rater_id(source, "chloe")
    with open_database(packet, create=False) as database, database.transaction() as session:
        for pair, side in zip(pairs_of(packet)[:2], (LEFT, "equal"), strict=True):
            choose(session, chloe, pair, side)
        set_grade(session, chloe, *ids(session, "q16", "d1601"), 3)
    statement, reason = TAMPERINGS[tampering]
    with closing(sqlite3.connect(packet)) as connection, connection:
        connection.execute("PRAGMA ignore_check_constraints=ON")
        assert connection.execute(statement).rowcount == 1
    before = dump(source)
    code, out, err = said("packet", "merge", source, packet)
    assert (code, out) == (1, "")
    assert err.startswith(f"judge-app packet: {packet}: ") and "nothing was merged" in err
    assert re.search(reason, err), err
    assert dump(source) == before  # neither the preferences nor the grade


def test_a_packet_without_pairs_is_as_it_was_and_merges_as_before(source: Path, tmp_path: Path):
    code, out, _ = said("packet", "export", source, "--rater", "chloe", "--out",
                        tmp_path / "old.judge")  # fmt: skip
    assert code == 0 and out.rstrip().endswith(" and 139 of their judgments")
    packet = tmp_path / "old.judge"
    assert pairs_of(packet) == []
    with closing(sqlite3.connect(packet)) as connection:
        keys = [key for (key,) in connection.execute("SELECT key FROM setting")]
        assert PACKET_PAIRS not in keys
        assert connection.execute("SELECT count(*) FROM preference").fetchone() == (0,)
    with open_database(packet, create=False) as database, database.transaction() as session:
        set_grade(session, rater(session, "chloe").id, *ids(session, "q16", "d1601"), 3)
    code, out, _ = said("packet", "merge", source, packet)
    assert code == 0 and "judgments: 1 added" in out and "preferences" not in out


def test_pairs_compared_in_the_window_of_a_packet_without_pairs_are_merged_too(
    source: Path, tmp_path: Path
):
    """The rater's pair screen in any packet writes the packet's preferences: they are the
    rater's work, and come back with it."""
    packet = exported(source, tmp_path / "chloe.judge", pairs=False)
    with open_database(packet, create=False) as database:
        screen = PairSession(database, rater_id(packet, "chloe"), "chloe")
        screen.open_query(screen.first_unfinished())
        shown = screen.shown
        assert shown is not None
        change = screen.choose(RIGHT, duration_ms=700)
        screen.settle(change, database.write(change.write), None)
    code, out, _ = said("packet", "merge", source, packet)
    assert code == 0 and "preferences: 1 added" in out
    with open_database(source) as database, database.reading() as session:
        frame = preferences_frame(session)
    right, left = shown.right.external_id, shown.left.external_id
    [row] = frame[(frame["rater"] == "chloe") & (frame["shown_left"] == left)].itertuples()
    assert {row.doc_a, row.doc_b} == {left, right}
    assert row.choice == ("a" if row.doc_a == right else "b") and row.duration_ms == 700


def test_a_pair_chosen_in_both_places_keeps_the_later_choice(source: Path, tmp_path: Path):
    packet = exported(source, tmp_path / "chloe.judge")
    chloe = rater_id(source, "chloe")
    first, second, third = pairs_of(packet)[:3]
    soon = utcnow() + timedelta(hours=1)
    with open_database(packet, create=False) as database, database.transaction() as session:
        choose(session, chloe, first, LEFT, judged_at=soon)
        choose(session, chloe, second, LEFT, judged_at=soon)
        choose(session, chloe, third, "equal", judged_at=soon)
    with open_database(source) as database, database.transaction() as session:
        choose(session, chloe, first, RIGHT, judged_at=soon - timedelta(minutes=5))  # earlier
        choose(session, chloe, second, RIGHT, judged_at=soon + timedelta(minutes=5))  # later
        choose(session, chloe, third, "equal", judged_at=soon - timedelta(minutes=5))
    code, out, _ = said("packet", "merge", source, packet)
    assert code == 0
    assert "preferences: 0 added, 1 changed, 1 already equal, 1 chosen here later and kept" in out
    assert "2 chosen both here and in the packet since it was made; the later choice kept:" in out
    assert re.search(r"better, packet d\d+ better; packet's kept", out)
    assert re.search(r"better, packet d\d+ better; here's kept", out)
    with open_database(source) as database, database.reading() as session:
        frame = preferences_frame(session).set_index(["rater", "doc_a", "doc_b"])
        names = dict(session.execute(select(Document.id, Document.external_id)).all())

    def winner(pair: PlannedPair) -> str:
        choice = frame.loc[("chloe", names[pair.document_a_id], names[pair.document_b_id])]
        return names[pair.document_a_id if choice["choice"] == "a" else pair.document_b_id]

    assert winner(first) == names[first.left_document_id]  # the packet's, made later
    assert winner(second) != names[second.left_document_id]  # here's, made later


def test_a_packet_with_more_preferences_than_a_rater_makes_is_refused(
    source: Path, tmp_path: Path, monkeypatch
):
    from judge_app.store import packet_schema

    with open_database(source) as database, database.transaction() as session:
        add_rater(session, "zed")  # no grade: no history in the packet
    packet = exported(source, tmp_path / "zed.judge", "zed")
    zed = rater_id(source, "zed")
    with open_database(packet, create=False) as database, database.transaction() as session:
        for pair in pairs_of(packet)[:3]:
            choose(session, zed, pair, LEFT)
    monkeypatch.setattr(packet_schema, "MAX_EVENTS", 2)
    with pytest.raises(StoreError, match=r"it holds 3 preferences, more than a rater makes \(2\)"):
        merge_packet(source, PacketMerge(packet))


def test_pairs_the_packet_cannot_say_are_an_error(source: Path):
    for value in ("{}", "[1, 2]", '[{"query_id": 1}]', '[{"query_id": "q01", "document_a_id": 1, '
                  '"document_b_id": 2, "left_document_id": 1}]', "not json"):  # fmt: skip
        with open_database(source) as database, database.transaction() as session:
            set_setting(session, PACKET_PAIRS, value)
            with pytest.raises(StoreError, match="holds no list of preference pairs"):
                planned_pairs(session)


def test_the_export_says_how_many_pairs_the_packet_carries(source: Path, tmp_path: Path):
    code, out, _ = said("packet", "export", source, "--rater", "ana", "--out",
                        tmp_path / "ana.judge", "--pairs")  # fmt: skip
    carried = len(pairs_of(tmp_path / "ana.judge"))
    assert code == 0 and out.rstrip().endswith(
        f"of their judgments and {carried} preference pairs to compare"
    )


def test_the_pair_screen_of_a_packet_asks_its_carried_pairs_in_order_and_no_other(
    source: Path, tmp_path: Path
):
    """Offline, the plan cannot see the other raters' choices: the window shows the pairs
    the packet carries, in their order and with their sides, and the query is then done."""
    packet = exported(source, tmp_path / "chloe.judge")
    planned = pairs_of(packet)
    shown = []
    with open_database(packet, create=False) as database:
        chloe = PairSession(database, rater_id(packet, "chloe"), "chloe")
        assert chloe.overall_progress().total == len(planned)
        for index in range(len(chloe.queue)):
            chloe.open_query(index)
            while (pair := chloe.shown) is not None:
                query_id = chloe.queue[index].id
                shown.append(PlannedPair(query_id, *pair.pair, pair.left.document_id))
                change = chloe.choose(LEFT)
                chloe.settle(change, database.write(change.write), None)
            progress = chloe.query_progress()
            assert progress.done == progress.total
    assert shown == planned
