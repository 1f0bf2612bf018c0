"""``judge-app plan`` and ``commands.plan``: the queries needed, from the per-query scores
``eval --db`` prints and statsmodels' solution of the paired t-test; the judging cost from
what the database holds, read back independently (pools of the results, the judgments'
times, their raters); on the demo database and on a generated campaign."""

from __future__ import annotations

import json
import math
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from campaign_support import import_frames
from statsmodels.stats.power import TTestPower, tt_solve_power

from judge_app.cli import main as cli
from judge_app.commands.plan import DELTAS, PlanOptions, plan_of
from judge_app.errors import JudgeAppError, UsageError
from judge_app.names import ADJUDICATED
from judge_app.store import open_database, reads


def run(*args: object) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli([str(arg) for arg in args])
    return code, out.getvalue(), err.getvalue()


def eval_scores(path: Path, *options: str) -> pd.DataFrame:
    """Per-query NDCG@10 of every run as ``eval --db --format json`` prints it (queries ×
    runs)."""
    code, out, _ = run("eval", "--db", path, "--format", "json", *options)
    assert code == 0
    columns = {
        record["run"]: {q["query_id"]: q["ndcg@10"] for q in record["queries"]}
        for record in json.loads(out)["runs"]
    }
    return pd.DataFrame(columns)


def stored_cost(path: Path, depth: int, runs: list[str] | None = None) -> dict[str, float]:
    """The pool, pace and raters of the database, from the store's plain frames."""
    with open_database(path, read_only=True) as database, database.reading() as session:
        results = reads.results_frame(session, runs)
        judgments = reads.judgments_frame(session, texts=False)
    pools = results[results["rank"] <= depth].groupby("query_id")["doc_id"].nunique()
    judgments = judgments[judgments["rater"] != ADJUDICATED]
    judgments = judgments[judgments["grade"].notna() | judgments["skipped"]]
    timed = judgments["duration_ms"].dropna().to_numpy(dtype=float) / 1000
    return {
        "pool": float(pools.mean()),
        "seconds": float(np.median(timed)) if len(timed) else math.nan,
        "timed": len(timed),
        "raters": float(judgments.groupby("query_id")["rater"].nunique().mean()),
    }


@pytest.mark.parametrize("delta", [0.02, 0.05, 0.1])
def test_demo_plan_is_statsmodels_on_the_scores_eval_prints(demo, delta):
    scores = eval_scores(demo)
    d = scores["neural"] - scores["bm25"]
    sigma = d.std(ddof=1)
    plan = plan_of(str(demo), PlanOptions(delta))
    assert plan.variance.variance == pytest.approx(d.var(ddof=1), rel=1e-12)
    assert plan.variance.pooled and plan.variance.runs == ("bm25", "neural")
    expected = math.ceil(tt_solve_power(effect_size=delta / sigma, alpha=0.05, power=0.8) - 1e-9)
    assert plan.need.queries == expected
    assert plan.current == len(d) == 16
    assert plan.enough == (16 >= expected)
    assert plan.need.current_power == pytest.approx(
        TTestPower().power(delta / sigma, 16, 0.05), abs=1e-10
    )
    cost = stored_cost(demo, 10)
    assert cost["timed"] > 0  # the demo's judgments are timed
    assert plan.pace.pool_size == pytest.approx(cost["pool"])
    assert plan.pace.seconds == pytest.approx(cost["seconds"])
    assert plan.pace.raters_per_query == pytest.approx(cost["raters"])
    judgments = expected * cost["pool"] * cost["raters"]
    assert plan.need.judgments == pytest.approx(judgments)
    assert plan.need.hours == pytest.approx(judgments * cost["seconds"] / 3600)
    assert [row.delta for row in plan.table] == sorted({*DELTAS, delta})


def test_generated_campaign_with_holes_and_untimed_judgments(generated):
    """Run alpha misses two queries and two are judged by nobody; a lead's adjudicated
    grades are no rater's; imported judgments carry no time: no hours."""
    scores = eval_scores(generated)
    both = scores.dropna()
    plan = plan_of(str(generated), PlanOptions(0.03, power=0.9, alpha=0.01))
    d = both["beta"] - both["alpha"]
    assert plan.variance.variance == pytest.approx(d.var(ddof=1), rel=1e-12)
    assert plan.current == len(both)
    sigma = math.sqrt(plan.variance.variance)
    assert plan.need.queries == math.ceil(
        tt_solve_power(effect_size=0.03 / sigma, alpha=0.01, power=0.9) - 1e-9
    )
    cost = stored_cost(generated, 10)
    assert cost["timed"] == 0
    assert plan.pace.seconds is None and plan.need.hours is None
    assert plan.pace.pool_size == pytest.approx(cost["pool"])
    assert plan.pace.raters_per_query == pytest.approx(cost["raters"])
    assert "no judgment was timed" in plan.sentence()


