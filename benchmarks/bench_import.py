"""Benchmark: `judge-app import DB --judgments file.csv` of a million judgments into a new SQLite
database, next to a plain sqlite3 executemany of the same rows into the same tables.

Issue 16: "import 1,000,000 judgments (generated, seeded) from CSV into a new SQLite database:
our `judge-app import` as a whole process against a peer process that executemany's the same
rows into the same tables and indexes; median of at least 5 alternating rounds, each side's
peak RSS; goal: ratio <= 1.2."

    .venv/bin/python benchmarks/bench_import.py                 # 1,000,000 rows, 5 rounds
    .venv/bin/python benchmarks/bench_import.py --rows 20000 --rounds 2   # quick smoke test
    .venv/bin/python benchmarks/bench_import.py --profile       # + cProfile of one import

The campaign shape is queries x 50 pooled documents x 4 raters, with queries = rows // 200
(5,000 queries for the default), 2% of the rows with a note.

Both sides are timed as whole processes, from the start of the interpreter to its exit, each
under a small wrapper that reads the side's peak RSS from RUSAGE_CHILDREN (neither this script's
memory nor the other side's counts); the rounds alternate which side goes first, and the median
of each side is reported (never the best). Ours is `python -m judge_app.cli import DB
--judgments FILE` (the console script's code), into a file that does not exist yet: it creates
the schema, reads the file a chunk at a time, checks every cell, creates the queries, documents
and raters it names, finds repeated keys and writes each judgment once. The peer (this script's
hidden ``--peer``) creates the same tables and indexes (the SQL of a database ``judge-app
init`` made, read before the rounds), sets the same pragmas (WAL, synchronous=FULL, foreign
keys), reads the CSV with the csv module, adds the queries, documents and raters with
executemany, maps names to ids with dicts and inserts every judgment with one executemany, in
one transaction. It checks nothing. Both databases are compared after the first round.
"""

from __future__ import annotations

import argparse
import csv
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from common import in_workdir, log, measured

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


# --------------------------------------------------------------------------- the two sides

PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON")
STARTUP = [sys.executable, "-c", "import judge_app.cli, judge_app.commands.importing"]


def ours(csv_path: Path, db_path: Path) -> list[str]:
    return [sys.executable, "-m", "judge_app.cli", "import", str(db_path),
            "--judgments", str(csv_path)]  # fmt: skip


def peer(csv_path: Path, db_path: Path, schema: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--peer",
            str(csv_path), str(db_path), str(schema)]  # fmt: skip


def peer_child(csv_path: Path, db_path: Path, schema: Path) -> None:
    """The plain sqlite3 import (run as this script's hidden ``--peer``)."""
    now = datetime.now(timezone.utc).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")
    connection = sqlite3.connect(db_path, isolation_level=None)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    connection.executescript(schema.read_text(encoding="utf-8"))
    with open(csv_path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader)  # header
        rows = list(reader)
    connection.execute("BEGIN")
    names = {}
    for table, key, extra, column in (
        ("query", "external_id", ", created_at", 0),
        ("document", "external_id", "", 1),
        ("rater", "name", ", created_at, active", 2),
    ):
        distinct = dict.fromkeys(row[column] for row in rows)
        values = ", ".join(["?"] * (1 + extra.count(",")))
        constants = {"": (), ", created_at": (now,), ", created_at, active": (now, 1)}[extra]
        connection.executemany(
            f'INSERT INTO "{table}" ({key}{extra}) VALUES ({values})',
            [(name, *constants) for name in distinct],
        )
        names[table] = dict(connection.execute(f'SELECT {key}, id FROM "{table}"'))
    query, document, rater = names["query"], names["document"], names["rater"]
    connection.executemany(
        "INSERT INTO judgment (rater_id, query_id, document_id, grade, skipped, note, judged_at) "
        f"VALUES (?, ?, ?, ?, 0, ?, '{now}')",
        [(rater[r], query[q], document[d], int(g), n or None) for q, d, r, g, n in rows],
    )
    connection.execute("COMMIT")
    connection.close()


def schema_sql(workdir: Path) -> Path:
    """The SQL of the tables and indexes of a database ``judge-app init`` made (not timed)."""
    template = workdir / "schema_template.sqlite"
    remove_database(template)
    subprocess.run([sys.executable, "-m", "judge_app.cli", "init", str(template)], check=True,
                   capture_output=True)  # fmt: skip
    with sqlite3.connect(template) as connection:
        statements = [sql for (sql,) in connection.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'alembic_version' "
            "ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid"
        )]  # fmt: skip
    remove_database(template)
    path = workdir / "schema.sql"
    path.write_text(";\n".join(statements) + ";\n", encoding="utf-8")
    return path


