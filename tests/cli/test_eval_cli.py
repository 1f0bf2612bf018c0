"""``judge-app eval``: trec_eval parity of ``--format trec``, the json, csv and table outputs,
``--compare``, database mode and errors.

Most cases call :func:`judge_app.cli.main` in-process; a subprocess is used only where the
process itself is under test (stderr without a traceback, modules imported).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DEMO, TREC_EVAL
from scipy import stats

from judge_app.cli import main
from judge_app.numbers import bound_text

COLLECTIONS = [
    ("qrels.test", "results.test"),
    ("qrels.rel_level", "results.test"),
    ("qrels.comment.test", "results.comment.test"),
]
COLLECTION_IDS = ["test", "rel_level", "comment"]


# ---------------------------------------------------------------------------------------------
# helpers


@pytest.fixture(scope="module")
def reference() -> Path:
    """trec_eval's collections and outputs, kept in the repository: a missing one fails."""
    return TREC_EVAL


def run_eval(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``judge-app eval ARGS`` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = main(["eval", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def eval_ok(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    code, out, err = run_eval(capsys, *args)
    assert code == 0, err
    return out


def cli(*args: object) -> subprocess.CompletedProcess:
    """``judge-app eval ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "eval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def trec_lines(text: str) -> list[tuple[str, str, str]]:
    """(measure, qid, value) of each line of trec_eval's output, measure name stripped."""
    rows = []
    for line in text.splitlines():
        measure, qid, value = line.split("\t")
        rows.append((measure.strip(), qid, value))
    return rows


def trec_values(text: str) -> dict[tuple[str, str], str]:
    return {(measure, qid): value for measure, qid, value in trec_lines(text)}


def source(reference: Path, qrels: str, run: str) -> list[object]:
    return ["--qrels", reference / qrels, "--run-file", reference / run]


@pytest.fixture(scope="module")
def perturbed_run(reference: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results.test with every score moved by seeded noise, tagged ``perturbed``."""
    rng = np.random.default_rng(20240601)
    lines = []
    for line in (reference / "results.test").read_text().splitlines():
        qid, q0, doc, rank, score, _tag = line.split()
        lines.append(f"{qid} {q0} {doc} {rank} {float(score) + rng.normal(0, 1):.6f} perturbed")
    path = tmp_path_factory.mktemp("runs") / "perturbed.test"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    return path


# ---------------------------------------------------------------------------------------------
# --format trec against trec_eval 10.0


@pytest.mark.parametrize(("qrels", "run"), COLLECTIONS, ids=COLLECTION_IDS)
def test_trec_format_equals_trec_eval_at_4_decimals(capsys, reference, qrels, run):
    out = eval_ok(
        capsys, *source(reference, qrels, run), "--k", "all", "--k", "5,10,20", "--format", "trec"
    )
    expected = trec_values((reference / "computed" / f"te_v10.0.{qrels}.{run}.txt").read_text())
    ours_lines = trec_lines(out)
    ours = trec_values(out)
    assert len(ours) == len(ours_lines), "a (measure, qid) pair printed twice"
    differing = {key: (value, ours.get(key)) for key, value in expected.items()}
    differing = {key: pair for key, pair in differing.items() if pair[0] != pair[1]}
    assert not differing
    # runid and num_q head the run, like trec_eval's own
    assert ours_lines[0][:2] == ("runid", "all")
    assert ours_lines[0][2] == (reference / run).read_text().split("\n", 1)[0].split()[5]
    judged = {qid for _, qid in expected if qid != "all"}
    assert ours_lines[1] == ("num_q", "all", str(len(judged)))
    # per-query lines in string order of qid, then the all lines; no other queries
    qids = [qid for measure, qid, _ in ours_lines[2:]]
    first_all = qids.index("all")
    assert set(qids[first_all:]) == {"all"}
    per_query = list(dict.fromkeys(qids[:first_all]))
    assert per_query == sorted(judged)
    # P and recall at 5 and 10, and NDCG at every asked k, for every query
    for qid in [*per_query, "all"]:
        for measure in ("map", "recip_rank", "P_5", "P_10", "recall_5", "recall_10", "ndcg",
                        "ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_20"):  # fmt: skip
            assert re.fullmatch(r"\d\.\d{4}", ours[measure, qid]), (measure, qid)


@pytest.mark.parametrize(
    ("ks", "ndcg_measures"),
    [([], ["ndcg_cut_10"]), (["--k", "all"], ["ndcg"])],
    ids=["default-k", "k-all"],
)
def test_trec_format_always_prints_p_and_recall_at_5_and_10(capsys, reference, ks, ndcg_measures):
    out = eval_ok(capsys, *source(reference, "qrels.test", "results.test"), *ks, "--format", "trec")
    ours = trec_values(out)
    expected = trec_values(
        (reference / "computed" / "te_v10.0.qrels.test.results.test.txt").read_text()
    )
    for qid in ("301", "302", "303", "all"):
        for measure in ("map", "recip_rank", "P_5", "P_10", *ndcg_measures):
            assert ours[measure, qid] == expected[measure, qid]
        assert {"recall_5", "recall_10"} <= {measure for measure, q in ours if q == qid}
    assert not any(m.startswith("ndcg") and m not in ndcg_measures for m, _ in ours)


@pytest.mark.parametrize(("qrels", "run"), COLLECTIONS, ids=COLLECTION_IDS)
@pytest.mark.parametrize(
    ("option", "prefix"),
    [(["--gain", "exponential"], "expgain."), (["--unjudged", "condensed"], "J.")],
    ids=["exponential", "condensed"],
)
def test_gain_and_unjudged_options_equal_trec_eval_at_15_decimals(
    capsys, reference, qrels, run, option, prefix
):
    out = eval_ok(
        capsys, *source(reference, qrels, run), "--k", "all", "--k", "5,10,20",
        "--format", "trec", "--digits", "15", *option,
    )  # fmt: skip
    ours = trec_values(out)
    computed = reference / "computed"
    expected = trec_values((computed / f"te_v10.0_15dp.{prefix}{qrels}.{run}.txt").read_text())
    default = trec_values((computed / f"te_v10.0_15dp.{qrels}.{run}.txt").read_text())
    assert {measure for measure, _ in expected} >= {"ndcg", "ndcg_cut_10"}
    for key, value in expected.items():
        assert re.fullmatch(r"\d\.\d{15}", ours[key]), key
        assert float(ours[key]) == pytest.approx(float(value), abs=1e-12), key
    changed = [key for key in expected if abs(float(expected[key]) - float(default[key])) > 1e-9]
    if qrels != "qrels.test" or prefix == "J.":  # binary grades: 2^1 - 1 = 1, no change
        assert changed, "the reference shows the option changes results"
    for key in changed:
        assert abs(float(ours[key]) - float(default[key])) > 1e-9, key


def test_edge_cases_equal_trec_eval(capsys, reference):
    edge = reference / "edge"
    out = eval_ok(
        capsys, "--qrels", edge / "qrels.edge", "--run-file", edge / "run.edge",
        "--k", "all", "--k", "1,3,5,10", "--format", "trec", "--digits", "15",
    )  # fmt: skip
    ours = trec_values(out)
    for key, value in trec_values((edge / "te_v10.0_15dp.edge.txt").read_text()).items():
        assert float(ours[key]) == pytest.approx(float(value), abs=1e-12), key
    assert ("ndcg", "runonly") not in ours


def test_complete_scores_judged_queries_missing_from_the_run(capsys, reference):
    edge = reference / "edge"
    args = ["--qrels", edge / "qrels.edge_missing", "--run-file", edge / "run.edge"]
    out = eval_ok(capsys, *args, "--k", "all", "--k", "5,10", "--format", "trec",
                  "--digits", "15", "--complete")  # fmt: skip
    ours = trec_values(out)
    for key, value in trec_values((edge / "te_v10.0_15dp.missing_c.txt").read_text()).items():
        assert float(ours[key]) == pytest.approx(float(value), abs=1e-12), key
    skipped = json.loads(eval_ok(capsys, *args, "--format", "json"))
    assert skipped["runs"][0]["n_queries"] == 5
    assert skipped["skipped"] == {"run_only": ["runonly"], "judged_only": ["missing"]}
    assert (skipped["runs"][0]["run_only"], skipped["runs"][0]["judged_only"]) == (
        ["runonly"],
        ["missing"],
    )
    complete = json.loads(eval_ok(capsys, *args, "--format", "json", "--complete"))
    assert complete["runs"][0]["n_queries"] == 6
    assert "missing" in [query["query_id"] for query in complete["runs"][0]["queries"]]


def test_threshold_equals_trec_eval_relevance_level(capsys, reference):
    # out.test.aql (shipped with trec_eval) is -a -q -l 2 on qrels.rel_level and results.test:
    # its num_rel, 97, is the number of grades >= 2 there
    out = eval_ok(
        capsys, *source(reference, "qrels.rel_level", "results.test"),
        "--threshold", "2", "--k", "5,10", "--format", "trec",
    )  # fmt: skip
    ours = trec_values(out)
    expected = {
        key: value
        for key, value in trec_values((reference / "out.test.aql").read_text()).items()
        if key[0] in ("map", "recip_rank", "P_5", "P_10")
    }
    assert len(expected) == 16
    assert {key: ours[key] for key in expected} == expected


# ---------------------------------------------------------------------------------------------
# --format json, csv, table


def test_json_structure_and_means_equal_the_trec_all_lines(capsys, reference):
    args = [*source(reference, "qrels.test", "results.test"), "--k", "10", "--k", "all,5"]
    document = json.loads(eval_ok(capsys, *args, "--format", "json"))
    trec = trec_values(eval_ok(capsys, *args, "--format", "trec", "--digits", "12"))

    assert set(document) == {"settings", "runs", "skipped", "comparisons"}
    settings = document["settings"]
    assert settings["k"] == ["10", "all", "5"]
    assert (settings["gain"], settings["ideal"], settings["unjudged"]) == (
        "linear", "judged", "zero",
    )  # fmt: skip
    assert settings["threshold"] == 1.0 and settings["complete"] is False
    assert document["comparisons"] == []
    [run] = document["runs"]
    assert run["run"] == "STANDARD" and run["n_queries"] == 3
    keys = {f"{name}@{k}" for name in ("ndcg", "dcg", "idcg", "cg", "p", "recall", "judged")
            for k in ("10", "all", "5")}  # fmt: skip
    assert keys | {"rr", "ap"} <= set(run["mean"])
    assert [query["query_id"] for query in run["queries"]] == ["301", "302", "303"]
    for query in run["queries"]:
        assert keys | {"rr", "ap", "query_id"} <= set(query)
    assert document["skipped"] == {"run_only": [], "judged_only": []}
    assert (run["run_only"], run["judged_only"]) == ([], [])

    pairs = {"map": "ap", "recip_rank": "rr", "P_5": "p@5", "P_10": "p@10",
             "recall_5": "recall@5", "recall_10": "recall@10", "ndcg": "ndcg@all",
             "ndcg_cut_5": "ndcg@5", "ndcg_cut_10": "ndcg@10"}  # fmt: skip
    for measure, key in pairs.items():
        assert run["mean"][key] == pytest.approx(float(trec[measure, "all"]), abs=1e-11), key
        for query in run["queries"]:
            value = float(trec[measure, query["query_id"]])
            assert query[key] == pytest.approx(value, abs=1e-12), (key, query["query_id"])
    # the means are means of the per-query values
    for key in keys | {"rr", "ap"}:
        mean = np.mean([query[key] for query in run["queries"]])
        assert run["mean"][key] == pytest.approx(mean, abs=2e-4), key


def test_json_reports_queries_without_judgments_and_does_not_count_them(capsys, reference):
    out = eval_ok(capsys, *source(reference, "qrels.comment.test", "results.comment.test"),
                  "--format", "json")  # fmt: skip
    document = json.loads(out)
    [run] = document["runs"]
    assert run["run"] == "comment.test"
    assert run["n_queries"] == 31 and len(run["queries"]) == 31
    skipped = document["skipped"]
    assert (run["run_only"], run["judged_only"]) == (skipped["run_only"], skipped["judged_only"])
    assert len(skipped["run_only"]) == len(set(skipped["run_only"])) == 270
    assert skipped["judged_only"] == []
    evaluated = {query["query_id"] for query in run["queries"]}
    assert not evaluated & set(skipped["run_only"])
    run_queries = {line.split()[0] for line in
                   (reference / "results.comment.test").read_text().splitlines()}  # fmt: skip
    assert evaluated | set(skipped["run_only"]) == run_queries


def test_json_honours_digits(capsys, reference):
    args = [*source(reference, "qrels.test", "results.test"), "--k", "5,10", "--digits", "6"]
    trec = trec_values(eval_ok(capsys, *args, "--format", "trec"))
    document = json.loads(eval_ok(capsys, *args, "--format", "json"))
    assert document["runs"][0]["mean"]["ndcg@10"] == float(trec["ndcg_cut_10", "all"])


def test_csv_has_a_row_per_query_and_an_all_row_per_run(capsys, reference, perturbed_run):
    args = [*source(reference, "qrels.test", "results.test"), "--run-file", perturbed_run]
    rows = list(csv.DictReader(io.StringIO(eval_ok(capsys, *args, "--format", "csv"))))
    assert list(rows[0])[:2] == ["run", "query_id"]
    assert {"ndcg@10", "dcg@10", "idcg@10", "p@10", "judged@10", "rr", "ap"} <= set(rows[0])
    assert [(row["run"], row["query_id"]) for row in rows] == [
        (run, qid) for run in ("STANDARD", "perturbed") for qid in ("301", "302", "303", "all")
    ]
    document = json.loads(eval_ok(capsys, *args, "--format", "json"))
    for run in document["runs"]:
        by_query = {row["query_id"]: row for row in rows if row["run"] == run["run"]}
        assert float(by_query["all"]["ndcg@10"]) == run["mean"]["ndcg@10"]  # in full
        for query in run["queries"]:
            row = by_query[query["query_id"]]
            assert float(row["ap"]) == query["ap"]
    rounded = list(
        csv.DictReader(io.StringIO(eval_ok(capsys, *args, "--format", "csv", "--digits", "4")))
    )
    assert all(re.fullmatch(r"\d\.\d{4}", row["ndcg@10"]) for row in rounded)


def test_table_has_a_row_per_run_with_interval_queries_and_coverage(capsys, reference):
    args = source(reference, "qrels.comment.test", "results.comment.test")
    out = eval_ok(capsys, *args)
    lines = out.splitlines()
    assert all(word in lines[0] for word in ("run", "queries", "ndcg@10", "judged@10"))
    [row] = [line for line in lines[1:] if line.split()[:1] == ["comment.test"]]
    match = re.search(r"(\d\.\d{4}) \[(\d\.\d{4}), (\d\.\d{4})\]", row)
    assert match, row
    mean, low, high = map(float, match.groups())
    assert low < mean < high
    trec = trec_values(eval_ok(capsys, *args, "--format", "trec", "--k", "5,10"))
    assert mean == float(trec["ndcg_cut_10", "all"])
    assert row.split()[1] == "31"
    assert re.search(r"\d+\.\d%", row)
    assert "270 queries without judgments left out" in out
    assert "2024-127266" not in out  # a judged query: only with --per-query

    detailed = eval_ok(capsys, *args, "--per-query")
    judged = {qid for (_, qid) in trec if qid != "all"}
    assert len(judged) == 31
    first_words = {line.split()[0] for line in detailed.splitlines() if line.strip()}
    assert judged <= first_words
    assert detailed.startswith(out.split("\n\n")[0])


# ---------------------------------------------------------------------------------------------
# --compare


def test_compare_two_run_files(capsys, reference, perturbed_run):
    args = [*source(reference, "qrels.test", "results.test"), "--run-file", perturbed_run,
            "--compare"]  # fmt: skip
    document = json.loads(eval_ok(capsys, *args, "--format", "json"))
    [record] = document["comparisons"]
    assert record["baseline"] == "STANDARD" and record["other"] == "perturbed"
    assert record["measure"] == "ndcg@10"
    per_query = [arg for arg in args if arg != "--compare"]
    rows = list(csv.DictReader(io.StringIO(eval_ok(capsys, *per_query, "--format", "csv",
                                                   "--digits", "15"))))  # fmt: skip
    scores = {
        run: [
            float(row["ndcg@10"]) for row in rows if row["run"] == run and row["query_id"] != "all"
        ]
        for run in ("STANDARD", "perturbed")
    }
    assert scores["STANDARD"] != scores["perturbed"]
    expected_p = stats.ttest_rel(scores["perturbed"], scores["STANDARD"]).pvalue
    assert record["t_p"] == pytest.approx(expected_p, abs=1e-4)
    permutations = document["significance"]["settings"]["permutations"]
    p_value = record["randomization_p"]
    assert p_value >= 1 / (1 + permutations) and p_value <= 1.0

    # the significance entry and the CSV: a row per pair, every p-value raw and adjusted
    [pair] = document["significance"]["pairs"]
    assert {key: pair[key] for key in record} == record  # the comparison is the pair
    assert pair["wilcoxon_p"] == pytest.approx(
        stats.wilcoxon(scores["perturbed"], scores["STANDARD"]).pvalue, rel=1e-9
    )
    [row] = csv.DictReader(io.StringIO(eval_ok(capsys, *args, "--format", "csv")))
    for test in ("t", "wilcoxon", "sign", "randomization"):
        for key in (f"{test}_p", f"{test}_p_holm", f"{test}_p_bh"):
            assert float(row[key]) == pair[key]  # in full
    assert float(row["hsd_p"]) == pair["hsd_p"] and float(row["d_z"]) == pair["d_z"]

    text = eval_ok(capsys, *args)
    [sentence] = [line for line in text.splitlines() if "t-test" in line]
    assert "perturbed" in sentence and "STANDARD" in sentence
    assert "randomization" in sentence
    assert f"the t-test (p = {record['t_p']:.4f})" in sentence
    assert f"the randomization test (p = {record['randomization_p']:.4f})" in sentence
    low, high = (bound_text(record[f"interval_{side}"]) for side in ("low", "high"))
    assert sentence.count(" interval") == 1 and f"interval, {low} to {high}," in sentence
    assert f"[{low}, {high}]" in text  # the table's, the same
    # deterministic for a seed
    assert eval_ok(capsys, *args) == text


# ---------------------------------------------------------------------------------------------
# database mode


def _demo_qrels(path: Path, raters: list[str] | None, how: str, rater: str | None = None) -> Path:
    """TREC qrels built here from the demo judgments file, independently of judge_app."""
    judgments = pd.read_csv(DEMO / "judgments.csv", dtype={"query_id": str, "doc_id": str})
    if raters:
        judgments = judgments[judgments["rater"].isin(raters)]
    if rater:
        judgments = judgments[judgments["rater"] == rater]
    grades = judgments.groupby(["query_id", "doc_id"])["grade"].agg(how).reset_index()
    path.write_text(
        "".join(f"{q} 0 {d} {float(g)!r}\n" for q, d, g in grades.itertuples(index=False)),
        encoding="utf-8",
    )
    return path


def _csv_scores(text: str) -> dict[tuple[str, str], dict[str, float]]:
    return {
        (row.pop("run"), row.pop("query_id")): {key: float(value) for key, value in row.items()}
        for row in csv.DictReader(io.StringIO(text))
    }


@pytest.mark.parametrize(
    ("options", "raters", "how", "rater"),
    [
        ([], None, "mean", None),
        (["--raters", "ana,ben"], ["ana", "ben"], "mean", None),
        (["--aggregate", "rater:ana"], None, "mean", "ana"),
        (["--aggregate", "max"], None, "max", None),
    ],
    ids=["mean", "raters-ana-ben", "rater-ana", "max"],
)
def test_database_equals_files_with_the_same_grades(
    capsys, demo_db, tmp_path, options, raters, how, rater
):
    from_db = _csv_scores(eval_ok(capsys, "--db", demo_db, "--run", "neural", *options,
                                  "--format", "csv", "--digits", "15"))  # fmt: skip
    qrels = _demo_qrels(tmp_path / "qrels.txt", raters, how, rater)
    from_files = _csv_scores(eval_ok(capsys, "--qrels", qrels, "--run-file",
                                     DEMO / "runs" / "neural.csv", "--format", "csv",
                                     "--digits", "15"))  # fmt: skip
    assert {run for run, _ in from_db} == {"neural"}
    assert set(from_db) == set(from_files)
    assert len(from_db) == 17  # 16 queries and all
    for key, values in from_db.items():
        assert values == pytest.approx(from_files[key], abs=1e-12), key


def test_database_runs_aggregates_and_compare(capsys, demo_db):
    every = json.loads(eval_ok(capsys, "--db", demo_db, "--format", "json"))
    assert sorted(run["run"] for run in every["runs"]) == ["bm25", "neural"]
    neural = json.loads(eval_ok(capsys, "--db", demo_db, "--run", "neural", "--format", "json"))
    assert [run["run"] for run in neural["runs"]] == ["neural"]
    assert neural["runs"][0] == next(run for run in every["runs"] if run["run"] == "neural")

    def means(*options: str) -> dict:
        document = json.loads(eval_ok(capsys, "--db", demo_db, *options, "--format", "json"))
        return {run["run"]: run["mean"] for run in document["runs"]}

    assert means("--aggregate", "rater:ana") != means("--aggregate", "max")
    assert means("--raters", "ana,ben") != means()

    text = eval_ok(capsys, "--db", demo_db, "--run", "bm25", "--run", "neural", "--compare")
    [sentence] = [line for line in text.splitlines() if "t-test" in line]
    assert "neural" in sentence and "bm25" in sentence and "randomization" in sentence


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--compare", "--permutations", "0"], "--permutations takes a whole number from 1"),
        (["--compare", "--permutations", "-5"], "--permutations takes a whole number from 1"),
        (["--threshold", "nan"], "--threshold takes a finite number (not nan or inf)"),
        (["--threshold", "inf"], "--threshold takes a finite number (not nan or inf)"),
        (["--threshold=-inf"], "--threshold takes a finite number (not nan or inf)"),
        (["--digits", "-1"], "--digits takes a whole number from 0 to 15"),
        (["--digits", "16"], "--digits takes a whole number from 0 to 15"),
        (["--k", "0"], "--k '0': use whole numbers from 1, or all"),
        (["--k", "-5"], "--k '-5': use whole numbers from 1, or all"),
        (["--compare", "--seed", "-1"], "--seed takes a whole number from 0"),
    ],
)
def test_numeric_options_out_of_range_are_usage_errors(capsys, demo_db, args, message):
    code, out, err = run_eval(capsys, "--db", demo_db, *args)
    assert (code, out) == (2, "")
    assert err == f"judge-app eval: {message}\n"


def test_database_unknown_run_is_a_usage_error(capsys, demo_db):
    code, out, err = run_eval(capsys, "--db", demo_db, "--run", "neural", "--run", "nope")
    assert code == 2
    assert "nope" in err and out == ""


def test_database_unknown_rater_is_a_usage_error(capsys, demo_db):
    code, out, err = run_eval(capsys, "--db", demo_db, "--aggregate", "rater:zed")
    assert code == 2 and out == ""
    assert "--aggregate: " in err and "has no rater 'zed' (raters it has: ana, ben, chloe)" in err


def test_missing_database_exits_1_and_creates_nothing(tmp_path):
    db = tmp_path / "absent.sqlite"
    result = cli("--db", db)
    assert result.returncode == 1
    assert "judge-app init" in result.stderr
    assert "Traceback" not in result.stderr
    assert not db.exists() and list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--qrels"),
        (["QRELS"], "--qrels"),
        (["--db", "DB", "QRELS", "RUN"], "not both"),
        (["QRELS", "RUN", "--k", "0"], "--k"),
        (["QRELS", "RUN", "--k", "ten"], "--k"),
        (["QRELS", "RUN", "--k", "5,ten"], "--k"),
        (["QRELS", "RUN", "--compare"], "--compare"),
    ],
    ids=["no-source", "qrels-only", "db-and-files", "k-0", "k-ten", "k-list", "compare-one"],
)
def test_usage_errors_exit_2(capsys, reference, tmp_path, args, message):
    names = {"QRELS": ["--qrels", reference / "qrels.test"],
             "RUN": ["--run-file", reference / "results.test"], "DB": [tmp_path / "x.sqlite"]}  # fmt: skip
    argv = [part for arg in args for part in names.get(arg, [arg])]
    code, out, err = run_eval(capsys, *argv)
    assert code == 2
    assert err.startswith("judge-app eval: ") and message in err
    assert out == ""
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("301 Q0 A 1 2.0 x\n301 Q0 B 2 1.0\n", "line 2"),
        ("301 Q0 A 1 2.0 x\n\n301 Q0 B 2 abc x\n", "line 3"),
    ],
    ids=["five-fields", "score-not-a-number"],
)
def test_malformed_run_file_exits_1_with_file_and_line(reference, tmp_path, text, where):
    run = tmp_path / "bad.run"
    run.write_text(text, encoding="utf-8")
    result = cli("--qrels", reference / "qrels.test", "--run-file", run)
    assert result.returncode == 1
    assert f"{run} {where}" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("kind", "text", "where"),
    [
        ("run", "301 Q0 A 1 2.0 x\n301 Q0 B 2 1.0 x\n301 Q0 A 3 0.5 x\n", "line 3"),
        ("run", "301 Q0 B 1 2.0 x\n301 Q0 A 2 1.0 x\n301 Q0 A 3 1.0 x\n", "line 3"),
        ("qrels", "301 0 A 1\n302 0 A 2\n301 0 A 0\n", "line 3"),
    ],
    ids=["run-other-score", "run-same-score", "qrels"],
)
def test_document_twice_for_one_query_exits_1_with_file_and_line(tmp_path, kind, text, where):
    """trec_eval refuses a document twice for one query; so do we, naming the line. The
    fast reader does not look: the evaluation finds the repeat and the careful reader
    names the line."""
    files = {
        "run": tmp_path / "ok.run",
        "qrels": tmp_path / "ok.qrels",
    }
    files["run"].write_text("301 Q0 A 1 2.0 x\n302 Q0 A 1 1.0 x\n", encoding="utf-8")
    files["qrels"].write_text("301 0 A 1\n302 0 A 0\n", encoding="utf-8")
    files[kind] = tmp_path / f"bad.{kind}"
    files[kind].write_text(text, encoding="utf-8")
    result = cli("--qrels", files["qrels"], "--run-file", files["run"])
    assert result.returncode == 1, result.stderr
    verb = "retrieved" if kind == "run" else "judged"
    assert f"{files[kind]} {where}" in result.stderr
    assert f"document {verb} twice for one query: query 301, A" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("kind", "text", "where"),
    [
        ("qrels", "301 0 A 1\n301 0 B\x00 1\n", "line 2, column doc_id"),
        ("run", "301 Q0 A 1 2.0 t\n\x00302 Q0 A 1 1.0 t\n", "line 2, column query_id"),
    ],
)
def test_a_nul_character_in_a_trec_file_is_refused_where_it_is(
    capsys, reference, tmp_path, kind, text, where
):
    files = {"qrels": reference / "qrels.test", "run": reference / "results.test"}
    files[kind] = tmp_path / f"nul.{kind}"
    files[kind].write_text(text, encoding="utf-8")
    code, out, err = run_eval(capsys, "--qrels", files["qrels"], "--run-file", files["run"])
    assert code == 1 and out == ""
    assert f"{files[kind]} {where}: " in err and "NUL character" in err


@pytest.mark.parametrize(
    ("name", "text", "noun"),
    [
        ("empty.qrels", "# graded later\n", "judgments"),
        ("empty.run", "\n# no results\n", "results"),
        ("empty.csv", "query_id,doc_id,rank\n", "results"),
        ("judgments.csv", "query_id,doc_id,rater,grade\n", "judgments"),
    ],
)
def test_a_file_of_nothing_to_evaluate_is_a_data_error(
    capsys, reference, tmp_path, name, text, noun
):
    files = {"qrels": reference / "qrels.test", "run": reference / "results.test"}
    empty = tmp_path / name
    empty.write_text(text, encoding="utf-8")
    files["qrels" if noun == "judgments" else "run"] = empty
    code, out, err = run_eval(capsys, "--qrels", files["qrels"], "--run-file", files["run"])
    assert (code, out) == (1, "")
    assert err == f"judge-app eval: {empty}: has no {noun}: nothing to evaluate\n"


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_utf16_files_are_named_as_such(capsys, reference, tmp_path, kind):
    files = {"qrels": reference / "qrels.test", "run": reference / "results.test"}
    utf16 = tmp_path / f"utf16.{kind}"
    utf16.write_text(files[kind].read_text(encoding="utf-8"), encoding="utf-16")
    files[kind] = utf16
    code, out, err = run_eval(capsys, "--qrels", files["qrels"], "--run-file", files["run"])
    assert code == 1 and out == ""
    assert f"{utf16}: UTF-16: save as UTF-8" in err


@pytest.mark.parametrize("spacing", [" ", "\t"])  # the fast reader, and the tidying one
def test_ids_in_two_normal_forms_are_one(capsys, tmp_path, spacing):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q\u00e9 0 caf\u00e9 1\nq\u00e9 0 other 0\n", encoding="utf-8")
    run.write_text(spacing.join(["qe\u0301", "Q0", "cafe\u0301", "1", "1.0", "t"]) + "\n", "utf-8")
    document = json.loads(eval_ok(capsys, "--qrels", qrels, "--run-file", run, "--format", "json"))
    assert document["runs"][0]["mean"]["ndcg@10"] == 1.0
    assert document["runs"][0]["queries"][0]["query_id"] == "q\u00e9"


def test_a_huge_option_value_is_cut_in_the_message(capsys, demo_db):
    code, out, err = run_eval(capsys, "--db", demo_db, "--aggregate", "rater:" + "z" * 100_000)
    assert code == 2 and out == ""
    assert len(err) < 600 and "'zzz" in err and "…' (100,000 characters)" in err


def test_csv_text_cells_are_inert(capsys, reference, tmp_path):
    run = tmp_path / "run.txt"
    lines = reference.joinpath("results.test").read_text(encoding="utf-8").splitlines()
    tagged = [" ".join(line.split()[:5] + ['=HYPERLINK("http://x")']) for line in lines]
    run.write_text("\n".join(tagged) + "\n", encoding="utf-8")
    text = eval_ok(
        capsys, "--qrels", reference / "qrels.test", "--run-file", run, "--format", "csv"
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["run"] for row in rows} == {'\'=HYPERLINK("http://x")'}
    assert float(rows[0]["ndcg@10"]) >= 0


@pytest.mark.parametrize("missing", ["qrels", "run"])
def test_missing_file_exits_1_without_traceback(reference, tmp_path, missing):
    absent = tmp_path / f"absent.{missing}"
    files = {"qrels": reference / "qrels.test", "run": reference / "results.test", missing: absent}
    result = cli("--qrels", files["qrels"], "--run-file", files["run"])
    assert result.returncode == 1
    assert str(absent) in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------------------------
# layering


@pytest.mark.parametrize("output", ["json", "trec"])
def test_evaluating_trec_files_imports_neither_qt_nor_sqlalchemy_nor_pandas(reference, output):
    """The file path starts fast: pandas alone would add a third of a second of imports."""
    code = (
        "import contextlib, io, sys\n"
        "from judge_app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['eval', '--qrels', {str(reference / 'qrels.test')!r},\n"
        f"                 '--run-file', {str(reference / 'results.test')!r},\n"
        f"                 '--format', {output!r}])\n"
        "assert code == 0, code\n"
        "heavy = ('sqlalchemy', 'PySide6', 'pandas')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_per_rater_means_are_each_raters_own_evaluation(capsys, demo_db):
    document = json.loads(
        eval_ok(capsys, "--db", demo_db, "--k", "10", "--per-rater", "--format", "json")
    )
    rows = {(row["rater"], row["run"]): row for row in document["per_rater"]}
    assert {rater for rater, _ in rows} == {"ana", "ben", "chloe"}
    assert rows[("chloe", "neural")]["queries"] == 14  # she left two queries unjudged
    for rater in ("ana", "ben", "chloe"):
        alone = json.loads(
            eval_ok(
                capsys,
                "--db",
                demo_db,
                "--k",
                "10",
                "--aggregate",
                f"rater:{rater}",
                "--format",
                "json",
            )
        )
        for run in alone["runs"]:
            assert rows[(rater, run["run"])]["ndcg@10"] == run["mean"]["ndcg@10"]
            assert rows[(rater, run["run"])]["queries"] == run["n_queries"]
    table = eval_ok(capsys, "--db", demo_db, "--per-rater")
    assert "Each rater's own mean NDCG" in table and "chloe" in table


def test_per_rater_needs_raters(capsys, reference):
    code, out, err = run_eval(
        capsys,
        "--qrels",
        reference / "qrels.test",
        "--run-file",
        reference / "results.test",
        "--per-rater",
    )
    assert code == 2 and "--per-rater needs judgments with raters" in err


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(
            st.text(st.characters(categories=("L", "N", "P", "Zs")), min_size=0, max_size=12),
            min_size=3,
            max_size=3,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_table_is_laid_out_as_pandas_lays_it_out(cells):
    from judge_app.writers.evaluation import text_table

    rows = [dict(zip(("run", "queries", "ndcg@10"), row)) for row in cells]
    assert text_table(rows) == pd.DataFrame(rows).to_string(index=False)


def test_the_default_table_of_files_imports_no_pandas(reference):
    code = (
        "import sys\n"
        "from judge_app.cli import main\n"
        f"main(['eval', '--qrels', {str(reference / 'qrels.test')!r}, '--run-file', "
        f"{str(reference / 'results.test')!r}])\n"
        "print('pandas' in sys.modules, 'scipy.stats' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stderr.strip().splitlines()[-1] == "False False", done.stderr
