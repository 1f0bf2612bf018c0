"""The evaluation page's numbers (``commands.evaluate.evaluate``) against ``judge-app eval
--db`` itself, the drill-down against the engine and the seeds' tables, adjudicated grades."""

from __future__ import annotations

import json
import math
from contextlib import redirect_stdout
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from campaign_support import import_frames

from judge_app.cli import main as cli
from judge_app.commands.campaign import load_campaign
from judge_app.commands.evaluate import evaluate
from judge_app.commands.explain import explain_query
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.metrics.aggregation import majority_tie
from judge_app.metrics.codes import Graded
from judge_app.store import automatic, open_database
from judge_app.store.reads import change_stamp


def choose(k: int | None = 10, **options) -> EvaluationOptions:
    """The options of the evaluation page, whose k is one number (or None: all)."""
    return EvaluationOptions(ks=(k,), **options)


def _cli_json(*args: str) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", *args, "--format", "json", "--digits", "12"]) == 0
    return json.loads(out.getvalue())


def _cli_options(choice: EvaluationOptions) -> list[str]:
    options = ["--k", "all" if choice.k is None else str(choice.k), "--gain", choice.gain]
    options += ["--ideal", choice.ideal, "--unjudged", choice.unjudged]
    options += ["--aggregate", choice.aggregate]
    options += ["--adjudicated", "prefer" if choice.adjudicated else "ignore"]
    for run in choice.runs or ():
        options += ["--run", run]
    if not choice.runs or len(choice.runs) > 1:
        options.append("--compare")
    if choice.raters:
        options += ["--raters", ",".join(choice.raters)]
    return options


CHOICES = [
    choose(),
    choose(k=5, gain="exponential", unjudged="condensed"),
    choose(k=None, ideal="retrieved", aggregate="majority", adjudicated=False),
    choose(k=3, aggregate="rater:ben"),
    choose(k=20, aggregate="median", raters=("ana", "chloe"), runs=("beta",)),
]


@pytest.mark.parametrize("database", ["demo", "generated"])
@pytest.mark.parametrize("choice", CHOICES, ids=lambda c: f"k{c.k}-{c.aggregate}-{c.unjudged}")
def test_view_numbers_equal_eval_db(request, database, choice):
    path = request.getfixturevalue(database)
    if database == "demo" and choice.raters:
        choice = choose(k=choice.k, raters=("ana", "ben"))
    with open_database(path, create=False) as store:
        campaign = load_campaign(store)
    shown = evaluate(EvaluationRequest.shown(choice), campaign)
    printed = _cli_json("--db", str(path), *_cli_options(choice))
    measure = choice.measure
    assert list(shown.evaluations) == [run["run"] for run in printed["runs"]]
    for run in printed["runs"]:
        name = run["run"]
        assert shown.interval(name).n == run["n_queries"]
        assert shown.interval(name).mean == pytest.approx(run["mean"][measure], abs=1e-11)
        table = shown.table.set_index("query_id")
        for query in run["queries"]:
            row = table.loc[query["query_id"]]
            label = measure.split("@")[1]
            assert row[f"{name} NDCG"] == pytest.approx(query[measure], abs=1e-11)
            assert row[f"{name} DCG"] == pytest.approx(query[f"dcg@{label}"], abs=1e-11)
            assert row[f"{name} IDCG"] == pytest.approx(query[f"idcg@{label}"], abs=1e-11)
            assert row[f"{name} judged"] == pytest.approx(query[f"judged@{label}"], abs=1e-11)
    significance = shown.significance
    pairs = [] if significance is None else significance.pairs
    for pair, theirs in zip(pairs, printed["comparisons"], strict=True):
        ours = pair.comparison
        assert ours.mean_difference == pytest.approx(theirs["mean_difference"], abs=1e-11)
        assert ours.t_p_value == pytest.approx(theirs["t_p"], abs=1e-11)
        assert ours.randomization_p_value == pytest.approx(theirs["randomization_p"], abs=1e-11)
        interval = significance.interval(pair)
        assert (interval.low, interval.high) == pytest.approx(
            (theirs["interval_low"], theirs["interval_high"]), abs=1e-11
        )


