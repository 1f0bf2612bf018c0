"""Benchmark: ``judge-app export --judgments`` and ``--qrels`` at 1,005,000 judgments on SQLite,
beside plain sqlite3 writing the same bytes.

Issue 16: "Exports stream in chunks with bounded memory and one writer"; goals: each export
within 1.2 x its peer's time, and the judgments export under 150 MiB peak RSS.

    .venv/bin/python benchmarks/bench_export.py                    # 1,005,000 judgments
    .venv/bin/python benchmarks/bench_export.py --queries 200      # quick smoke test

Data: the campaign of ``bench_evaluation.py`` (its ``generate``: 5,000 queries, 200,000
documents, 1,005,000 judgments by ana, ben and chloe), cached in ``--workdir`` (default
/tmp/bx) and reused when it is there.

Timed, each as a subprocess exactly as a user runs it (``python -m judge_app.cli export ...``:
the interpreter start and the imports are included), under bench_scale.py's wrapper, which
reads the peak RSS of that process alone (RUSAGE_CHILDREN). Rounds alternate ours and the
peer's, ``--repeat`` of them; the table shows medians (never the best) and the largest peak.

Peers, also subprocesses of the wrapper (this script's hidden ``--peer``), plain ``sqlite3``
and ``csv`` streaming the bytes ours writes (checked equal every round):
- judgments: one SELECT joining the names, ORDER BY the external ids (SQLite's BINARY
  collation is code-point order), each text cell made inert, rows written by csv.writer;
- qrels: one SELECT of AVG(grade) per pair, GROUP BY the pair and ORDER BY the external ids,
  written as ``qid 0 docid grade`` lines (the campaign holds no adjudicated grades, so the
  mean of the raters is all ``--aggregate mean`` does with it).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

from bench_evaluation import generate
from bench_scale import judge_app
from common import log, measured, prepared_database

GOALS = {"export --judgments": (1.2, 150.0), "export --qrels": (1.2, None)}
RISKY = ("=", "+", "-", "@", "\t", "\r", "'")
PEER_JUDGMENTS = """
SELECT q.external_id, q.text, d.external_id, d.title, r.name, j.grade, j.skipped, j.note,
       j.judged_at, j.duration_ms
