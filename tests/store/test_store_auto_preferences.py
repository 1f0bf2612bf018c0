"""Automatic judges' preferences in the store (revision 0010): written apart from the raters',
one per judge, query and unordered pair, each replacing the judge's earlier answer; checked in
the code and by the database; the pairs humans chose on; the migration on populated SQLite and
PostgreSQL databases."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from judge_app.store import StoreError, open_database, schema
from judge_app.store.auto_preferences import (
    AutoChoice,
    auto_preferences_frame,
    document_texts,
    human_pairs,
    preferences_cached,
    write_auto_preferences,
)
from judge_app.store.automatic import add_judge
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.people import add_rater
from judge_app.store.preferences import preferences_frame, record_preference


@pytest.fixture
def ids(db):
    with db.transaction() as session:
        ana = add_rater(session, "ana").id
        judge = add_judge(session, "llm pairs", method="llm", model="m", prompt_version="p")
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2", "d3"])
    return ana, judge.rater_id, query, docs["d1"], docs["d2"], docs["d3"]


def test_answers_are_kept_apart_and_replace_the_judges_own(db, ids):
    ana, judge, query, d1, d2, d3 = ids
    db.write(lambda s: record_preference(s, ana, query, d1, d2, "a"))
    first = [
        AutoChoice(query, d1, d2, "equal", None, "a", "b", "A", "A", "sha1", 200, 8, 900),
        AutoChoice(query, d1, d3, None, "with d3 shown first: no final answer", "b", None),
    ]
    assert db.write(lambda s: write_auto_preferences(s, judge, first)) == 2
    again = [AutoChoice(query, d1, d3, "b", None, "b", "b", prompt_sha="sha2")]
    db.write(lambda s: write_auto_preferences(s, judge, again))
    with db.reading() as session:
        frame = auto_preferences_frame(session, judge)
        cached = preferences_cached(session, judge)
        humans = preferences_frame(session)
    assert frame.values.tolist() == [
        ["q1", "d1", "d2", "equal", "a", "b", None],
        ["q1", "d1", "d3", "b", "b", "b", None],
    ]
    assert cached == {(query, d1, d2): ("sha1", False), (query, d1, d3): ("sha2", False)}
    assert humans[["doc_a", "doc_b", "rater", "choice"]].values.tolist() == [
        ["d1", "d2", "ana", "a"]
    ]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (AutoChoice(1, 3, 2, "a"), "canonical order"),
        (AutoChoice(1, 2, 3, "skipped"), "not one of a, b, equal, neither"),
        (AutoChoice(1, 2, 3, "a", choice_ab="c"), "not one of"),
        (AutoChoice(1, 2, 3, None), "needs its failure's reason"),
    ],
)
def test_a_wrong_answer_is_refused(db, ids, answer, reason):
    _, judge, query, d1, d2, d3 = ids
    ids_of = {1: query, 2: d1, 3: d2}
    answer = AutoChoice(
        ids_of[answer.query_id], ids_of[answer.document_a_id], ids_of[answer.document_b_id],
        answer.choice, answer.failure, answer.choice_ab,
    )  # fmt: skip
    with pytest.raises(StoreError, match=reason):
        db.write(lambda s: write_auto_preferences(s, judge, [answer]))


def test_only_an_automatic_judge_writes_here(db, ids):
    ana, _, query, d1, d2, _ = ids
    with pytest.raises(StoreError, match="only an automatic judge"):
        db.write(lambda s: write_auto_preferences(s, ana, [AutoChoice(query, d1, d2, "a")]))


@pytest.mark.parametrize(
    "values",
    [
        "(2, 1, 3, 2, 'a', NULL)",  # not canonical
        "(2, 1, 2, 3, 'better', NULL)",  # unknown choice
        "(2, 1, 2, 3, NULL, NULL)",  # neither choice nor failure
        "(2, 1, 2, 3, 'a', 'timeout')",  # both
    ],
)
def test_the_database_refuses_what_the_code_refuses(db, ids, values):
    _, judge, _query, *_ = ids
    assert judge == 2
    with pytest.raises(IntegrityError), db.engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO auto_preference (rater_id, query_id, document_a_id, document_b_id, "
            f"choice, failure, judged_at) VALUES {values[:-1]}, '2026-01-10')"
        )


def test_the_pairs_humans_chose_on_leave_out_skips_and_judges(db, ids):
    ana, judge, query, d1, d2, d3 = ids
    other = db.write(lambda s: query_ids(s, ["q0"])["q0"])
    db.write(lambda s: record_preference(s, ana, query, d3, d1, "a"))
    db.write(lambda s: record_preference(s, ana, query, d2, d3, "skipped"))
    db.write(lambda s: record_preference(s, ana, other, d2, d1, "neither"))
    db.write(lambda s: record_preference(s, judge, query, d1, d2, "a"))  # not a human
    with db.reading() as session:
        pairs = human_pairs(session)
        texts = document_texts(session, [d1, d2], body_chars=3)
    assert pairs == [(other, d1, d2), (query, d1, d3)]  # by external ids: q0 before q1
    assert texts[d1].external_id == "d1" and texts[d1].body is None


def test_the_migration_keeps_a_populated_sqlite_database_and_undoes(tmp_path):
    """A SQLite database at 0009 with preferences upgrades keeping them; downgrading to 0009
    drops the automatic preferences alone."""
    path = tmp_path / "old.sqlite"
    database = open_database(path)
    with database.transaction() as session:
        ana = add_rater(session, "ana").id
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2"])
        record_preference(session, ana, query, docs["d1"], docs["d2"], "b")
    with database.engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "0009")
    database.close()
    with open_database(path) as upgraded:
        judge = upgraded.write(
            lambda s: add_judge(s, "j", method="llm", model="m", prompt_version="p").rater_id
        )
        answer = AutoChoice(query, docs["d1"], docs["d2"], "b", None, "b", "b")
        upgraded.write(lambda s: write_auto_preferences(s, judge, [answer]))
        with upgraded.reading() as session:
            assert preferences_frame(session)["choice"].tolist() == ["b"]
        engine = upgraded.engine
        with engine.begin() as connection, schema._alembic_config(connection) as config:
            command.downgrade(config, "0009")
            tables = connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%preference%' "
                "ORDER BY name"
            ).scalars()
            assert list(tables) == ["preference", "preference_event"]
            command.upgrade(config, "head")


def test_the_migration_keeps_a_populated_postgresql_database(pg_owner_url):
    """A PostgreSQL database at 0009 with preferences upgrades keeping them and takes a judge's
    answers; downgrading drops only the new table."""
    database = open_database(pg_owner_url)
    with database.transaction() as session:
        ana = add_rater(session, "ana").id
        query = query_ids(session, ["q1"])["q1"]
        docs = document_ids(session, ["d1", "d2"])
    database.close()
    engine = create_engine(pg_owner_url)
    with engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "0009")
        connection.exec_driver_sql(
            "INSERT INTO preference (rater_id, query_id, document_a_id, document_b_id, choice, "
            f"judged_at) VALUES ({ana}, {query}, {docs['d1']}, {docs['d2']}, 'a', '2026-01-09')"
        )
    engine.dispose()
    with open_database(pg_owner_url) as upgraded:
        judge = upgraded.write(
            lambda s: add_judge(s, "j", method="llm", model="m", prompt_version="p").rater_id
        )
        answer = AutoChoice(query, docs["d1"], docs["d2"], None, "HTTP 500", "a", None)
        upgraded.write(lambda s: write_auto_preferences(s, judge, [answer]))
        with upgraded.reading() as session:
            humans = preferences_frame(session)
            frame = auto_preferences_frame(session, judge)
    assert humans[["rater", "choice"]].values.tolist() == [["ana", "a"]]
    assert frame[["choice", "choice_ab", "failure"]].values.tolist() == [[None, "a", "HTTP 500"]]
    engine = create_engine(pg_owner_url)
    with engine.begin() as connection, schema._alembic_config(connection) as config:
        command.downgrade(config, "0009")
        tables = connection.execute(
            text(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_name = 'auto_preference'"
            )
        ).scalar_one()
        kept = connection.exec_driver_sql("SELECT count(*) FROM preference").scalar_one()
    engine.dispose()
    assert (tables, kept) == (0, 1)
