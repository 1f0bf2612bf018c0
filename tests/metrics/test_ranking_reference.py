"""NDCG, P@k, MRR and MAP equal trec_eval 10.0's outputs printed to 15 decimals, to 1e-12."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from paths import TREC_EVAL

from judge_app.metrics.ranking import Settings, evaluate

# trec_eval 10.0's outputs to 15 decimals: linear gain, -J (condensed), 2^rel-1 gain; named,
# not globbed, so that a missing one fails instead of leaving nothing to test
COLLECTIONS = [
    "test.results.test",
    "rel_level.results.test",
    "comment.test.results.comment.test",
    "edge.run.edge",
]
OUTPUTS = [
    TREC_EVAL / "computed" / f"te_v10.0_15dp.{variant}qrels.{collection}.txt"
    for variant in ("", "J.", "expgain.")
    for collection in COLLECTIONS
]
NAME = re.compile(r"te_v10\.0_15dp\.(?:(J|expgain)\.)?qrels\.(.+)\.(?:results|run)\.(.+)\.txt")


def _read(path: Path, columns: dict[int, str]) -> pd.DataFrame:
    frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str)
    return frame[list(columns)].set_axis(list(columns.values()), axis=1)


def _run(path: Path) -> pd.DataFrame:
    run = _read(path, {0: "query_id", 2: "doc_id", 4: "score"})
    return run.assign(score=run["score"].astype(float))


def _qrels(path: Path) -> pd.DataFrame:
    qrels = _read(path, {0: "query_id", 2: "doc_id", 3: "grade"})
    return qrels.assign(grade=qrels["grade"].astype(float))


def _find(kind: str, name: str) -> Path:
    prefix = "qrels" if kind == "qrels" else "results"
    for candidate in (TREC_EVAL / f"{prefix}.{name}", TREC_EVAL / "edge" / f"{kind}.{name}"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(name)


def _key(measure: str) -> str | None:
    """Our key for a trec_eval measure name."""
    if measure == "ndcg":
        return "ndcg@all"
    for prefix, ours in (("ndcg_cut_", "ndcg@"), ("P_", "p@")):
        if measure.startswith(prefix):
            return ours + measure[len(prefix) :]
    return {"map": "ap", "recip_rank": "rr"}.get(measure)


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda path: path.name)
def test_trec_eval_reference_outputs(output: Path):
    variant, qrels_name, run_name = NAME.fullmatch(output.name).groups()
    settings = Settings(
        ks=(None, 1, 3, 5, 10, 20),
        gain="exponential" if variant == "expgain" else "linear",
        unjudged="condensed" if variant == "J" else "zero",
    )
    evaluation = evaluate(
        _run(_find("run", run_name)), _qrels(_find("qrels", qrels_name)), settings
    )
    per_query = evaluation.per_query.set_index("query_id")
    means = evaluation.means()
    checked = 0
    for line in output.read_text().splitlines():
        measure, query, expected = line.split()
        if measure == "num_q":
            assert evaluation.n_queries == int(expected)
            continue
        key = _key(measure)
        ours = means[key] if query == "all" else per_query.loc[query, key]
        assert ours == pytest.approx(float(expected), abs=1e-12), (measure, query)
        checked += 1
    assert checked > 0


def test_complete_scores_judged_queries_missing_from_the_run_as_zero():
    run = _run(TREC_EVAL / "edge" / "run.edge")
    qrels = _qrels(TREC_EVAL / "edge" / "qrels.edge_missing")
    expected = {}
    for line in (TREC_EVAL / "edge" / "te_v10.0_15dp.missing_c.txt").read_text().splitlines():
        measure, query, value = line.split()
        expected[(measure, query)] = float(value)
    complete = evaluate(run, qrels, Settings(ks=(None,), complete=True))
    assert complete.n_queries == expected[("num_q", "all")]
    assert complete.means()["ndcg@all"] == pytest.approx(expected[("ndcg", "all")], abs=1e-12)
    assert "missing" in complete.per_query["query_id"].tolist()
    skipped = evaluate(run, qrels, Settings(ks=(None,)))
    assert (
        skipped.judged_only == ["missing"]
        and "missing" not in skipped.per_query["query_id"].tolist()
    )
    assert skipped.run_only == complete.run_only
