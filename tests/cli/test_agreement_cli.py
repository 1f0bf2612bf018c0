"""``judge-app agreement``: the three formats on a judgments CSV and on the demo database,
the JSON keys the issue names, values against the oracles, ranking stability against
``judge-app eval``, options and exit codes.

Most cases call :func:`judge_app.cli.main` in-process; a subprocess is used only where the
process itself is under test (modules imported, stderr without a traceback).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from paths import DEMO
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from judge_app.cli import main

JUDGMENTS = DEMO / "judgments.csv"
ISSUE_KEYS = {
    "n_units", "n_raters", "raters", "percent_agreement", "within_one_agreement",
    "krippendorff_alpha", "krippendorff_alpha_ci", "fleiss_kappa", "fleiss_units", "gwet_ac1",
    "gwet_ac2", "pairwise", "pairs_without_common_units", "per_rater", "per_query",
    "ranking_stability", "reasons", "adjudication",
}  # fmt: skip
PAIR_KEYS = {
    "rater_a", "rater_b", "n_units", "percent_agreement", "cohen_kappa", "cohen_kappa_linear",
    "cohen_kappa_quadratic",
}  # fmt: skip


def run_agreement(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``judge-app agreement ARGS`` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = main(["agreement", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def agreement_ok(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    code, out, err = run_agreement(capsys, *args)
    assert code == 0, err
    assert err == ""
    return out


def agreement_json(capsys: pytest.CaptureFixture[str], *args: object) -> dict:
    return json.loads(agreement_ok(capsys, *args, "--format", "json", "--digits", "15"))


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def demo_wide() -> pd.DataFrame:
    """The demo grades read independently of judge_app: (query, document) x rater."""
    frame = pd.read_csv(JUDGMENTS, dtype={"query_id": str, "doc_id": str})
    return frame.pivot_table(index=["query_id", "doc_id"], columns="rater", values="grade")


# --------------------------------------------------------------------------- json


def test_json_has_the_issues_keys_and_equals_the_oracles(capsys, demo_wide):
    document = agreement_json(capsys, "--judgments", JUDGMENTS)
    assert set(document) == ISSUE_KEYS
    assert document["raters"] == ["ana", "ben", "chloe"] and document["n_raters"] == 3
    assert document["n_units"] == len(demo_wide)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(
            reliability_data=demo_wide.T.to_numpy(float), level_of_measurement=level
        )
        assert document["krippendorff_alpha"][level] == pytest.approx(expected, abs=1e-9)
    low, high = document["krippendorff_alpha_ci"]["ordinal"]
    assert low < document["krippendorff_alpha"]["ordinal"] < high
    complete = demo_wide.dropna()
    assert document["fleiss_units"] == len(complete) == 136
    table = np.stack([(complete == grade).sum(axis=1) for grade in range(6)], axis=1)
    assert document["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-9)
    assert set(document["gwet_ac2"]) == {"linear", "quadratic"}
    assert document["gwet_ac1"] < document["gwet_ac2"]["linear"] < 1
    assert len(document["pairwise"]) == 3
    for pair in document["pairwise"]:
        assert set(pair) == PAIR_KEYS | {"reasons"}
        both = demo_wide[[pair["rater_a"], pair["rater_b"]]].dropna().astype(int)
        assert pair["n_units"] == len(both)
        a, b = both[pair["rater_a"]], both[pair["rater_b"]]
        assert pair["percent_agreement"] == pytest.approx((a == b).mean(), abs=1e-12)
        for key, weights in (("cohen_kappa", None), ("cohen_kappa_linear", "linear"),
                             ("cohen_kappa_quadratic", "quadratic")):  # fmt: skip
            expected = cohen_kappa_score(a, b, labels=list(range(6)), weights=weights)
            assert pair[key] == pytest.approx(expected, abs=1e-9), key
    assert document["reasons"] == {
        "ranking_stability": "needs --db: the runs come from the database"
    }
    assert document["ranking_stability"] is None


def test_json_per_rater_and_per_query(capsys, demo_wide):
    document = agreement_json(capsys, "--judgments", JUDGMENTS)
    chloe = next(rater for rater in document["per_rater"] if rater["rater"] == "chloe")
    grades = demo_wide["chloe"].dropna()
    assert chloe["n_units"] == len(grades) == 139
    assert chloe["mean_grade"] == pytest.approx(grades.mean(), abs=1e-12)
    assert chloe["grades"] == {str(g): int((grades == g).sum()) for g in range(6)}
    others = demo_wide[["ana", "ben"]].T.to_numpy(float)
    without = krippendorff.alpha(reliability_data=others, level_of_measurement="ordinal")
    assert chloe["alpha_without_rater"] == pytest.approx(without, abs=1e-9)
    assert chloe["alpha_contribution"] == pytest.approx(
        document["krippendorff_alpha"]["ordinal"] - without, abs=1e-9
    )
    assert [query["query_id"] for query in document["per_query"]] == [
        f"q{i:02d}" for i in range(1, 17)
    ]
    listed = {
        (query["query_id"], unit["doc_id"]): unit
        for query in document["per_query"]
        for unit in query["adjudicate"]
    }
    spread = demo_wide.max(axis=1) - demo_wide.min(axis=1)
    assert set(listed) == set(spread[spread >= 2].index)
    for key, unit in listed.items():
        assert unit["grades"] == {r: int(g) for r, g in demo_wide.loc[key].dropna().items()}


def test_database_gives_what_the_judgments_file_gives(capsys, demo_db):
    from_db = agreement_json(capsys, "--db", demo_db)
    from_file = agreement_json(capsys, "--judgments", JUDGMENTS)
    assert from_db["ranking_stability"] is not None and from_file["ranking_stability"] is None
    for document in (from_db, from_file):
        document.pop("ranking_stability")
        document["reasons"].pop("ranking_stability", None)
    assert from_db == from_file


# --------------------------------------------------------------------------- ranking stability


def eval_means(capsys, demo_db: Path, rater: str) -> dict[str, float]:
    capsys.readouterr()
    args = ["eval", "--db", str(demo_db), "--aggregate", f"rater:{rater}", "--format", "json",
            "--digits", "15"]  # fmt: skip
    assert main(args) == 0
    document = json.loads(capsys.readouterr().out)
    return {run["run"]: run["mean"]["ndcg@10"] for run in document["runs"]}


def test_ranking_stability_equals_each_raters_own_evaluation(capsys, demo_db):
    ranking = agreement_json(capsys, "--db", demo_db)["ranking_stability"]
    assert ranking["measure"] == "ndcg@10" and ranking["n_queries"] == 16
    assert ranking["raters"] == ["ana", "ben"]
    assert ranking["left_out"] == {"chloe": "judged 14 of the 16 queries"}
    means = {}
    for order in ranking["orders"]:
        expected = eval_means(capsys, demo_db, order["rater"])
        values = [entry["ndcg@10"] for entry in order["runs"]]
        assert values == sorted(values, reverse=True)
        assert {entry["run"]: entry["ndcg@10"] for entry in order["runs"]} == pytest.approx(
            expected, abs=1e-12
        )
        means[order["rater"]] = expected
    [tau] = ranking["kendall_tau"]
    runs = sorted(means["ana"])
    expected = kendalltau([means["ana"][r] for r in runs], [means["ben"][r] for r in runs])
    assert (tau["rater_a"], tau["rater_b"]) == ("ana", "ben")
    assert tau["tau"] == pytest.approx(expected.statistic)


def test_ranking_stability_needs_two_raters_who_judged_every_query(capsys, demo_db):
    document = agreement_json(capsys, "--db", demo_db, "--raters", "chloe,ana")
    assert document["raters"] == ["chloe", "ana"]
    assert document["ranking_stability"] is None
    assert document["reasons"]["ranking_stability"] == (
        "needs two or more raters who judged all 16 queries (chloe judged 14 of the 16 queries)"
    )
    # on one query both judged, both take part
    one = agreement_json(capsys, "--db", demo_db, "--raters", "chloe,ana", "--query", "q01")
    assert one["ranking_stability"]["raters"] == ["chloe", "ana"]
    assert one["ranking_stability"]["n_queries"] == 1


def test_ranking_stability_needs_two_runs(capsys, tmp_path):
    db = tmp_path / "one_run.sqlite"
    code = main(["import", str(db), "--judgments", str(JUDGMENTS),
                 "--run", str(DEMO / "runs" / "bm25.txt")])  # fmt: skip
    assert code == 0
    document = agreement_json(capsys, "--db", db)
    assert document["ranking_stability"] is None
    assert document["reasons"]["ranking_stability"] == f"needs two or more runs; {db} holds 1"


def test_k_sets_the_cut_off_of_ranking_stability(capsys, demo_db):
    ranking = agreement_json(capsys, "--db", demo_db, "--k", "3")["ranking_stability"]
    assert ranking["measure"] == "ndcg@3"
    assert set(ranking["orders"][0]["runs"][0]) == {"run", "ndcg@3"}


# --------------------------------------------------------------------------- table and csv


def test_table_reads_like_a_report(capsys, demo_db):
    text = agreement_ok(capsys, "--db", demo_db)
    document = json.loads(agreement_ok(capsys, "--db", demo_db, "--format", "json"))
    lines = text.splitlines()
    assert lines[0].startswith("Agreement of 3 raters (ana, ben, chloe) on 161 documents")
    alpha = document["krippendorff_alpha"]["ordinal"]
    low, high = document["krippendorff_alpha_ci"]["ordinal"]
    assert lines[2] == (
        f"Ordinal alpha {alpha:.4f} [{low:.4f}, {high:.4f}]: reliable, good enough to draw "
        "conclusions from (alpha >= 0.800)"
    )
    assert "1,000 resamples" in lines[3]
    headings = [line for line in lines if line and not line.startswith(" ")]
    assert [heading.split(" ")[0] for heading in headings[2:]] == [
        "Pairs", "Raters", "Worst", "To", "Ranking"
    ]  # fmt: skip
    assert f"Fleiss' kappa         {document['fleiss_kappa']:.4f}  over the 136 documents" in text
    assert "chloe  left out: judged 14 of the 16 queries" in text
    assert "Kendall's tau ana–ben: 1.0000" in text
    worst = lines.index(next(line for line in lines if line.startswith("Worst queries")))
    by_alpha = sorted(document["per_query"], key=lambda q: q["krippendorff_alpha_ordinal"])
    assert lines[worst + 2].split()[0] == by_alpha[0]["query_id"]


def test_csv_is_long_and_equals_the_json(capsys):
    args = ["--judgments", JUDGMENTS, "--digits", "6"]
    document = json.loads(agreement_ok(capsys, *args, "--format", "json"))
    rows = list(csv.DictReader(io.StringIO(agreement_ok(capsys, *args, "--format", "csv"))))
    assert list(rows[0]) == ["section", "rater_a", "rater_b", "query_id", "doc_id", "run",
                             "statistic", "value", "reason"]  # fmt: skip
    overall = {row["statistic"]: row for row in rows if row["section"] == "overall"}
    ordinal = float(overall["krippendorff_alpha.ordinal"]["value"])
    assert ordinal == document["krippendorff_alpha"]["ordinal"]
    assert [float(overall[f"krippendorff_alpha_ci.ordinal.{end}"]["value"])
            for end in ("low", "high")] == document["krippendorff_alpha_ci"]["ordinal"]  # fmt: skip
    assert int(overall["fleiss_units"]["value"]) == document["fleiss_units"]
    pairs = {(r["rater_a"], r["rater_b"], r["statistic"]): r["value"] for r in rows
             if r["section"] == "pair"}  # fmt: skip
    for pair in document["pairwise"]:
        key = (pair["rater_a"], pair["rater_b"], "cohen_kappa_quadratic")
        assert float(pairs[key]) == pair["cohen_kappa_quadratic"]
    adjudicate = {(r["query_id"], r["doc_id"], r["rater_a"]): int(r["value"]) for r in rows
                  if r["section"] == "adjudicate"}  # fmt: skip
    assert adjudicate == {
        (query["query_id"], unit["doc_id"], rater): grade
        for query in document["per_query"]
        for unit in query["adjudicate"]
        for rater, grade in unit["grades"].items()
    }
    [ranking] = [row for row in rows if row["section"] == "ranking"]
    assert ranking["value"] == "" and "--db" in ranking["reason"]


def test_csv_text_cells_are_inert_and_numbers_stay_numbers(capsys, tmp_path):
    path = tmp_path / "judgments.csv"
    grades = [(0, 5), (5, 0), (0, 4), (4, 1), (1, 1)]  # the raters disagree: kappa below 0
    rows = [f"q1,d{i},=HYPERLINK(),{a}\nq1,d{i},-bob,{b}\n" for i, (a, b) in enumerate(grades)]
    path.write_text("query_id,doc_id,rater,grade\n" + "".join(rows), encoding="utf-8")
    text = agreement_ok(capsys, "--judgments", path, "--format", "csv", "--bootstrap", "0")
    rows = list(csv.DictReader(io.StringIO(text)))
    kappa = next(r for r in rows if r["section"] == "pair" and r["statistic"] == "cohen_kappa")
    assert (kappa["rater_a"], kappa["rater_b"]) == ("'-bob", "'=HYPERLINK()")
    assert kappa["value"].startswith("-") and float(kappa["value"]) < 0
    assert {r["rater_a"] for r in rows if r["section"] == "rater"} == {"'-bob", "'=HYPERLINK()"}


# --------------------------------------------------------------------------- options


def test_query_option_restricts_to_one_query(capsys):
    document = agreement_json(capsys, "--judgments", JUDGMENTS, "--query", "q05")
    [query] = document["per_query"]
    assert query["query_id"] == "q05"
    assert document["n_units"] == query["n_units"] == 10
    frame = pd.read_csv(JUDGMENTS)
    wide = frame[frame["query_id"] == "q05"].pivot(index="doc_id", columns="rater", values="grade")
    expected = krippendorff.alpha(reliability_data=wide.T.to_numpy(float),
                                  level_of_measurement="ordinal")  # fmt: skip
    assert document["krippendorff_alpha"]["ordinal"] == pytest.approx(expected, abs=1e-9)
    assert query["krippendorff_alpha_ordinal"] == pytest.approx(expected, abs=1e-9)


def test_bootstrap_is_seeded_and_can_be_turned_off(capsys):
    args = ["--judgments", JUDGMENTS, "--format", "json"]
    first = json.loads(agreement_ok(capsys, *args, "--bootstrap", "300"))
    again = json.loads(agreement_ok(capsys, *args, "--bootstrap", "300"))
    other = json.loads(agreement_ok(capsys, *args, "--bootstrap", "300", "--seed", "7"))
    interval = first["krippendorff_alpha_ci"]["ordinal"]
    assert again["krippendorff_alpha_ci"]["ordinal"] == interval
    assert other["krippendorff_alpha_ci"]["ordinal"] != interval
    off = json.loads(agreement_ok(capsys, *args, "--bootstrap", "0"))
    assert off["krippendorff_alpha_ci"] == {"ordinal": None}
    assert off["reasons"]["krippendorff_alpha_ci.ordinal"] == (
        "no bootstrap resamples were asked for"
    )
    assert off["krippendorff_alpha"] == first["krippendorff_alpha"]


def test_skipped_judgments_are_left_out(capsys, tmp_path):
    path = tmp_path / "judgments.csv"
    path.write_text(
        "query_id,doc_id,rater,grade,skipped\n"
        "q1,d1,ana,2,false\nq1,d1,ben,,true\nq1,d2,ana,1,false\nq1,d2,ben,1,false\n"
        "q1,d3,ana,4,false\nq1,d3,ben,0,false\n",
        encoding="utf-8",
    )
    document = agreement_json(capsys, "--judgments", path, "--bootstrap", "0")
    assert document["n_units"] == 3
    [pair] = document["pairwise"]
    assert pair["n_units"] == 2 and pair["percent_agreement"] == 0.5
    assert {r["rater"]: r["n_units"] for r in document["per_rater"]} == {"ana": 3, "ben": 2}
    [query] = document["per_query"]
    assert query["adjudicate"] == [{"doc_id": "d3", "grades": {"ana": 4, "ben": 0}, "spread": 4}]


# --------------------------------------------------------------------------- errors


def test_unknown_rater_is_a_usage_error_naming_the_raters(capsys):
    code, out, err = run_agreement(capsys, "--judgments", JUDGMENTS, "--raters", "ana,zed")
    assert code == 2 and out == ""
    assert err == (
        f"judge-app agreement: --raters: {JUDGMENTS} has no rater 'zed' "
        "(raters it has: ana, ben, chloe)\n"
    )


def test_unknown_query_is_a_data_error(capsys):
    code, out, err = run_agreement(capsys, "--judgments", JUDGMENTS, "--query", "q99")
    assert code == 1 and out == ""
    assert err == f"judge-app agreement: {JUDGMENTS} has no graded judgments of query 'q99'\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("query_id,doc_id,rater,grade\n", "holds no graded judgments (skipped ones are left out)"),
        ("query_id,doc_id,rater,grade\nq1,d1,ana,2\nq1,d1,ben,9\n",
         "line 3, column grade: grade 9 is outside 0–5"),
        ("query_id,doc_id,grade\nq1,d1,2\n", "missing column 'rater'"),
    ],
    ids=["empty", "bad-grade", "no-rater-column"],
)  # fmt: skip
def test_bad_judgments_file_is_a_data_error(capsys, tmp_path, text, message):
    path = tmp_path / "judgments.csv"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_agreement(capsys, "--judgments", path)
    assert code == 1 and out == ""
    assert str(path) in err and message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either --db DB or --judgments FILE.csv"),
        (["--judgments", JUDGMENTS, "--db", "x.sqlite"], "give either --db DB or --judgments"),
        (["--judgments", JUDGMENTS, "--bootstrap", "-1"], "--bootstrap takes a whole number"),
        (["--judgments", JUDGMENTS, "--raters", ","], "--raters needs at least one name"),
        (["--judgments", JUDGMENTS, "--raters", "ana,ana"], "--raters names a rater twice"),
        (["--judgments", JUDGMENTS, "--k", "0"], "--k takes a whole number from 1"),
        (["--judgments", JUDGMENTS, "--k", "-3"], "--k takes a whole number from 1"),
        (["--judgments", JUDGMENTS, "--seed", "-1"], "--seed takes a whole number from 0"),
        (["--judgments", JUDGMENTS, "--digits", "-1"], "--digits takes a whole number from 0"),
    ],
    ids=[
        "no-source",
        "two-sources",
        "bootstrap",
        "no-rater",
        "rater-twice",
        "k",
        "k-negative",
        "seed",
        "digits",
    ],  # fmt: skip
)
def test_usage_errors_exit_2(capsys, args, message):
    code, out, err = run_agreement(capsys, *args)
    assert code == 2 and out == ""
    assert message in err


def test_missing_database_is_a_data_error_and_creates_nothing(capsys, tmp_path):
    db = tmp_path / "absent.sqlite"
    code, out, err = run_agreement(capsys, "--db", db)
    assert code == 1 and out == "" and "judge-app agreement:" in err
    assert not db.exists()


def test_judgments_file_run_imports_neither_sqlalchemy_nor_qt(tmp_path):
    script = (
        "import sys\n"
        "from judge_app.cli import main\n"
        f"code = main(['agreement', '--judgments', {str(JUDGMENTS)!r}, '--format', 'json'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'PySide6'))\n"
        "print(code, loaded, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.stderr.strip().splitlines()[-1] == "0 []"
    json.loads(result.stdout)


def test_an_error_has_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "agreement", "--judgments", str(JUDGMENTS),
         "--raters", "zed"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "'zed'" in result.stderr


def test_no_nan_in_json_when_much_is_undefined(capsys, tmp_path):
    path = tmp_path / "zeros.csv"
    path.write_text(
        "query_id,doc_id,rater,grade\n" + "".join(
            f"q1,d{d},{rater},0\n" for d in range(4) for rater in ("ana", "ben")
        ),
        encoding="utf-8",
    )  # fmt: skip
    code, out, _ = run_agreement(capsys, "--judgments", path, "--format", "json")
    assert code == 0 and "NaN" not in out
    document = json.loads(out)
    assert document["krippendorff_alpha"]["ordinal"] is None
    assert "is 0" in document["reasons"]["krippendorff_alpha.ordinal"]
    assert document["gwet_ac1"] == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(cohen_kappa_score([0] * 4, [0] * 4, labels=list(range(6))))
    assert document["pairwise"][0]["cohen_kappa"] is None
