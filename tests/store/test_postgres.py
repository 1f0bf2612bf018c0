"""The store on a real PostgreSQL server: migrations, bulk import (COPY), judgment writes."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable

import pandas as pd
import pytest
from paths import DEMO
from sqlalchemy import select, text
from sqlalchemy.engine import make_url

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.commands.packets import (
    MergeOutcome,
    PacketExport,
    PacketMerge,
    export_packet,
    merge_packet,
)
from judge_app.store import Database, open_database, reads
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.failures import described
from judge_app.store.judgments import JudgmentState, current_state, set_grade, undo
from judge_app.store.models import JudgmentEvent
from judge_app.store.people import add_rater, rater

pytestmark = pytest.mark.postgres


def _demo(database: Database) -> None:
    import_files(
        database,
        ImportOptions(
            queries=DEMO / "queries.csv",
            documents=DEMO / "documents.jsonl",
            run=DEMO / "runs" / "bm25.txt",
            judgments=DEMO / "judgments.csv",
        ),
    )


def test_postgres_store_matches_sqlite(pg_url, db):
    postgres = open_database(pg_url)
    try:
        _demo(postgres)
        _demo(db)
        with postgres.reading() as pg_session, db.reading() as sqlite_session:
            for read in (reads.judgments_frame, reads.results_frame, reads.queries_frame):
                ours, theirs = read(pg_session), read(sqlite_session)
                columns = [c for c in ours.columns if c != "judged_at"]
                pd.testing.assert_frame_equal(ours[columns], theirs[columns], check_dtype=False)
            assert reads.table_counts(pg_session) == reads.table_counts(sqlite_session)
        second = import_files(postgres, ImportOptions(judgments=DEMO / "judgments.csv"))
        assert "0 judgments added, 0 changed, 458 unchanged" in str(second)
    finally:
        postgres.close()


def test_a_reading_is_one_snapshot_on_postgresql(pg_url):
    """A commit made while a reading runs is not seen by its later statements (exports and
    evaluations read in several statements; READ COMMITTED would mix two moments)."""
    database = open_database(pg_url)
    try:
        _demo(database)
        count = "SELECT count(*) FROM judgment WHERE grade IS NOT NULL"
        with database.reading() as session:
            before = session.execute(text(count)).scalar_one()
            with database.transaction() as writing:
                writing.execute(
                    text("UPDATE judgment SET grade = NULL, skipped = TRUE WHERE grade = 0")
                )
            assert session.execute(text(count)).scalar_one() == before
        with database.reading() as session:
            assert session.execute(text(count)).scalar_one() < before
    finally:
        database.close()


def test_postgres_grade_and_undo(pg_url):
    database = open_database(pg_url)
    try:
        _demo(database)
        with database.transaction() as session:
            ana = rater(session, "ana").id
            judgment = session.execute(
                text(
                    "SELECT query_id, document_id, grade FROM judgment WHERE rater_id = :r LIMIT 1"
                ),
                {"r": ana},
            ).one()
            new_grade = (judgment.grade + 1) % 6
            set_grade(session, ana, judgment.query_id, judgment.document_id, new_grade)
        with database.transaction() as session:
            undo(session, ana)
            state = current_state(session, ana, judgment.query_id, judgment.document_id)
        assert state == JudgmentState(judgment.grade, False, state.note)
    finally:
        database.close()


def test_every_command_gives_the_same_answers_on_postgresql(pg_url, tmp_path, capsys):
    """init, demo, info, eval, agreement, raters, export, report and a packet round trip:
    the same on both stores."""
    from judge_app.cli import main

    sqlite = tmp_path / "demo.sqlite"
    outputs = {}
    for name, db in (("sqlite", str(sqlite)), ("postgres", pg_url)):
        shown = described(make_url(db)) if "://" in db else db
        assert main(["init", db]) == 0
        assert main(["demo", db]) == 0
        assert main(["init", db]) == 0  # at head already: nothing to do, nothing lost
        capsys.readouterr()
        said = []
        report = tmp_path / f"{name}.html"
        for command in (
            ["info", db],
            ["eval", "--db", db, "--k", "5,10", "--format", "json"],
            ["agreement", "--db", db, "--format", "json", "--bootstrap", "200"],
            ["raters", db, "--format", "json"],
            ["export", db, "--qrels", str(tmp_path / f"{name}.qrels")],
            ["report", db, "--out", str(report), "--title", "Campaign"],
        ):
            assert main(command) == 0, command
            out = capsys.readouterr().out.replace(db, "DB").replace(shown, "DB")
            said.append(out.replace(name, "NAME"))
        html = report.read_text(encoding="utf-8")
        said.append(re.sub(r"<p class='meta'>.*?</p>", "", html).replace(shown, "DB"))
        packet = tmp_path / f"{name}.judge"
        assert main(["packet", "export", db, "--rater", "ben", "--out", str(packet)]) == 0
        with open_database(packet, create=False) as offline, offline.transaction() as session:
            ben = rater(session, "ben").id
            query, document = session.execute(
                text("SELECT query_id, document_id FROM judgment WHERE grade = 0 LIMIT 1")
            ).one()
            set_grade(session, ben, query, document, 5)
        assert main(["packet", "merge", db, str(packet)]) == 0
        said.append(capsys.readouterr().out.replace(name, "NAME"))
        said.append((tmp_path / f"{name}.qrels").read_text(encoding="utf-8"))
        outputs[name] = said
    for ours, theirs in zip(outputs["postgres"], outputs["sqlite"]):
        assert ours == theirs
    assert "judgments: 0 added, 1 changed" in outputs["postgres"][-2]


def _pairs(database, count: int) -> tuple[dict[str, int], int, list[int]]:
    """Raters ana, ben and chloe, query q1 and documents d0 … d{count-1}: their ids."""
    with database.transaction() as session:
        raters = {name: add_rater(session, name).id for name in ("ana", "ben", "chloe")}
        query = query_ids(session, ["q1"])["q1"]
        documents = list(document_ids(session, [f"d{i}" for i in range(count)]).values())
    return raters, query, documents


def _history(database, rater: int, query: int, document: int) -> list[JudgmentEvent]:
    with database.reading() as session:
        return list(
            session.scalars(
                select(JudgmentEvent)
                .where(
                    JudgmentEvent.rater_id == rater,
                    JudgmentEvent.query_id == query,
                    JudgmentEvent.document_id == document,
                )
                .order_by(JudgmentEvent.id)
            )
        )


def _in_other_session(url: str, work: Callable[[Database], object]) -> threading.Thread:
    """``work(database)`` in a thread with a database connection of its own (another copy of
    the app); what it returns or raises goes to ``thread.outcome``."""

    def run() -> None:
        with open_database(url) as other:
            try:
                thread.outcome = work(other)
            except Exception as error:  # noqa: BLE001 (the test reads it)
                thread.outcome = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize("existing", [False, True], ids=["first grade", "regrade"])
def test_two_sessions_grading_one_judgment_at_once_keep_both_in_order(pg_url, existing):
    """Session A grades a pair and holds its transaction open; B grades the same pair
    meanwhile. B waits (a first grade: its insert collides with A's and is run again; a
    regrade: the row is locked), then writes over A: the last grade stays, and the history
    holds both, B's old state being A's grade."""
    database = open_database(pg_url)
    try:
        raters, query, (document, *_) = _pairs(database, 1)
        ana = raters["ana"]
        if existing:
            database.write(lambda s: set_grade(s, ana, query, document, 1))
        with database.transaction() as session:
            set_grade(session, ana, query, document, 2)
            other = _in_other_session(
                pg_url, lambda db: db.write(lambda s: set_grade(s, ana, query, document, 5))
            )
            other.join(1.0)
            assert other.is_alive()  # B waits for A
        other.join(30)
        assert isinstance(other.outcome, JudgmentEvent), other.outcome
        history = _history(database, ana, query, document)
        grades = [(event.old_grade, event.new_grade) for event in history]
        assert grades == ([(None, 1), (1, 2), (2, 5)] if existing else [(None, 2), (2, 5)])
        with database.reading() as session:
            assert current_state(session, ana, query, document).grade == 5
    finally:
        database.close()


def test_raters_grading_at_once_on_one_server_lose_no_update(pg_url):
    """Four copies of the app grade the same 6 documents for a few seconds, two of them as
    the same rater (one person on two machines): no write fails, every confirmed change is
    in the history, each judgment ends at its last change, and each change's old state is the
    one before it."""
    seconds = 4.0
    database = open_database(pg_url)
    try:
        raters, query, documents = _pairs(database, 6)
        start = threading.Barrier(4)

        def grade(rater: int, seed: int) -> Callable[[Database], list[tuple[int, int, int]]]:
            def work(db: Database) -> list[tuple[int, int, int]]:
                rng = random.Random(seed)
                start.wait()
                written, ends = [], time.monotonic() + seconds
                order = iter(documents)  # all start on the same documents: inserts collide
                while time.monotonic() < ends:
                    document = next(order, None) or rng.choice(documents)
                    grade = rng.randrange(6)
                    event = db.write(lambda s: set_grade(s, rater, query, document, grade))
                    if event is not None:
                        written.append((event.id, document, grade))
                return written

            return work

        workers = [
            _in_other_session(pg_url, grade(raters[name], seed))
            for seed, name in enumerate(("ana", "ana", "ben", "chloe"))
        ]
        for worker in workers:
            worker.join(seconds + 60)
        outcomes = [worker.outcome for worker in workers]
        assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
        confirmed = {
            event_id: (document, grade) for o in outcomes for event_id, document, grade in o
        }
        assert len(confirmed) > 100
        for rater in raters.values():
            for document in documents:
                history = _history(database, rater, query, document)
                for before, after in zip([None, *history], history):
                    assert after.old_grade == (before.new_grade if before else None)
                    if after.id in confirmed:
                        assert confirmed.pop(after.id) == (document, after.new_grade)
                with database.reading() as session:
                    state = current_state(session, rater, query, document)
                assert (state.grade if state else None) == (
                    history[-1].new_grade if history else None
                )
        assert confirmed == {}  # every confirmed change was found in a history
    finally:
        database.close()


UNJUDGED_BY = """
SELECT DISTINCT s.query_id, s.document_id FROM result s
WHERE NOT EXISTS (SELECT 1 FROM judgment j WHERE j.rater_id = :r
                  AND j.query_id = s.query_id AND j.document_id = s.document_id)