def judgments(db_path: Path) -> list[tuple]:
    """Every judgment by external ids: what both sides must have written."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as connection:
        return connection.execute(
            "SELECT q.external_id, d.external_id, r.name, j.grade, j.skipped, j.note "
            "FROM judgment j JOIN query q ON q.id = j.query_id "
            "JOIN document d ON d.id = j.document_id JOIN rater r ON r.id = j.rater_id "
            "ORDER BY 1, 2, 3"
        ).fetchall()


def remove_database(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="judgments (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=7, help="numpy generator seed (default 7)")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of both sides, alternating which goes first (median; default 5)")  # fmt: skip
    parser.add_argument("--profile", action="store_true",
                        help="also run our import once under cProfile and print its top 30")  # fmt: skip
    parser.add_argument("--peer", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    csv_path = workdir / f"judgments_{args.rows}_{args.seed}.csv"
    t0 = time.perf_counter()
    n = generate_csv(csv_path, args.rows, args.seed)
    log(f"generated {csv_path.name}: {n:,} rows, {csv_path.stat().st_size / 2**20:.1f} MiB "
        f"in {time.perf_counter() - t0:.1f} s (not counted)")  # fmt: skip
    if n != args.rows:
        log(f"note: --rows {args.rows:,} is not a multiple of 200; using {n:,} rows")
    schema = schema_sql(workdir)
    log(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, {os.cpu_count()} "
        f"CPUs, load average {os.getloadavg()[0]:.2f} at the start; {args.rounds} rounds")  # fmt: skip
    commands = {
        "ours": ours(csv_path, workdir / "ours.sqlite"),
        "peer": peer(csv_path, workdir / "peer.sqlite", schema),
    }
    runs: dict[str, list[dict]] = {"ours": [], "peer": []}
    for index in range(args.rounds):
        sides = ["ours", "peer"] if index % 2 == 0 else ["peer", "ours"]
        for side in sides:
            db_path = workdir / f"{side}.sqlite"
            remove_database(db_path)
            runs[side].append(measured(commands[side]))
        if index == 0:
            written = {side: judgments(workdir / f"{side}.sqlite") for side in runs}
            if len(written["ours"]) != n or written["ours"] != written["peer"]:
                raise SystemExit("the two sides wrote different judgments")
            log(f"both sides wrote the same {n:,} judgments; ours said: "
                f"{runs['ours'][0]['stdout'].strip()}")  # fmt: skip
        log(f"  round {index + 1} ({' first, '.join(sides)} second): "
            + ", ".join(f"{side} {runs[side][-1]['seconds']:.2f} s "
                        f"({runs[side][-1]['rss_mib']:.0f} MiB)" for side in runs)
            + f"; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    for side in runs:
        remove_database(workdir / f"{side}.sqlite")
    startup = statistics.median(measured(STARTUP)["seconds"] for _ in range(3))

    median = {side: statistics.median(run["seconds"] for run in runs[side]) for side in runs}
    peak = {side: max(run["rss_mib"] for run in runs[side]) for side in runs}
    ratio = median["ours"] / median["peer"]
    log()
    header = (f"{'rows':>10} | {'ours s':>7} | {'peer s':>7} | {'ratio':>5} | "
              f"{'ours peak RSS':>13} | {'peer peak RSS':>13}")  # fmt: skip
    log(header)
    log("-" * len(header))
    log(f"{n:>10,} | {median['ours']:>7.2f} | {median['peer']:>7.2f} | {ratio:>5.2f} | "
        f"{peak['ours']:>9.0f} MiB | {peak['peer']:>9.0f} MiB")  # fmt: skip
    log()
    log(f"medians of {args.rounds} rounds, whole processes; peak RSS the largest of the rounds")
    log(f"of ours, the interpreter start and the imports of our modules alone: {startup:.2f} s")
    log(f"ratio <= 1.2: {'met' if ratio <= 1.2 else 'not met'} (ratio {ratio:.2f}); "
        f"load average {os.getloadavg()[0]:.2f} at the end")  # fmt: skip

    if args.profile:
        db_path = workdir / "ours_profile.sqlite"
        remove_database(db_path)
        command = ours(csv_path, db_path)
        command[1:1] = ["-m", "cProfile", "-s", "cumulative"]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        remove_database(db_path)
        log()
        log("cProfile of our import, by cumulative time:")
        log("\n".join(done.stdout.splitlines()[:40]))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.peer:
        peer_child(*args.peer)
        return
    in_workdir(args, "bench_import_", benchmark)


if __name__ == "__main__":
    main()
