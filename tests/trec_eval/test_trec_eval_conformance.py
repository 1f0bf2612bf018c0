"""``judge-app trec-eval`` against trec_eval 10.0's own outputs: every quicktest case of its
Makefile whose files we hold, byte for byte, through the command line; and the values it
printed to 15 decimals (``computed/``, ``edge/``: see tests/reference/trec_eval/README.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from paths import TREC_EVAL

from judge_app.cli import main
from judge_app.trec_eval import Settings, compute, parse, rank, read_qrels, read_results, summary

MEAS_PARAMS = [
    "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
    "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]  # fmt: skip
QUICKTEST = [
    ([], "qrels.test", "results.test", "out.test"),
    ([], "qrels.test.with-comments", "results.test", "out.test"),
    ([], "qrels.comment.test", "results.comment.test", "out.comment.test"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.a"),
    (["-m", "all_trec", "-q"], "qrels.test", "results.test", "out.test.aq"),
    (["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc", "out.test.aqc"),
    (["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc", "out.test.aqcM"),
    (["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test",
     "out.test.aql"),
    (MEAS_PARAMS, "qrels.test", "results.test", "out.test.meas_params"),
]  # fmt: skip
COMPUTED = ["ndcg", "ndcg_cut.5,10,20", "P.5,10", "recip_rank", "map"]  # as computed/ asked
COLLECTIONS = [
    ("qrels.test", "results.test"),
    ("qrels.rel_level", "results.test"),
    ("qrels.comment.test", "results.comment.test"),
    ("edge/qrels.edge", "edge/run.edge"),
]


def trec_eval(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """``judge-app trec-eval ARGS`` in-process: exit status, stdout, stderr."""
    capsys.readouterr()
    status = main(["trec-eval", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def printed(text: str) -> dict[tuple[str, str], str]:
    """(measure, query) -> value of trec_eval's output."""
    rows = {}
    for line in text.splitlines():
        measure, query, value = line.split("\t")
        rows[(measure.strip(), query)] = value
    return rows


@pytest.mark.parametrize(("options", "qrels", "results", "expected"), QUICKTEST)
def test_quicktest_output_byte_for_byte(capsys, options, qrels, results, expected):
    status, out, err = trec_eval(capsys, *options, TREC_EVAL / qrels, TREC_EVAL / results)
    assert (status, err) == (0, "")
    assert out == (TREC_EVAL / expected).read_text(encoding="ascii")


@pytest.mark.parametrize(("qrels", "results"), COLLECTIONS)
@pytest.mark.parametrize("variant", ["", "J.", "expgain."])
def test_values_to_15_decimals(qrels, results, variant):
    """The values trec_eval 10.0 printed with 15 decimals, per query and in the summary."""
    reference_name = f"te_v10.0_15dp.{variant}{Path(qrels).name}.{Path(results).name}.txt"
    expected = printed((TREC_EVAL / "computed" / reference_name).read_text())
    qrels_path = TREC_EVAL / qrels
    if variant == "expgain.":
        qrels_path = TREC_EVAL / "computed" / "qrels_expgain" / f"{Path(qrels).name}.expgain"
    ranked = rank(
        read_qrels(qrels_path),
        read_results(TREC_EVAL / results),
        Settings(judged_only=variant == "J."),
    )
    specs = [parse(measure) for measure in COMPUTED]
    values = compute(ranked, specs)
    means = {"num_q": ranked.n}
    for spec in specs:
        means.update(zip(spec.names, summary(ranked, spec, values)))
    for (measure, query), value in expected.items():
        if query == "all":
            ours = means[measure]
        else:
            ours = values[measure][ranked.queries.index(query)]
        assert ours == pytest.approx(float(value), abs=1e-14), (measure, query)


def test_a_judged_query_without_results_stops_as_trec_eval_does(capsys):
    """trec_eval 10.0 prints the queries before it, then stops with status 4."""
    edge = TREC_EVAL / "edge"
    status, out, err = trec_eval(capsys, "-q", "-m", "ndcg", edge / "qrels.edge_missing",
                                 edge / "run.edge")  # fmt: skip
    expected = printed((edge / "te_v10.0.missing.txt").read_text())
    assert status == 4
    assert {key: float(value) for key, value in printed(out).items()} == pytest.approx(
        {key: round(float(value), 4) for key, value in expected.items()}
    )
    assert "'missing'" in err and "-c" in err
    status, out, _ = trec_eval(capsys, "-m", "ndcg", edge / "qrels.edge_missing", edge / "run.edge")
    assert (status, out) == (4, "")


def test_complete_ranks_a_judged_query_without_results(capsys):
    edge = TREC_EVAL / "edge"
    files = [edge / "qrels.edge_missing", edge / "run.edge"]
    status, out, _ = trec_eval(capsys, "-c", "-q", "-m", "ndcg", "-m", "num_q", *files)
    expected = printed((edge / "te_v10.0_15dp.missing_c.txt").read_text())
    assert status == 0
    assert list(printed(out)) == list(expected)
    for key, value in printed(out).items():
        assert value == (expected[key] if key[0] == "num_q" else f"{float(expected[key]):6.4f}")


def test_the_command_line_reads_attached_values_long_options_and_options_after_files(capsys):
    files = [TREC_EVAL / "qrels.test", TREC_EVAL / "results.trunc"]
    _, expected, _ = trec_eval(capsys, "-m", "all_trec", "-q", "-c", "-M100", *files)
    for options in (
        ["-mall_trec", "-qc", "-M", "100", *files],
        ["--measure=all_trec", "--query_eval_wanted", "--complete", "--Max_ret", "100", *files],
        [files[0], "-m", "all_trec", files[1], "-M100", "-q", "-c"],
    ):
        assert trec_eval(capsys, *options) == (0, expected, "")


def test_standard_input_as_results():
    command = [
        sys.executable,
        "-m",
        "judge_app.cli",
        "trec-eval",
        str(TREC_EVAL / "qrels.test"),
        "-",
    ]
    with (TREC_EVAL / "results.test").open("rb") as results:
        done = subprocess.run(command, stdin=results, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (TREC_EVAL / "out.test").read_bytes()


def test_values_are_one_per_evaluated_query_in_trec_eval_order():
    ranked = rank(
        read_qrels(TREC_EVAL / "qrels.comment.test"),
        read_results(TREC_EVAL / "results.comment.test"),
    )
    values = compute(ranked, ["ndcg_cut.10", "P.5"])
    assert ranked.queries == sorted(ranked.queries, key=str.encode) and len(ranked.queries) == 31
    assert {name: len(array) for name, array in values.items()} == {"ndcg_cut_10": 31, "P_5": 31}
    assert np.all((values["P_5"] >= 0) & (values["P_5"] <= 1))
