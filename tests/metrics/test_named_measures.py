"""Measures asked for by ir_measures' names (``eval --measure``): their values against
ir_measures itself (with pytrec_eval under it) on generated collections, the same from a
database and from its exported files, and leading the comparison."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures.measures.base import SumAgg
from paths import TREC_EVAL

from judge_app.cli import main
from judge_app.metrics.aggregation import aggregate
from judge_app.metrics.codes import code_frames
from judge_app.metrics.measure_names import parse_measures
from judge_app.metrics.named import named_values
from judge_app.writers.paper_tables import latex_text, markdown_text

EVERY_FAMILY = (
    "nDCG@10,nDCG,nDCG@3,P@5,P@20,R@10,R@100,AP,AP@10,RR,Bpref,Rprec,Judged@10,Judged@3,infAP,"
    "P(rel=2)@5,R(rel=2)@10,AP(rel=2,judged_only=True),RR(rel=3),SetF(beta=0.5),SetF,"
    "SetP(relative=True),SetP,SetR,SetAP,IPrec@0.5,IPrec@0.0,NumRet,NumRel,NumRelRet,NumQ,"
    "Success@1,Success@10,nDCG(gains={0:0,1:1,2:3,3:7})@10,nDCG(judged_only=True)@5,"
    "P(judged_only=True)@10,Rprec(rel=2),Bpref(rel=2),infAP(rel=2)"
)


def collection(seed: int, ties: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels graded 0-3 of 25 queries (3 judged only, 3 retrieved only) and a run of 30
    documents each; scores with ties, or all distinct."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(25):
        docs = rng.choice(80, 40, replace=False)
        if q < 22:
            for d in docs[: rng.integers(1, 30)]:
                grade = int(rng.choice(4, p=[0.55, 0.2, 0.15, 0.1]))
                qrels.append((f"q{q:02}", f"d{d}", grade))
        if q >= 3:
            for d in rng.choice(80, 30, replace=False):
                score = float(rng.integers(0, 8)) if ties else float(rng.random())
                run.append((f"q{q:02}", f"d{d}", score))
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "grade"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


def named_of(
    run: pd.DataFrame, qrels: pd.DataFrame, measures, queries: list[str], complete: bool = False
) -> dict[str, np.ndarray]:
    """``named_values`` of a run and qrels given as rows, coded as files are where read."""
    graded, results = code_frames(qrels, {"run": run})
    return named_values(
        graded.queries, graded.docs, results.by_run()["run"], aggregate(graded, "mean"),
        measures, queries, complete,
    )  # fmt: skip


def oracle(qrels: pd.DataFrame, run: pd.DataFrame, names: list[str]) -> dict[str, dict]:
    """ir_measures' value of each name for each query it evaluates, by its pytrec_eval
    provider (Judged: its judged provider), named: left to choose, ir_measures may pick
    another provider whose nDCG is not trec_eval's, differently from one run to the next."""
    qrels_in = [ir_measures.Qrel(r.query_id, r.doc_id, int(r.grade)) for r in qrels.itertuples()]
    run_in = [ir_measures.ScoredDoc(r.query_id, r.doc_id, r.score) for r in run.itertuples()]
    values: dict[str, dict] = {}
    measures = [ir_measures.parse_measure(name) for name in names]
    for provider, chosen in (
        (ir_measures.judged, [m for m in measures if m.NAME == "Judged"]),
        (ir_measures.pytrec_eval, [m for m in measures if m.NAME != "Judged"]),
    ):
        for metric in provider.iter_calc(chosen, qrels_in, run_in):
            values.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    return values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_family_equals_ir_measures(seed):
    # ir_measures' Judged breaks ties by document id ascending, trec_eval (and we) descending:
    # distinct scores, where the two orders are one
    qrels, run = collection(seed, ties=False)
    measures = parse_measures(EVERY_FAMILY)
    queries = sorted(set(qrels["query_id"]) & set(run["query_id"]))
    ours = named_of(run, qrels, measures, queries)
    expected = oracle(qrels, run, [str(m) for m in measures])
    for measure in measures:
        theirs = expected[str(measure)]
        assert set(queries) <= set(theirs), measure  # it scores missing queries 0 (-c)
        np.testing.assert_allclose(
            ours[str(measure)],
            [theirs[q] for q in queries],
            rtol=0,
            atol=1e-12,
            err_msg=str(measure),
        )


def test_tied_scores_are_ranked_as_trec_eval_ranks_them():
    qrels, run = collection(4, ties=True)
    measures = [m for m in parse_measures(EVERY_FAMILY) if m.family != "Judged"]
    queries = sorted(set(qrels["query_id"]) & set(run["query_id"]))
    ours = named_of(run, qrels, measures, queries)
    expected = oracle(qrels, run, [str(m) for m in measures])
    for measure in measures:
        theirs = expected[str(measure)]
        np.testing.assert_allclose(
            ours[str(measure)], [theirs[q] for q in queries], atol=1e-12, err_msg=str(measure)
        )


