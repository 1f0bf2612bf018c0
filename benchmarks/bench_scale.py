"""Benchmark: the lead's commands at 1,000,000 judgments, on SQLite and on PostgreSQL.

Issue 7: "time judge-app eval --db, agreement --db, export and report at 1,000,000 judgments on
SQLite and on PostgreSQL, next to a plain read of the same rows with the database's own client
library."

    .venv/bin/python benchmarks/bench_scale.py                      # SQLite and PostgreSQL
    .venv/bin/python benchmarks/bench_scale.py --skip-postgres --repeat 1
    .venv/bin/python benchmarks/bench_scale.py --queries 200        # quick smoke test

Data: the campaign of ``bench_evaluation.py`` (its ``generate``; 5,000 queries, two runs of 10
results each = 100,000 results, 1,005,000 judgments by ana, ben and chloe), cached in
``--workdir`` (default /tmp/be, shared with bench_evaluation.py) and reused when it is there.
For PostgreSQL a fresh database ``bench_scale`` is made on ``--server`` with ``judge-app init``
and every table is copied into it with psycopg's COPY, then ANALYZEd (not timed); it is dropped
at the end unless ``--keep``.

Timed, each as a subprocess exactly as a user runs it (``python -m judge_app.cli ...``, so an
interpreter start and the imports are included; the script prints what those take alone), the
median of ``--repeat`` runs: ``eval --db`` (NDCG@10 table with bootstrap intervals),
``agreement --db`` (the default 1,000 bootstrap resamples), ``export --judgments``,
``export --qrels`` (mean of the raters), ``report --out x.html`` and ``raters`` (every rater's
quality figures; issue 18). Each runs under a small wrapper that times it and reads its
peak RSS from RUSAGE_CHILDREN, so neither this script's memory nor another command's counts.

Peer, also a subprocess of the same wrapper: the database's own client library (``sqlite3``;
a psycopg cursor) reading the rows these commands start from, with their external ids: every
graded judgment (query, document, rater, grade) and every result (run, query, document, rank),
with ``fetchall``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_evaluation import PEER_JUDGMENTS, PEER_RESULTS, generate
from common import log, measured, prepared_database

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PG_DATABASE = "bench_scale"
STARTUP = [  # what every timed command pays before it reads a row
    sys.executable,
    "-c",
    "import judge_app.cli, judge_app.commands.evaluate, judge_app.commands.agree, "
    "judge_app.commands.report, judge_app.store, judge_app.io.exports",
]


def operations(db: str, out: Path) -> list[tuple[str, list[str]]]:
    """The commands timed: (name, judge-app arguments)."""
    return [
        ("eval --db", ["eval", "--db", db]),
        ("agreement --db", ["agreement", "--db", db]),
        ("agreement --bootstrap 0", ["agreement", "--db", db, "--bootstrap", "0"]),
        ("export --judgments", ["export", db, "--judgments", str(out / "judgments.csv")]),
        ("export --qrels", ["export", db, "--qrels", str(out / "campaign.qrels")]),
        ("report --out x.html", ["report", db, "--out", str(out / "report.html")]),
        ("raters", ["raters", db]),
    ]


def judge_app(*args: str) -> list[str]:
    return [sys.executable, "-m", "judge_app.cli", *args]


# --------------------------------------------------------------------------- peers


def peer_child(backend: str, target: str) -> None:
    """The plain read (run as this script's hidden ``--peer``): prints rows and read seconds."""
    start = time.perf_counter()
    if backend == "sqlite":
        connection = sqlite3.connect(target)
        rows = connection.execute(PEER_JUDGMENTS).fetchall()
        rows += connection.execute(PEER_RESULTS).fetchall()
    else:
        import psycopg

        connection = psycopg.connect(target)
        with connection.cursor() as cursor:
            rows = cursor.execute(PEER_JUDGMENTS).fetchall()
            rows += cursor.execute(PEER_RESULTS).fetchall()
    connection.close()
    print(json.dumps({"rows": len(rows), "read_s": time.perf_counter() - start}))


def peer(backend: str, target: str) -> dict:
    result = measured([sys.executable, str(Path(__file__).resolve()), "--peer", backend, target])
    result.update(json.loads(result["stdout"].strip().splitlines()[-1]))
    return result


# --------------------------------------------------------------------------- PostgreSQL copy


def libpq(url: str) -> str:
    """The psycopg connection string of an SQLAlchemy URL."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def database_url(server: str, name: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(server).set(database=name).render_as_string(hide_password=False)


def recreate_postgres(server: str, name: str, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(libpq(server), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            admin.execute(f'CREATE DATABASE "{name}"')


def copy_to_postgres(db_path: Path, url: str) -> dict[str, int]:
    """Every table of the SQLite file into the (new, initialised) database at ``url`` with
    COPY, id sequences moved past the copied ids, then ANALYZE; returns rows per table."""
    import psycopg

    from judge_app.store.models import Base

    tables = Base.metadata.sorted_tables  # parents before children
    counts = {}
    source = sqlite3.connect(db_path)
    with psycopg.connect(libpq(url)) as target:
        for table in reversed(tables):  # what init wrote (settings), so the copy is exact
            target.execute(f'DELETE FROM "{table.name}"')
        for table in tables:
            columns = [column.name for column in table.columns]
            names = ", ".join(f'"{name}"' for name in columns)
            rows = source.execute(f'SELECT {names} FROM "{table.name}"')
            count = 0
            with target.cursor().copy(f'COPY "{table.name}" ({names}) FROM STDIN') as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
            counts[table.name] = count
            for column in table.primary_key.columns:  # serial ids continue after the copy
                sequence = target.execute(
                    "SELECT pg_get_serial_sequence(%s, %s)", (f'"{table.name}"', column.name)
                ).fetchone()[0]
                if sequence is not None:
                    target.execute(
                        f'SELECT setval(%s, coalesce(max("{column.name}"), 0) + 1, false) '
                        f'FROM "{table.name}"',
                        (sequence,),
                    )
    source.close()
    with psycopg.connect(libpq(url), autocommit=True) as target:
        target.execute("ANALYZE")
    return counts


# --------------------------------------------------------------------------- main


def sqlite_database(args: argparse.Namespace) -> Path:
    """The cached campaign of bench_evaluation.py (built when missing), at the current schema."""
    from judge_app.store import open_database

    args.workdir.mkdir(parents=True, exist_ok=True)
    db_path = args.workdir / f"evaluation_{args.queries}_{args.seed}.sqlite"
    prepared_database(db_path, True, lambda path: generate(path, args.queries, args.seed))
    open_database(db_path, create=False).close()  # a schema upgrade, if any, is not timed
    return db_path


def timed(backend: str, db: str, peer_target: str, out: Path, repeat: int) -> dict[str, dict]:
    """Median seconds (and the largest peak RSS) of every operation and of the peer."""
    runs: dict[str, list[dict]] = {}
    for index in range(repeat):
        runs.setdefault("plain read", []).append(peer(backend, peer_target))
        for name, args in operations(db, out):
            runs.setdefault(name, []).append(measured(judge_app(*args)))
        log(f"  {backend} run {index + 1} of {repeat}: " + ", ".join(
            f"{name} {results[-1]['seconds']:.2f} s" for name, results in runs.items()
        ))  # fmt: skip
    return {
        name: {
            "seconds": statistics.median(result["seconds"] for result in results),
            "rss_mib": max(result["rss_mib"] for result in results),
            "last": results[-1],
        }
        for name, results in runs.items()
    }


def cell(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def benchmark(args: argparse.Namespace) -> None:
    import sqlalchemy

    db_path = sqlite_database(args)
    with sqlite3.connect(db_path) as connection:
        counts = {
            table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            for table in ("query", "result", "judgment", "rater")
        }
    log(f"campaign: {counts['query']:,} queries, {counts['result']:,} results, "
        f"{counts['judgment']:,} judgments by {counts['rater']} raters; "
        f"SQLite file {db_path.stat().st_size / 2**20:.0f} MiB")  # fmt: skip
    log(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, SQLAlchemy "
        f"{sqlalchemy.__version__}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}; median of {args.repeat}")  # fmt: skip
    out = args.workdir / "bench_scale_out"
    out.mkdir(exist_ok=True)

    startup = statistics.median(measured(STARTUP)["seconds"] for _ in range(3))
    log(f"interpreter start + imports of the commands (included in every figure): {startup:.2f} s")
    log("SQLite: timing")
    results = {"sqlite": timed("sqlite", str(db_path), str(db_path), out, args.repeat)}
    if not args.skip_postgres:
        import psycopg

        url = database_url(args.server, PG_DATABASE)
        start = time.perf_counter()
        recreate_postgres(args.server, PG_DATABASE)
        subprocess.run(judge_app("init", url), check=True, stdout=subprocess.DEVNULL)
        copied = copy_to_postgres(db_path, url)
        with psycopg.connect(libpq(url)) as connection:
            version = connection.info.server_version
        log(f"PostgreSQL {version // 10000}.{version % 10000}: copied "
            f"{sum(copied.values()):,} rows into {PG_DATABASE} in "
            f"{time.perf_counter() - start:.1f} s (not counted)")  # fmt: skip
        try:
            log("PostgreSQL: timing")
            results["postgres"] = timed("postgres", url, libpq(url), out, args.repeat)
        finally:
            if args.keep:
                log(f"kept {url}")
            else:
                recreate_postgres(args.server, PG_DATABASE, drop_only=True)
    report(results)


def report(results: dict[str, dict[str, dict]]) -> None:
    sqlite, postgres = results["sqlite"], results.get("postgres")
    peer_s = sqlite["plain read"]["seconds"]
    peer_p = postgres["plain read"]["seconds"] if postgres else None
    header = (
        f"{'operation (subprocess)':<22} | {'SQLite s':>8} | {'PG s':>8} | {'PG/SQLite':>9} | "
        f"{'plain read SQLite s':>19} | {'plain read PG s':>15} | {'SQLite/read':>11} | "
        f"{'PG/read':>7} | {'peak RSS SQLite / PG':>20}"
    )
    log()
    log(header)
    log("-" * len(header))
    for name, ours in sqlite.items():
        theirs = postgres[name] if postgres else None
        s, p = ours["seconds"], theirs["seconds"] if theirs else None
        rss = f"{ours['rss_mib']:.0f}" + (f" / {theirs['rss_mib']:.0f}" if theirs else "")
        log(f"{name:<22} | {s:>8.2f} | {cell(p):>8} | {cell(p / s if p else None):>9} | "
            f"{peer_s:>19.2f} | {cell(peer_p):>15} | {s / peer_s:>11.2f} | "
            f"{cell(p / peer_p if p and peer_p else None):>7} | {rss + ' MiB':>20}")  # fmt: skip
    log()
    rows = sqlite["plain read"]["last"]["rows"]
    log(f"plain read: {rows:,} rows (graded judgments + results) with fetchall, as a subprocess; "
        f"the read itself, without the interpreter start, took "
        f"{sqlite['plain read']['last']['read_s']:.2f} s on SQLite"
        + (f" and {postgres['plain read']['last']['read_s']:.2f} s on PostgreSQL" if postgres else "")
        + ".")  # fmt: skip
    first = sqlite["eval --db"]["last"]["stdout"].strip().splitlines()
    log("eval --db on SQLite printed: " + "; ".join(line.strip() for line in first[:3]))
    if postgres:
        same = postgres["eval --db"]["last"]["stdout"] == sqlite["eval --db"]["last"]["stdout"]
        log(f"eval --db prints the same on PostgreSQL: {'yes' if same else 'NO'}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5_000,
                        help="queries of the generated campaign (default 5,000: 1,005,000 judgments)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7, help="of the data (default 7)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="rounds, each command once a round after the peer (median; default 5)")  # fmt: skip
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/be"),
                        help="where the cached campaign and the outputs go (default /tmp/be)")  # fmt: skip
    parser.add_argument("--skip-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--server", default=SERVER,
                        help=f"PostgreSQL server to make {PG_DATABASE} on (default {SERVER})")  # fmt: skip
    parser.add_argument("--keep", action="store_true",
                        help=f"keep the PostgreSQL database {PG_DATABASE} afterwards")  # fmt: skip
    parser.add_argument("--peer", nargs=2, metavar=("BACKEND", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.queries < 2 or args.repeat < 1:
        parser.error("use at least 2 queries and 1 repeat")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.peer:
        peer_child(*args.peer)
        return
    benchmark(args)


if __name__ == "__main__":
    main()
