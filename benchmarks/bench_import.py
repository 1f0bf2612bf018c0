"""Benchmark: import a judgments CSV into a new SQLite database, next to plain sqlite3.

Issue: "import 1,000,000 judgments (generated, seeded) from CSV into a new SQLite database,
next to a plain sqlite3 executemany of the same rows in one transaction; print both times and
the ratio. Goal: ratio <= 2."

    .venv/bin/python benchmarks/bench_import.py                 # 1,000,000 rows
    .venv/bin/python benchmarks/bench_import.py --rows 20000    # quick smoke test
    .venv/bin/python benchmarks/bench_import.py --profile       # + cProfile of our import

The campaign shape is queries x 50 pooled documents x 4 raters, with queries = rows // 200
(5,000 queries for the default). Each side runs in its own child process (this script run
with a hidden ``--child`` option), so its peak RSS is its own and neither side warms the
other's Python heap. Both sides write a new database file with ``journal_mode=WAL`` and
``synchronous=FULL``, and both are timed from before reading the CSV to after the commit.

What the two sides write is not the same amount of work: ``import_files`` reads the file a
chunk at a time, checks every row, maps ids to the query/document/rater tables, stages the
rows in a temporary table, looks there for keys repeated anywhere in the file, and writes them
to ``judgment`` (checking its foreign keys, maintaining its indexes); the peer holds every row
in memory and inserts them into one table with one UNIQUE index.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from common import in_workdir, log, max_rss_mib

DOCS_PER_QUERY = 50
RATERS = 4
COLLECTION = 100_000
GRADE_P = [0.35, 0.25, 0.18, 0.12, 0.07, 0.03]
NOTE_RATE = 0.02
NOTES = [
    "off topic",
    "duplicate of a higher result",
    "partially relevant, but outdated",
    "page behind a login wall",
    "broken link",
    "answers a different question",
    "good overview; lacks detail",
    "spam",
]
PEER_SCHEMA = (
    "CREATE TABLE judgment(query_id TEXT, doc_id TEXT, rater TEXT, grade INTEGER, note TEXT, "
    "UNIQUE(rater, query_id, doc_id))"
)


# --------------------------------------------------------------------------- data


def campaign_shape(rows: int) -> int:
    queries = rows // (DOCS_PER_QUERY * RATERS)
    if queries < 1:
        raise SystemExit(f"--rows must be at least {DOCS_PER_QUERY * RATERS}")
    return queries


def generate_csv(path: Path, rows: int, seed: int) -> int:
    """Write the judgments CSV; returns the number of rows written (queries * 200)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    queries = campaign_shape(rows)
    # Pooled documents: 50 distinct documents per query out of a shared collection.
    pools = np.empty((queries, DOCS_PER_QUERY), dtype=np.int64)
    for q in range(queries):
        pools[q] = rng.choice(COLLECTION, size=DOCS_PER_QUERY, replace=False)
    n = queries * DOCS_PER_QUERY * RATERS
    query_numbers = np.repeat(np.arange(1, queries + 1), DOCS_PER_QUERY * RATERS)
    doc_numbers = np.repeat(pools.ravel(), RATERS)
    rater_numbers = np.tile(np.arange(1, RATERS + 1), queries * DOCS_PER_QUERY)
    grades = rng.choice(len(GRADE_P), size=n, p=GRADE_P)
    has_note = rng.random(n) < NOTE_RATE
    note_choice = rng.integers(0, len(NOTES), size=n)
    notes = np.where(has_note, np.asarray(NOTES, dtype=object)[note_choice], "")

    query_labels = np.array([f"Q{i:05d}" for i in range(queries + 1)], dtype=object)
    doc_labels = np.array([f"D{i:06d}" for i in range(COLLECTION)], dtype=object)
    rater_labels = np.array([f"r{i}" for i in range(RATERS + 1)], dtype=object)
    frame = pd.DataFrame(
        {
            "query_id": query_labels[query_numbers],
            "doc_id": doc_labels[doc_numbers],
            "rater": rater_labels[rater_numbers],
            "grade": grades,
            "note": notes,
        }
    )
    frame.to_csv(path, index=False)
    return n


# --------------------------------------------------------------------------- children


def child_ours(csv_path: Path, db_path: Path, profile: bool) -> dict:
    from judge_app.store import open_database
    from judge_app.store.imports import import_files

    rss_before = max_rss_mib()
    t0 = time.perf_counter()
    database = open_database(db_path)
    t1 = time.perf_counter()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    summary = import_files(database, judgments=csv_path)
    if profiler is not None:
        profiler.disable()
    t2 = time.perf_counter()
    database.close()
    result = {
        "open_s": t1 - t0,
        "import_s": t2 - t1,
        "rss_before_mib": rss_before,
        "rss_peak_mib": max_rss_mib(),
        "summary": str(summary),
    }
    if profiler is not None:
        import io
        import pstats

        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative").print_stats(25)
        result["profile"] = out.getvalue()
    return result


