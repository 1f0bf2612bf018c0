"""Benchmark: preference judging's numbers, ``judge-app eval --db --measure Compat``, next to the
``choix`` package fitting the same Bradley–Terry models; and the pair plan's cost per choice.

    .venv/bin/python benchmarks/bench_preferences.py                  # 2,000 queries
    .venv/bin/python benchmarks/bench_preferences.py --queries 200    # quick smoke test

Data (seeded): each query pools 20 documents with latent strengths; 3 raters each compare 10
pairs of its 6 best (the pair plan's default budget), choosing by a Bradley–Terry draw, with
"equal" where the strengths are close; two runs rank the pool with noise. The preferences are
imported with ``judge-app preferences import`` and the runs with ``judge-app import`` (not
timed).

Measurements:
1. Whole processes, alternating, medians of ``--repeat`` rounds (at least 5), peak RSS:
   ``judge-app eval --db DB --measure Compat --format json`` (interpreter start, the read of
   every preference and result, a Bradley–Terry fit and ideal ranking per query with its
   Laplace covariance, both runs' compatibility per query, their means with intervals and the
   paired comparison) next to a script that reads the same preferences (CSV, pandas) and fits
   each query's strengths with ``choix.opt_pairwise`` (ties as one win each way), nothing
   more: the peer does a part of our work.
2. In this process, the pair plan's cost per choice (``judging.pair_plan.adaptive_pair``: a
   fit of the candidates and the search for the most uncertain pair) with 6, 10 and 20
   candidates and 3 raters' choices: the median of 200 calls. It runs on the window's thread
   after each choice.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from common import in_workdir, log, measured

RATERS = 3
POOL = 20
TOP = 6
PAIRS = 10
PEER_SCRIPT = """
import json, sys
import choix
import numpy as np
import pandas as pd
frame = pd.read_csv(sys.argv[1], dtype=str)
fitted = 0
for _query, rows in frame.groupby("query_id", sort=False):
    docs = sorted(set(rows["doc_a"]) | set(rows["doc_b"]))
    index = {doc: place for place, doc in enumerate(docs)}
    data = []
    for a, b, choice in zip(rows["doc_a"], rows["doc_b"], rows["choice"]):
        i, j = index[a], index[b]
        if choice == "a":
            data.append((i, j))
        elif choice == "b":
            data.append((j, i))
        elif choice in ("equal", "neither"):
            data += [(i, j), (j, i)]
    choix.opt_pairwise(len(docs), data, alpha=0.1)
    fitted += 1
