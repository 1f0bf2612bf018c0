"""Benchmark: the runs compared as ``eval --compare``, the evaluation page and the report compare
them (``commands.significance.compare_evaluations``, default options: every pair by the t-test,
Wilcoxon signed-rank, sign and randomization tests, each adjusted by Holm and by BH, the
randomized Tukey HSD, the effects; 10,000 permutations), beside the script a researcher writes
with scipy and statsmodels for the same figures.

Issue 19: "on the demo campaign and on 10 runs × 1000 queries the whole comparison should take
well under 2 s with the default permutations".

    .venv/bin/python benchmarks/bench_significance.py
    .venv/bin/python benchmarks/bench_significance.py --runs 20 --queries 5000

Per-query NDCG-like scores are generated (not timed: query difficulty plus each run's noise and
shift, cut to [0, 1]) and saved as a .npy file. Each side is a whole process reading that file
(interpreter start and imports included), run in turn for ``--repeat`` rounds; the table shows
each side's median round and peak RSS. The peer: for every pair, ``scipy.stats.ttest_rel``,
``wilcoxon`` and ``binomtest`` (the sign test), a 10,000-flip randomization test and a 10,000
resample bootstrap interval in numpy; ``statsmodels.stats.multitest.multipletests`` (Holm and
fdr_bh) over the pairs of each test; and the randomized Tukey HSD with 10,000 permutations of
each query's scores in numpy. Both print the Holm-adjusted t-test p-values, which must agree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from common import log, measured

OURS = r"""
import json, sys
import numpy as np
from judge_app.evaluation.options import SignificanceOptions
from judge_app.evaluation.engine import compare_evaluations
from judge_app.metrics.ranking import Evaluation, Settings
scores = np.load(sys.argv[1])
ids = [f"q{index:05d}" for index in range(scores.shape[0])]
runs = {f"run{c:02d}": Evaluation(Settings(), ids, {"ndcg@10": scores[:, c]},
                                  np.zeros(len(ids), bool)) for c in range(scores.shape[1])}
compared = compare_evaluations(runs, "ndcg@10", SignificanceOptions(), "bench")
print(json.dumps([pair.tests["t"].holm for pair in compared.pairs]))
"""

PEER = r"""
import json, sys
import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
scores = np.load(sys.argv[1])
n, k = scores.shape
rng = np.random.default_rng(0)
pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
raw = {"t": [], "wilcoxon": [], "sign": [], "randomization": []}
for i, j in pairs:
    d = scores[:, j] - scores[:, i]
    raw["t"].append(stats.ttest_rel(scores[:, j], scores[:, i]).pvalue)
    raw["wilcoxon"].append(stats.wilcoxon(d).pvalue)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    raw["sign"].append(stats.binomtest(wins, wins + losses).pvalue)
    signs = rng.choice([-1.0, 1.0], size=(10_000, n))
    flipped = np.abs(signs @ d)
    raw["randomization"].append((np.sum(flipped >= abs(d.sum())) + 1) / 10_001)
    means = d[rng.integers(0, n, (10_000, n))].mean(axis=1)
    np.percentile(means, [2.5, 97.5])
adjusted = {test: (multipletests(p, method="holm")[1], multipletests(p, method="fdr_bh")[1])
            for test, p in raw.items()}
observed = scores.mean(axis=0)
ranges = np.empty(10_000)
for b in range(10_000):
    shuffled = np.take_along_axis(scores, rng.random((n, k)).argsort(axis=1), axis=1)
    means = shuffled.mean(axis=0)
    ranges[b] = means.max() - means.min()
hsd = [(np.sum(ranges >= abs(observed[j] - observed[i])) + 1) / 10_001 for i, j in pairs]
print(json.dumps(list(adjusted["t"][0])))
"""


def generated(runs: int, queries: int, seed: int) -> np.ndarray:
    """A queries × runs matrix of NDCG-like scores."""
    rng = np.random.default_rng(seed)
    shifts = np.linspace(0, 0.05, runs)
    noise = rng.normal(0, 0.2, (queries, runs))
    return np.clip(rng.random((queries, 1)) + noise + shifts, 0, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-significance-") as folder:
        path = Path(folder) / "scores.npy"
        np.save(path, generated(args.runs, args.queries, args.seed))
        sides = {"ours": OURS, "scipy + statsmodels": PEER}
        rounds: dict[str, list[dict]] = {name: [] for name in sides}
        for round_number in range(1, args.repeat + 1):
            for name, code in sides.items():
                result = measured([sys.executable, "-c", code, str(path)])
                rounds[name].append(result)
                log(f"  round {round_number} {name:<20}: {result['seconds']:6.2f} s, "
                    f"peak RSS {result['rss_mib']:4.0f} MiB")  # fmt: skip
    pairs = args.runs * (args.runs - 1) // 2
    log(f"\n{args.runs} runs x {args.queries:,} queries ({pairs} pairs), 10,000 permutations; "
        f"median of {args.repeat} alternating rounds, whole processes")  # fmt: skip
    medians = {}
    for name, results in rounds.items():
        medians[name] = statistics.median(result["seconds"] for result in results)
        peak = statistics.median(result["rss_mib"] for result in results)
        log(f"  {name:<20} {medians[name]:6.2f} s  peak RSS {peak:4.0f} MiB")
    ours, peer = (json.loads(rounds[name][0]["stdout"]) for name in sides)
    largest = float(np.max(np.abs(np.subtract(ours, peer))))
    log(f"  Holm-adjusted t-test p-values: largest |difference| {largest:.1e}")
    log(f"  ours / peer: {medians['ours'] / medians['scipy + statsmodels']:.2f}; goal: ours "
        f"well under 2 s ({medians['ours']:.2f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
