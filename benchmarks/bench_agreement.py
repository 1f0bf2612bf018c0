"""Benchmark: ``judge-app agreement --judgments`` next to the krippendorff package, each a whole
process on the same judgments CSV.

Issue 16: "`agreement --judgments file.csv` 100k units x 3 raters" next to a krippendorff
package script (Python start, read the CSV with pandas, pivot, ``krippendorff.alpha``
ordinal, print); goal: our whole command no slower (ratio <= 1.0), though it computes every
statistic, per rater, per query and the adjudication lists.

    .venv/bin/python benchmarks/bench_agreement.py                 # 100,000 units
    .venv/bin/python benchmarks/bench_agreement.py --units 10000   # quick smoke test

Data (seeded): units are 100 documents per query; each unit has a true grade (mostly 0) and
each of 3 raters grades it within one of that grade; each grade is missing with probability
0.1 (a unit keeps at least one grade). Written as a judgments CSV.

Measurements, medians of ``--repeat`` rounds (at least 5; never the best run):
1. the whole command as a user runs it: ``judge-app agreement --judgments FILE --bootstrap 0
   --format json`` (interpreter start, imports, reading and checking the CSV, every
   statistic, JSON out), and the package's script, run alternately in each round so both
   see the same load; each under a small wrapper that reports its wall time and peak RSS
   (RUSAGE_CHILDREN: the command's own memory, not this script's).
2. in this process, on the same raters x units matrix: our ordinal alpha (grade counts,
   coincidences, alpha) next to ``krippendorff.alpha``; the values must agree to 1e-9.
3. the command with the default 1,000 bootstrap resamples, for what the interval costs.
The load average is printed with the results: the ratio of alternating runs is what counts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import in_workdir, log, measured

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


def median_time(function, argument, repeat: int) -> tuple[float, object]:
    """Median seconds of ``repeat`` calls, and the last value."""
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = function(argument)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), value


def run_process(command: list[str]) -> tuple[float, str]:
    """Wall time of a whole process and its stdout (not timed by the medians)."""
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


def peer_command(csv_path: Path) -> list[str]:
    return [sys.executable, "-c", PEER_SCRIPT, str(csv_path)]


def alternating(commands: dict[str, list[str]], repeat: int) -> dict[str, dict]:
    """Each command once per round, in turn; median seconds, largest peak RSS (MiB) and the
    last run's output of each."""
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    for index in range(repeat):
        for name, command in commands.items():
            runs[name].append(measured(command))
        log(f"  round {index + 1} of {repeat}: " + ", ".join(
            f"{name} {results[-1]['seconds']:.2f} s" for name, results in runs.items()
        ) + f"; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    return {
        name: {
            "seconds": statistics.median(result["seconds"] for result in results),
            "rss_mib": max(result["rss_mib"] for result in results),
            "stdout": results[-1]["stdout"],
        }
        for name, results in runs.items()
    }


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=100_000, help="units (default 100,000)")
    parser.add_argument("--seed", type=int, default=7, help="numpy generator seed (default 7)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=7,
                        help="alternating rounds, the median is kept (default 7, at least 5)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.repeat < 5 or args.units < 2:
        parser.error("--repeat must be at least 5 and --units at least 2")
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
        f"{os.cpu_count()} CPUs, {args.repeat} alternating rounds (medians)")  # fmt: skip

    _, out = run_process(our_command(csv_path, 0))  # checked once, outside the timing
    report = json.loads(out)
    if report["n_units"] != args.units or report["n_raters"] != RATERS:
        raise SystemExit(f"the command saw {report['n_units']} units, {report['n_raters']} raters")
    load_before = os.getloadavg()[0]
    timed = alternating(
        {"ours": our_command(csv_path, 0), "krippendorff": peer_command(csv_path)}, args.repeat
    )
    load_after = os.getloadavg()[0]
    peer_result = json.loads(timed["krippendorff"]["stdout"])
    if abs(report["krippendorff_alpha"]["ordinal"] - peer_result["alpha"]) > 1e-9:
        raise SystemExit("the command's ordinal alpha differs from the package's")

    data = reliability_data(csv_path)
    peer_s, peer_alpha = median_time(
        lambda d: krippendorff.alpha(reliability_data=d, level_of_measurement="ordinal"),
        data,
        args.repeat,
    )
    ours_s, ours_alpha = median_time(our_ordinal_alpha, data, args.repeat)
    if abs(ours_alpha - peer_alpha) > 1e-9:
        raise SystemExit(f"ordinal alpha differs: ours {ours_alpha!r}, package {peer_alpha!r}")
    bootstrap_s, bootstrapped = run_process(our_command(csv_path, 1000))
    interval = json.loads(bootstrapped)["krippendorff_alpha_ci"]["ordinal"]

    adjudicate = sum(len(query["adjudicate"]) for query in report["per_query"])
    log()
    log(f"ordinal alpha {ours_alpha:.6f} (ours and the package's; |difference| <= 1e-9); "
        f"{len(report['per_query']):,} queries, {adjudicate:,} documents to adjudicate")  # fmt: skip
    log()
    header = f"{'measurement (medians)':<64} | {'seconds':>8} | {'peak RSS':>9}"
    log(header)
    log("-" * len(header))
    ours, peer = timed["ours"], timed["krippendorff"]
    for name, seconds, rss in (
        ("1. judge-app agreement --bootstrap 0 (whole process)", ours["seconds"], ours["rss_mib"]),
        ("1. python + pandas read + pivot + krippendorff.alpha (process)", peer["seconds"],
         peer["rss_mib"]),
        ("2. krippendorff.alpha, ordinal (in process)", peer_s, None),
        ("2. our ordinal alpha, same matrix (in process)", ours_s, None),
        ("3. judge-app agreement --bootstrap 1000 (whole process, once)", bootstrap_s, None),
    ):  # fmt: skip
        memory = f"{rss:>5.0f} MiB" if rss is not None else ""
        log(f"{name:<64} | {seconds:>8.3f} | {memory:>9}")
    log(f"   inside the package's process: read and pivot {peer_result['load_s']:.2f} s, "
        f"alpha {peer_result['alpha_s']:.2f} s")  # fmt: skip
    log()
    ratio = ours["seconds"] / peer["seconds"]
    log(f"whole command / the package's whole process: {ratio:.2f}; goal <= 1.0: "
        f"{'met' if ratio <= 1.0 else 'not met'} (load average {load_before:.2f} before, "
        f"{load_after:.2f} after)")  # fmt: skip
    log(f"peak RSS: ours {ours['rss_mib']:.0f} MiB, the package's {peer['rss_mib']:.0f} MiB")
    log(f"our ordinal alpha / krippendorff.alpha in process: {ours_s / peer_s:.3f}")
    log(f"bootstrap 1000 resamples adds {bootstrap_s - ours['seconds']:+.2f} s; "
        f"interval {interval}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    in_workdir(args, "bench_agreement_", benchmark)


if __name__ == "__main__":
    main()
