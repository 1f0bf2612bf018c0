"""Benchmark: ``judge-app eval`` of TREC files as a whole process, next to pytrec_eval.

Issue: "generates (seeded) 10,000 queries x 100 results with 30 graded judgments per query,
then times `judge-app eval --qrels ... --run-file ... --k 10 --format json` as a whole process
next to pytrec_eval parsing and evaluating the same files in one process (and ranx if you
like); prints both times, the ratio and peak memory; repeats at 5,000,000 rows to show growth.
Goal: our whole process <= 0.5 x pytrec_eval's at 1M rows, with identical means."

    .venv/bin/python benchmarks/bench_eval.py                       # 1,000,000 and 5,000,000 rows
    .venv/bin/python benchmarks/bench_eval.py --no-large            # 1,000,000 rows only
    .venv/bin/python benchmarks/bench_eval.py --rows 20000 --no-large   # quick smoke test
    .venv/bin/python benchmarks/bench_eval.py --profile             # + cProfile of ours in-process
    .venv/bin/python benchmarks/bench_eval.py --trec-eval-all --no-large --trec-eval PATH

Rows are lines of the run: rows // 100 queries (Q00000, ...) each retrieve 100 distinct
documents (D0000123, ...) of a collection of 1,000,000, with scores rounded to 2 decimals (so
some tie, and trec_eval's tie-break by document id matters). The qrels judge 30 documents per
query, about 20 of them retrieved and 10 not, grades 0-4 skewed to 0. Generation is not timed.

Each side is one whole process, timed from before ``subprocess.run`` to its end, so Python
start-up and imports are included:

* ours: ``python -m judge_app.cli eval --qrels Q --run-file R --k 10 --format json``, exactly;
  its JSON on stdout gives the mean ndcg@10 and the number of queries;
* pytrec_eval: ``python -c`` reading both files the usual way (lines split into dicts
  qid -> {doc: int(grade)} and qid -> {doc: float(score)}), evaluating ``ndcg_cut.10`` and
  printing the mean over queries;
* ranx (if importable; its numba cache is warmed on a small file first, not timed):
  ``Qrels.from_file``, ``Run.from_file`` and ``evaluate(qrels, run, "ndcg@10")``.

Peak RSS: every command is started under GNU ``/usr/bin/time -v`` (when present, which adds
about a millisecond of fork and exec), and its "Maximum resident set size" is the peak of the
Python process itself: that process is a fresh fork of ``time``, not of this script, so none of
the generated data is counted. Its user + system time is shown too (CPU s): on a busy machine
wall times wander more than CPU times do. Without ``/usr/bin/time`` the ``python -c`` children
report their own VmHWM and ours is shown as n/a.

Means: ``--format json`` carries full precision, so "identical means" asks that the JSON
mean equal the unrounded mean of the same judge_app functions run in-process (this script
with a hidden ``--child breakdown``), that it differ from pytrec_eval's by less than 1e-9 and
that both count the same queries. The breakdown times each step (imports, read qrels, read
run, evaluate, format json) to show where our time goes.

Rounds: each side runs once per round, in turn, for ``--repeat`` rounds (default 5); the
tables show each side's median run, never the best. ``ours table`` is the same command with
its default output, the table with t intervals (goal: at most 1.5 x the JSON run).
``--trec-eval PATH`` adds a trec_eval binary you built yourself (this script builds nothing).

``--trec-eval-all`` times ``judge-app trec-eval`` instead, alternating whole processes as
above, on a collection as trec_eval is typically run on: 10,000 queries x 100 results (at 1M
rows), 40 judged documents per query (``--judged``), grades 0-3. The headline is C trec_eval
(``--trec-eval PATH``): ``-m all_trec`` and ``-m ndcg_cut.10`` of ours against its, time and
peak RSS ratios taken round by round (goals: time <= 1, peak RSS <= 2), and the outputs
compared line by line. Beside them: pytrec_eval computing its all_trec (the same measures but
unj, rbp and rbp_resid, which its trec_eval 9.x lacks) and averaging them as trec_eval does,
and ``judge-app eval --k 10 --format json``. The summaries are compared: every mean both compute must agree to 1e-9 but
iprec_at_recall and 11pt_avg, whose recall levels trec_eval 10.0 rounds differently from 9.x
(shown apart); ours prints 4 decimals, so the figures compared are our in-process values.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from common import in_workdir, log, max_rss_mib

RESULTS = 100  # per query
JUDGED = 30  # per query
JUDGED_FROM_RUN = 20  # on average; the rest are not retrieved
COLLECTION = 1_000_000
GRADE_P = [0.6, 0.2, 0.1, 0.07, 0.03]  # grades 0..4
# --trec-eval-all: a collection as trec_eval is typically run on (TREC-style pools)
TREC_JUDGED = 40  # per query, two thirds of them retrieved on average
TREC_GRADE_P = [0.55, 0.25, 0.13, 0.07]  # grades 0..3
TAG = "bench"
GOAL_ROWS = 1_000_000
GOAL_RATIO = 0.5
TABLE_GOAL = 1.5  # the default table (with intervals) against JSON
TOLERANCE = 1e-9
TREC_EVAL_TIME_GOAL = 1.0  # judge-app trec-eval / C trec_eval (-O2), whole processes
TREC_EVAL_RSS_GOAL = 2.0
GNU_TIME = "/usr/bin/time"

# The usual pytrec_eval program: parse with plain Python, evaluate, average.
PEER_READ = r"""
import json, sys, time
t0 = time.perf_counter()
import pytrec_eval
t1 = time.perf_counter()
qrels = {}
with open(sys.argv[1]) as handle:
    for line in handle:
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
run = {}
with open(sys.argv[2]) as handle:
    for line in handle:
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
t2 = time.perf_counter()
"""
PEER_CODE = (
    PEER_READ
    + r"""
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
results = evaluator.evaluate(run)
t3 = time.perf_counter()
values = [measures["ndcg_cut_10"] for measures in results.values()]
peak = None
with open("/proc/self/status") as status:
    for line in status:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
