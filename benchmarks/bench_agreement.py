"""Benchmark: ``judge-app agreement`` next to ``krippendorff.alpha`` on the same data.

Issue: "100,000 units x 3 raters with 10% missing: our full `agreement` next to
`krippendorff.alpha` alone on the same data, same run; goal: our ordinal alpha no slower than
the package's, the whole command under 3 x its time (bootstrap off)."

    .venv/bin/python benchmarks/bench_agreement.py                 # 100,000 units
    .venv/bin/python benchmarks/bench_agreement.py --units 10000   # quick smoke test

Data (seeded): units are 100 documents per query; each unit has a true grade (mostly 0) and
each of 3 raters grades it within one of that grade; each grade is missing with probability
0.1 (a unit keeps at least one grade). Written as a judgments CSV.

Three measurements, each the best of ``--repeat`` runs:
1. in this process, on the same raters x units matrix: our ordinal alpha (from the matrix:
   grade counts, coincidences, alpha) next to ``krippendorff.alpha(reliability_data=...,
   level_of_measurement="ordinal")``; the values must agree to 1e-9. Goal: ours no slower.
2. the whole command as a user runs it, one process: ``judge-app agreement --judgments FILE
   --bootstrap 0 --format json`` (interpreter start, imports, reading and checking the CSV,
   every statistic, per rater, per query, adjudication lists, JSON out).
3. the package alone as a whole process doing the least it can: start Python, read the CSV
   with pandas, pivot it to raters x units, ``krippendorff.alpha`` (ordinal), print it.
Goal: (2) under 3 x (3), the package alone doing the same job end to end. The ratio of (2) to
the bare in-process call of (1) is printed too; it includes interpreter start-up and imports,
which the bare call does not pay.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from common import in_workdir, log

RATERS = 3
DOCS_PER_QUERY = 100
MISSING = 0.1
TRUTH_P = [0.55, 0.18, 0.1, 0.08, 0.05, 0.04]
PEER_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import krippendorff
import pandas as pd
frame = pd.read_csv(sys.argv[1], dtype={"query_id": str, "doc_id": str, "rater": str})
data = frame.pivot_table(index="rater", columns=["query_id", "doc_id"], values="grade")
t1 = time.perf_counter()
alpha = krippendorff.alpha(reliability_data=data.to_numpy(float), level_of_measurement="ordinal")
t2 = time.perf_counter()
print(json.dumps({"alpha": float(alpha), "load_s": t1 - t0, "alpha_s": t2 - t1}))
"""


# --------------------------------------------------------------------------- data


