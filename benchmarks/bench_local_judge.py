"""Benchmark: the local automatic judge (``commands.autojudge_local``, issue 20) on a
generated campaign of about 100,000 pooled pairs: the campaign read from SQLite in one
snapshot, the features (runs' ranks and scores, BM25, query-term coverage), five models fitted
by query folds, every pair predicted, the grades written in one transaction and set beside the
humans'.

    .venv/bin/python benchmarks/bench_local_judge.py
    .venv/bin/python benchmarks/bench_local_judge.py --queries 10000 --graded 1000

The campaign is ``tests/local_campaign.py``'s (relevance a known function of the features plus
noise): 50 documents a query, three runs of 20 results, depth 10, humans grading every pooled
pair of ``--graded`` queries. Its import is not timed. The figures: the whole
``autojudge_local`` call, ``fit_predict`` alone on the frames it read (features and folds), the
pairs and the held-out kappa, and peak RSS.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import import_frames, in_workdir, log, max_rss_mib, prepared_database

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from local_campaign import generate  # noqa: E402

from judge_app.automatic_judges.local_model import fit_predict  # noqa: E402
from judge_app.commands.autojudge_local import (  # noqa: E402
    LocalJudgeOptions,
    autojudge_local,
    read_local_data,
)
from judge_app.store import open_database  # noqa: E402
from judge_app.store.rater_queue import PoolSettings, set_pool_settings  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5000, help="queries (5,000: ~100k pairs)")
    parser.add_argument("--graded", type=int, default=500, help="queries humans graded")
    parser.add_argument("--workdir", type=Path, help="where files go (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="keep a database generated before")
    return parser.parse_args(argv)


def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    def generated(path: Path) -> dict[str, int]:
        campaign = generate(seed=0, queries=args.queries, documents=50, graded=args.graded)
        with open_database(path) as database:
            import_frames(
                database,
                campaign.runs,
                queries=campaign.queries,
                documents=campaign.documents,
                judgments=campaign.judgments,
            )
            with database.transaction() as session:
                set_pool_settings(session, PoolSettings(depth=campaign.depth))
        return {
            "queries": len(campaign.queries),
            "documents": len(campaign.documents),
            "results": sum(len(run) for run in campaign.runs.values()),
            "judgments": len(campaign.judgments),
        }

    path = workdir / f"local_{args.queries}_{args.graded}.sqlite"
    prepared_database(path, args.reuse, generated)
    with open_database(path) as database:
        start = time.perf_counter()
        report = autojudge_local(database, LocalJudgeOptions())
        whole = time.perf_counter() - start
        start = time.perf_counter()
        with database.reading() as session:
            data = read_local_data(session)
        read = time.perf_counter() - start
    start = time.perf_counter()
    _predictions, quality = fit_predict(data, seed=0)
    fitted = time.perf_counter() - start
    log(f"{quality.pairs:,} pairs, {quality.graded_pairs:,} human-graded in "
        f"{quality.graded_queries:,} queries, held-out quadratic kappa {quality.kappa:.3f}")  # fmt: skip
    log(f"autojudge_local (read, fit, write {report.written:,} grades, agreement): {whole:.2f} s")
    log(f"  read_local_data: {read:.2f} s; fit_predict: {fitted:.2f} s")
    log(f"peak RSS {max_rss_mib():.0f} MiB")


if __name__ == "__main__":
    arguments = parse_args()
    in_workdir(arguments, "bench-local-judge-", lambda args, folder: benchmark(args, folder))