print(json.dumps({"mean": sum(values) / len(values), "n_queries": len(values),
                  "phases": {"import": t1 - t0, "parse": t2 - t1, "evaluate": t3 - t2},
                  "vmhwm_mib": peak}))
"""
)

# pytrec_eval's all_trec, averaged as trec_eval averages: sums for counts, geometric means
PEER_ALL_CODE = (
    PEER_READ
    + r"""
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"})
results = evaluator.evaluate(run)
t3 = time.perf_counter()
names = sorted(next(iter(results.values())))
means = {
    name: pytrec_eval.compute_aggregated_measure(name, [q[name] for q in results.values()])
    for name in names if name not in ("runid", "relstring")
}
peak = None
with open("/proc/self/status") as status:
    for line in status:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
print(json.dumps({"means": means, "n_queries": len(results),
                  "phases": {"import": t1 - t0, "parse": t2 - t1, "evaluate": t3 - t2},
                  "vmhwm_mib": peak}))
"""
)

RANX_CODE = r"""
import json, sys, time
t0 = time.perf_counter()
from ranx import Qrels, Run, evaluate
t1 = time.perf_counter()
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
t2 = time.perf_counter()
mean = evaluate(qrels, run, "ndcg@10")
t3 = time.perf_counter()
peak = None
with open("/proc/self/status") as status:
    for line in status:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
print(json.dumps({"mean": float(mean), "n_queries": len(run.keys()),
                  "phases": {"import": t1 - t0, "parse": t2 - t1, "evaluate": t3 - t2},
                  "vmhwm_mib": peak}))