def child_peer(csv_path: Path, db_path: Path) -> dict:
    rss_before = max_rss_mib()
    t0 = time.perf_counter()
    connection = sqlite3.connect(db_path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute(PEER_SCHEMA)
    t1 = time.perf_counter()
    with open(csv_path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader)  # header
        # The same typing ours ends with: grade an integer, an empty note NULL.
        rows = [(q, d, r, int(g), n or None) for q, d, r, g, n in reader]
    connection.execute("BEGIN")
    connection.executemany("INSERT INTO judgment VALUES (?, ?, ?, ?, ?)", rows)
    connection.execute("COMMIT")
    t2 = time.perf_counter()
    connection.close()
    return {
        "open_s": t1 - t0,
        "import_s": t2 - t1,
        "rss_before_mib": rss_before,
        "rss_peak_mib": max_rss_mib(),
    }


def run_child(side: str, csv_path: Path, db_path: Path, profile: bool = False) -> dict:
    """Run one side in a fresh interpreter; it prints its result as JSON on the last line."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side,
               "--csv", str(csv_path), "--db", str(db_path)]  # fmt: skip
    if profile:
        command.append("--profile")
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {side} child failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def count_rows(db_path: Path, table: str) -> int:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as connection:
        return connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def remove_database(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="judgments (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=7, help="numpy generator seed (default 7)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each side (best is kept)")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile our import (one more run) and print the top 25")  # fmt: skip
    parser.add_argument("--child", choices=["ours", "peer"], help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    csv_path = workdir / f"judgments_{args.rows}_{args.seed}.csv"
    t0 = time.perf_counter()
    n = generate_csv(csv_path, args.rows, args.seed)
    log(f"generated {csv_path.name}: {n:,} rows, {csv_path.stat().st_size / 2**20:.1f} MiB "
        f"in {time.perf_counter() - t0:.1f} s (not counted)")  # fmt: skip
    if n != args.rows:
        log(f"note: --rows {args.rows:,} is not a multiple of 200; using {n:,} rows")
    log(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, "
        f"workdir {workdir}, repeat {args.repeat}")  # fmt: skip

    ours_runs, peer_runs = [], []
    for index in range(args.repeat):
        for side, runs in (("ours", ours_runs), ("peer", peer_runs)):
            db_path = workdir / f"{side}_{index}.sqlite"
            remove_database(db_path)
            result = run_child(side, csv_path, db_path)
            result["rows"] = count_rows(db_path, "judgment")
            if side == "ours":
                result["events"] = count_rows(db_path, "judgment_event")
            result["db_mib"] = db_path.stat().st_size / 2**20
            if result["rows"] != n:
                raise SystemExit(f"{side}: judgment has {result['rows']:,} rows, expected {n:,}")
            runs.append(result)
            log(f"  run {index + 1} {side}: {result['import_s']:.2f} s "
                f"(setup {result['open_s']:.2f} s), peak RSS {result['rss_peak_mib']:.0f} MiB, "
                f"judgment rows {result['rows']:,} ok")  # fmt: skip
            remove_database(db_path)

    ours = min(ours_runs, key=lambda r: r["import_s"])
    peer = min(peer_runs, key=lambda r: r["import_s"])
    ratio = ours["import_s"] / peer["import_s"]
    log()
    log(f"our import: {ours['summary']}")
    log(f"our database also holds {ours['events']:,} judgment_event rows; "
        f"file {ours['db_mib']:.0f} MiB vs peer {peer['db_mib']:.0f} MiB")  # fmt: skip
    log()
    header = f"{'rows':>10} | {'ours s':>8} | {'sqlite3 executemany s':>21} | {'ratio':>6} | {'our peak RSS':>12}"
    log(header)
    log("-" * len(header))
    log(f"{n:>10,} | {ours['import_s']:>8.2f} | {peer['import_s']:>21.2f} | {ratio:>6.2f} | "
        f"{ours['rss_peak_mib']:>8.0f} MiB")  # fmt: skip
    log()
    log(f"open_database (new file, schema created): {ours['open_s']:.2f} s (not in 'ours')")
    log(f"RSS: ours {ours['rss_before_mib']:.0f} MiB before import -> {ours['rss_peak_mib']:.0f} "
        f"MiB peak; peer {peer['rss_before_mib']:.0f} -> {peer['rss_peak_mib']:.0f} MiB peak")  # fmt: skip
    log(f"ratio <= 2: {'met' if ratio <= 2 else 'not met'} (ratio {ratio:.2f})")

    if args.profile:
        db_path = workdir / "ours_profile.sqlite"
        remove_database(db_path)
        result = run_child("ours", csv_path, db_path, profile=True)
        remove_database(db_path)
        log()
        log(f"cProfile of our import ({result['import_s']:.2f} s under the profiler), "
            "top 25 by cumulative time:")  # fmt: skip
        log(result["profile"])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        if args.child == "ours":
            result = child_ours(args.csv, args.db, args.profile)
        else:
            result = child_peer(args.csv, args.db)
        print(json.dumps(result), flush=True)
        return
    in_workdir(args, "bench_import_", benchmark)


if __name__ == "__main__":
    main()
