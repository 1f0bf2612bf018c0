"""Benchmark: each run's mean NDCG@10 corrected by an automatic judge (``eval --db DB --judge
NAME --format json``), beside the script a researcher writes for the same numbers with
pytrec_eval and ppi-python.

    .venv/bin/python benchmarks/bench_ppi.py                     # 10,000 queries
    .venv/bin/python benchmarks/bench_ppi.py --queries 1000      # quick

Data (seeded, not timed): ``--queries`` queries of ``tests/ppi_simulation.py``'s population,
three runs of 20 results each, rater ``ana`` grading a tenth of the queries completely, the
lenient automatic judge grading every pooled pair. Written to a database (ours) and to TREC
files (the peer's: the humans' qrels, the judge's qrels and the runs).

Ours: ``judge-app eval --db DB --judge lenient --format json`` (reading the database,
evaluating the runs on both grades, the bootstrap intervals and the runs compared included).
Peer: a script reading the TREC files with pytrec_eval (``ndcg_cut_10`` on both qrels), then
``ppi_py.ppi_mean_ci``, ``ppi_mean_pointestimate`` and ``classical_mean_ci`` per run. Each side
a whole process, in turn for ``--repeat`` rounds; the median round and peak RSS of each. Both
print each run's prediction-powered interval, which must agree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np
from common import in_workdir, log, measured, prepared_database

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import ppi_simulation  # noqa: E402

PEER = r"""
import json, sys
import numpy as np
import ppi_py, pytrec_eval
folder = sys.argv[1]

def read_qrels(path):
    qrels = {}
    for line in open(path, encoding="utf-8"):
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    return qrels

def read_run(path):
    run = {}
    for line in open(path, encoding="utf-8"):
        query, _, doc, rank, score, _tag = line.split()
        run.setdefault(query, {})[doc] = float(score)
    return run

humans, judge = read_qrels(f"{folder}/humans.qrels"), read_qrels(f"{folder}/judge.qrels")
by_humans = pytrec_eval.RelevanceEvaluator(humans, {"ndcg_cut.10"})
by_judge = pytrec_eval.RelevanceEvaluator(judge, {"ndcg_cut.10"})
out = {}
for name in ("fair", "good", "poor"):
    run = read_run(f"{folder}/{name}.run")
    h, j = by_humans.evaluate(run), by_judge.evaluate(run)
    labelled = sorted(h)
    others = sorted(set(j) - set(labelled))
    y = np.array([h[q]["ndcg_cut_10"] for q in labelled])
    yhat = np.array([j[q]["ndcg_cut_10"] for q in labelled])
    unlabelled = np.array([j[q]["ndcg_cut_10"] for q in others])
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled)
    ppi_py.classical_mean_ci(y, alpha=0.05)
    out[name] = [float(low[0]), float(high[0])]
print(json.dumps(out))
"""


def generate(folder: Path, queries: int, seed: int) -> dict[str, int]:
    """The campaign in ``folder``: ``campaign.sqlite`` and the peer's TREC files."""
    import pandas as pd
    from sqlalchemy import text

    from judge_app.commands.importing import ImportOptions, import_files
    from judge_app.store import automatic, open_database

    generator = np.random.default_rng(seed)
    drawn = ppi_simulation.campaign(generator, queries)
    all_queries = drawn.humans["query_id"].unique()
    chosen = generator.choice(all_queries, queries // 10, replace=False)
    humans = drawn.humans[drawn.humans["query_id"].isin(chosen)].assign(rater="ana")
    humans = humans.astype({"grade": int})
    for name, run in drawn.runs.items():
        trec = run.assign(q0="Q0", score=21 - run["rank"], tag=name)
        trec[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            folder / f"{name}.run", sep=" ", header=False, index=False
        )
    for name, grades in (("humans", humans), ("judge", drawn.judge)):
        qrels = grades.assign(iteration=0, grade=grades["grade"].astype(int))
        qrels[["query_id", "iteration", "doc_id", "grade"]].to_csv(
            folder / f"{name}.qrels", sep=" ", header=False, index=False
        )
    path = folder / "campaign.sqlite"
    with open_database(path) as database:
        files = {"queries": pd.DataFrame({"query_id": all_queries, "text": all_queries})}
        files["judgments"] = humans[["query_id", "doc_id", "rater", "grade"]]
        for kind, frame in files.items():
            frame.to_csv(folder / f"{kind}.csv", index=False)
        import_files(
            database,
            ImportOptions(queries=folder / "queries.csv", judgments=folder / "judgments.csv"),
        )
        for name, run in drawn.runs.items():
            run.to_csv(folder / f"{name}.csv", index=False)
            import_files(database, ImportOptions(run=folder / f"{name}.csv", run_name=name))
        with database.transaction() as session:
            judge = automatic.add_judge(session, "lenient", method="llm", model="simulated")
            ids = {
                name: {
                    key: id_
                    for key, id_ in session.execute(text(f"SELECT external_id, id FROM {name}"))
                }
                for name in ("query", "document")
            }
            grades = [
                automatic.AutoGrade(ids["query"][q], ids["document"][d], float(g))
                for q, d, g in drawn.judge[["query_id", "doc_id", "grade"]].itertuples(index=False)
            ]
            automatic.write_grades(session, judge.rater_id, grades)
    return {"queries": queries, "human grades": len(humans), "automatic grades": len(grades)}


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    prepared_database(
        workdir / "campaign.sqlite", args.reuse, lambda _path: generate(workdir, args.queries, 7)
    )
    ours = [sys.executable, "-m", "judge_app.cli", "eval", "--db", str(workdir / "campaign.sqlite")]
    ours += ["--judge", "lenient", "--format", "json"]
    sides = {"ours": ours, "pytrec_eval + ppi-python": [sys.executable, "-c", PEER, str(workdir)]}
    rounds: dict[str, list[dict]] = {name: [] for name in sides}
    for round_number in range(1, args.repeat + 1):
        for name, command in sides.items():
            result = measured(command)
            rounds[name].append(result)
            log(f"  round {round_number} {name:<26}: {result['seconds']:6.2f} s, "
                f"peak RSS {result['rss_mib']:4.0f} MiB")  # fmt: skip
    log(f"\n{args.queries:,} queries, 3 runs, a tenth judged by humans; median of {args.repeat} "
        "alternating rounds, whole processes")  # fmt: skip
    medians = {}
    for name, results in rounds.items():
        medians[name] = statistics.median(result["seconds"] for result in results)
        peak = statistics.median(result["rss_mib"] for result in results)
        log(f"  {name:<26} {medians[name]:6.2f} s  peak RSS {peak:4.0f} MiB")
    document = json.loads(_full(ours))
    peer = json.loads(rounds["pytrec_eval + ppi-python"][0]["stdout"])
    largest = max(
        abs(a - b)
        for run in document["runs"]
        for a, b in zip(run["ppi_interval"], peer[run["run"]])
    )
    log(f"  prediction-powered intervals: largest |difference| {largest:.1e}")
    log(f"  ours / peer: {medians['ours'] / medians['pytrec_eval + ppi-python']:.2f}")


def _full(command: list[str]) -> str:
    """The whole standard output of ``command`` (the wrapper keeps its last 2,000 characters)."""
    import subprocess

    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: temporary)")
    parser.add_argument("--reuse", action="store_true", help="reuse --workdir's database")
    in_workdir(parser.parse_args(), "bench-ppi-", benchmark)


if __name__ == "__main__":
    main()
