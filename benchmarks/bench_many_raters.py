"""Benchmark: the lead's commands on a crowd of raters, beside a plain read of the same rows.

Issue 31, item 7: "with 10,000 raters `raters` and `agreement` ran past 300 s at 8-9 GB;
with a million, `info` ran past 10 minutes and ignored Ctrl+C".

    .venv/bin/python benchmarks/bench_many_raters.py                    # 10,000 and 1,000,000
    .venv/bin/python benchmarks/bench_many_raters.py --crowds 2000 --repeat 5

Data (generated once per crowd in ``--workdir``, default /tmp/bench-many-raters, not timed):
500 queries of one run of 10 results (5,000 documents); a crowd of N raters, each grading
``--per-rater`` documents (10 for crowds up to 100,000, else 1) drawn at random, grades 0-3,
imported as a user's CSV is.

Timed, each a whole process (``python -m judge_app.cli ...``) under the wrapper of
``common.measured`` (seconds and its own peak RSS), alternating with the peer, the median of
``--repeat`` rounds: ``info``, and for crowds up to 100,000 ``raters`` and ``agreement --db
--bootstrap 0``. Peer: Python's ``sqlite3`` reading every judgment with its rater's name
(``fetchall``), the rows all three commands start from.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common import import_frames, log, measured, prepared_database

QUERIES = 500
RESULTS = 10
PEER_READ = (
    "SELECT q.external_id, d.external_id, r.name, j.grade FROM judgment j "
    "JOIN query q ON q.id = j.query_id JOIN document d ON d.id = j.document_id "
    "JOIN rater r ON r.id = j.rater_id"
)


def generate(path: Path, raters: int, per_rater: int, seed: int) -> dict[str, int]:
    """The campaign: one run over QUERIES queries, ``raters`` raters of ``per_rater``
    documents each (a rater grades a document once)."""
    from judge_app.store import open_database

    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(QUERIES), RESULTS)
    documents = [f"d{query}_{rank}" for query in range(QUERIES) for rank in range(RESULTS)]
    run = pd.DataFrame({
        "query_id": [f"q{query}" for query in queries], "doc_id": documents,
        "rank": np.tile(np.arange(1, RESULTS + 1), QUERIES), "score": 1.0,
    })  # fmt: skip
    picked = rng.integers(0, len(documents), raters * per_rater)
    judgments = pd.DataFrame({
        "query_id": [f"q{queries[index]}" for index in picked],
        "doc_id": [documents[index] for index in picked],
        "rater": np.repeat([f"r{index:07d}" for index in range(raters)], per_rater),
        "grade": rng.integers(0, 4, len(picked)),
    }).drop_duplicates(["query_id", "doc_id", "rater"])  # fmt: skip
    with open_database(path) as database:
        import_frames(database, {"bm25": run}, judgments=judgments)
    return {
        "queries": QUERIES, "documents": len(documents), "results": len(run),
        "judgments": len(judgments), "raters": raters,
    }  # fmt: skip


def peer_child(db: str) -> None:
    """The plain read (this script's hidden ``--peer``): prints its rows and seconds."""
    import sqlite3

    start = time.perf_counter()
    connection = sqlite3.connect(db)
    rows = connection.execute(PEER_READ).fetchall()
    connection.close()
    print(json.dumps({"rows": len(rows), "read_s": time.perf_counter() - start}))


def operations(db: str, crowd: int) -> list[tuple[str, list[str]]]:
    commands = [("info", ["info", db])]
    if crowd <= 100_000:
        commands += [
            ("raters", ["raters", db]),
            ("agreement --bootstrap 0", ["agreement", "--db", db, "--bootstrap", "0"]),
        ]
    return commands


def bench_crowd(args: argparse.Namespace, crowd: int) -> None:
    per_rater = args.per_rater or (10 if crowd <= 100_000 else 1)
    db_path = args.workdir / f"raters_{crowd}_{per_rater}_{args.seed}.sqlite"
    prepared_database(db_path, True, lambda path: generate(path, crowd, per_rater, args.seed))
    runs: dict[str, list[dict]] = {}
    peer = [sys.executable, str(Path(__file__).resolve()), "--peer", str(db_path)]
    for index in range(args.repeat):
        runs.setdefault("plain sqlite3 read", []).append(measured(peer))
        for name, arguments in operations(str(db_path), crowd):
            command = [sys.executable, "-m", "judge_app.cli", *arguments]
            runs.setdefault(name, []).append(measured(command))
        log(f"  round {index + 1} of {args.repeat}: " + ", ".join(
            f"{name} {results[-1]['seconds']:.2f} s" for name, results in runs.items()
        ))  # fmt: skip
    peer_seconds = statistics.median(result["seconds"] for result in runs["plain sqlite3 read"])
    log(f"\n{crowd:,} raters of {per_rater} documents (median of {args.repeat}, whole processes)")
    log(f"  {'':<26}{'seconds':>9}{'× read':>9}{'peak RSS MiB':>14}")
    for name, results in runs.items():
        seconds = statistics.median(result["seconds"] for result in results)
        rss = max(result["rss_mib"] for result in results)
        log(f"  {name:<26}{seconds:>9.2f}{seconds / peer_seconds:>9.1f}{rss:>14.0f}")
    log()


def main() -> None:
    if sys.argv[1:2] == ["--peer"]:
        peer_child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowds", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--per-rater", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/bench-many-raters"))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    for crowd in args.crowds:
        bench_crowd(args, crowd)


if __name__ == "__main__":
    main()