def test_one_run_uses_twice_its_variance_and_its_own_pool(generated):
    scores = eval_scores(generated, "--run", "alpha")
    plan = plan_of(str(generated), PlanOptions(0.05, runs=("alpha",), pool_depth=5))
    assert not plan.variance.pooled
    assert plan.variance.variance == pytest.approx(2 * scores["alpha"].var(ddof=1), rel=1e-12)
    assert plan.current == scores["alpha"].notna().sum()
    assert plan.pace.pool_size == pytest.approx(stored_cost(generated, 5, ["alpha"])["pool"])
    assert plan.pace.pool_size == 5  # one run's top 5: five documents a query


def test_raters_per_query_given_replace_the_campaigns(demo):
    plan = plan_of(str(demo), PlanOptions(0.05, raters_per_query=1))
    assert not plan.pace.measured
    assert plan.need.judgments == pytest.approx(plan.need.queries * plan.pace.pool_size)


def test_cli_table_json_and_csv_agree(demo):
    code, table, _ = run("plan", demo, "--delta", "0.05")
    assert code == 0
    code, out, _ = run("plan", demo, "--delta", "0.05", "--format", "json")
    assert code == 0
    record = json.loads(out)
    plan = plan_of(str(demo), PlanOptions(0.05))
    assert record["queries_needed"] == plan.need.queries
    assert record["variance"]["value"] == plan.variance.variance  # full precision
    assert record["sentence"] == plan.sentence()
    assert table.splitlines()[0] == plan.sentence()
    assert f"{plan.need.queries:,}" in table and "power now" in table
    code, out, _ = run("plan", demo, "--delta", "0.05", "--format", "csv")
    assert code == 0
    rows = pd.read_csv(StringIO(out))
    assert rows["delta"].tolist() == sorted({*DELTAS, 0.05})
    asked = rows[rows["asked"]].iloc[0]
    assert asked["queries_needed"] == plan.need.queries
    assert asked["judgments"] == pytest.approx(plan.need.judgments, rel=1e-15)


def test_sentence_in_words(demo):
    plan = plan_of(str(demo), PlanOptions(0.02))
    words = plan.sentence()
    assert words.startswith(
        f"To detect a difference of 0.02 in NDCG@10 with 80% power at 0.05 you need "
        f"{plan.need.queries:,} queries (you have 16); judging them takes about "
    )
    assert words.endswith(f" at {plan.pace.seconds:.1f} s each.")


@pytest.mark.parametrize(
    "args,message",
    [
        (["--delta", "0"], "--delta takes"),
        (["--delta", "1.5"], "--delta takes"),
        (["--delta", "nan"], "--delta takes a finite"),
        (["--delta", "0.02", "--power", "0.01"], "--power takes a probability above"),
        (["--delta", "0.02", "--alpha", "1"], "--alpha takes"),
        (["--delta", "0.02", "--k", "5,10"], "--k takes one cut-off"),
        (["--delta", "0.02", "--k", "x"], "--k 'x'"),
        (["--delta", "0.02", "--pool-depth", "0"], "--pool-depth takes"),
        (["--delta", "0.02", "--raters-per-query", "0"], "--raters-per-query takes"),
        (["--delta", "0.02", "--run", "nope"], "no run 'nope'"),
    ],
)
def test_usage_errors(demo, args, message):
    code, out, err = run("plan", demo, *args)
    assert code == 2 and out == ""
    assert message in err


def test_a_campaign_with_one_query_has_no_variance(tmp_path):
    path = tmp_path / "one.sqlite"
    import_frames(
        path,
        tmp_path,
        run_only=pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]}),
        judgments=pd.DataFrame(
            {"query_id": ["q1"], "doc_id": ["d1"], "rater": ["ana"], "grade": [3]}
        ),
    )
    code, out, err = run("plan", path, "--delta", "0.05")
    assert code == 1 and out == ""
    assert "too few queries to estimate a variance" in err
    with pytest.raises(JudgeAppError):
        plan_of(str(path), PlanOptions(0.05))


def test_options_are_checked_in_the_core():
    with pytest.raises(UsageError) as error:
        PlanOptions(-0.1).checked()
    assert error.value.option == "delta"
    assert PlanOptions(0.1, k=None).depth is None
    assert PlanOptions(0.1, k=5, pool_depth=20).depth == 20


def test_identical_runs_give_no_number_of_queries(tmp_path):
    path = tmp_path / "same.sqlite"
    results = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["d1", "d2", "d1", "d3", "d2"],
         "rank": [1, 2, 1, 2, 1]}
    )  # fmt: skip
    graded = pd.DataFrame(
        {"query_id": ["q1", "q2", "q3"], "doc_id": ["d2", "d1", "d2"], "rater": ["ana"] * 3,
         "grade": [3, 2, 1]}
    )  # fmt: skip
    import_frames(path, tmp_path, run_a=results, run_b=results, judgments=graded)
    code, _out, err = run("plan", path, "--delta", "0.05")
    assert code == 1
    assert "do not vary (variance 0)" in err