print(json.dumps({"queries": fitted}))
"""


def generate(folder: Path, queries: int, seed: int) -> tuple[Path, Path, Path, int]:
    """Write the preferences CSV and the two runs; returns their paths and the rows."""
    import numpy as np
    import pandas as pd

    from judge_app.judging.pair_plan import pair_of

    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1.5, size=(queries, POOL))
    rows = []
    pairs_of_top = [(i, j) for i in range(TOP) for j in range(i + 1, TOP)]
    for query in range(queries):
        best = np.argsort(-strength[query])[:TOP]
        for rater in range(RATERS):
            for k in rng.choice(len(pairs_of_top), size=PAIRS, replace=False):
                i, j = best[pairs_of_top[k][0]], best[pairs_of_top[k][1]]
                difference = strength[query, i] - strength[query, j]
                if abs(difference) < 0.2:
                    choice = "equal"
                else:
                    choice = "a" if rng.random() < 1 / (1 + np.exp(-difference)) else "b"
                a, b = pair_of(int(i), int(j))
                if (a, b) != (i, j):
                    choice = {"a": "b", "b": "a"}.get(choice, choice)
                rows.append((f"Q{query}", f"Q{query}D{a}", f"Q{query}D{b}", f"r{rater}", choice))
    preferences = folder / "preferences.csv"
    frame = pd.DataFrame(rows, columns=["query_id", "doc_a", "doc_b", "rater", "choice"])
    frame.to_csv(preferences, index=False)
    runs = []
    for name, noise in (("alpha", 1.0), ("beta", 1.2)):
        scores = strength + rng.normal(0, noise, size=strength.shape)
        order = np.argsort(-scores, axis=1)
        run = pd.DataFrame(
            [
                (f"Q{query}", f"Q{query}D{doc}", rank + 1)
                for query in range(queries)
                for rank, doc in enumerate(order[query])
            ],
            columns=["query_id", "doc_id", "rank"],
        )
        path = folder / f"{name}.csv"
        run.to_csv(path, index=False)
        runs.append(path)
    return preferences, runs[0], runs[1], len(frame)


def plan_cost(candidates: int, repeat: int = 200) -> float:
    """Median microseconds of one ``adaptive_pair`` call over ``candidates`` documents with
    3 raters' choices on a budget of pairs each."""
    import numpy as np

    from judge_app.judging.pair_plan import adaptive_pair, seed_pairs

    rng = np.random.default_rng(1)
    ranked = list(range(candidates))
    pairs = [(i, j) for i in ranked for j in ranked if i < j]
    everyone = [
        (*pairs[k], str(rng.choice(["a", "b", "equal"])))
        for _ in range(RATERS)
        for k in rng.choice(len(pairs), size=min(PAIRS, len(pairs)), replace=False)
    ]
    mine = set(seed_pairs(ranked))
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        adaptive_pair(ranked, everyone, mine)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    from importlib.metadata import version

    t0 = time.perf_counter()
    preferences, alpha, beta, rows = generate(workdir, args.queries, args.seed)
    database = workdir / "preferences.sqlite"
    database.unlink(missing_ok=True)
    judge = [sys.executable, "-m", "judge_app.cli"]
    for command in (
        ["import", str(database), "--run", str(alpha), "--run-name", "alpha"],
        ["import", str(database), "--run", str(beta), "--run-name", "beta"],
        ["preferences", "import", str(database), str(preferences)],
    ):
        measured([*judge, *command])
    log(f"generated and imported {args.queries:,} queries, {rows:,} preferences of {RATERS} "
        f"raters, 2 runs of {POOL} results in {time.perf_counter() - t0:.1f} s (not counted)")  # fmt: skip
    log(f"python {sys.version.split()[0]}, choix {version('choix')}, {os.cpu_count()} CPUs, "
        f"{args.repeat} alternating rounds (medians)")  # fmt: skip
    commands = {
        "ours": [*judge, "eval", "--db", str(database), "--measure", "Compat", "--format", "json"],
        "choix": [sys.executable, "-c", PEER_SCRIPT, str(preferences)],
    }
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    for index in range(args.repeat):
        for name, command in commands.items():
            runs[name].append(measured(command))
        log(f"  round {index + 1}: " + ", ".join(
            f"{name} {found[-1]['seconds']:.2f} s" for name, found in runs.items()
        ) + f"; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    if "compat" not in runs["ours"][-1]["stdout"].lower():  # its output's end (the wrapper's)
        raise SystemExit("the eval command printed no compatibility")
    seconds = {name: statistics.median(r["seconds"] for r in found) for name, found in runs.items()}
    peak = {name: max(r["rss_mib"] for r in found) for name, found in runs.items()}
    log("")
    log("| | seconds (median) | peak RSS |")
    log("|---|---|---|")
    log(
        f"| `eval --db --measure Compat` (everything) | {seconds['ours']:.2f} | {peak['ours']:.0f} MiB |"
    )
    log(
        f"| choix.opt_pairwise per query (the fits only) | {seconds['choix']:.2f} | {peak['choix']:.0f} MiB |"
    )
    log(f"ratio ours / choix: {seconds['ours'] / seconds['choix']:.2f}x time, "
        f"{peak['ours'] / peak['choix']:.2f}x memory")  # fmt: skip
    log("")
    log("pair plan, one adaptive choice (median of 200 calls):")
    for candidates in (6, 10, 20):
        log(f"  {candidates} candidates: {plan_cost(candidates):.0f} µs")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000, help="queries (default 2,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds (at least 5)")
    args = parser.parse_args(argv)
    if args.repeat < 5 or args.queries < 2:
        parser.error("--repeat must be at least 5 and --queries at least 2")
    in_workdir(args, "bench-preferences-", benchmark)


if __name__ == "__main__":
    main()