FROM judgment j JOIN query q ON q.id = j.query_id JOIN document d ON d.id = j.document_id
JOIN rater r ON r.id = j.rater_id
ORDER BY q.external_id, d.external_id, r.name
"""
PEER_QRELS = """
SELECT q.external_id, d.external_id, avg(j.grade)
FROM judgment j JOIN query q ON q.id = j.query_id JOIN document d ON d.id = j.document_id
WHERE j.grade IS NOT NULL AND NOT j.skipped
GROUP BY j.query_id, j.document_id
ORDER BY q.external_id, d.external_id
"""
HEADER = [
    "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped", "note",
    "judged_at", "duration_ms",
]  # fmt: skip


def inert(cell: str | None) -> str | None:
    return "'" + cell if cell is not None and cell.startswith(RISKY) else cell


def grade_text(grade: float) -> str:
    return str(int(grade)) if grade.is_integer() else f"{grade:.6f}".rstrip("0").rstrip(".")


def peer_child(kind: str, db: str, out: str) -> None:
    """The peer (run as this script's hidden ``--peer``): writes ``out``, prints its rows."""
    connection = sqlite3.connect(db)
    count = 0
    if kind == "judgments":
        with open(out, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\r\n")
            writer.writerow(HEADER)
            for q, text, d, title, rater, grade, skipped, note, at, ms in connection.execute(
                PEER_JUDGMENTS
            ):
                writer.writerow(
                    (inert(q), inert(text), inert(d), inert(title), inert(rater), grade,
                     "true" if skipped else "false", inert(note), f"{at[:10]}T{at[11:]}Z", ms)
                )  # fmt: skip
                count += 1
    else:
        with open(out, "w", encoding="utf-8", newline="\n") as handle:
            for q, d, grade in connection.execute(PEER_QRELS):
                handle.write(f"{q} 0 {d} {grade_text(grade)}\n")
                count += 1
    connection.close()
    print(json.dumps({"rows": count}))


def peer(kind: str, db: Path, out: Path) -> dict:
    script = str(Path(__file__).resolve())
    return measured([sys.executable, script, "--peer", kind, str(db), str(out)])


def benchmark(args: argparse.Namespace) -> None:
    args.workdir.mkdir(parents=True, exist_ok=True)
    db = args.workdir / f"evaluation_{args.queries}_{args.seed}.sqlite"
    prepared_database(db, True, lambda path: generate(path, args.queries, args.seed))
    from judge_app.store import open_database

    open_database(db, create=False).close()  # a schema upgrade, if any, is not timed
    out = args.workdir / "bench_export_out"
    out.mkdir(exist_ok=True)
    with sqlite3.connect(db) as connection:
        judgments = connection.execute("SELECT count(*) FROM judgment").fetchone()[0]
    log(f"{judgments:,} judgments; SQLite file {db.stat().st_size / 2**20:.0f} MiB; "
        f"{args.repeat} alternating rounds")  # fmt: skip
    runs: dict[str, dict[str, list[dict]]] = {}
    loads = []
    for index in range(args.repeat):
        for kind in ("judgments", "qrels"):
            name = f"export --{kind}"
            ours_out, peer_out = out / f"ours.{kind}", out / f"peer.{kind}"
            sides = runs.setdefault(name, {"ours": [], "peer": []})
            loads.append(os.getloadavg()[0])
            first, second = ("ours", "peer") if index % 2 == 0 else ("peer", "ours")
            for side in (first, second):
                if side == "ours":
                    result = measured(judge_app("export", str(db), f"--{kind}", str(ours_out)))
                else:
                    result = peer(kind, db, peer_out)
                sides[side].append(result)
            if ours_out.read_bytes() != peer_out.read_bytes():
                raise SystemExit(f"{name}: the peer's bytes differ from ours")
            log(f"  round {index + 1}: {name}: ours {sides['ours'][-1]['seconds']:.2f} s, "
                f"peer {sides['peer'][-1]['seconds']:.2f} s (same bytes)")  # fmt: skip
    report(runs, loads)


def report(runs: dict[str, dict[str, list[dict]]], loads: list[float]) -> None:
    header = (
        f"{'measure':<30} | {'ours':>9} | {'peer':>9} | {'ratio':>6} | {'goal':>7} | {'met':>3}"
    )
    log()
    log(header)
    log("-" * len(header))
    for name, sides in runs.items():
        ours = statistics.median(result["seconds"] for result in sides["ours"])
        theirs = statistics.median(result["seconds"] for result in sides["peer"])
        time_goal, rss_goal = GOALS[name]
        ratio = ours / theirs
        log(f"{name + ', median s':<30} | {ours:>9.2f} | {theirs:>9.2f} | {ratio:>6.2f} | "
            f"{'<= ' + str(time_goal):>7} | {'yes' if ratio <= time_goal else 'NO':>3}")  # fmt: skip
        rss = max(result["rss_mib"] for result in sides["ours"])
        peer_rss = max(result["rss_mib"] for result in sides["peer"])
        met = "" if rss_goal is None else ("yes" if rss <= rss_goal else "NO")
        goal = "" if rss_goal is None else f"<= {rss_goal:.0f}"
        log(f"{name + ', peak RSS MiB':<30} | {rss:>9.0f} | {peer_rss:>9.0f} | "
            f"{rss / peer_rss:>6.2f} | {goal:>7} | {met:>3}")  # fmt: skip
    log()
    log(f"load average (1 min) at the rounds: {min(loads):.2f} to {max(loads):.2f} on "
        f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5_000,
                        help="queries of the generated campaign (default 5,000: 1,005,000 judgments)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7, help="of the data (default 7)")
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/bx"),
                        help="where the cached campaign and the outputs go (default /tmp/bx)")  # fmt: skip
    parser.add_argument("--peer", nargs=3, metavar=("KIND", "DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.queries < 2 or args.repeat < 1:
        parser.error("use at least 2 queries and 1 repeat")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.peer:
        peer_child(*args.peer)
        return
    start = time.perf_counter()
    benchmark(args)
    log(f"benchmark took {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