"""


# --------------------------------------------------------------------------- data


def generate(
    workdir: Path,
    rows: int,
    seed: int,
    judged_per_query: int = JUDGED,
    grade_p: list[float] = GRADE_P,
) -> tuple[Path, Path, int]:
    """Write ``run_<rows>.txt`` and ``qrels_<rows>.txt``; returns their paths and the queries.
    ``judged_per_query`` documents are judged per query, two thirds of them retrieved on
    average, with grades 0 … len(grade_p) - 1 drawn with those chances."""
    import numpy as np
    import pandas as pd

    queries = rows // RESULTS
    if queries < 1 or rows % RESULTS:
        raise SystemExit(f"--rows must be a positive multiple of {RESULTS}, not {rows:,}")
    rng = np.random.default_rng(seed)
    # 100 retrieved and judged_per_query more documents per query, distinct within the query
    docs = np.empty((queries, RESULTS + judged_per_query), dtype=np.int64)
    for q in range(queries):
        docs[q] = rng.choice(COLLECTION, size=RESULTS + judged_per_query, replace=False)
    retrieved, others = docs[:, :RESULTS], docs[:, RESULTS:]
    scores = np.round(rng.normal(10.0, 2.0, size=(queries, RESULTS)), 2)
    order = np.argsort(-scores, axis=1, kind="stable")  # rank order; ties as they come
    retrieved = np.take_along_axis(retrieved, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    # judged: from_run of the retrieved documents (two thirds) and the rest not retrieved
    from_run = rng.binomial(judged_per_query, JUDGED_FROM_RUN / JUDGED, size=queries)
    picks = np.argsort(rng.random((queries, RESULTS)), axis=1)[:, :judged_per_query]
    judged = np.where(
        np.arange(judged_per_query) < from_run[:, None],
        np.take_along_axis(retrieved, picks, axis=1),
        others,
    )
    grades = rng.choice(len(grade_p), size=(queries, judged_per_query), p=grade_p)

    width = max(5, len(str(queries - 1)))
    query_labels = np.array([f"Q{i:0{width}d}" for i in range(queries)], dtype=object)
    doc_labels = np.array([f"D{i:07d}" for i in range(COLLECTION)], dtype=object)
    run_path, qrels_path = workdir / f"run_{rows}.txt", workdir / f"qrels_{rows}.txt"
    pd.DataFrame(
        {
            "qid": np.repeat(query_labels, RESULTS),
            "q0": "Q0",
            "docid": doc_labels[retrieved.ravel()],
            "rank": np.tile(np.arange(1, RESULTS + 1), queries),
            "score": scores.ravel(),
            "tag": TAG,
        }
    ).to_csv(run_path, sep=" ", header=False, index=False, float_format="%.2f")
    pd.DataFrame(
        {
            "qid": np.repeat(query_labels, judged_per_query),
            "iteration": 0,
            "docid": doc_labels[judged.ravel()],
            "grade": grades.ravel(),
        }
    ).to_csv(qrels_path, sep=" ", header=False, index=False)
    return qrels_path, run_path, queries


# --------------------------------------------------------------------------- children


def child_breakdown(qrels_path: Path, run_path: Path, profile: bool) -> dict:
    """Our evaluation in-process, step by step (what ``judge-app eval`` does for files)."""
    t0 = time.perf_counter()
    import pyarrow.csv  # noqa: F401  (imported by the first read_*_file call)

    import judge_app.cli  # noqa: F401  (what the command imports before it starts)
    from judge_app.commands.evaluate import read_files
    from judge_app.evaluation import engine
    from judge_app.evaluation.campaign import Campaign
    from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
    from judge_app.metrics.codes import code_frames
    from judge_app.writers.evaluation import json_text

    t2 = time.perf_counter()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t3 = time.perf_counter()
    qrels, runs = read_files(qrels_path, [run_path])
    t4 = time.perf_counter()
    graded, results = code_frames(qrels, runs)
    campaign = Campaign(str(qrels_path), graded, results, {}, with_raters=False)
    t5 = time.perf_counter()
    result = engine.evaluate(EvaluationRequest(EvaluationOptions(ks=(10,))), campaign)
    [evaluation] = result.evaluations.values()
    t6 = time.perf_counter()
    text = json_text(result)
    t7 = time.perf_counter()
    if profiler is not None:
        profiler.disable()
    result = {
        "phases": {
            "imports (judge_app, numpy, pyarrow; not pandas)": t2 - t0,
            "read qrels and run": t4 - t3,
            "code ids": t5 - t4,
            "evaluate": t6 - t5,
            "format json": t7 - t6,
        },
        "mean": float(evaluation.means()["ndcg@10"]),
        "n_queries": evaluation.n_queries,
        "json_mib": len(text.encode()) / 2**20,
        "vmhwm_mib": max_rss_mib(),
    }
    if profiler is not None:
        import io
        import pstats

        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(20)
        result["profile"] = out.getvalue()
    return result


def child_trec_eval_means(qrels_path: Path, run_path: Path) -> dict:
    """Our all_trec summary at full precision, in-process (``judge-app trec-eval`` prints 4
    decimals): the values compared with pytrec_eval's."""
    from judge_app.trec_eval import compute, rank, read_qrels, read_results, selected, summary

    ranked = rank(read_qrels(qrels_path), read_results(run_path))
    specs = selected(["all_trec"])
    values = compute(ranked, specs)
    means = {}
    for spec in specs:
        names = spec.names if spec.measure.function is not None else []
        for name, value in zip(names, summary(ranked, spec, values)):
            means[name] = value
    return {"means": means, "n_queries": ranked.n}


