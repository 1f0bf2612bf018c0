"""Benchmark: the lead's commands at 1,000,000 judgments, on SQLite and on PostgreSQL.

Issue 7: "time judge-app eval --db, agreement --db, export and report at 1,000,000 judgments on
SQLite and on PostgreSQL, next to a plain read of the same rows with the database's own client
library." Issue 34, item 3: how their cost grows, up to 5,000,000 judgments (the growth mode).

    .venv/bin/python benchmarks/bench_scale.py                      # SQLite and PostgreSQL
    .venv/bin/python benchmarks/bench_scale.py --skip-postgres --repeat 1
    .venv/bin/python benchmarks/bench_scale.py --queries 200        # quick smoke test
    .venv/bin/python benchmarks/bench_scale.py --sizes 500,5000,25000 --repeat 3   # growth
    .venv/bin/python benchmarks/bench_scale.py --sizes 60,200 --repeat 1           # its smoke test

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

Growth mode (``--sizes``, SQLite only): the same campaign at each number of queries given
(500, 5,000 and 25,000 queries are 100,500, 1,005,000 and 5,025,000 judgments), its tables
written as CSV files by ``generate`` itself (in a process of its own, not timed; cached in
``--workdir``/growth_QUERIES_SEED). Each of ``--repeat`` rounds times, each as a whole process
under the same wrapper: the import of those files into a new database with ``judge-app import``
(queries, documents, judgments and the first run in one process, the second run in another;
their seconds summed), the peer and the commands above on the database just imported, and the
judging window: bench_judging.py's ``child_gui`` (no key presses) as rater ana, who graded every
pooled result, on Qt's offscreen platform, timing ``--opens`` queries opened with Ctrl+Right
from the key to the query painted (the round's figure is their median), and its first window
shown with the rater's queue. Then one table: per operation the median seconds and the largest
peak RSS at each size, and between consecutive sizes the growth per 10x the judgments,
``(t2 / t1) ** (1 / log10(n2 / n1))`` (10 is linear), also of the time net of the interpreter
start and of the process's CPU seconds (user + system, which other programs on a shared machine
hardly change); flagged when worse than linear (above 12; "net worse than linear" where only the
net factor is) and, for opening a query, over 100 ms at any size. The opening's p95 and the
store's part of it follow the table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench_evaluation import PEER_JUDGMENTS, PEER_RESULTS, generate
from common import log, measured, prepared_database, write_frames

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.store import Database

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PG_DATABASE = "bench_scale"
GUI_RATER = "ana"  # has graded every pooled result of every query of the campaign
LINEAR = 12.0  # growth per 10x judgments above this (10 x a tolerance of 1.2) is flagged
OPEN_BUDGET_S = 0.100  # opening a query, at every size
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


# --------------------------------------------------------------------------- growth


def campaign_child(folder: Path, queries: int, seed: int) -> None:
    """Write the campaign of ``bench_evaluation.generate`` as CSV files into ``folder`` (run as
    this script's hidden ``--campaign-files``): generate's own frames, written where it would
    have imported them, so that the timed import is our ``import`` command's."""
    from unittest import mock

    import bench_evaluation

    def kept(_database: Database, runs: dict[str, pd.DataFrame], **files: pd.DataFrame) -> None:
        write_frames(folder, runs, **files)

    scratch = folder / "scratch.sqlite"  # generate opens a database: left empty, then removed
    with mock.patch.object(bench_evaluation, "import_frames", kept):
        generate(scratch, queries, seed)
    remove_database(scratch)


def campaign_files(args: argparse.Namespace, queries: int) -> Path:
    """The folder of the campaign's CSV files at ``queries`` queries (written when missing,
    in a process of its own, not timed)."""
    folder = args.workdir / f"growth_{queries}_{args.seed}"
    done = folder / "written"
    if done.exists():
        log(f"reusing the CSV files in {folder}")
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    result = measured([sys.executable, str(Path(__file__).resolve()), "--campaign-files",
                       str(folder), str(queries), str(args.seed)])  # fmt: skip
    done.touch()
    size = sum(path.stat().st_size for path in folder.glob("*.csv")) / 2**20
    log(f"wrote the CSV files of {queries:,} queries ({size:.0f} MiB) in "
        f"{result['seconds']:.1f} s, peak RSS {result['rss_mib']:.0f} MiB (not counted)")  # fmt: skip
    return folder


def import_commands(folder: Path, db: Path) -> list[list[str]]:
    """``judge-app import`` of the campaign's files into a new ``db``: the queries, documents,
    judgments and the first run in one process, every other run in one of its own."""
    kinds = ("queries", "documents", "judgments")
    runs = sorted(path for path in folder.glob("*.csv") if path.stem not in kinds)
    first = ["import", str(db)]
    for kind in kinds:
        first += [f"--{kind}", str(folder / f"{kind}.csv")]
    commands = [first + ["--run", str(runs[0]), "--run-name", runs[0].stem]]
    for run in runs[1:]:
        commands.append(["import", str(db), "--run", str(run), "--run-name", run.stem])
    return [judge_app(*command) for command in commands]


def remove_database(db: Path) -> None:
    """Remove the SQLite file ``db`` and its companions, if any."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)


def timed_import(folder: Path, db: Path) -> dict:
    """The import of the campaign into a new ``db``: its processes' seconds summed, the
    largest peak RSS."""
    remove_database(db)
    results = [measured(command) for command in import_commands(folder, db)]
    return {
        "seconds": sum(result["seconds"] for result in results),
        "cpu_seconds": sum(result["cpu_seconds"] for result in results),
        "rss_mib": max(result["rss_mib"] for result in results),
        "stdout": results[0]["stdout"],
    }


def open_child(db: Path, opens: int, seed: int) -> None:
    """Open ``opens`` queries in the judging window as ``GUI_RATER`` (run as this script's
    hidden ``--open-child``, on the platform its environment names): bench_judging's
    ``child_gui`` without key presses; prints the median and p95 seconds."""
    import bench_judging

    bench_judging.RATER = GUI_RATER  # child_gui opens the window as bench_judging.RATER
    gui = bench_judging.child_gui(db, 0, opens, seed)
    print(json.dumps({
        "open_s": statistics.median(gui["open_ms"]) / 1000,
        "open_p95_s": bench_judging.p95(gui["open_ms"]) / 1000,
        "read_s": statistics.median(gui["read_ms"]) / 1000,
        "items": [count for _query, count in gui["opened"]],
        "first_window_s": gui["first_window_s"],
    }))  # fmt: skip


def timed_open(db: Path, opens: int, seed: int, env: dict[str, str]) -> dict:
    """The median of ``opens`` queries opened in a new judging window (its whole process's
    peak RSS), from the start of the rater's queue: the window's settings file, which would
    remember where the last round left off, is removed first."""
    Path(env["JUDGE_APP_SETTINGS"]).unlink(missing_ok=True)
    result = measured([sys.executable, str(Path(__file__).resolve()), "--open-child", str(db),
                       str(opens), str(seed)], env=env)  # fmt: skip
    result.update(json.loads(result["stdout"].strip().splitlines()[-1]))
    result["seconds"] = result["open_s"]
    result["cpu_seconds"] = None  # of the whole process, not of the openings
    return result


def growth_size(args: argparse.Namespace, queries: int, env: dict[str, str]) -> dict:
    """Every operation at one size, ``--repeat`` rounds (a new import each round, then the
    peer, the commands and the window on it): the judgments and the summarised results."""
    folder = campaign_files(args, queries)
    db = folder / "campaign.sqlite"
    out = folder / "out"
    out.mkdir(exist_ok=True)
    runs: dict[str, list[dict]] = {}
    for index in range(args.repeat):
        results = {"import": timed_import(folder, db)}
        results.update(one_round("sqlite", str(db), str(db), out))
        results["open a query"] = timed_open(db, args.opens, args.seed, env)
        window = results["open a query"]
        results["judging window shown"] = {**window, "seconds": window["first_window_s"]}
        for name, result in results.items():
            runs.setdefault(name, []).append(result)
        log(round_line(f"{queries:,} queries, round {index + 1} of {args.repeat}", results)
            + f"; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    with sqlite3.connect(db) as connection:
        judgments = connection.execute("SELECT count(*) FROM judgment").fetchone()[0]
    log(f"  {judgments:,} judgments; SQLite file {db.stat().st_size / 2**20:.0f} MiB; the "
        f"window opened queries of {min(runs['open a query'][-1]['items'])}-"
        f"{max(runs['open a query'][-1]['items'])} results")  # fmt: skip
    return {"judgments": judgments, "results": summarised(runs)}


def per_ten(t1: float, t2: float, n1: int, n2: int) -> float:
    """How many times longer per 10x the judgments: (t2 / t1) ** (1 / log10(n2 / n1))."""
    return (t2 / t1) ** (1 / math.log10(n2 / n1))


IN_PROCESS = ("open a query", "judging window shown")  # timed inside the window's process


def net_per_ten(name: str, t1: float, t2: float, n1: int, n2: int, startup: float) -> float | None:
    """The growth per 10x of a command's time less the interpreter start and imports (None
    for the peer and the window's figures, which do not pay it, and for times under twice it)."""
    if name == "plain read" or name in IN_PROCESS or min(t1, t2) < 2 * startup:
        return None
    return per_ten(t1 - startup, t2 - startup, n1, n2)


def amount(seconds: float, name: str) -> str:
    """A table cell of ``name``'s time: milliseconds for the window's figures."""
    return f"{1000 * seconds:.1f} ms" if name in IN_PROCESS else f"{seconds:.2f} s"


def growth_flags(
    name: str, times: list[float], factors: list[float], net: list[float | None]
) -> str:
    """What a row misses: growth worse than linear (of the time, or of the time net of the
    interpreter start), or a query opened in over 100 ms."""
    flags = []
    if any(factor > LINEAR for factor in factors):
        flags.append("WORSE THAN LINEAR")
    elif any(factor is not None and factor > LINEAR for factor in net):
        flags.append("net worse than linear")
    if name == "open a query" and any(seconds > OPEN_BUDGET_S for seconds in times):
        flags.append("OVER 100 ms")
    return ", ".join(flags) or "ok"


def growth_table(sizes: list[dict], startup: float) -> None:
    """Rows: operations; columns: time and peak RSS at each size, the growth per 10x
    judgments between consecutive sizes (and net of the interpreter start), and flags."""
    counts = [size["judgments"] for size in sizes]
    steps = list(zip(range(len(sizes) - 1), range(1, len(sizes))))
    header = (
        f"{'operation':<24}"
        + "".join(f" | {f'{n:,}':>10}" for n in counts)
        + "".join(f" | {f'MiB {n:,}':>13}" for n in counts)
        + "".join(f" | {f'×/10× {i + 1}→{j + 1}':>9}" for i, j in steps)
        + "".join(f" | {f'net {i + 1}→{j + 1}':>7}" for i, j in steps)
        + "".join(f" | {f'CPU {i + 1}→{j + 1}':>7}" for i, j in steps)
        + " | flag"
    )
    log()
    log(f"judgments (columns 1, 2, 3 …): {', '.join(f'{n:,}' for n in counts)}")
    log(header)
    log("-" * len(header))
    for name in sizes[0]["results"]:
        rows = [size["results"][name] for size in sizes]
        times = [row["seconds"] for row in rows]
        factors = [per_ten(times[i], times[j], counts[i], counts[j]) for i, j in steps]
        net = [net_per_ten(name, times[i], times[j], counts[i], counts[j], startup)
               for i, j in steps]  # fmt: skip
        cpu = [row["cpu_seconds"] for row in rows]
        cpu_factors = [None if name in IN_PROCESS or not min(cpu[i], cpu[j])
                       else per_ten(cpu[i], cpu[j], counts[i], counts[j]) for i, j in steps]  # fmt: skip
        log(f"{name:<24}"
            + "".join(f" | {amount(t, name):>10}" for t in times)
            + "".join(f" | {row['rss_mib']:>13.0f}" for row in rows)
            + "".join(f" | {factor:>9.2f}" for factor in factors)
            + "".join(f" | {cell(factor):>7}" for factor in net)
            + "".join(f" | {cell(factor):>7}" for factor in cpu_factors)
            + f" | {growth_flags(name, times, factors, net)}")  # fmt: skip
    log()
    log(f"medians of the rounds; peak RSS the largest of them. ×/10×: the time's growth per 10× "
        f"the judgments, (t2/t1) ** (1/log10(n2/n1)): 10 is linear, flagged above {LINEAR:g} "
        f"(in capitals; in lower case where only the net factor is); "
        f"net: the same of a command's time less the interpreter start and imports "
        f"({startup:.2f} s), which it pays whatever the size (– under twice that); CPU: the "
        f"same of the process's CPU seconds (user + system), which other programs on the "
        f"machine hardly change. Opening a "
        f"query: the median of the queries opened in a round, in the judging window on Qt's "
        f"offscreen platform, from Ctrl+Right to the query painted; the judging window shown: "
        f"the process's first window, with {GUI_RATER}'s queue, in the process; peak RSS: the "
        f"window's whole process's.")  # fmt: skip
    opened = [size["results"]["open a query"]["last"] for size in sizes]
    log("opening a query, the last round's p95: "
        + ", ".join(f"{1000 * last['open_p95_s']:.1f} ms" for last in opened)
        + "; the store's read (JudgingSession.open_query), median: "
        + ", ".join(f"{1000 * last['read_s']:.1f} ms" for last in opened))  # fmt: skip


def growth(args: argparse.Namespace) -> None:
    """The growth mode: every operation at each of ``--sizes``, then one table."""
    from bench_judging import child_env

    args.workdir.mkdir(parents=True, exist_ok=True)
    env = child_env(args.workdir)
    log(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, {os.cpu_count()} "
        f"CPUs, load average {os.getloadavg()[0]:.2f}; median of {args.repeat} rounds; "
        f"{args.opens} queries opened a round")  # fmt: skip
    startup = statistics.median(measured(STARTUP)["seconds"] for _ in range(3))
    log(f"interpreter start + imports of the commands (included in every figure): {startup:.2f} s")
    sizes = [growth_size(args, queries, env) for queries in args.sizes]
    growth_table(sizes, startup)


# --------------------------------------------------------------------------- main


def sqlite_database(args: argparse.Namespace) -> Path:
    """The cached campaign of bench_evaluation.py (built when missing), at the current schema."""
    from judge_app.store import open_database

    args.workdir.mkdir(parents=True, exist_ok=True)
    db_path = args.workdir / f"evaluation_{args.queries}_{args.seed}.sqlite"
    prepared_database(db_path, True, lambda path: generate(path, args.queries, args.seed))
    open_database(db_path, create=False).close()  # a schema upgrade, if any, is not timed
    return db_path


def one_round(backend: str, db: str, peer_target: str, out: Path) -> dict[str, dict]:
    """The peer, then every operation once: each one's ``measured`` result."""
    results = {"plain read": peer(backend, peer_target)}
    for name, args in operations(db, out):
        results[name] = measured(judge_app(*args))
    return results


def summarised(runs: dict[str, list[dict]]) -> dict[str, dict]:
    """Per operation: the median seconds, the largest peak RSS and the last run's result."""
    return {
        name: {
            "seconds": statistics.median(result["seconds"] for result in results),
            "cpu_seconds": statistics.median(
                result.get("cpu_seconds") or 0.0 for result in results
            ),
            "rss_mib": max(result["rss_mib"] for result in results),
            "last": results[-1],
        }
        for name, results in runs.items()
    }


def round_line(label: str, results: dict[str, dict]) -> str:
    """One round's seconds of every operation, for the log."""
    return f"  {label}: " + ", ".join(
        f"{name} {result['seconds']:.2f} s" for name, result in results.items()
    )


def timed(backend: str, db: str, peer_target: str, out: Path, repeat: int) -> dict[str, dict]:
    """Median seconds (and the largest peak RSS) of every operation and of the peer."""
    runs: dict[str, list[dict]] = {}
    for index in range(repeat):
        results = one_round(backend, db, peer_target, out)
        for name, result in results.items():
            runs.setdefault(name, []).append(result)
        log(round_line(f"{backend} run {index + 1} of {repeat}", results))
    return summarised(runs)


def cell(value: float | None, digits: int = 2) -> str:
    """A number for a table, or a dash for none."""
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
    parser.add_argument("--sizes", type=sizes,
                        help="the growth mode, SQLite only: campaigns of these numbers of queries, "
                        "e.g. 500,5000,25000 (100,500, 1,005,000 and 5,025,000 judgments)")  # fmt: skip
    parser.add_argument("--opens", type=int, default=20,
                        help="growth mode: queries opened in the window a round (default 20)")  # fmt: skip
    parser.add_argument("--peer", nargs=2, metavar=("BACKEND", "TARGET"), help=argparse.SUPPRESS)
    parser.add_argument("--campaign-files", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--open-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.queries < 2 or args.repeat < 1:
        parser.error("use at least 2 queries and 1 repeat")
    if args.sizes and (len(args.sizes) < 2 or min(args.sizes) < 3 * args.opens):
        parser.error("--sizes needs two sizes or more, each at least 3 x --opens queries")
    return args


def sizes(text: str) -> list[int]:
    """``--sizes``: numbers of queries, comma-separated, in ascending order."""
    values = [int(value) for value in text.split(",")]
    if values != sorted(set(values)):
        raise argparse.ArgumentTypeError("give the sizes in ascending order, each once")
    return values


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.peer:
        peer_child(*args.peer)
    elif args.campaign_files:
        folder, queries, seed = args.campaign_files
        campaign_child(Path(folder), int(queries), int(seed))
    elif args.open_child:
        db, opens, seed = args.open_child
        open_child(Path(db), int(opens), int(seed))
    elif args.sizes:
        growth(args)
    else:
        benchmark(args)


if __name__ == "__main__":
    main()
