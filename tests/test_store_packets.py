"""Rater packets: export one rater's work, judge it offline, merge it back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from judge_app.cli import main
from judge_app.store import StoreError, open_database
from judge_app.store.judgments import JudgmentState, clear, current_state, set_grade, skip, undo
from judge_app.store.models import Document, Judgment, JudgmentEvent, Query, Rater, Result
from judge_app.store.packets import export_packet, merge_packet
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
        contents = export_packet(database, "ana", out)
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
        export_packet(database, "ana", out)
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
        outcome = merge_packet(database, out)
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
        again = merge_packet(database, out)
        assert (again.added, again.updated, again.cleared, again.events) == (0, 0, 0, 0)
        with database.reading() as session:
            assert session.scalar(select(func.count()).select_from(JudgmentEvent)) == events_after
    assert events_after > events_before


def test_a_pair_changed_in_both_places_is_a_conflict_and_both_values_stay(
    source: Path, tmp_path: Path
):
    out = tmp_path / "ana.judge"
    with open_database(source) as database:
        export_packet(database, "ana", out)
        with database.transaction() as session:
            ana = rater(session, "ana").id
            pair = ids(session, "q01", "d0103")
            set_grade(session, ana, *pair, 1)  # ana, online meanwhile
    with open_database(out, create=False) as packet, packet.transaction() as session:
        set_grade(session, ana, *pair, 4)
    with open_database(source) as database:
        outcome = merge_packet(database, out)
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
            export_packet(database, "ana", out)
        with pytest.raises(StoreError, match="no rater called 'zoe'"):
            export_packet(database, "zoe", tmp_path / "zoe.judge")
        assert not (tmp_path / "zoe.judge").exists()
        packet = tmp_path / "ben.judge"
        export_packet(database, "ben", packet)
        with pytest.raises(StoreError, match="not a rater packet"):
            merge_packet(database, source)
    other = tmp_path / "other.sqlite"
    assert main(["demo", str(other)]) == 0
    with open_database(other) as database:
        with pytest.raises(StoreError, match="made from another database"):
            merge_packet(database, packet)
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