def _env() -> dict:
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def timed(command: list[str], name: str) -> dict:
    """Run ``command`` as a whole process: wall time, stdout, and its CPU time (user + system)
    and peak RSS as GNU time saw them (None without it)."""
    use_time = os.access(GNU_TIME, os.X_OK)
    full = [GNU_TIME, "-v", *command] if use_time else command
    t0 = time.perf_counter()
    done = subprocess.run(full, capture_output=True, text=True, env=_env())
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-5000:] + done.stderr[-5000:])
        raise SystemExit(f"{name} failed (exit {done.returncode})")
    rss = cpu = None
    if use_time:
        cpu = 0.0
        for line in done.stderr.splitlines():
            name, _, value = line.strip().rpartition(": ")
            if name == "Maximum resident set size (kbytes)":
                rss = int(value) / 1024
            elif name in ("User time (seconds)", "System time (seconds)"):
                cpu += float(value)
    return {"wall_s": wall, "cpu_s": cpu, "stdout": done.stdout, "rss_mib": rss}


def python_start_up() -> float:
    """Wall time of ``python -c pass`` (best of 3): the floor of any whole process here."""
    return min(timed([sys.executable, "-c", "pass"], "python -c pass")["wall_s"] for _ in range(3))


def run_ours(qrels_path: Path, run_path: Path, table: bool = False) -> dict:
    """``judge-app eval`` of the files at NDCG@10: JSON, or (``table``) the default table
    with its t intervals."""
    command = [sys.executable, "-m", "judge_app.cli", "eval", "--qrels", str(qrels_path),
               "--run-file", str(run_path), "--k", "10"]  # fmt: skip
    result = timed(command + ([] if table else ["--format", "json"]), "judge-app eval")
    if table:
        result.pop("stdout")
        return result
    document = json.loads(result.pop("stdout"))
    (only,) = document["runs"]
    result["mean"] = only["mean"]["ndcg@10"]
    result["n_queries"] = only["n_queries"]
    return result


def run_code(code: str, qrels_path: Path, run_path: Path, name: str) -> dict:
    result = timed([sys.executable, "-c", code, str(qrels_path), str(run_path)], name)
    result.update(json.loads(result.pop("stdout").strip().splitlines()[-1]))
    if result["rss_mib"] is None:
        result["rss_mib"] = result["vmhwm_mib"]
    return result


def run_trec_eval(
    binary: Path, qrels_path: Path, run_path: Path, measure: str = "ndcg_cut.10"
) -> dict:
    """trec_eval itself (a binary the user built; this script never builds it); its output
    as ``text``."""
    command = [str(binary), "-m", measure, str(qrels_path), str(run_path)]
    result = timed(command, f"trec_eval -m {measure}")
    result["text"] = result.pop("stdout")
    return result


def run_trec_eval_command(qrels_path: Path, run_path: Path, measure: str) -> dict:
    """``judge-app trec-eval -m MEASURE Q R``; its summary lines as {name: value}."""
    command = [sys.executable, "-m", "judge_app.cli", "trec-eval", "-m", measure,
               str(qrels_path), str(run_path)]  # fmt: skip
    result = timed(command, f"judge-app trec-eval -m {measure}")
    result["text"] = result.pop("stdout")
    lines = [line.split("\t") for line in result["text"].splitlines()]
    result["printed"] = {name.strip(): value for name, _, value in lines}
    return result


def run_breakdown(qrels_path: Path, run_path: Path, profile: bool = False) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "breakdown",
               "--qrels", str(qrels_path), "--run", str(run_path)]  # fmt: skip
    if profile:
        command.append("--profile")
    result = timed(command, "the breakdown child")
    result.update(json.loads(result.pop("stdout").strip().splitlines()[-1]))
    return result


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=GOAL_ROWS,
                        help="run lines, 100 per query (default 1,000,000)")  # fmt: skip
    parser.add_argument("--also", type=int, default=5_000_000,
                        help="a second, larger size to show growth (default 5,000,000)")  # fmt: skip
    parser.add_argument("--no-large", action="store_true", help="skip the --also size")
    parser.add_argument("--seed", type=int, default=7, help="numpy generator seed (default 7)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="alternating rounds; each side's median is shown (default 5)")  # fmt: skip
    parser.add_argument("--trec-eval", type=Path,
                        help="a trec_eval binary to time beside the others (not built here)")  # fmt: skip
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out even if installed")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile ours in-process (one more run) and print the top 20 by tottime")  # fmt: skip
    parser.add_argument("--trec-eval-all", action="store_true",
                        help="time judge-app trec-eval (-m all_trec beside pytrec_eval, -m "
                        "ndcg_cut.10 beside judge-app eval) instead")  # fmt: skip
    parser.add_argument("--judged", type=int,
                        help=f"judged documents per query (default {JUDGED}; with --trec-eval-all "
                        f"{TREC_JUDGED}, grades 0-{len(TREC_GRADE_P) - 1})")  # fmt: skip
    parser.add_argument("--child", choices=["breakdown", "trec-eval"], help=argparse.SUPPRESS)
    parser.add_argument("--qrels", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} MiB"


