"""Rater packets: export one rater's work, judge it offline, merge it back."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import func, select

from judge_app.cli import main
from judge_app.commands.packets import PacketExport, PacketMerge, export_packet, merge_packet
from judge_app.store import StoreError, open_database, packets
from judge_app.store.judgments import JudgmentState, clear, current_state, set_grade, skip, undo
from judge_app.store.models import Document, Judgment, JudgmentEvent, Query, Rater, Result
from judge_app.store.people import assigned_queries, rater, unassign_queries
from judge_app.store.settings import scale, set_grade_label


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    with open_database(path) as database, database.transaction() as session:
        ana = rater(session, "ana")
        unassign_queries(session, ana.id, assigned_queries(session, ana.id)[4:])
        set_grade_label(session, 3, "Highly relevant", "Edited for this campaign")
    return path


@pytest.fixture
def source(demo: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "campaign.sqlite"
    shutil.copy(demo, copy)
    return copy


def ids(session, query: str, doc: str) -> tuple[int, int]:
    return (
        session.scalar(select(Query.id).where(Query.external_id == query)),
        session.scalar(select(Document.id).where(Document.external_id == doc)),
    )


def test_packet_holds_the_raters_queue_and_own_judgments_only(source: Path, tmp_path: Path):
    out = tmp_path / "ana.judge"
    with open_database(source) as database:
        contents = export_packet(database, PacketExport("ana", out))
        with database.reading() as session:
            ana = rater(session, "ana")
            queue = assigned_queries(session, ana.id)
            expected_judgments = session.scalar(
                select(func.count())
                .select_from(Judgment)
                .where(Judgment.rater_id == ana.id, Judgment.query_id.in_(queue))
            )
            expected_results = session.scalar(
                select(func.count()).select_from(Result).where(Result.query_id.in_(queue))
            )
    assert (contents.queries, contents.judgments) == (4, expected_judgments)
    assert contents.results == expected_results
    with open_database(out, create=False) as packet, packet.reading() as session:
        assert session.scalars(select(Rater.name)).all() == ["ana"]
        assert sorted(session.scalars(select(Query.id))) == sorted(queue)
        assert set(session.scalars(select(Judgment.rater_id))) == {ana.id}
        assert set(session.scalars(select(JudgmentEvent.rater_id))) <= {ana.id}
        assert session.scalar(select(func.count()).select_from(Judgment)) == expected_judgments
        listed = set(session.scalars(select(Result.document_id)))
        assert listed <= set(session.scalars(select(Document.id)))
        assert scale(session)[3].label == "Highly relevant"  # the campaign's rubric travels


def test_offline_work_merges_back_once(source: Path, tmp_path: Path):
    out = tmp_path / "ana.judge"
    with open_database(source) as database:
        export_packet(database, PacketExport("ana", out))
    with open_database(out, create=False) as packet, packet.transaction() as session:
        ana = rater(session, "ana").id
        regraded, skipped, cleared = (
            ids(session, "q01", "d0101"),
            ids(session, "q01", "d0102"),
            ids(session, "q02", "d0201"),
        )
        set_grade(session, ana, *regraded, 5, duration_ms=1200)
        set_grade(session, ana, *regraded, 2)
        skip(session, ana, *skipped, reason="page did not load")
        clear(session, ana, *cleared)
        set_grade(session, ana, *ids(session, "q02", "d0202"), 0)
        undo(session, ana)  # the last change is taken back offline, so it is not merged
        expected = {
            pair: current_state(session, ana, *pair) for pair in (regraded, skipped, cleared)
        }
    with open_database(source) as database:
        before = {pair: None for pair in expected}
        with database.reading() as session:
            before = {pair: current_state(session, ana, *pair) for pair in expected}
            events_before = session.scalar(select(func.count()).select_from(JudgmentEvent))
        outcome = merge_packet(database, PacketMerge(out))
        assert (outcome.added, outcome.updated, outcome.cleared, outcome.unchanged) == (
            0,
            2,
            1,
            1,
        ), outcome  # d0202: set and undone
        with database.reading() as session:
            for pair, state in expected.items():
                assert current_state(session, ana, *pair) == state
            assert current_state(session, ana, *regraded) == JudgmentState(2, False, None)
            history = session.scalars(
                select(JudgmentEvent)
                .where(JudgmentEvent.id > 0, JudgmentEvent.action == "merge")
                .order_by(JudgmentEvent.id)
            ).all()
            assert [e.new_grade for e in history if (e.query_id, e.document_id) == regraded] == [
                5,
                2,
            ]
            assert before[regraded] != expected[regraded]
            events_after = session.scalar(select(func.count()).select_from(JudgmentEvent))
        again = merge_packet(database, PacketMerge(out))
        assert (again.added, again.updated, again.cleared, again.events) == (0, 0, 0, 0)
        with database.reading() as session:
            assert session.scalar(select(func.count()).select_from(JudgmentEvent)) == events_after
    assert events_after > events_before


def test_a_pair_changed_in_both_places_is_a_conflict_and_both_values_stay(
    source: Path, tmp_path: Path
):
    out = tmp_path / "ana.judge"
    with open_database(source) as database:
        export_packet(database, PacketExport("ana", out))
        with database.transaction() as session:
            ana = rater(session, "ana").id
            pair = ids(session, "q01", "d0103")
            set_grade(session, ana, *pair, 1)  # ana, online meanwhile
    with open_database(out, create=False) as packet, packet.transaction() as session:
        set_grade(session, ana, *pair, 4)
    with open_database(source) as database:
        outcome = merge_packet(database, PacketMerge(out))
        assert len(outcome.conflicts) == 1
        conflict = outcome.conflicts[0]
        assert (conflict.query_id, conflict.doc_id) == ("q01", "d0103")
        assert (conflict.database.grade, conflict.packet.grade) == (1, 4)
        with database.reading() as session:
            assert current_state(session, ana, *pair).grade == 4
            grades = session.scalars(
                select(JudgmentEvent.new_grade)
                .where(
                    JudgmentEvent.rater_id == ana,
                    JudgmentEvent.query_id == pair[0],
                    JudgmentEvent.document_id == pair[1],
                )
                .order_by(JudgmentEvent.id)
            ).all()
            assert grades[-2:] == [1, 4]


def test_refusals_change_nothing(source: Path, demo: Path, tmp_path: Path):
    out = tmp_path / "ana.judge"
    out.write_text("taken", encoding="utf-8")
    with open_database(source) as database:
        with pytest.raises(StoreError, match="already exists"):
            export_packet(database, PacketExport("ana", out))
        with pytest.raises(StoreError, match="no rater called 'zoe'"):
            export_packet(database, PacketExport("zoe", tmp_path / "zoe.judge"))
        assert not (tmp_path / "zoe.judge").exists()
        packet = tmp_path / "ben.judge"
        export_packet(database, PacketExport("ben", packet))
        with pytest.raises(StoreError, match="not a rater packet"):
            merge_packet(database, PacketMerge(source))
    other = tmp_path / "other.sqlite"
    assert main(["demo", str(other)]) == 0
    with open_database(other) as database:
        with pytest.raises(StoreError, match="not issued by this database"):
            merge_packet(database, PacketMerge(packet))
    assert out.read_text(encoding="utf-8") == "taken"


def test_packet_commands(source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "chloe.judge"
    assert main(["packet", "export", str(source), "--rater", "chloe", "--out", str(out)]) == 0
    assert "packet of chloe with 16 queries" in capsys.readouterr().out
    with open_database(out, create=False) as packet, packet.transaction() as session:
        chloe = rater(session, "chloe").id
        set_grade(session, chloe, *ids(session, "q16", "d1601"), 0)  # she had left q16
        set_grade(session, chloe, *ids(session, "q01", "d0101"), 0)  # she had given it 4
    assert main(["packet", "merge", str(source), str(out)]) == 0
    assert "judgments: 1 added, 1 changed, 0 cleared" in capsys.readouterr().out
    assert main(["packet", "merge", str(source), str(out)]) == 0
    assert "judgments: 0 added, 0 changed, 0 cleared" in capsys.readouterr().out
    assert main(["packet", "merge", str(source), str(tmp_path / "absent.judge")]) == 1
    assert "no such packet file" in capsys.readouterr().err


def _dump(path: Path) -> list[str]:
    """Every row and table of a SQLite database, as SQL: equal dumps, equal databases."""
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


def _tamper(packet: Path, *statements: str) -> None:
    """Edit a packet file as anyone could, past its CHECK constraints and foreign keys."""
    with closing(sqlite3.connect(packet)) as connection, connection:
        connection.execute("PRAGMA ignore_check_constraints=ON")
        for statement in statements:
            connection.execute(statement)


def _rater_ids(path: Path) -> dict[str, int]:
    with closing(sqlite3.connect(path)) as connection:
        return dict(connection.execute("SELECT name, id FROM rater"))


@pytest.fixture
def chloe_packet(source: Path, tmp_path: Path) -> Path:
    """A packet issued to chloe, in which she regraded one result offline."""
    out = tmp_path / "chloe.judge"
    with open_database(source) as database:
        export_packet(database, PacketExport("chloe", out))
    with open_database(out, create=False) as packet, packet.transaction() as session:
        set_grade(session, rater(session, "chloe").id, *ids(session, "q01", "d0101"), 0)
    return out


def _refused(source: Path, packet: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The message of ``packet merge`` refusing ``packet``, which changed nothing in
    ``source``."""
    before = _dump(source)
    capsys.readouterr()
    assert main(["packet", "merge", str(source), str(packet)]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.startswith(f"judge-app packet: {packet}: ")
    assert "nothing was merged" in said.err
    assert _dump(source) == before
    return said.err


def _grades(path: Path, rater_id: int) -> list[tuple]:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(
            "SELECT query_id, document_id, grade FROM judgment WHERE rater_id = ? ORDER BY 1, 2",
            (rater_id,),
        ).fetchall()


def test_a_packet_issued_to_chloe_never_writes_as_ana(
    source: Path, chloe_packet: Path, capsys: pytest.CaptureFixture[str]
):
    """The headline of issue 14: chloe's packet, edited so that its rater, judgments and
    history say ana, would overwrite three of ana's grades; it is refused, they stay."""
    ana, chloe = _rater_ids(source)["ana"], _rater_ids(source)["chloe"]
    with open_database(chloe_packet, create=False) as packet, packet.transaction() as session:
        for doc in ("d0102", "d0103"):  # d0101 too, in the fixture: all three 0, ana's not
            set_grade(session, chloe, *ids(session, "q01", doc), 0)
    anas = _grades(source, ana)
    _tamper(
        chloe_packet,
        f"UPDATE rater SET id = {ana}, name = 'ana' WHERE id = {chloe}",
        f"UPDATE judgment SET rater_id = {ana}",
        f"UPDATE judgment_event SET rater_id = {ana}",
        "UPDATE setting SET value = 'ana' WHERE key = 'packet.rater'",
    )
    with open_database(source) as database:
        with pytest.raises(StoreError, match="issued to 'chloe'") as raised:
            merge_packet(database, PacketMerge(chloe_packet))
    assert str(raised.value).startswith(f"{chloe_packet}: ")
    message = _refused(source, chloe_packet, capsys)
    assert "packet.rater says 'ana', but the packet was issued to 'chloe'" in message
    assert _grades(source, ana) == anas


TAMPERINGS = {
    "another rater beside": (
        "INSERT INTO rater (id, name, created_at, active) VALUES (999, 'zoe', '2026-01-01', 1)",
        "holds rater 'zoe'",
    ),
    "the rater renamed": ("UPDATE rater SET name = 'chloé'", "holds rater 'chloé'"),
    "the rater swapped for ana": (
        "UPDATE rater SET id = 1, name = 'ana'",
        r"holds rater 'ana' \(id 1\), but the packet was issued to 'chloe' \(rater 3\)",
    ),
    "packet.rater another": (
        "UPDATE setting SET value = 'ana' WHERE key = 'packet.rater'",
        "packet.rater says 'ana'",
    ),
    "packet.rater absent from the packet": (
        "UPDATE setting SET value = 'zoe' WHERE key = 'packet.rater'",
        "packet.rater says 'zoe'",
    ),
    "a judgment of another rater": (
        "UPDATE judgment SET rater_id = 1 WHERE id = (SELECT MIN(id) FROM judgment)",
        "judgment .* is rater 1's",
    ),
    "an event of another rater": (
        "UPDATE judgment_event SET rater_id = 1",
        "history event 1 is rater 1's",
    ),
    "grade 9": (
        "UPDATE judgment_event SET new_grade = 9",
        "history event 1: grade 9 is not a whole number from 0 to 5",
    ),
    "grade 2.5": (
        "UPDATE judgment SET grade = 2.5 WHERE grade = 4",
        "grade 2.5 is not a whole number from 0 to 5",
    ),
    "grade 'high'": (
        "UPDATE judgment_event SET old_grade = 'high'",
        "history event 1: grade 'high' is not a whole number from 0 to 5",
    ),
    "skipped with a grade": (
        "UPDATE judgment_event SET new_skipped = 1",
        "history event 1: skipped yet graded 0",
    ),
    "neither skipped nor graded": (
        "UPDATE judgment SET grade = NULL WHERE grade = 3",
        "neither graded nor skipped",
    ),
    "a judgment unlike its history": (
        "UPDATE judgment SET grade = 5 WHERE (query_id, document_id) = "
        "(SELECT query_id, document_id FROM judgment_event)",
        r"judgment \d+ is not what history event 1 says",
    ),
    "an unknown query": (
        "UPDATE judgment_event SET query_id = 9999",
        "history event 1 names query id 9999, which .* does not have",
    ),
    "an unknown document": (
        "UPDATE judgment_event SET document_id = 9999",
        "history event 1 names document id 9999, which .* does not have",
    ),
    "a query id not a number": (
        "UPDATE judgment_event SET query_id = 'q01'",
        "history event 1: query_id 'q01' is not a whole number",
    ),
    "a time not a time": (
        "UPDATE judgment_event SET at = 'yesterday'",
        "history event 1: at 'yesterday' is not a time",
    ),
    "a negative duration": (
        "UPDATE judgment SET duration_ms = -5",
        "duration_ms -5 is not a whole number of milliseconds",
    ),
    "base 'abc'": (
        "UPDATE setting SET value = 'abc' WHERE key = 'packet.base_event'",
        "packet.base_event 'abc' is not a whole number",
    ),
    "base moved": (
        "UPDATE setting SET value = '7' WHERE key = 'packet.base_event'",
        "packet.base_event says 7, but this database issued it at event 0",
    ),
    "an id never issued": (
        "UPDATE setting SET value = 'f00d' WHERE key = 'packet.id'",
        "packet 'f00d' was not issued by this database",
    ),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_tampered_packet_is_refused_and_changes_nothing(
    source: Path, chloe_packet: Path, capsys: pytest.CaptureFixture[str], tampering: str
):
    statement, reason = TAMPERINGS[tampering]
    _tamper(chloe_packet, statement)
    assert re.search(reason, _refused(source, chloe_packet, capsys))


def test_a_packet_merged_twice_changes_nothing_the_second_time(source: Path, chloe_packet: Path):
    assert main(["packet", "merge", str(source), str(chloe_packet)]) == 0
    merged = _dump(source)
    assert main(["packet", "merge", str(source), str(chloe_packet)]) == 0
    assert _dump(source) == merged


def test_a_copy_of_the_database_made_before_the_export_refuses_the_packet(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Same database.id, but it never issued the packet: refused, never merged on trust."""
    with open_database(source) as database:
        export_packet(
            database, PacketExport("ben", tmp_path / "ben.judge")
        )  # source has its id from now on
    copy = tmp_path / "copy.sqlite"
    shutil.copy(source, copy)
    out = tmp_path / "chloe.judge"
    assert main(["packet", "export", str(source), "--rater", "chloe", "--out", str(out)]) == 0
    with open_database(out, create=False) as packet, packet.transaction() as session:
        set_grade(session, rater(session, "chloe").id, *ids(session, "q01", "d0101"), 0)
    assert "was not issued by this database" in _refused(copy, out, capsys)


def test_offline_work_merges_after_other_raters_changed_the_history(source: Path, tmp_path: Path):
    """The packet's own history continues from its rater's last event, which other raters'
    later events do not hide."""
    with open_database(source) as database, database.transaction() as session:
        ben = rater(session, "ben").id
        set_grade(session, ben, *ids(session, "q01", "d0101"), 5)
        set_grade(session, ben, *ids(session, "q01", "d0102"), 5)
    out = tmp_path / "chloe.judge"
    with open_database(source) as database:
        export_packet(database, PacketExport("chloe", out))
    with open_database(out, create=False) as packet, packet.transaction() as session:
        chloe = rater(session, "chloe").id
        pair = ids(session, "q16", "d1601")
        set_grade(session, chloe, *pair, 2)
    with open_database(source) as database:
        assert merge_packet(database, PacketMerge(out)).added == 1
        with database.reading() as session:
            assert current_state(session, chloe, *pair) == JudgmentState(2, False, None)


def test_export_records_the_packet_it_issues(source: Path, chloe_packet: Path):
    with closing(sqlite3.connect(chloe_packet)) as connection:
        packet_id = connection.execute("SELECT value FROM setting WHERE key = 'packet.id'")
        packet_id = packet_id.fetchone()[0]
    with closing(sqlite3.connect(source)) as connection:
        issued = connection.execute(
            "SELECT packet.id, rater.name, packet.issued_at, packet.merged_through"
            " FROM packet JOIN rater ON rater.id = packet.rater_id"
        ).fetchall()
    assert len(packet_id) == 32 and int(packet_id, 16) >= 0
    assert [(row[0], row[1], row[3]) for row in issued] == [(packet_id, "chloe", None)]
    assert issued[0][2]


def test_a_failed_export_changes_nothing(source: Path, tmp_path: Path, monkeypatch):
    before = _dump(source)
    nowhere = tmp_path / "nowhere" / "chloe.judge"
    assert main(["packet", "export", str(source), "--rater", "chloe", "--out", str(nowhere)]) == 1
    assert _dump(source) == before

    setting = packets.set_setting

    def full_disk(session, key: str, value: str) -> None:
        if key == packets.PACKET_ID:  # the last step of writing the packet
            raise StoreError("disk is full")
        setting(session, key, value)

    monkeypatch.setattr(packets, "set_setting", full_disk)
    out = tmp_path / "chloe.judge"
    assert main(["packet", "export", str(source), "--rater", "chloe", "--out", str(out)]) == 1
    assert _dump(source) == before  # no database.id, no packet issued
    assert not list(tmp_path.glob("chloe.judge*"))  # no packet, no -wal or -shm beside it


@pytest.mark.parametrize(
    ("statements", "reason"),
    [
        (  # the settings read through a view: it could loop or multiply rows without end
            [
                "ALTER TABLE setting RENAME TO setting_rows",
                "CREATE VIEW setting AS SELECT key, value FROM setting_rows",
            ],
            "it holds the table 'setting_rows', which judge_app does not make",
        ),
        (
            ["CREATE TRIGGER judged AFTER INSERT ON judgment BEGIN DELETE FROM judgment; END"],
            "it holds the trigger 'judged', which judge_app does not make",
        ),
        (  # computed whenever the history is read
            [
                "ALTER TABLE judgment_event ADD COLUMN heavy BLOB "
                "GENERATED ALWAYS AS (zeroblob(1000000000)) VIRTUAL"
            ],
            "it holds the table 'judgment_event', which judge_app does not make",
        ),
        (
            ["CREATE INDEX mine ON judgment (note)"],
            "it holds the index 'mine', which judge_app does not make",
        ),
    ],
)
def test_a_packet_with_schema_objects_judge_app_does_not_make_is_refused_unread(
    source: Path, chloe_packet: Path, capsys: pytest.CaptureFixture[str], statements, reason
):
    _tamper(chloe_packet, *statements)
    assert reason in _refused(source, chloe_packet, capsys)


def test_a_packet_with_more_history_than_a_rater_makes_is_refused(
    source: Path, chloe_packet: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    from judge_app.store import packet_schema

    with closing(sqlite3.connect(chloe_packet)) as connection:
        events = connection.execute("SELECT count(*) FROM judgment_event").fetchone()[0]
    monkeypatch.setattr(packet_schema, "MAX_EVENTS", events - 1)
    said = _refused(source, chloe_packet, capsys)
    assert f"it holds {events:,} history events, more than a rater makes ({events - 1:,})" in said


def test_an_export_killed_before_its_record_is_committed_leaves_no_packet(
    source: Path, tmp_path: Path
):
    out = tmp_path / "killed.judge"
    program = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from judge_app.commands import packets\n"
        "write = packets.write_packet_file\n"
        "def written_then_killed(*args):\n"
        "    write(*args)\n"
        "    os._exit(9)  # as SIGKILL: no except, no finally\n"
        "packets.write_packet_file = written_then_killed\n"
        "packets.export_packet(sys.argv[1], packets.PacketExport('ana', Path(sys.argv[2])))\n"
    )
    done = subprocess.run([sys.executable, "-c", program, str(source), str(out)], check=False)
    assert done.returncode == 9
    assert not out.exists()  # no packet without its record
    with closing(sqlite3.connect(source)) as connection:
        assert connection.execute("SELECT count(*) FROM packet").fetchone()[0] == 0
