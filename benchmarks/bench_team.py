"""Benchmark: what row-level security costs a rater on a team database (issue 30).

    .venv/bin/python benchmarks/bench_team.py                  # 1,000 queries, 201,000 judgments
    .venv/bin/python benchmarks/bench_team.py --queries 5000   # 1,005,000 judgments

Data: the campaign of ``bench_evaluation.py`` (its ``generate``: 67 judged documents a query by
ana, ben and chloe), written into a fresh database on ``--server`` (not timed), its team set
up by the owner: ana a rater's login, lena a lead's. The database and both logins are dropped
at the end.

Timed, each side a whole process under ``common.measured`` (its peak RSS its own), sides
alternating, ``--repeat`` rounds, the table the median of the rounds (never the best):
- a key press's commit, ``--presses`` of them: one unit of work ``set_grade`` (the judgment
  and its history event, as the window writes a grade) on ana's pairs, as ana (the rater's
  row-level policies apply), as lena (the lead's policy: every row) and as the owner (a
  superuser: no policy); the peer, plain psycopg as the owner, the same UPDATE and INSERT in
  one transaction;
- opening ana's queue (``JudgingSession``, what a window reads at its start) as ana and as
  the owner.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid

from bench_evaluation import generate
from common import log, max_rss_mib, measured

SIDES = ("rater ana", "lead lena", "owner", "peer psycopg")
PASSWORD = "bench"


def child(side: str, url: str, presses: int) -> None:
    """One side's timings (run as this script's hidden ``--side``), printed as JSON."""
    from sqlalchemy import text

    if side == "peer psycopg":
        import psycopg

        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as connection:
            pairs = connection.execute(PAIRS).fetchmany(presses)
            commits = []
            for grade, (rater, query, document) in enumerate(pairs):
                start = time.perf_counter()
                with connection.transaction():
                    connection.execute(PEER_UPDATE, (grade % 6, rater, query, document))
                    connection.execute(PEER_EVENT, (rater, query, document, grade % 6))
                commits.append(time.perf_counter() - start)
        print(json.dumps({"commit": _spread(commits), "rss": max_rss_mib()}))
        return
    from judge_app.judging.session import JudgingSession
    from judge_app.store import open_database
    from judge_app.store.judgments import set_grade

    with open_database(url, create=False) as database:
        with database.reading() as session:
            pairs = session.execute(text(PAIRS)).fetchmany(presses)
        commits = []
        for grade, (rater, query, document) in enumerate(pairs):
            start = time.perf_counter()
            database.write(
                lambda s, r=rater, q=query, d=document, g=grade: set_grade(s, r, q, d, g % 6)
            )
            commits.append(time.perf_counter() - start)
        opens = []
        if side != "lead lena":
            for _ in range(3):
                start = time.perf_counter()
                JudgingSession(database, pairs[0][0], "ana")
                opens.append(time.perf_counter() - start)
    print(json.dumps({"commit": _spread(commits), "open": _spread(opens), "rss": max_rss_mib()}))


def _spread(seconds: list[float]) -> list[float] | None:
    """The median and the 95th percentile of ``seconds``, in ms (None for none): the child's
    output must stay short (the wrapper keeps its last 2,000 characters)."""
    if not seconds:
        return None
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return [statistics.median(ordered) * 1000, p95 * 1000]


PAIRS = (
    "SELECT j.rater_id, j.query_id, j.document_id FROM judgment j JOIN rater r "
    "ON r.id = j.rater_id WHERE r.name = 'ana' ORDER BY j.query_id, j.document_id"
)
PEER_UPDATE = (
    "UPDATE judgment SET grade = %s, judged_at = now() "
    "WHERE rater_id = %s AND query_id = %s AND document_id = %s"
)
PEER_EVENT = (
    "INSERT INTO judgment_event (rater_id, query_id, document_id, action, new_grade, "
    "new_skipped, at, repeat) VALUES (%s, %s, %s, 'set', %s, false, now(), false)"
)


def benchmark(args: argparse.Namespace) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from judge_app.store import open_database
    from judge_app.store.team import add_member, init_team, team_roles

    name = f"bench_team_{uuid.uuid4().hex[:6]}"
    logins = {"ana": f"ana_{name[-6:]}", "lena": f"lena_{name[-6:]}"}
    admin = create_engine(args.server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    owner = make_url(args.server).set(database=name)
    try:
        start = time.perf_counter()
        counts = generate(owner.render_as_string(hide_password=False), args.queries, args.seed)
        with open_database(owner.render_as_string(hide_password=False)) as database:
            with database.transaction() as session:
                session.execute(
                    text(f"UPDATE rater SET name = '{logins['ana']}' WHERE name = 'ana'")
                )
            init_team(database)
            add_member(database, logins["ana"], PASSWORD)
            add_member(database, logins["lena"], PASSWORD, lead=True)
            with database.transaction() as session:  # the pairs query names ana
                session.execute(
                    text(f"UPDATE rater SET name = 'ana' WHERE login = '{logins['ana']}'")
                )
        log(f"generated {name} in {time.perf_counter() - start:.1f} s (not counted): "
            f"{counts['queries']:,} queries, {counts['judgments']:,} judgments")  # fmt: skip
        urls = {
            "rater ana": owner.set(username=logins["ana"], password=PASSWORD),
            "lead lena": owner.set(username=logins["lena"], password=PASSWORD),
            "owner": owner,
            "peer psycopg": owner,
        }
        rounds: dict[str, list[dict]] = {side: [] for side in SIDES}
        for _ in range(args.repeat):
            for side in SIDES:
                command = [sys.executable, __file__, "--side", side, "--presses", str(args.presses),
                           "--url", urls[side].render_as_string(hide_password=False)]  # fmt: skip
                done = measured(command)
                timings = json.loads(done["stdout"])
                timings["process_rss"] = done["rss_mib"]
                rounds[side].append(timings)
        report(rounds, args)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            roles = team_roles(name)
            for role in (*logins.values(), roles.lead, roles.rater):
                connection.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


def report(rounds: dict[str, list[dict]], args: argparse.Namespace) -> None:
    def median_of(side: str, key: str, which: int = 0) -> float | None:
        spreads = [timings[key] for timings in rounds[side] if timings.get(key)]
        return statistics.median(spread[which] for spread in spreads) if spreads else None

    log(f"{args.presses} commits a side a round, {args.repeat} rounds, sides alternating")
    log(f"{'side':<14} | {'commit median':>13} | {'commit p95':>10} | {'queue opened':>12} | "
        f"{'peak RSS':>8}")  # fmt: skip
    log("-" * 70)
    for side in SIDES:
        commit, p95, opened = (median_of(side, "commit"), median_of(side, "commit", 1),
                               median_of(side, "open"))  # fmt: skip
        rss = max(timings["process_rss"] for timings in rounds[side])
        log(f"{side:<14} | {commit:>10.2f} ms | {p95:>7.2f} ms | "
            f"{'' if opened is None else f'{opened:.1f} ms':>12} | {rss:>4.0f} MiB")  # fmt: skip
    log("peer: plain psycopg as the owner, the UPDATE of the judgment and the INSERT of its "
        "event in one transaction (no history read, no undo bookkeeping)")  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.side is not None:
        child(args.side, args.url, args.presses)
    else:
        benchmark(args)


if __name__ == "__main__":
    main()