def test_generated_campaign_marks_incomplete_queries_and_differences(generated):
    with open_database(generated, create=False) as store:
        campaign = load_campaign(store)
    shown = evaluate(EvaluationRequest.shown(choose(k=10)), campaign)
    table = shown.table
    judged = table[["alpha judged", "beta judged"]]
    assert table["incomplete"].tolist() == (judged < 1).any(axis=1).tolist()
    assert table["incomplete"].any() and not table["incomplete"].all()
    both = table.dropna(subset=["alpha NDCG", "beta NDCG"])
    assert np.allclose(both["difference"], both["beta NDCG"] - both["alpha NDCG"])
    # beta has two queries alpha lacks, but neither is judged: 28 queries each
    assert shown.interval("alpha").n == shown.interval("beta").n == 28
    low, mean, high = (getattr(shown.interval("beta"), name) for name in ("low", "mean", "high"))
    assert low < mean < high
    assert campaign.raters == ["ana", "ben", "chloe"] and campaign.adjudicated == 28 * 3


@pytest.mark.parametrize("choice", CHOICES, ids=lambda c: f"k{c.k}-{c.aggregate}-{c.unjudged}")
def test_drill_down_sums_to_the_engines_dcg_and_idcg(generated, choice):
    with open_database(generated, create=False) as store:
        campaign = load_campaign(store)
    shown = evaluate(EvaluationRequest.shown(choice), campaign)
    label = choice.measure.split("@")[1]
    for run, evaluation in shown.evaluations.items():
        for index, query in enumerate(evaluation.query_ids):
            explained = explain_query(campaign, shown, run, query)
            assert explained.dcg == pytest.approx(evaluation.values[f"dcg@{label}"][index])
            assert explained.idcg == pytest.approx(evaluation.values[f"idcg@{label}"][index])
            assert explained.ndcg == pytest.approx(evaluation.values[choice.measure][index])
            positions = explained.ranked["position"].dropna()
            assert positions.tolist() == list(range(1, len(positions) + 1))
            if choice.k is not None:
                assert len(positions) <= choice.k and len(explained.ideal) <= choice.k
            if choice.unjudged == "zero":
                assert explained.ranked["position"].notna().all()


def test_drill_down_is_the_table_of_seed_003(tmp_path):
    """Seed 003: grades 2, 4, 1, 3, 1 in ranked order; the ideal order 4, 3, 2, 1, 1."""
    path = tmp_path / "seed.sqlite"
    docs = [f"d{i}" for i in range(1, 6)]
    import_frames(
        path,
        tmp_path,
        queries=pd.DataFrame({"query_id": ["q"], "text": ["seed 003"]}),
        documents=pd.DataFrame({"doc_id": docs, "title": [f"Doc {d}" for d in docs]}),
        run_system=pd.DataFrame({"query_id": "q", "doc_id": docs, "rank": range(1, 6)}),
        judgments=pd.DataFrame({"query_id": "q", "doc_id": docs, "rater": "r", "grade": [2, 4, 1, 3, 1]}),
    )  # fmt: skip
    with open_database(path, create=False) as store:
        campaign = load_campaign(store)
    shown = evaluate(EvaluationRequest.shown(choose(k=None)), campaign)
    explained = explain_query(campaign, shown, "system", "q", {d: f"Doc {d}" for d in docs})
    ranked = explained.ranked
    assert ranked["grade"].tolist() == [2, 4, 1, 3, 1]
    assert ranked["r"].tolist() == [2, 4, 1, 3, 1]
    assert ranked["title"].tolist() == [f"Doc {d}" for d in docs]
    assert ranked["discount"].round(4).tolist() == [1.0, 0.6309, 0.5, 0.4307, 0.3869]
    assert ranked["contribution"].round(4).tolist() == [2.0, 2.5237, 0.5, 1.2920, 0.3869]
    assert explained.dcg == pytest.approx(6.702601, abs=5e-7)
    assert explained.ideal["grade"].tolist() == [4, 3, 2, 1, 1]
    assert explained.idcg == pytest.approx(7.710319, abs=5e-7)
    assert ranked["running DCG"].iloc[-1] == pytest.approx(explained.dcg)
    assert explained.formula() == "NDCG@all = DCG@all / IDCG@all = 6.7026 / 7.7103 = 0.8693"


