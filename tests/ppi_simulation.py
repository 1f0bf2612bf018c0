"""Generated campaigns with a deliberately biased automatic judge, to measure how often the
prediction-powered 95% intervals of ``eval --judge`` cover the true mean NDCG@10.

Each campaign draws queries from one population: 30 documents a query with true grades 0–5
(humans grade the truth), three runs of different quality ranking them by noisy scores, and a
judge that is lenient (every grade +1, low grades more), noisy and clipped to 0–5. Humans judge
a uniform random sample of the queries completely; the judge grades every pooled pair. The
true mean NDCG@10 of each run is that of the population, computed once on 100,000 queries.
The estimates are the evaluation's own (``commands.prediction_powered.estimate`` on the
ranking engine's per-query values).

Run ``python tests/ppi_simulation.py [--repetitions 2000]`` for the figures of the closing
note; ``tests/test_ppi_coverage.py`` runs fewer.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from judge_app.commands.options import EvaluationOptions
from judge_app.commands.prediction_powered import estimate
from judge_app.metrics.ranking import Settings, evaluate

DOCUMENTS = 30
DEPTH = 20
RUN_NOISE = {"good": 0.8, "fair": 1.6, "poor": 3.0}
OPTIONS = EvaluationOptions(judge="lenient")
SETTINGS = Settings(ks=(10,))


@dataclass(frozen=True)
class Campaign:
    runs: dict[str, pd.DataFrame]  # query_id, doc_id, rank
    humans: pd.DataFrame  # query_id, doc_id, grade: the truth, of every pooled pair
    judge: pd.DataFrame  # query_id, doc_id, grade: the lenient judge's


def campaign(generator: np.random.Generator, queries: int, offset: int = 0) -> Campaign:
    """``queries`` queries of the population, with ids from ``offset``."""
    ease = generator.beta(2, 2, queries)[:, None]
    truth = np.clip(np.round(generator.normal(ease * 4 - 0.5, 1.2, (queries, DOCUMENTS))), 0, 5)
    lenient = truth + 1.0 + 0.6 * (truth < 2) + generator.normal(0, 0.9, truth.shape)
    judged = np.clip(np.round(lenient), 0, 5)
    query_ids = np.char.add("q", (np.arange(queries) + offset).astype(str))
    doc_ids = np.char.add("d", np.arange(DOCUMENTS).astype(str))
    runs, pooled = {}, np.zeros(truth.shape, dtype=bool)
    for name, noise in RUN_NOISE.items():
        score = truth + generator.normal(0, noise, truth.shape)
        order = np.argsort(-score, axis=1, kind="stable")[:, :DEPTH]
        rows = np.repeat(np.arange(queries), DEPTH)
        pooled[rows, order.reshape(-1)] = True
        runs[name] = pd.DataFrame(
            {
                "query_id": query_ids[rows],
                "doc_id": doc_ids[order.reshape(-1)],
                "rank": np.tile(np.arange(1, DEPTH + 1), queries),
            }
        )
    q, d = np.nonzero(pooled)

    def grades(values: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"query_id": query_ids[q], "doc_id": doc_ids[d], "grade": values[q, d]})

    return Campaign(runs, grades(truth), grades(judged))


@cache
def true_means(queries: int = 100_000, seed: int = 12345) -> dict[str, float]:
    """Each run's population mean NDCG@10 by the truth, and the judge's."""
    big = campaign(np.random.default_rng(seed), queries)
    means = {}
    for name, run in big.runs.items():
        means[name] = float(evaluate(run, big.humans, SETTINGS).values["ndcg@10"].mean())
        means[f"{name} by the judge"] = float(
            evaluate(run, big.judge, SETTINGS).values["ndcg@10"].mean()
        )
    return means


@dataclass
class Coverage:
    repetitions: int = 0
    corrected: int = 0  # prediction-powered intervals covering the truth
    humans: int = 0  # humans-only intervals covering it
    automatic: int = 0  # judge-only intervals covering it
    corrected_width: float = 0.0
    humans_width: float = 0.0
    automatic_error: float = 0.0  # the judge-only estimate's mean error
    corrected_error: float = 0.0


def simulate(
    repetitions: int,
    queries: int = 300,
    labelled: int = 40,
    seed: int = 7,
    population: int = 100_000,
) -> dict[str, Coverage]:
    """Per run: how often each interval covered the true mean (over ``population``
    queries) over ``repetitions`` campaigns of ``queries`` queries, ``labelled`` of them
    judged by humans."""
    truth = true_means(population)
    generator = np.random.default_rng(seed)
    found = {name: Coverage() for name in RUN_NOISE}
    for _ in range(repetitions):
        drawn = campaign(generator, queries)
        chosen = set(generator.choice(drawn.humans["query_id"].unique(), labelled, replace=False))
        humans = drawn.humans[drawn.humans["query_id"].isin(chosen)]
        by_humans = {name: evaluate(run, humans, SETTINGS) for name, run in drawn.runs.items()}
        by_judge = {name: evaluate(run, drawn.judge, SETTINGS) for name, run in drawn.runs.items()}
        counts = humans.groupby("query_id").size().to_dict()
        estimates = estimate(OPTIONS, by_humans, by_judge, counts)
        for name, item in estimates.runs.items():
            true, tally = truth[name], found[name]
            tally.repetitions += 1
            tally.corrected += item.corrected.low <= true <= item.corrected.high
            tally.humans += item.humans.low <= true <= item.humans.high
            tally.automatic += item.automatic.low <= true <= item.automatic.high
            tally.corrected_width += item.corrected.high - item.corrected.low
            tally.humans_width += item.humans.high - item.humans.low
            tally.automatic_error += item.automatic.mean - true
            tally.corrected_error += item.corrected.mean - true
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--labelled", type=int, default=40)
    args = parser.parse_args()
    truth = true_means()
    print("true mean NDCG@10:", {name: round(value, 4) for name, value in truth.items()})
    print(
        f"{args.repetitions} campaigns of {args.queries} queries, {args.labelled} judged by humans"
    )
    for name, tally in simulate(args.repetitions, args.queries, args.labelled).items():
        n = tally.repetitions
        print(
            f"{name}: coverage corrected {tally.corrected / n:.3f}, humans only "
            f"{tally.humans / n:.3f}, judge only {tally.automatic / n:.3f}; mean width "
            f"corrected {tally.corrected_width / n:.4f}, humans only {tally.humans_width / n:.4f}; "
            f"mean error judge only {tally.automatic_error / n:+.4f}, corrected "
            f"{tally.corrected_error / n:+.4f}"
        )


if __name__ == "__main__":
    main()
