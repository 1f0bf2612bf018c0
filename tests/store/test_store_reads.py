"""The reads the lead's commands start from give what a plain SQL join gives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

from judge_app.cli import main as cli
from judge_app.store import reads
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade, skip
from judge_app.store.people import add_rater
from judge_app.store.rows import Places

JOINED = """
SELECT q.external_id, d.external_id, r.name, j.grade FROM judgment j
JOIN query q ON q.id = j.query_id JOIN document d ON d.id = j.document_id
JOIN rater r ON r.id = j.rater_id WHERE j.grade IS NOT NULL AND NOT j.skipped
"""


@pytest.mark.parametrize("first_document_id", [1, 2**31 + 5], ids=["small ids", "huge ids"])
def test_the_graded_judgments_are_those_of_a_plain_join(db, db_path, first_document_id, capsys):
    with db.transaction() as session:
        session.execute(
            text("INSERT INTO document (id, external_id) VALUES (:id, 'first')"),
            {"id": first_document_id},
        )
        queries = query_ids(session, ["q1", "q2"])
        documents = document_ids(session, ["first", "d2", "d3"])
        ana, ben = add_rater(session, "ana").id, add_rater(session, "ben").id
        for rater, query, document, grade in (
            (ana, "q1", "first", 5), (ana, "q1", "d2", 0), (ben, "q1", "first", 3),
            (ben, "q2", "d3", 2), (ana, "q2", "d3", 4),
        ):  # fmt: skip
            set_grade(session, rater, queries[query], documents[document], grade)
        skip(session, ben, queries["q1"], documents["d2"])
    with db.reading() as session:
        frame = reads.grades_frame(session)
        expected = sorted(tuple(row) for row in session.execute(text(JOINED)))
    got = sorted(
        zip(frame["query_id"], frame["doc_id"], frame["rater"], frame["grade"].astype(int))
    )
    assert got == expected and len(got) == 5
    assert not frame["skipped"].any()
    # the commands read huge ids too, without a table up to the largest id
    assert cli(["eval", "--db", str(db_path), "--format", "json"]) == 2  # no runs: usage error
    assert cli(["agreement", "--db", str(db_path), "--format", "json"]) == 0
    out = db_path.parent / "out.qrels"
    assert cli(["export", str(db_path), "--qrels", str(out)]) == 0
    assert "Q1 0 first 4\n" in out.read_text(encoding="utf-8").replace("q1", "Q1")
    capsys.readouterr()


@given(
    st.lists(st.integers(0, 2**40), unique=True, max_size=40),
    st.lists(st.integers(-5, 2**40 + 5), max_size=40),
)
def test_places_are_found_for_dense_and_sparse_ids(ids, asked):
    places = Places(np.array(ids, dtype=np.int64), np.arange(len(ids)))
    where = {key: place for place, key in enumerate(ids)}
    assert places[np.array(asked, dtype=np.int64)].tolist() == [where.get(key, -1) for key in asked]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_every_judgment_is_read_with_its_time_to_the_microsecond(backend, request):
    from datetime import datetime, timedelta

    from sqlalchemy import select

    from judge_app.store import open_database
    from judge_app.store.models import Judgment

    url = str(request.getfixturevalue("db_path")) if backend == "sqlite" else None
    url = url or request.getfixturevalue("pg_url")
    moments = [
        datetime(2026, 3, 9, 23, 59, 58, 1),  # a microsecond past a whole second
        datetime(2026, 3, 10, 0, 0, 0),  # midnight: a day of its own, no fraction stored
        datetime(1999, 12, 31, 12, 30, 15, 999999),
    ]
    with open_database(url) as database:
        with database.transaction() as session:
            queries = query_ids(session, ["q1", "q2"])
            documents = document_ids(session, ["d1", "d2"])
            ana, ben = add_rater(session, "ana").id, add_rater(session, "ben").id
            set_grade(session, ana, queries["q1"], documents["d1"], 4, duration_ms=2500)
            set_grade(session, ben, queries["q2"], documents["d2"], 0)
            skip(session, ben, queries["q1"], documents["d2"])
            judgments = session.scalars(select(Judgment).order_by(Judgment.id)).all()
            for judgment, moment in zip(judgments, moments):
                judgment.judged_at = moment
        with database.reading() as session:
            rows, names = reads.judged_codes(session)
    got = sorted(
        (
            names["query_id"][query], names["doc_id"][doc], names["rater"][rater],
            int(grade), int(at), int(duration),
        )
        for query, doc, rater, grade, at, duration in zip(*rows.values())
    )  # fmt: skip
    epoch = datetime(1970, 1, 1)
    micro = [(moment - epoch) // timedelta(microseconds=1) for moment in moments]
    assert got == [
        ("q1", "d1", "ana", 4, micro[0], 2500),
        ("q1", "d2", "ben", -1, micro[2], -1),  # skipped, not timed
        ("q2", "d2", "ben", 0, micro[1], -1),
    ]
