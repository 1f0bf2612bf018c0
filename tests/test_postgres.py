"""The store on a real PostgreSQL server: migrations, bulk import (COPY), judgment writes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import text

from judge_app.store import open_database, reads
from judge_app.store.imports import import_files
from judge_app.store.judgments import JudgmentState, current_state, set_grade, undo
from judge_app.store.people import rater

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo"
pytestmark = pytest.mark.postgres


def _demo(database) -> None:  # type: ignore[no-untyped-def]
    import_files(
        database,
        queries=DEMO / "queries.csv",
        documents=DEMO / "documents.jsonl",
        run=DEMO / "runs" / "bm25.txt",
        judgments=DEMO / "judgments.csv",
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
        second = import_files(postgres, judgments=DEMO / "judgments.csv")
        assert "0 judgments added, 0 changed, 458 unchanged" in str(second)
    finally:
        postgres.close()


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
    """demo, eval, agreement, export and a packet round trip: the same on both stores."""
    from judge_app.cli import main

    sqlite = tmp_path / "demo.sqlite"
    outputs = {}
    for name, db in (("sqlite", str(sqlite)), ("postgres", pg_url)):
        assert main(["demo", db]) == 0
        capsys.readouterr()
        said = []
        for command in (
            ["eval", "--db", db, "--k", "5,10", "--format", "json"],
            ["agreement", "--db", db, "--format", "json", "--bootstrap", "200"],
            ["export", db, "--qrels", str(tmp_path / f"{name}.qrels")],
        ):
            assert main(command) == 0, command
            said.append(capsys.readouterr().out.replace(name, "NAME"))
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
    assert outputs["postgres"] == outputs["sqlite"]
    assert "judgments: 0 added, 1 changed" in outputs["postgres"][3]