"""
JUDGED_BY = "SELECT query_id, document_id FROM judgment WHERE rater_id = :r AND grade = 0"


@pytest.mark.parametrize(
    ("name", "pairs", "before"),
    [("ana", JUDGED_BY, 0), ("chloe", UNJUDGED_BY, None)],
    ids=["regrade", "first grade"],
)
def test_a_merge_while_the_rater_grades_the_same_judgment_on_the_server_loses_neither(
    pg_url, tmp_path, name, pairs, before
):
    """A rater grades a document offline in their packet and, at the moment the lead merges
    it, on the server too (that transaction still open). The merge waits for the server's
    grade (or, for a first grade, collides with it and runs again), then reports the
    conflict: the packet's grade stands and both are in the history, in order."""
    from judge_app.cli import main

    assert main(["demo", pg_url]) == 0
    database = open_database(pg_url)
    try:
        with database.reading() as session:
            who = rater(session, name).id
            query, document = session.execute(text(pairs), {"r": who}).first()
        packet = tmp_path / f"{name}.judge"
        export_packet(database, PacketExport(name, packet))
        with open_database(packet, create=False) as offline:
            offline.write(lambda s: set_grade(s, who, query, document, 5))
        with database.transaction() as session:
            set_grade(session, who, query, document, 2)
            merging = _in_other_session(pg_url, lambda db: merge_packet(db, PacketMerge(packet)))
            merging.join(1.0)
            assert merging.is_alive()  # the merge waits for the grade being given
        merging.join(30)
        outcome = merging.outcome
        assert isinstance(outcome, MergeOutcome), outcome
        assert [(c.database.grade, c.packet.grade) for c in outcome.conflicts] == [(2, 5)]
        history = _history(database, who, query, document)
        assert [(e.old_grade, e.new_grade, e.action) for e in history] == [
            (before, 2, "set"),
            (2, 5, "merge"),
        ]
        with database.reading() as session:
            assert current_state(session, who, query, document).grade == 5
    finally:
        database.close()
