"""Benchmark: the runs compared (``commands.significance.compare_evaluations``, what ``eval
--compare``, the evaluation page and the report run) with the default options: every pair by
the four paired tests, Holm and BH, the randomized Tukey HSD, the effects; 10,000 permutations.

Issue 19: "on the demo campaign and on 10 runs × 1000 queries the whole comparison should take
well under 2 s with the default permutations".

    .venv/bin/python benchmarks/bench_significance.py
    .venv/bin/python benchmarks/bench_significance.py --runs 20 --queries 5000

The demo campaign is built in a temporary folder and evaluated (not timed); the generated
campaign draws per-query NDCG-like scores (query difficulty plus each run's noise and shift,
cut to [0, 1]). Times are the best of ``--repeat`` (wall and CPU), with the randomized Tukey
HSD's share measured on its own.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
from common import log

from judge_app.cli import main as cli
from judge_app.commands.evaluate import EvaluationOptions, evaluate_coded, read_campaign
from judge_app.commands.significance import SignificanceOptions, compare_evaluations
from judge_app.metrics.multiple_testing import randomized_tukey_hsd
from judge_app.metrics.ranking import Evaluation, Settings


def generated(runs: int, queries: int, seed: int) -> dict[str, Evaluation]:
    rng = np.random.default_rng(seed)
    shifts = np.linspace(0, 0.05, runs)
    scores = np.clip(rng.random((queries, 1)) + rng.normal(0, 0.2, (queries, runs)) + shifts, 0, 1)
    ids = [f"q{index:05d}" for index in range(queries)]
    return {
        f"run{column:02d}": Evaluation(
            Settings(), ids, {"ndcg@10": scores[:, column]}, np.zeros(queries, bool)
        )
        for column in range(runs)
    }


def timed(evaluations: dict[str, Evaluation], repeat: int) -> tuple[float, float, float]:
    """Best wall and CPU seconds of the whole comparison, and the HSD's best wall seconds."""
    options = SignificanceOptions()
    compare_evaluations(evaluations, "ndcg@10", options, "bench")  # warm: imports, caches
    walls, cpus, hsd = [], [], []
    names = list(evaluations)
    scores = np.column_stack([e.values["ndcg@10"] for e in evaluations.values()])
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        compare_evaluations(evaluations, "ndcg@10", options, "bench")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        start = time.perf_counter()
        randomized_tukey_hsd(names, scores, permutations=options.permutations)
        hsd.append(time.perf_counter() - start)
    return min(walls), min(cpus), min(hsd)


def demo_evaluations() -> dict[str, Evaluation]:
    with tempfile.TemporaryDirectory(prefix="bench-significance-") as folder:
        path = Path(folder) / "demo.sqlite"
        with redirect_stdout(StringIO()):
            assert cli(["demo", str(path)]) == 0
        campaign = read_campaign(str(path), queries=False)
    return evaluate_coded(EvaluationOptions(), campaign, compare=False).evaluations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cases = {
        "demo campaign (2 runs x 16 queries)": demo_evaluations(),
        f"{args.runs} runs x {args.queries:,} queries": generated(
            args.runs, args.queries, args.seed
        ),
    }
    log(f"{'':<36} | {'pairs':>5} | {'wall s':>7} | {'CPU s':>7} | {'of it HSD':>9}")
    for name, evaluations in cases.items():
        wall, cpu, hsd = timed(evaluations, args.repeat)
        pairs = len(evaluations) * (len(evaluations) - 1) // 2
        log(f"{name:<36} | {pairs:>5} | {wall:>7.3f} | {cpu:>7.3f} | {hsd:>9.3f}")
    log(f"goal: well under 2 s with the default permutations (best of {args.repeat})")


if __name__ == "__main__":
    main()
