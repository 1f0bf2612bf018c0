"""Every format of ``judge-app eval --db --measure Compat`` shows each run's compatibility with
the preference judgments as it shows the other measures, with the numbers of the JSON
document: CSV (full precision, a row per query, and a row per pair compared; beside the
means corrected by a judge), trec_eval's lines, the table (its one interval, within [0, 1]),
LaTeX and Markdown (rounded, with the comparison's marks and note)."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from automatic_support import grade_automatically
from hypothesis import given
from hypothesis import strategies as st
from preference_support import with_preferences

from judge_app.cli import main as cli
from judge_app.evaluation.preferences import PreferenceEvaluation
from judge_app.metrics.ranking import Evaluation, Settings


@pytest.fixture(scope="module")
def preferring(demo, tmp_path_factory):
    return with_preferences(demo, tmp_path_factory.mktemp("preferring"))


def printed(path, *args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(path), "--measure", "Compat", *args]) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def found(preferring) -> dict:
    """The preference part of the JSON document, with the runs compared."""
    return json.loads(printed(preferring, "--compare", "--format", "json"))["preferences"]


def by_query(found: dict) -> dict[str, dict[str, float]]:
    """Each run's Compat by query, in full."""
    return {
        run["run"]: {query["query_id"]: query["Compat"] for query in run["queries"]}
        for run in found["runs"]
    }


def test_the_csv_holds_each_run_s_compat_per_query_and_its_mean(preferring, found):
    table = pd.read_csv(
        io.StringIO(printed(preferring, "--format", "csv")), dtype={"query_id": str}
    )
    plain = pd.read_csv(io.StringIO(_plain_csv(preferring)), dtype={"query_id": str})
    pd.testing.assert_frame_equal(table.drop(columns="Compat"), plain)  # the rest as it was
    values = by_query(found)
    for run in found["runs"]:
        mine = table[table["run"] == run["run"]].set_index("query_id")["Compat"]
        scored = mine.drop("all").dropna()
        assert scored.to_dict() == values[run["run"]]  # full precision: the same floats
        assert mine["all"] == run["mean"]["Compat"]
        assert len(scored) == run["n_queries"] < len(mine) - 1  # queries without preferences: empty


def _plain_csv(path) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(path), "--format", "csv"]) == 0
    return out.getvalue()


def test_the_compared_csv_has_a_row_per_pair_on_each_measure(preferring, found):
    table = pd.read_csv(io.StringIO(printed(preferring, "--compare", "--format", "csv")))
    assert table["measure"].tolist() == ["ndcg@10", "Compat"]
    [pair] = found["significance"]["pairs"]
    row = table[table["measure"] == "Compat"].iloc[0]
    for key in ("n", "mean_baseline", "mean_other", "mean_difference", "interval_low", "t_p"):
        assert row[key] == pair[key]


def test_trec_lines_hold_compat_per_query_and_all_at_4_decimals(preferring, found):
    lines = [line.split("\t") for line in printed(preferring, "--format", "trec").splitlines()]
    values = by_query(found)
    run = None
    seen: dict[str, dict[str, str]] = {}
    for measure, query, value in lines:
        if measure.strip() == "runid":
            run = value
        elif measure.strip() == "Compat":
            assert run is not None
            seen.setdefault(run, {})[query] = value
    for record in found["runs"]:
        expected = {query: f"{value:.4f}" for query, value in values[record["run"]].items()}
        expected["all"] = f"{record['mean']['Compat']:.4f}"
        assert seen[record["run"]] == expected


def test_the_table_shows_compat_beside_ndcg_with_its_one_interval(preferring, found):
    text = printed(preferring, "--compare")
    header, *rows = text.splitlines()[:3]
    columns = header.split()
    assert columns[columns.index("ndcg@10") + 3] == "Compat"  # ndcg@10 (95% t) Compat (95% t)
    for line, record in zip(rows, found["runs"]):
        interval = record["interval"]
        shown = f"{interval['mean']:.4f} [{interval['low']:.4f}, {interval['high']:.4f}]"
        assert line.split()[0] == record["run"] and shown in line
        assert 0 <= interval["low"] <= interval["mean"] <= interval["high"] <= 1
    assert "over the 10 queries that have one" in text
    assert "Runs compared on Compat: every pair of runs" in text
    assert text.count("Runs compared on") == 2  # NDCG's, then Compat's


@pytest.mark.parametrize("output", ["markdown", "latex"])
def test_paper_tables_hold_each_run_s_mean_compat_and_its_comparison(preferring, found, output):
    text = printed(preferring, "--format", output)
    separator = "|" if output == "markdown" else "&"
    lines = [line for line in text.splitlines() if separator in line]
    header = [cell.strip(" |\\") for cell in lines[0].split(separator)]
    column = header.index("Compat")
    rows = [line for line in lines if line.split(separator)[0].strip(" |") in ("bm25", "neural")]
    means = {run["run"]: run["mean"]["Compat"] for run in found["runs"]}
    best = max(means, key=lambda run: round(means[run], 4))
    for line in rows:
        cells = [cell.strip(" |\\") for cell in line.split(separator)]
        run = cells[0]
        assert f"{means[run]:.4f}" in cells[column]
        assert (("**" in cells[column]) or ("textbf" in cells[column])) == (run == best)
    assert "from bm25 on Compat by the randomized Tukey HSD" in text


def test_the_csv_of_means_corrected_by_a_judge_ends_with_each_run_s_compat(preferring, tmp_path):
    judged = tmp_path / "judged.sqlite"
    judged.write_bytes(preferring.read_bytes())
    grade_automatically(judged, "llm", seed=1)
    found = json.loads(printed(judged, "--judge", "llm", "--format", "json"))["preferences"]
    table = pd.read_csv(io.StringIO(printed(judged, "--judge", "llm", "--format", "csv")))
    compat = table[table["measure"] == "Compat"].set_index("run")
    assert len(table) > len(compat) == len(found["runs"])
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(judged), "--judge", "llm", "--format", "csv"]) == 0
    corrected = table[table["measure"] != "Compat"].drop(columns="queries")
    plain = pd.read_csv(io.StringIO(out.getvalue()))
    pd.testing.assert_frame_equal(corrected, plain, check_dtype=False)  # as without Compat
    for record in found["runs"]:
        row = compat.loc[record["run"]]
        assert row["mean"] == record["mean"]["Compat"]
        assert (row["low"], row["high"]) == (record["interval"]["low"], record["interval"]["high"])
        assert row["queries"] == record["n_queries"]


@given(st.lists(st.floats(0, 1), min_size=2, max_size=12))
def test_a_run_s_compat_interval_stays_within_0_and_1(values):
    scored = np.array(values)
    evaluation = Evaluation(Settings(), [f"q{i}" for i in range(len(values))], {"Compat": scored},
                            np.zeros(len(values), dtype=bool))  # fmt: skip
    interval = PreferenceEvaluation({}, {"run": evaluation}, "Compat").interval("run")
    assert interval.mean == pytest.approx(scored.mean())
    if interval.defined:
        assert 0 <= interval.low <= interval.high <= 1
    else:
        assert math.isnan(interval.low)
