"""``judge-app sample``: the active sample shown, changing nothing, or (``--apply``) stored and
made the raters' query order (blind: no scale or key reaches a rater's queue or items), and
``eval --judge`` weighting the sample's judged start by its inclusion probabilities."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from automatic_support import grade_automatically
from sqlalchemy import select

from judge_app.cli import main as cli
from judge_app.commands.active_sampling import ActiveSamplingOptions, draw
from judge_app.commands.campaign import read_campaign
from judge_app.commands.evaluate import evaluate
from judge_app.evaluation.corrected import MIN_LABELLED
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.metrics import active_order, ppi
from judge_app.store import StoreError, automatic, open_database
from judge_app.store.active_sample import active_sample_frame, has_active_sample
from judge_app.store.models import ActiveSample, Query
from judge_app.store.people import assigned_queries, find_rater
from judge_app.store.rater_queue import (
    Item,
    QueueQuery,
    pool_settings,
    query_items,
    rater_queue,
    set_pool_settings,
)
from judge_app.writers.corrected import ASSIGNED_ORDER, RANDOM_SAMPLE, assumption


def _run(*args: object) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli([str(arg) for arg in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def judged_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("active") / "demo.sqlite"
    assert _run("demo", path)[0] == 0
    grade_automatically(path, "llm", 0)
    grade_automatically(path, "other", 1)
    return path


@pytest.fixture
def judged(judged_template, tmp_path) -> Path:
    """The demo with two automatic judges, ``llm`` and ``other``: a copy for each test."""
    path = tmp_path / "demo.sqlite"
    shutil.copy(judged_template, path)
    return path


def test_sample_stores_a_seeded_order_and_makes_it_the_raters(judged):
    code, out, err = _run("sample", judged, "--judge", "LLM", "--seed", 7, "--budget", 4,
                          "--budget", 8, "--format", "json", "--apply")  # fmt: skip
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["judge"] == "llm" and document["queries"] == 16 and document["applied"]
    assert [budget["queries"] for budget in document["budgets"]] == [4, 8]
    for budget in document["budgets"]:
        assert 0 < budget["half_width"] <= budget["uniform_half_width"]
    with open_database(judged) as database, database.reading() as session:
        stored = active_sample_frame(session)
        assert pool_settings(session).query_order == "active"
    order = document["order"]
    assert list(stored["query_id"]) == [row["query_id"] for row in order]
    assert list(stored["key"]) == [row["key"] for row in order]
    assert (stored["judge"] == "llm").all() and stored["key"].is_monotonic_increasing
    # key = U / scale with U the seed's uniforms in order of query id
    by_query = stored.sort_values("query_id")
    uniform = np.random.default_rng(7).uniform(size=16)
    assert (by_query["key"] * by_query["scale"]).to_numpy() == pytest.approx(uniform, rel=1e-12)
    assert _run("sample", judged, "--off")[0] == 0
    with open_database(judged) as database, database.reading() as session:
        assert pool_settings(session).query_order == "assigned"


def test_the_table_says_the_expected_widths_at_a_tenth_a_quarter_and_half(judged):
    code, out, _ = _run("sample", judged, "--judge", "llm")
    assert code == 0
    assert "Active sample for llm (seed 0): 16 queries of bm25, neural" in out
    lines = out.splitlines()
    head = next(place for place, line in enumerate(lines) if line.startswith("queries"))
    rows = [line.split() for line in lines[head + 1 : head + 4]]
    assert lines[head + 4].startswith("Order raters would take their assigned queries in: ")
    assert [row[0] for row in rows] == ["2", "4", "8"]
    assert all(row[1] == "0" for row in rows)  # the demo's queries are all judged already


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "--judge NAME: the automatic judge to sample for (or --off)"),
        (["--judge", "nobody"], "has no automatic judge 'nobody'"),
        (["--off", "--judge", "llm"], "--off returns to the assigned order"),
        (["--off", "--apply"], "--off returns to the assigned order"),
        (["--judge", "llm", "--budget", "0"], "--budget takes a whole number from 1"),
        (["--judge", "llm", "--k", "0"], "--k"),
    ],
)
def test_wrong_options_are_refused_naming_the_option(judged, args, message):
    code, out, err = _run("sample", judged, *args)
    assert code == 2 and out == "" and message in err
    with open_database(judged) as database, database.reading() as session:
        assert pool_settings(session).query_order == "assigned"
        assert session.scalar(select(ActiveSample.query_id)) is None


def test_the_active_order_needs_a_sample(judged):
    with open_database(judged) as database, pytest.raises(StoreError, match="judge-app sample"):
        with database.transaction() as session:
            pool = dataclasses.replace(pool_settings(session), query_order="active")
            set_pool_settings(session, pool)


def test_raters_take_their_queries_by_key_then_the_unsampled_as_assigned(judged):
    assert _run("sample", judged, "--judge", "llm", "--seed", 3, "--apply")[0] == 0
    with open_database(judged) as database:
        with database.transaction() as session:
            ana = find_rater(session, "ana").id
            assigned = assigned_queries(session, ana)
            keys = {
                q: k for q, k in session.execute(select(ActiveSample.query_id, ActiveSample.key))
            }
            dropped = sorted(keys, key=keys.get)[:2]
            session.execute(
                ActiveSample.__table__.delete().where(ActiveSample.query_id.in_(dropped))
            )
        with database.reading() as session:
            queue = [query.id for query in rater_queue(session, ana)]
    sampled = sorted((q for q in assigned if q not in dropped), key=keys.get)
    assert queue == sampled + [q for q in assigned if q in dropped]
    assert _run("sample", judged, "--off")[0] == 0
    with open_database(judged) as database, database.reading() as session:
        assert [query.id for query in rater_queue(session, ana)] == assigned


def test_nothing_a_rater_sees_carries_a_scale_or_a_key(judged):
    assert _run("sample", judged, "--judge", "llm", "--apply")[0] == 0
    for shown in (QueueQuery, Item):
        names = {field.name for field in dataclasses.fields(shown)}
        assert not names & {"scale", "key", "probability", "judge", "auto_grade"}
    with open_database(judged) as database, database.reading() as session:
        secrets = {
            value
            for row in session.execute(select(ActiveSample.scale, ActiveSample.key))
            for value in row
        }
        secrets |= set(session.scalars(select(automatic.AutoJudgment.grade)))
        ana = find_rater(session, "ana").id
        shown_values = []
        for query in rater_queue(session, ana):
            shown_values += dataclasses.astuple(query)
            for item in query_items(session, ana, query.id):
                shown_values += dataclasses.astuple(item)
    floats = {value for value in shown_values if isinstance(value, float)}
    assert not floats & secrets


def _labelled_start(path: Path, keep: int) -> tuple[list[str], list[float]]:
    """Remove the human judgments of the query at place ``keep`` of the active order (so its
    judged start is ``keep`` long) and of the last query; the order and its scales."""
    with open_database(path) as database, database.reading() as session:
        sample = active_sample_frame(session)
    order = list(sample["query_id"])
    with sqlite3.connect(path) as connection:
        for query in (order[keep], order[-1]):
            connection.execute(
                "DELETE FROM judgment WHERE query_id = (SELECT id FROM query WHERE external_id = ?)",
                (query,),
            )
    return order, list(sample["scale"])


def test_eval_weights_the_samples_judged_start_by_its_inclusion_probabilities(judged):
    assert _run("sample", judged, "--judge", "llm", "--seed", 5, "--apply")[0] == 0
    start = 12
    assert MIN_LABELLED <= start  # the estimates have their intervals
    order, scales = _labelled_start(judged, start)
    campaign = read_campaign(str(judged), queries=False)
    options = EvaluationOptions(ks=(10,), judge="llm")
    corrected = evaluate(EvaluationRequest(options), campaign).corrected
    assert corrected is not None and corrected.labelled == sorted(order[:start])
    assert assumption(corrected).startswith(RANDOM_SAMPLE)
    assert "2 more queries judged completely" in assumption(corrected)  # 16 − 12 − 2 removed
    humans = evaluate(EvaluationRequest(EvaluationOptions(ks=(10,))), campaign).evaluations
    by_judge = EvaluationOptions(ks=(10,), judge="llm", grades="automatic")
    judge = evaluate(EvaluationRequest(by_judge), campaign).evaluations
    probability = dict(zip(order, active_order.inclusion_probabilities(np.array(scales), start)))

    def values(evaluations, run):
        return dict(zip(evaluations[run].query_ids, evaluations[run].values["ndcg@10"]))

    def by_hand(human: dict[str, float], automatic_values: dict[str, float]):
        units = sorted(automatic_values)
        labelled = np.array([query in order[:start] for query in units])
        y = [human[query] for query in units if query in order[:start]]
        yhat = [automatic_values[query] for query in units]
        pi = [probability[query] for query in units]
        chosen = [probability[query] for query in units if query in order[:start]]
        return (
            ppi.active_estimate(y, yhat, labelled, pi),
            ppi.weighted_humans(y, len(units), chosen),
        )

    for run in ("bm25", "neural"):
        expected, hajek = by_hand(values(humans, run), values(judge, run))
        found = corrected.runs[run]
        assert found.corrected.mean == pytest.approx(expected.mean, abs=1e-12)
        assert found.corrected.se == pytest.approx(expected.se, abs=1e-12)
        assert found.humans.mean == pytest.approx(hajek.mean, abs=1e-12)
        assert found.humans.se == pytest.approx(hajek.se, abs=1e-12)
    human_gap = {q: v - values(humans, "bm25")[q] for q, v in values(humans, "neural").items()}
    judge_gap = {q: v - values(judge, "bm25")[q] for q, v in values(judge, "neural").items()}
    expected, _ = by_hand(human_gap, judge_gap)
    assert corrected.differences[0].corrected.mean == pytest.approx(expected.mean, abs=1e-12)
    assert corrected.differences[0].corrected.se == pytest.approx(expected.se, abs=1e-12)


def test_eval_with_another_judge_or_the_assigned_order_assumes_the_assigned_order(judged):
    assert _run("sample", judged, "--judge", "llm", "--apply")[0] == 0
    code, out, _ = _run("eval", "--db", judged, "--judge", "other", "--format", "json")
    assert code == 0 and json.loads(out)["judge"]["assumption"] == ASSIGNED_ORDER
    code, out, _ = _run("eval", "--db", judged, "--judge", "llm", "--format", "json")
    assert json.loads(out)["judge"]["assumption"] == RANDOM_SAMPLE
    assert _run("sample", judged, "--off")[0] == 0
    code, out, _ = _run("eval", "--db", judged, "--judge", "llm", "--format", "json")
    assert json.loads(out)["judge"]["assumption"] == ASSIGNED_ORDER


def test_query_ids_of_the_store_match_the_sample(judged):
    assert _run("sample", judged, "--judge", "llm", "--apply")[0] == 0
    with open_database(judged) as database, database.reading() as session:
        stored = set(session.scalars(select(Query.external_id).join(ActiveSample)))
        everything = set(session.scalars(select(Query.external_id)))
    assert stored == everything


def _five_labelled(path: Path) -> set[str]:
    """Leave five queries judged completely by humans, with a query not judged fourth in the
    demo's active order for ``llm`` (seed 5): the labelled queries."""
    with open_database(path, read_only=True) as database, database.reading() as session:
        pool = pool_settings(session)
    options = ActiveSamplingOptions(judge="llm", seed=5)
    order = draw(read_campaign(str(path), queries=False), options, pool).order
    with sqlite3.connect(path) as connection:
        for query in [order[3], *order[6:]]:
            connection.execute(
                "DELETE FROM judgment WHERE query_id = (SELECT id FROM query WHERE external_id = ?)",
                (query,),
            )
    return {*order[:3], *order[4:6]}