def _s(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _ranx_ready(workdir: Path, seed: int) -> bool:
    """ranx importable and its numba cache warm (a small evaluation, not timed)."""
    if importlib.util.find_spec("ranx") is None:
        log("note: ranx is not importable here; it is left out (pip install ranx to add it)")
        return False
    warm = workdir / "warm"
    warm.mkdir(exist_ok=True)
    qrels_path, run_path, _ = generate(warm, 1_000, seed)
    try:
        run_code(RANX_CODE, qrels_path, run_path, "ranx (warm-up)")
    except SystemExit as error:
        log(f"note: ranx is installed but failed ({error}); it is left out")
        return False
    return True


def measure(args: argparse.Namespace, workdir: Path, rows: int, ranx: bool) -> dict:
    """Every side, alternating, ``--repeat`` rounds; each side's median run (by wall time)."""
    t0 = time.perf_counter()
    qrels_path, run_path, queries = generate(workdir, rows, args.seed, args.judged or JUDGED)
    log(f"generated {rows:,} rows ({queries:,} queries): {run_path.name} "
        f"{run_path.stat().st_size / 2**20:.0f} MiB, {qrels_path.name} "
        f"{qrels_path.stat().st_size / 2**20:.0f} MiB in {time.perf_counter() - t0:.1f} s "
        "(not counted)")  # fmt: skip
    sides: dict[str, Callable[[], dict]] = {
        "ours": lambda: run_ours(qrels_path, run_path),
        "ours table": lambda: run_ours(qrels_path, run_path, table=True),
        "pytrec_eval": lambda: run_code(PEER_CODE, qrels_path, run_path, "pytrec_eval"),
    }
    if args.trec_eval:
        sides["trec_eval"] = lambda: run_trec_eval(args.trec_eval, qrels_path, run_path)
    if ranx:
        sides["ranx"] = lambda: run_code(RANX_CODE, qrels_path, run_path, "ranx")
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    breakdowns = []
    for index in range(args.repeat):
        for side, run in sides.items():
            result = run()
            runs[side].append(result)
            mean = (
                ""
                if "mean" not in result
                else (f", mean ndcg@10 {result['mean']:.6f} over {result['n_queries']:,} queries")
            )
            log(f"  round {index + 1} {side:<11}: {result['wall_s']:6.2f} s (CPU "
                f"{_s(result['cpu_s'])}), peak RSS {_mib(result['rss_mib'])}{mean}")  # fmt: skip
        breakdowns.append(run_breakdown(qrels_path, run_path))
    median = {side: _median_run(results) for side, results in runs.items()}
    median["breakdown"] = _median_run(breakdowns, lambda r: sum(r["phases"].values()))
    if args.profile:
        median["profile"] = run_breakdown(qrels_path, run_path, profile=True)
    for path in (qrels_path, run_path):
        path.unlink()
    median["rows"], median["queries"] = rows, queries
    return median


def _median_run(results: list[dict], key: Callable[[dict], float] = lambda r: r["wall_s"]) -> dict:
    """The run whose ``key`` is the median (the upper one of an even number), with the median
    peak RSS of all the runs."""
    ordered = sorted(results, key=key)
    chosen = dict(ordered[len(ordered) // 2])
    peaks = [r["rss_mib"] for r in results if r.get("rss_mib") is not None]
    chosen["rss_mib"] = statistics.median(peaks) if peaks else None
    return chosen


def report(results: list[dict], sides: list[str], start_up: float, repeat: int) -> bool:
    """Print the tables and the goal lines; returns whether the main goal is met."""
    log()
    log(f"median of {repeat} alternating rounds, each side a whole process (wall s, CPU s, "
        "peak RSS)")  # fmt: skip
    header = f"{'rows':>10} | {'queries':>7} | " + " | ".join(f"{side:>22}" for side in sides)
    log(header)
    log("-" * len(header))
    for r in results:
        cells = [
            f"{r[side]['wall_s']:5.2f} s {_s(r[side]['cpu_s']):>5} {_mib(r[side]['rss_mib']):>8}"
            for side in sides
        ]
        log(f"{r['rows']:>10,} | {r['queries']:>7,} | " + " | ".join(f"{c:>22}" for c in cells))

    log()
    log("mean ndcg@10 (ours exact: the same functions in-process; ours JSON: as printed)")
    header = (f"{'rows':>10} | {'ours JSON':>18} | {'ours exact':>18} | {'pytrec_eval':>18} | "
              f"{'|difference|':>12} | {'queries':>17} | identical means")  # fmt: skip
    log(header)
    log("-" * len(header))
    for r in results:
        ours, peer, exact = r["ours"], r["pytrec_eval"], r["breakdown"]
        difference = abs(exact["mean"] - peer["mean"])
        same_n = ours["n_queries"] == peer["n_queries"] == exact["n_queries"]
        json_ok = abs(ours["mean"] - exact["mean"]) == 0.0
        r["identical"] = difference < TOLERANCE and same_n and json_ok
        counts = f"{ours['n_queries']:,}" + ("" if same_n else f" vs {peer['n_queries']:,}")
        log(f"{r['rows']:>10,} | {ours['mean']:>18.15f} | {exact['mean']:>18.15f} | "
            f"{peer['mean']:>18.15f} | {difference:>12.1e} | {counts:>17} | "
            f"{'yes' if r['identical'] else 'no'}")  # fmt: skip

    for r in results:
        b = r["breakdown"]
        phases = b["phases"]
        inside = sum(phases.values())
        ours = r["ours"]["wall_s"]
        log()
        log(f"where our time goes at {r['rows']:,} rows (in-process, a separate run; "
            "share of the in-process sum):")  # fmt: skip
        for phase, seconds in phases.items():
            log(f"  {phase:<48} {seconds:6.2f} s  {100 * seconds / inside:4.0f}%")
        log(f"  {'in-process sum':<48} {inside:6.2f} s")
        log(f"  whole process {ours:.2f} s − in-process sum = {ours - inside:.2f} s: interpreter "
            "start-up, argparse, output, exit, and run-to-run noise")  # fmt: skip
        log(f"  JSON output {b['json_mib']:.1f} MiB; in-process peak RSS {_mib(b['vmhwm_mib'])}; "
            f"python -c pass takes {start_up:.2f} s")  # fmt: skip
        for side in ("pytrec_eval", "ranx"):
            if side in r:
                p = r[side]["phases"]
                log(f"  {side}: import {p['import']:.2f} s, parse {p['parse']:.2f} s, "
                    f"evaluate {p['evaluate']:.2f} s")  # fmt: skip

    if "ranx" in sides:
        log()
        log("note: ranx orders equal scores its own way, not by document id descending as "
            "trec_eval does, so its mean may differ a little where ties straddle the cut-off")  # fmt: skip
    log()
    goal = next((r for r in results if r["rows"] == GOAL_ROWS), None)
    if goal is None:
        goal, where = results[0], f"{results[0]['rows']:,} rows (the goals are set at 1M)"
    else:
        where = "1M rows"
    ratio = goal["ours"]["wall_s"] / goal["pytrec_eval"]["wall_s"]
    met = ratio <= GOAL_RATIO and goal["identical"]
    log(f"ours (JSON) / pytrec_eval <= {GOAL_RATIO} at {where}: {'met' if met else 'not met'} "
        f"(ratio {ratio:.2f}, identical means: {'yes' if goal['identical'] else 'no'})")  # fmt: skip
    if "trec_eval" in goal:
        log(
            f"ours (JSON) / trec_eval at {where}: "
            f"{ratio * goal['pytrec_eval']['wall_s'] / goal['trec_eval']['wall_s']:.2f}"
        )
    table = goal["ours table"]["wall_s"] / goal["ours"]["wall_s"]
    log(f"ours, default table with intervals / ours JSON <= {TABLE_GOAL} at {where}: "
        f"{'met' if table <= TABLE_GOAL else 'not met'} (ratio {table:.2f})")  # fmt: skip
    for r in results:
        if "profile" in r:
            log()
            log(f"cProfile of ours in-process at {r['rows']:,} rows (read qrels, read run, "
                "evaluate, format json), top 20 by tottime:")  # fmt: skip
            log(r["profile"]["profile"])
    return met


def measure_trec_eval(args: argparse.Namespace, workdir: Path, rows: int) -> dict:
    """``judge-app trec-eval``'s sides (and C trec_eval's, with ``--trec-eval``), alternating,
    ``--repeat`` rounds; each side's median."""
    judged = args.judged or TREC_JUDGED
    qrels_path, run_path, queries = generate(workdir, rows, args.seed, judged, TREC_GRADE_P)
    log(f"generated {rows:,} rows ({queries:,} queries, {judged} judged documents per query, "
        f"grades 0-{len(TREC_GRADE_P) - 1}), not counted")  # fmt: skip
    sides: dict[str, Callable[[], dict]] = {}
    for measure in ("all_trec", "ndcg_cut.10"):
        if args.trec_eval:
            sides[f"C trec_eval {measure}"] = partial(
                run_trec_eval, args.trec_eval, qrels_path, run_path, measure
            )
        sides[f"trec-eval {measure}"] = partial(
            run_trec_eval_command, qrels_path, run_path, measure
        )
    sides["pytrec_eval all_trec"] = partial(
        run_code, PEER_ALL_CODE, qrels_path, run_path, "pytrec_eval all_trec"
    )
    sides["eval json"] = partial(run_ours, qrels_path, run_path)
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for index in range(args.repeat):
        for side, run in sides.items():
            result = run()
            runs[side].append(result)
            log(f"  round {index + 1} {side:<24}: {result['wall_s']:6.2f} s (CPU "
                f"{_s(result['cpu_s'])}), peak RSS {_mib(result['rss_mib'])}")  # fmt: skip
    median = {side: _median_run(results) for side, results in runs.items()}
    median["ratios"] = {
        measure: _paired_ratios(runs[f"trec-eval {measure}"], runs[f"C trec_eval {measure}"])
        for measure in ("all_trec", "ndcg_cut.10")
        if args.trec_eval
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "trec-eval",
               "--qrels", str(qrels_path), "--run", str(run_path)]  # fmt: skip
    median["exact"] = json.loads(timed(command, "the means child")["stdout"].splitlines()[-1])
    for path in (qrels_path, run_path):
        path.unlink()
    median["rows"], median["queries"] = rows, queries
    return median


def _paired_ratios(ours: list[dict], theirs: list[dict]) -> dict[str, float]:
    """The median over rounds of ours / theirs, wall time and peak RSS, each round's pair run
    back to back (so a busy spell of the machine weighs on both)."""
    walls = [a["wall_s"] / b["wall_s"] for a, b in zip(ours, theirs)]
    peaks = [
        a["rss_mib"] / b["rss_mib"] for a, b in zip(ours, theirs) if a["rss_mib"] and b["rss_mib"]
    ]
    return {
        "wall": statistics.median(walls),
        "rss": statistics.median(peaks) if peaks else float("nan"),
    }


def _differing_lines(ours: str, theirs: str) -> list[str]:
    """The names of the summary lines whose text differs between two trec_eval outputs."""
    mine = {line.split("\t")[0].strip(): line for line in ours.splitlines()}
    other = {line.split("\t")[0].strip(): line for line in theirs.splitlines()}
    return sorted(name for name in mine.keys() | other.keys() if mine.get(name) != other.get(name))


def report_trec_eval(results: list[dict], repeat: int) -> None:
    """The times and peaks (ours against C trec_eval first), and our summaries against C
    trec_eval's output, pytrec_eval's and eval's."""
    log()
    log(f"median of {repeat} alternating rounds, each side a whole process (wall s, CPU s, "
        "peak RSS)")  # fmt: skip
    for r in results:
        log(f"{r['rows']:,} rows, {r['queries']:,} queries:")
        sides = [
            side for side in r if side.startswith(("C trec_eval", "trec-eval", "pytrec", "eval"))
        ]
        for side in sides:
            m = r[side]
            log(f"  {side:<24} {m['wall_s']:6.2f} s  CPU {_s(m['cpu_s']):>7}  "
                f"peak RSS {_mib(m['rss_mib']):>9}")  # fmt: skip
        for measure, ratio in r["ratios"].items():
            ours, theirs = r[f"trec-eval {measure}"], r[f"C trec_eval {measure}"]
            met = ratio["wall"] <= TREC_EVAL_TIME_GOAL and ratio["rss"] <= TREC_EVAL_RSS_GOAL
            log(f"  ours / C trec_eval -m {measure}: time {ratio['wall']:.2f} (goal <= "
                f"{TREC_EVAL_TIME_GOAL}), peak RSS {ratio['rss']:.2f} (goal <= "
                f"{TREC_EVAL_RSS_GOAL}): {'met' if met else 'not met'}")  # fmt: skip
            differ = _differing_lines(ours["text"], theirs["text"])
            log(f"    output beside C trec_eval's: "
                f"{'identical' if not differ else 'lines differ: ' + ', '.join(differ)}")  # fmt: skip
            if "rbp" in differ:
                log("    (rbp: trec_eval's m_rbp.c reads uninitialised min/max gains, so an -O2 "
                    "build's rbp varies; an -O0 build agrees with ours)")  # fmt: skip
        peer = r["pytrec_eval all_trec"]
        log(f"  trec-eval -m all_trec / pytrec_eval all_trec: time "
            f"{r['trec-eval all_trec']['wall_s'] / peer['wall_s']:.2f}, peak RSS "
            f"{r['trec-eval all_trec']['rss_mib'] / peer['rss_mib']:.2f}")  # fmt: skip
        ours, means = r["exact"]["means"], peer["means"]
        both = sorted(set(ours) & set(means))
        rounded = [n for n in both if n.startswith(("iprec_at_recall", "11pt_avg"))]
        same = [n for n in both if n not in rounded]
        worst = max(same, key=lambda n: abs(ours[n] - means[n]))
        difference = abs(ours[worst] - means[worst])
        log(f"  all_trec means beside pytrec_eval: {len(same)} values, largest |difference| "
            f"{difference:.1e} ({worst}): {'identical' if difference < TOLERANCE else 'DIFFERENT'}"
            f"; queries {r['exact']['n_queries']:,} vs {peer['n_queries']:,}")  # fmt: skip
        apart = max(abs(ours[n] - means[n]) for n in rounded)
        log(f"  iprec_at_recall and 11pt_avg (recall levels rounded as 10.0 rounds them, "
            f"9.x otherwise): largest |difference| {apart:.1e}")  # fmt: skip
        log(f"  ours only (not in trec_eval 9.x): {', '.join(sorted(set(ours) - set(means)))}")
        fast, slow = r["trec-eval ndcg_cut.10"], r["eval json"]
        log(f"  trec-eval -m ndcg_cut.10 / eval --format json: "
            f"{fast['wall_s'] / slow['wall_s']:.2f}; ndcg_cut_10 printed "
            f"{fast['printed']['ndcg_cut_10']}, eval's mean {slow['mean']:.6f}")  # fmt: skip


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    import numpy as np
    import pandas as pd
    import pytrec_eval  # noqa: F401  (fail early, before generating anything)

    sizes = [args.rows]
    if not args.no_large and args.also != args.rows:
        sizes.append(args.also)
    log(f"python {sys.version.split()[0]}, numpy {np.__version__}, pandas {pd.__version__}, "
        f"{os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.2f}), workdir {workdir}, "
        f"seed {args.seed}, repeat {args.repeat}")  # fmt: skip
    if not os.access(GNU_TIME, os.X_OK):
        log(f"note: no {GNU_TIME}: peak RSS of ours is n/a, the others report their VmHWM")
    if args.trec_eval_all:
        report_trec_eval([measure_trec_eval(args, workdir, rows) for rows in sizes], args.repeat)
        return
    ranx = not args.no_ranx and _ranx_ready(workdir, args.seed)
    start_up = python_start_up()
    results = [measure(args, workdir, rows, ranx) for rows in sizes]
    sides = ["ours", "ours table", "pytrec_eval"]
    sides += [side for side in ("trec_eval", "ranx") if side in results[0]]
    report(results, sides, start_up, args.repeat)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child == "trec-eval":
        print(json.dumps(child_trec_eval_means(args.qrels, args.run)), flush=True)
        return
    if args.child:
        print(json.dumps(child_breakdown(args.qrels, args.run, args.profile)), flush=True)
        return
    in_workdir(args, "bench_eval_", benchmark)


if __name__ == "__main__":
    main()