def generate_csv(path: Path, units: int, seed: int) -> int:
    """Write the judgments CSV; returns the number of judgment rows."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth = rng.choice(len(TRUTH_P), size=units, p=TRUTH_P)
    grades = np.clip(truth[:, None] + rng.integers(-1, 2, size=(units, RATERS)), 0, 5)
    missing = rng.random((units, RATERS)) < MISSING
    missing[missing.all(axis=1), 0] = False  # every unit keeps a grade
    unit, rater = np.nonzero(~missing)
    frame = pd.DataFrame(
        {
            "query_id": np.char.add("Q", (unit // DOCS_PER_QUERY).astype(str)),
            "doc_id": np.char.add("D", unit.astype(str)),
            "rater": np.char.add("r", rater.astype(str)),
            "grade": grades[unit, rater],
        }
    )
    frame.to_csv(path, index=False)
    return len(frame)


def reliability_data(path: Path):
    """The raters x units matrix (NaN where missing) that krippendorff.alpha takes."""
    import pandas as pd

    frame = pd.read_csv(path, dtype={"query_id": str, "doc_id": str, "rater": str})
    table = frame.pivot_table(index="rater", columns=["query_id", "doc_id"], values="grade")
    return table.to_numpy(float)


# --------------------------------------------------------------------------- measurements


def our_ordinal_alpha(data) -> float:
    """Our ordinal alpha from the same raters x units matrix the package takes."""
    import numpy as np

    from judge_app.agreement.coefficients import grade_counts, krippendorff_alpha

    grades = np.where(np.isnan(data), -1, data).astype(np.int64).T
    return krippendorff_alpha(grade_counts(grades), "ordinal").value


def best_time(function, argument, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = function(argument)
        best = min(best, time.perf_counter() - t0)
    return best, value


def run_process(command: list[str]) -> tuple[float, str]:
    """Wall time of a whole process and its stdout."""
    repo = str(Path(__file__).resolve().parent.parent)
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=repo)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-2000:] + done.stderr)
        raise SystemExit(f"{command[:4]} failed (exit {done.returncode})")
    return elapsed, done.stdout


def our_command(csv_path: Path, bootstrap: int) -> list[str]:
    return [sys.executable, "-m", "judge_app.cli", "agreement", "--judgments", str(csv_path),
            "--bootstrap", str(bootstrap), "--format", "json"]  # fmt: skip


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=100_000, help="units (default 100,000)")
    parser.add_argument("--seed", type=int, default=7, help="numpy generator seed (default 7)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (best is kept)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.units < 2:
        parser.error("--repeat must be at least 1 and --units at least 2")
    return args


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    from importlib.metadata import version

    import krippendorff

    csv_path = workdir / f"judgments_{args.units}_{args.seed}.csv"
    t0 = time.perf_counter()
    rows = generate_csv(csv_path, args.units, args.seed)
    log(f"generated {csv_path.name}: {args.units:,} units x {RATERS} raters, {rows:,} judgments "
        f"({MISSING:.0%} missing), {csv_path.stat().st_size / 2**20:.1f} MiB in "
        f"{time.perf_counter() - t0:.1f} s (not counted)")  # fmt: skip
    log(f"python {sys.version.split()[0]}, krippendorff {version('krippendorff')}, "
        f"repeat {args.repeat} (best kept)")  # fmt: skip

    data = reliability_data(csv_path)
    peer_s, peer_alpha = best_time(
        lambda d: krippendorff.alpha(reliability_data=d, level_of_measurement="ordinal"),
        data,
        args.repeat,
    )
    ours_s, ours_alpha = best_time(our_ordinal_alpha, data, args.repeat)
    if abs(ours_alpha - peer_alpha) > 1e-9:
        raise SystemExit(f"ordinal alpha differs: ours {ours_alpha!r}, package {peer_alpha!r}")

    command_s, peer_process_s, report = float("inf"), float("inf"), None
    peer_result = None
    for _ in range(args.repeat):
        elapsed, out = run_process(our_command(csv_path, 0))
        if elapsed < command_s:
            command_s, report = elapsed, json.loads(out)
        elapsed, out = run_process([sys.executable, "-c", PEER_SCRIPT, str(csv_path)])
        if elapsed < peer_process_s:
            peer_process_s, peer_result = elapsed, json.loads(out)
    if report["n_units"] != args.units or report["n_raters"] != RATERS:
        raise SystemExit(f"the command saw {report['n_units']} units, {report['n_raters']} raters")
    if abs(report["krippendorff_alpha"]["ordinal"] - round(peer_result["alpha"], 4)) > 1e-4:
        raise SystemExit("the command's ordinal alpha differs from the package's")
    bootstrap_s, bootstrapped = run_process(our_command(csv_path, 1000))
    interval = json.loads(bootstrapped)["krippendorff_alpha_ci"]["ordinal"]

    adjudicate = sum(len(query["adjudicate"]) for query in report["per_query"])
    log()
    log(f"ordinal alpha {ours_alpha:.6f} (both; |difference| <= 1e-9); "
        f"{len(report['per_query']):,} queries, {adjudicate:,} documents to adjudicate")  # fmt: skip
    log()
    header = f"{'measurement':<64} | {'seconds':>8}"
    log(header)
    log("-" * len(header))
    rows_ = [
        ("1. krippendorff.alpha, ordinal (in process)", peer_s),
        ("1. our ordinal alpha, same matrix (in process)", ours_s),
        ("2. judge-app agreement --bootstrap 0 (whole process)", command_s),
        ("3. python + pandas read + pivot + krippendorff.alpha (process)", peer_process_s),
        ("   of which read and pivot / alpha, inside that process", None),
        ("   judge-app agreement with --bootstrap 1000 (whole process)", bootstrap_s),
    ]
    for name, seconds in rows_:
        if seconds is None:
            log(f"{name:<64} | {peer_result['load_s']:.2f} / {peer_result['alpha_s']:.2f}")
        else:
            log(f"{name:<64} | {seconds:>8.3f}")
    log()
    alpha_ratio = ours_s / peer_s
    process_ratio = command_s / peer_process_s
    bare_ratio = command_s / peer_s
    log(f"our ordinal alpha / krippendorff.alpha: {alpha_ratio:.3f} "
        f"({peer_s / ours_s:.0f}x faster); goal <= 1: {'met' if alpha_ratio <= 1 else 'not met'}")  # fmt: skip
    log(f"whole command / the package's whole process: {process_ratio:.2f}; "
        f"goal < 3: {'met' if process_ratio < 3 else 'not met'}")  # fmt: skip
    log(f"whole command / the bare in-process krippendorff.alpha call: {bare_ratio:.2f} "
        f"({'under' if bare_ratio < 3 else 'not under'} 3; the command also pays interpreter "
        "start, imports and reading the CSV)")  # fmt: skip
    log(f"bootstrap 1000 resamples adds {bootstrap_s - command_s:+.2f} s; interval {interval}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    in_workdir(args, "bench_agreement_", benchmark)


if __name__ == "__main__":
    main()