def _judged_start(order: list[str], labelled: set[str]) -> int:
    """How long the start of ``order`` is whose queries are all ``labelled``."""
    return next((place for place, query in enumerate(order) if query not in labelled), len(order))


def _what_eval_reads(path: Path) -> tuple[str, bool, str, str]:
    """The pool's query order, whether a sample is stored, what ``eval --judge llm --format
    json`` prints and the database file's SHA-256."""
    code, out, err = _run("eval", "--db", path, "--judge", "llm", "--format", "json")
    assert (code, err) == (0, "")
    with open_database(path, read_only=True) as database, database.reading() as session:
        order, stored = pool_settings(session).query_order, has_active_sample(session)
    return order, stored, out, hashlib.sha256(path.read_bytes()).hexdigest()


def test_sample_without_apply_shows_the_order_and_changes_nothing(judged):
    labelled = _five_labelled(judged)
    before = _what_eval_reads(judged)
    assert before[:2] == ("assigned", False)
    assert json.loads(before[2])["judge"]["labelled_queries"] == 5
    code, table, err = _run("sample", judged, "--judge", "llm", "--seed", 5)
    assert (code, err) == (0, "")
    code, out, err = _run("sample", judged, "--judge", "llm", "--seed", 5, "--format", "json")
    assert (code, err) == (0, "")
    assert _what_eval_reads(judged) == before
    document = json.loads(out)
    order = [row["query_id"] for row in document["order"]]
    start = _judged_start(order, labelled)
    assert start == 3 and not document["applied"]
    assert (document["labelled_queries"], document["judged_start"]) == (5, start)
    assert f"Order raters would take their assigned queries in: {', '.join(order)}." in table
    assert (
        "Nothing was stored: to make this the raters' order, run the same command with "
        "--apply.\nApplied, eval --judge llm would weight the longest start of this order "
        "judged completely: 3 of the 5 queries judged completely so far" in table
    )


def test_sample_with_apply_stores_the_order_shown_and_eval_weights_its_judged_start(judged):
    labelled = _five_labelled(judged)
    _, shown, _ = _run("sample", judged, "--judge", "llm", "--seed", 5, "--format", "json")
    code, out, err = _run("sample", judged, "--judge", "llm", "--seed", 5, "--format", "json",
                          "--apply")  # fmt: skip
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["applied"] and document["order"] == json.loads(shown)["order"]
    order = [row["query_id"] for row in document["order"]]
    query_order, stored, evaluated, _ = _what_eval_reads(judged)
    assert (query_order, stored) == ("active", True)
    with open_database(judged, read_only=True) as database, database.reading() as session:
        assert list(active_sample_frame(session)["query_id"]) == order
    assert json.loads(evaluated)["judge"]["labelled_queries"] == _judged_start(order, labelled) == 3
    assert _run("sample", judged, "--off")[0] == 0
    code, table, _ = _run("sample", judged, "--judge", "llm", "--seed", 5, "--apply")
    assert code == 0
    assert (
        "Stored: raters now take their assigned queries in this order, and eval --judge llm "
        "weights the longest start of it judged completely: 3 of the 5 queries judged "
        "completely so far" in table
    )
