"""Benchmark: the evaluation view's refresh on a big database, next to a plain sqlite3 read.

Issue 6: "refresh of the evaluation view's numbers on a database with 100,000 results and
1,000,000 judgments from three raters, next to the time of reading the same rows with plain
sqlite3; goal: refresh <= 3 x the plain read."

    .venv/bin/python benchmarks/bench_evaluation.py                    # 1,005,000 judgments
    .venv/bin/python benchmarks/bench_evaluation.py --queries 200      # quick smoke test
    .venv/bin/python benchmarks/bench_evaluation.py --workdir /tmp/be --reuse

Data (seeded, imported from CSV files by ``import_files``; not timed): ``--queries`` queries
(5,000), two runs of 10 results each per query (100,000 results), and per query a pool of 67
judged documents (both runs' results and others) graded by raters ana, ben and chloe:
1,005,000 judgments.

Ours, timed as the view does it off the UI thread (best of ``--repeat``): ``load_campaign``
(every graded judgment and every result, read from the file) and ``evaluate`` as the page asks
it, with the view's defaults: NDCG@10 of both runs with mean aggregation, the per-query table,
each run's t interval, the comparison (paired t-test, 10,000-permutation randomization test) and
the NDCG@k curve for k = 1 ... 20, and the four charts' figures.

Peer, in the same process on the same file: plain ``sqlite3`` reading the same rows with their
external ids (query, document, rater, grade of every graded judgment; run, query, document,
rank of every result) with ``fetchall``.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from pathlib import Path

from common import import_frames, in_workdir, log, max_rss_mib, prepared_database

RESULTS_PER_RUN = 10
POOL = 67  # judged documents per query
RATERS = ("ana", "ben", "chloe")
GOAL = 3.0

PEER_JUDGMENTS = """
SELECT q.external_id, d.external_id, r.name, j.grade
FROM judgment j JOIN query q ON q.id = j.query_id JOIN document d ON d.id = j.document_id
JOIN rater r ON r.id = j.rater_id WHERE j.grade IS NOT NULL AND NOT j.skipped
"""
PEER_RESULTS = """
SELECT u.name, q.external_id, d.external_id, s.rank
FROM result s JOIN run u ON u.id = s.run_id JOIN query q ON q.id = s.query_id
JOIN document d ON d.id = s.document_id
"""


def generate(db_path: Path, queries: int, seed: int) -> dict:
    """Write the campaign into a new database at ``db_path``; returns the table counts."""
    import numpy as np
    import pandas as pd

    from judge_app.store import open_database, reads

    rng = np.random.default_rng(seed)
    collection = queries * 40
    query_labels = np.asarray([f"Q{i:05d}" for i in range(1, queries + 1)], dtype=object)
    doc_labels = np.asarray([f"D{i:07d}" for i in range(collection)], dtype=object)
    pools = np.stack([rng.choice(collection, POOL, replace=False) for _ in range(queries)])
    quality = rng.random((queries, POOL))  # a hidden relevance each rater sees with noise
    runs = {}
    for run, offset in (("system-a", 0), ("system-b", 4)):
        picked = pools[:, offset : offset + RESULTS_PER_RUN]
        runs[run] = pd.DataFrame(
            {
                "query_id": np.repeat(query_labels, RESULTS_PER_RUN),
                "doc_id": doc_labels[picked.ravel()],
                "rank": np.tile(np.arange(1, RESULTS_PER_RUN + 1), queries),
                "score": np.tile(np.arange(RESULTS_PER_RUN, 0, -1.0), queries),
            }
        )
    frames = []
    for rater in RATERS:
        noisy = quality + rng.normal(0, 0.12, quality.shape)
        grades = np.clip(np.floor(noisy * 6), 0, 5).astype(int)
        frames.append(
            pd.DataFrame(
                {
                    "query_id": np.repeat(query_labels, POOL),
                    "doc_id": doc_labels[pools.ravel()],
                    "rater": rater,
                    "grade": grades.ravel(),
                }
            )
        )
    with open_database(db_path) as database:
        import_frames(
            database,
            runs,
            queries=pd.DataFrame(
                {"query_id": query_labels, "text": [f"query {q}" for q in query_labels]}
            ),
            documents=pd.DataFrame({"doc_id": doc_labels, "title": doc_labels}),
            judgments=pd.concat(frames, ignore_index=True),
        )
        with database.reading() as session:
            return reads.table_counts(session)


def peer_read(db_path: Path) -> tuple[float, int]:
    """Seconds for plain sqlite3 to read the rows the view is computed from, and their count."""
    start = time.perf_counter()
    connection = sqlite3.connect(db_path)
    rows = connection.execute(PEER_JUDGMENTS).fetchall()
    rows += connection.execute(PEER_RESULTS).fetchall()
    connection.close()
    return time.perf_counter() - start, len(rows)


def our_refresh(db_path: Path) -> tuple[float, float, object]:
    """Seconds to load the campaign, seconds to compute the view's numbers and draw its
    charts' figures (what the view's worker does), and the result."""
    from judge_app.commands.campaign import load_campaign
    from judge_app.commands.evaluate import evaluate
    from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
    from judge_app.reports.figures import evaluation_figures
    from judge_app.store import open_database

    with open_database(db_path, create=False) as database:
        start = time.perf_counter()
        campaign = load_campaign(database)
        loaded = time.perf_counter()
        result = evaluate(EvaluationRequest.shown(EvaluationOptions()), campaign)
        evaluation_figures(campaign, result)
        done = time.perf_counter()
    return loaded - start, done - loaded, result


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    db_path = workdir / f"evaluation_{args.queries}_{args.seed}.sqlite"
    prepared_database(db_path, args.reuse, lambda path: generate(path, args.queries, args.seed))
    import judge_app.commands.evaluate  # noqa: F401  (imports are not part of a refresh)
    import judge_app.reports.figures  # noqa: F401

    peers, loads, computes, rows = [], [], [], 0
    result = None
    for _ in range(args.repeat):
        seconds, rows = peer_read(db_path)
        peers.append(seconds)
        load, compute, result = our_refresh(db_path)
        loads.append(load)
        computes.append(compute)
    totals = [load + compute for load, compute in zip(loads, computes)]
    best = min(range(args.repeat), key=lambda i: totals[i])
    peer, ours = min(peers), totals[best]
    log()
    log(f"rows read by the peer: {rows:,}; best of {args.repeat}")
    log(f"{'':<34} | {'seconds':>8}")
    log(f"{'plain sqlite3 read (peer)':<34} | {peer:>8.3f}")
    log(f"{'ours: load_campaign':<34} | {loads[best]:>8.3f}")
    log(f"{'ours: evaluate':<34} | {computes[best]:>8.3f}")
    log(f"{'ours: refresh in all':<34} | {ours:>8.3f}")
    log()
    ratio = ours / peer
    log(
        f"refresh / plain read = {ratio:.2f} (goal <= {GOAL:.0f}: {'met' if ratio <= GOAL else 'NOT met'})"
    )
    assert result is not None
    for run, summary in result.summaries.items():
        log(f"  {run}: mean NDCG@10 {summary.mean:.4f} over {summary.n:,} queries "
            f"(95% CI {summary.low:.4f} to {summary.high:.4f})")  # fmt: skip
    for comparison in result.comparisons:
        log("  " + comparison.describe(4))
    log(f"peak RSS {max_rss_mib():.0f} MiB")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5_000,
                        help="queries (default 5,000: 100,000 results, 1,005,000 judgments)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7, help="of the data (default 7)")
    parser.add_argument("--repeat", type=int, default=3, help="refreshes timed (best counts)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the database in --workdir if it exists")  # fmt: skip
    args = parser.parse_args(argv)
    if args.queries < 2 or args.repeat < 1:
        parser.error("use at least 2 queries and 1 repeat")
    return args


def main(argv: list[str] | None = None) -> None:
    in_workdir(parse_args(argv), "bench_evaluation_", benchmark)


if __name__ == "__main__":
    main()