def test_adjudicated_grades_replace_the_aggregate_or_are_ignored():
    judgments = pd.DataFrame(
        {
            "query_id": ["q"] * 5,
            "doc_id": ["a", "a", "a", "b", "b"],
            "rater": ["ana", "ben", "adjudicated", "ana", "ben"],
            "grade": [1.0, 5.0, 4.0, 2.0, 4.0],
            "skipped": [False] * 5,
        }
    )
    graded = Graded.from_frame(judgments)
    preferred = graded.aggregated("mean")
    assert preferred["grade"].tolist() == [4.0, 3.0]
    ignored = graded.aggregated("mean", prefer=False)
    assert ignored["grade"].tolist() == [3.0, 3.0]
    assert graded.aggregated("rater:adjudicated")["doc_id"].tolist() == ["a"]


def test_agreement_leaves_the_adjudicator_out(generated):
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["agreement", "--db", str(generated), "--format", "json"]) == 0
    assert json.loads(out.getvalue())["raters"] == ["ana", "ben", "chloe"]


def test_change_stamp_moves_with_every_grade(demo, tmp_path):
    path = tmp_path / "copy.sqlite"
    path.write_bytes(demo.read_bytes())
    with open_database(path, create=False) as store:
        with store.reading() as session:
            before = change_stamp(session)
        import_frames(
            path,
            tmp_path,
            judgments=pd.DataFrame({"query_id": ["q01"], "doc_id": ["d0101"], "rater": ["zed"], "grade": [0]}),
        )  # fmt: skip
        with store.reading() as session:
            after = change_stamp(session)
            assert change_stamp(session) == after  # read again, the same
        with store.transaction() as session:  # an automatic judge's answer moves it too
            judge = automatic.add_judge(session, "llm", method="llm", model="m")
            automatic.write_grades(session, judge.rater_id, [automatic.AutoGrade(1, 1, 2.5)])
        with store.reading() as session:
            judged = change_stamp(session)
    assert before != after != judged
    assert not any(isinstance(value, float) and math.isnan(value) for value in judged)


def test_a_majority_tie_says_how_it_was_broken(tmp_path):
    """Two raters give d1 grades 1 and 3 (a tie, the lower wins); d2 has a clear majority;
    d3's tie was decided by a lead, so no rule broke it."""
    path = tmp_path / "ties.sqlite"
    docs = ["d1", "d2", "d3"]
    import_frames(
        path,
        tmp_path,
        queries=pd.DataFrame({"query_id": ["q"], "text": ["ties"]}),
        run_system=pd.DataFrame({"query_id": "q", "doc_id": docs, "rank": range(1, 4)}),
        judgments=pd.DataFrame({
            "query_id": "q",
            "doc_id": ["d1", "d1", "d2", "d2", "d2", "d3", "d3", "d3"],
            "rater": ["ana", "ben", "ana", "ben", "cy", "ana", "ben", "adjudicated"],
            "grade": [3, 1, 2, 2, 4, 0, 5, 4],
        }),
    )  # fmt: skip
    with open_database(path, create=False) as store:
        campaign = load_campaign(store)
    shown = evaluate(EvaluationRequest.shown(choose(k=None, aggregate="majority")), campaign)
    explained = explain_query(campaign, shown, "system", "q")
    assert explained.ranked["grade"].tolist() == [1, 2, 4]
    assert explained.ties == {"d1": "tie 1–1 between grades 1 and 3, broken by the lower grade: 1"}
    assert majority_tie([0, 5, 3, 3, 5]) == (
        "tie 2–2 between grades 3 and 5, broken by the lower grade: 3"
    )
    mean = evaluate(EvaluationRequest.shown(choose(k=None)), campaign)
    assert explain_query(campaign, mean, "system", "q").ties == {}