def test_complete_scores_the_judged_queries_a_run_misses():
    qrels, run = collection(5, ties=False)
    queries = sorted(set(qrels["query_id"]))
    values = named_of(run, qrels, parse_measures("AP,P@5,nDCG@10"), queries, complete=True)
    missing = [queries.index(q) for q in ("q00", "q01", "q02")]
    for name in ("AP", "P@5", "nDCG@10"):
        assert not np.isnan(values[name]).any()
        assert (values[name][missing] == 0).all()


def eval_json(capsys, *args: object) -> dict:
    capsys.readouterr()
    code = main(["eval", *map(str, args), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


NAMES = "AP,Bpref,P(rel=2)@5,infAP,Judged@10,nDCG@10,nDCG(dcg='exp-log2')@5,RR,Rprec"


def test_a_database_gives_what_its_files_give(demo):
    from judge_app.commands.campaign import read_campaign
    from judge_app.commands.evaluate import evaluate
    from judge_app.evaluation.campaign import Campaign
    from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest, measure_names

    options = EvaluationOptions(aggregate="majority", measures=measure_names([NAMES]))
    campaign = read_campaign(str(demo))
    coded = evaluate(EvaluationRequest(options), campaign)
    runs = {name: rows.drop(columns="run") for name, rows in campaign.results.groupby("run")}
    graded, results = code_frames(campaign.judgments, runs)
    files = evaluate(EvaluationRequest(options), Campaign(str(demo), graded, results, {}))
    assert list(coded.evaluations) == list(files.evaluations)
    for run, evaluation in coded.evaluations.items():
        other = files.evaluations[run]
        assert evaluation.query_ids == other.query_ids
        for name in options.measures:
            np.testing.assert_allclose(evaluation.values[name], other.values[name], atol=1e-12)


def test_the_first_name_leads_the_comparison_and_every_name_is_in_each_format(capsys, demo):
    document = eval_json(capsys, "--db", demo, "--measure", "MAP", "--measure", "P@5", "--compare")
    assert document["settings"]["measures"] == ["AP", "P@5"]
    comparison = document["comparisons"][0]
    assert comparison["measure"] == "AP"
    runs = {run["run"]: run for run in document["runs"]}
    baseline, other = comparison["baseline"], comparison["other"]
    difference = runs[other]["mean"]["AP"] - runs[baseline]["mean"]["AP"]
    assert comparison["mean_difference"] == pytest.approx(difference, abs=1e-12)
    assert " on mean AP over " in comparison["summary"]
    for run in document["runs"]:
        for record in run["queries"]:
            assert {"AP", "P@5"} <= set(record)
    capsys.readouterr()
    assert main(["eval", "--db", str(demo), "--measure", "MAP,P@5", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert {"AP", "P@5"} <= set(header)
    assert main(["eval", "--db", str(demo), "--measure", "MAP,P@5"]) == 0
    assert " AP " in capsys.readouterr().out


def test_a_wrong_name_is_a_usage_error_that_says_why(capsys, demo):
    capsys.readouterr()
    assert main(["eval", "--db", str(demo), "--measure", "nDCG@10[gain=exp]"]) == 2
    err = capsys.readouterr().err
    assert "parameters come before the cut-off: nDCG(dcg='exp-log2')@10" in err


def test_the_report_shows_the_named_means_of_eval(capsys, demo, tmp_path):
    document = eval_json(capsys, "--db", demo, "--measure", "MAP,Bpref")
    out = tmp_path / "report.html"
    assert main(["report", str(demo), "--out", str(out), "--measure", "MAP,Bpref"]) == 0
    html = out.read_text(encoding="utf-8")
    section = html[html.index("Mean NDCG@10 per run") : html.index("Runs compared on AP")]
    assert ">AP</th>" in section and ">Bpref</th>" in section  # the means table eval prints
    for run in document["runs"]:
        for name in ("AP", "Bpref"):
            assert f"<td class='n'>{run['mean'][name]:.4f}</td>" in section


def test_options_keep_the_names_as_ir_measures_writes_them():
    from judge_app.errors import UsageError
    from judge_app.evaluation.options import EvaluationOptions

    options = EvaluationOptions(measures=("MAP", "P(rel=1)@5", "AP"))
    assert options.measures == ("AP", "P@5") and options.measure == "AP"
    with pytest.raises(UsageError, match="no measure family 'Foo'"):
        EvaluationOptions(measures=("Foo@3",)).checked()


COUNTS = {"NumQ": "num_q", "NumRet": "num_ret", "NumRel": "num_rel", "NumRet(rel=1)": "num_rel_ret"}
"""The count measures as ir_measures writes them (``NumRelRet`` is ``NumRet(rel=1)``), and
trec_eval's names of them."""


def trec_files(folder: Path, qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[Path, Path]:
    """``qrels`` and ``run`` written as a TREC qrels file and a TREC run file."""
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)))
    ranked = run.sort_values(["query_id", "score"], ascending=[True, False])
    run_path.write_text(
        "".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, d, s in ranked.itertuples(index=False))
    )
    return qrels_path, run_path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_runs_count_is_the_sum_ir_measures_aggregates(capsys, tmp_path, seed):
    qrels, run = collection(seed, ties=False)
    # ir_measures scores a judged query the run misses (0) in its means but counts it in no
    # NumQ: here every judged query is in the run; the run's queries without judgments stay
    qrels = qrels[qrels["query_id"].isin(run["query_id"])]
    names = [*COUNTS, "NumRet(rel=2)", "AP", "P@5", "nDCG@10"]
    qrels_in = [ir_measures.Qrel(r.query_id, r.doc_id, int(r.grade)) for r in qrels.itertuples()]
    run_in = [ir_measures.ScoredDoc(r.query_id, r.doc_id, r.score) for r in run.itertuples()]
    measures = [ir_measures.parse_measure(name) for name in names]
    expected = ir_measures.pytrec_eval.calc_aggregate(measures, qrels_in, run_in)
    qrels_path, run_path = trec_files(tmp_path, qrels, run)
    args = ["--qrels", qrels_path, "--run-file", run_path, "--measure", ",".join(names)]
    capsys.readouterr()
    assert main(["eval", *map(str, args), "--format", "csv"]) == 0
    [every] = [row for row in csv.DictReader(io.StringIO(capsys.readouterr().out))
               if row["query_id"] == "all"]  # fmt: skip
    [ours] = eval_json(capsys, *args)["runs"]
    assert ours["n_queries"] == expected[ir_measures.NumQ] == qrels["query_id"].nunique()
    for measure in measures:
        name, value = str(measure), expected[measure]
        assert float(every[name]) == pytest.approx(value, abs=1e-12), name
        aggregate = "sum" if isinstance(measure.aggregator(), SumAgg) else "mean"
        assert ours[aggregate][name] == pytest.approx(value, abs=1e-12), name
        assert name not in ours["mean" if aggregate == "sum" else "sum"]


@pytest.mark.parametrize(
    ("qrels", "run", "output", "options"),
    [
        ("qrels.test", "results.test", "out.test", ()),
        ("qrels.comment.test", "results.comment.test", "out.comment.test", ()),
        (
            "edge/qrels.edge_missing",
            "edge/run.edge",
            "edge/te_v10.0_15dp.missing_c.txt",
            ("--complete",),
        ),
    ],  # fmt: skip
    ids=["test", "comment", "missing_c"],
)
def test_a_runs_counts_equal_trec_evals_all_line(capsys, qrels, run, output, options):
    summary = {}
    for line in (TREC_EVAL / output).read_text().splitlines():
        measure, query, value = line.split()
        if query == "all":
            summary[measure] = value
    args = ["--qrels", TREC_EVAL / qrels, "--run-file", TREC_EVAL / run, *options]
    [ours] = eval_json(capsys, *args, "--measure", ",".join(COUNTS))["runs"]
    checked = [name for name, trec in COUNTS.items() if trec in summary]
    assert checked and "NumQ" in checked
    for name in checked:
        assert ours["sum"][name] == int(summary[COUNTS[name]]), name


def test_every_output_shows_a_runs_count_as_its_sum(capsys, demo, tmp_path):
    names = "AP,NumQ,NumRet"
    document = eval_json(capsys, "--db", demo, "--measure", names)
    note = "NumQ and NumRet are sums over the queries (as in trec_eval and ir_measures), not means."
    runs = document["runs"]
    for run in runs:
        assert run["sum"]["NumQ"] == run["n_queries"] > 1
        assert run["sum"]["NumRet"] == sum(query["NumRet"] for query in run["queries"])
    shown = {}
    for output in ("table", "markdown", "latex"):
        capsys.readouterr()
        assert main(["eval", "--db", str(demo), "--measure", names, "--format", output]) == 0
        shown[output] = capsys.readouterr().out
    assert note in shown["table"]
    assert latex_text(note) in shown["latex"] and markdown_text(note) in shown["markdown"]
    report = tmp_path / "report.html"
    assert main(["report", str(demo), "--out", str(report), "--measure", names]) == 0
    html = report.read_text(encoding="utf-8")
    section = html[html.index("Mean NDCG@10 per run") : html.index("Runs compared on AP")]
    assert note in section
    # the answer on top speaks of the measure the runs were compared on
    assert "wins on AP" in html or "scores highest on AP" in html
    for run in runs:
        for count in ("NumQ", "NumRet"):
            value = f"{run['sum'][count]:.4f}"
            assert value in shown["table"] and value in shown["markdown"]
            assert value in shown["latex"] and f"<td class='n'>{value}</td>" in section
