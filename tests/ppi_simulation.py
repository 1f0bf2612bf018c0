"""Generated campaigns with a deliberately biased automatic judge, to measure how often the 95%
intervals of ``eval --judge`` cover the true mean NDCG@10 at the numbers of labelled queries
campaigns have (8, 16, 40 …): humans alone, humans corrected by the judge and, where raters
follow an active sample, both design-weighted.

Each campaign draws queries from one population: 30 documents a query with true grades 0–5
(humans grade the truth), three runs of different quality ranking them by noisy scores, and a
judge that is lenient (every grade +1, low grades more), noisy and clipped to 0–5. The good
run's NDCG is skewed (most queries near 1, a long tail below: skewness −2.3), the hard case
for an interval on few queries. Humans judge n queries completely: a uniform random sample
(the assigned order, assumed random), or the first n of the active order drawn for the judge
(``metrics.active_order``, its grade variances from a pilot of pairs both graded). The true
mean of each run and of each difference from the good run is the population's, computed
once on a large campaign. The estimates are the evaluation's own
(``evaluation.corrected.estimate`` on the ranking engine's per-query values), with every
interval asked for whatever n (``minimum=0``), to choose the minimum the evaluation keeps.

Run ``python tests/ppi_simulation.py [--repetitions 2000]`` for the figures of the closing
note; ``tests/evaluation/test_ppi_coverage.py`` runs fewer.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np
import pandas as pd

from judge_app.evaluation.corrected import Design, estimate
from judge_app.evaluation.options import EvaluationOptions
from judge_app.metrics import active_order
from judge_app.metrics.ranking import Evaluation, Settings, evaluate

DOCUMENTS = 30
DEPTH = 20
K = 10
RUN_NOISE = {"good": 0.8, "fair": 1.6, "poor": 3.0}
OPTIONS = EvaluationOptions(judge="lenient")
SETTINGS = Settings(ks=(K,))
ESTIMANDS = ("good", "fair", "poor", "fair − good", "poor − good")
SIZES = (8, 16, 40)


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
    """Each run's population mean NDCG@10 by the truth and by the judge, and each difference
    from the good run by the truth."""
    big = campaign(np.random.default_rng(seed), queries)
    values = {
        name: evaluate(run, big.humans, SETTINGS).values["ndcg@10"]
        for name, run in big.runs.items()
    }
    means = {name: float(value.mean()) for name, value in values.items()}
    for name in ("fair", "poor"):
        means[f"{name} − good"] = float((values[name] - values["good"]).mean())
    for name, run in big.runs.items():
        judged = evaluate(run, big.judge, SETTINGS).values["ndcg@10"]
        means[f"{name} by the judge"] = float(judged.mean())
    return means


@cache
def grade_variance(seed: int = 99) -> active_order.GradeVariance:
    """Human grades given the judge's, from a pilot of 200 queries both graded."""
    pilot = campaign(np.random.default_rng(seed), 200)
    both = pilot.judge.merge(pilot.humans, on=["query_id", "doc_id"], suffixes=("_judge", ""))
    return active_order.grade_variance(both["grade_judge"].to_numpy(), both["grade"].to_numpy())


def active_design(drawn: Campaign, judge: dict[str, Evaluation], seed: int) -> Design:
    """The active order ``judge-app sample`` draws for the judge: each query's scale from the
    judge's grades of the runs' top k, in sequential Poisson order."""
    queries = judge["good"].query_ids
    place = {query: row for row, query in enumerate(queries)}
    rows = pd.concat(
        [run.assign(run=code) for code, run in enumerate(drawn.runs.values())], ignore_index=True
    )
    rows = rows.merge(drawn.judge, on=["query_id", "doc_id"], how="left")
    ideal = np.zeros(len(queries))
    for evaluation in judge.values():
        ideal = np.maximum(ideal, evaluation.values[f"idcg@{K}"])
    scales = active_order.floored(
        active_order.query_scales(
            rows["query_id"].map(place).to_numpy(),
            rows["doc_id"].str[1:].astype(int).to_numpy(),
            rows["run"].to_numpy(),
            rows["rank"].to_numpy(),
            grade_variance().of(rows["grade"].to_numpy(dtype=np.float64)),
            ideal,
            K,
        )
    )
    order = np.argsort(active_order.order_keys(scales, seed), kind="stable")
    return Design(tuple(queries[row] for row in order), tuple(scales[order].tolist()))


def _subset(evaluation: Evaluation, keep: set[str]) -> Evaluation:
    """``evaluation`` of the queries in ``keep`` alone (as humans judging only those)."""
    rows = np.array([query in keep for query in evaluation.query_ids])
    return replace(
        evaluation,
        query_ids=[q for q, kept in zip(evaluation.query_ids, rows) if kept],
        values={name: values[rows] for name, values in evaluation.values.items()},
        idcg_zero=evaluation.idcg_zero[rows],
    )


@dataclass
class Tally:
    """How often the intervals of one estimator covered the truth, and how wide they were."""

    covered: int = 0
    intervals: int = 0
    width: float = 0.0
    error: float = 0.0

    def add(self, low: float, high: float, mean: float, truth: float) -> None:
        self.covered += bool(low <= truth <= high)
        self.intervals += 1
        self.width += high - low
        self.error += mean - truth

    @property
    def coverage(self) -> float:
        return self.covered / self.intervals if self.intervals else float("nan")


@dataclass
class Coverage:
    """Tallies by (design, n, estimator, estimand)."""

    tallies: dict[tuple[str, int, str, str], Tally] = field(
        default_factory=lambda: defaultdict(Tally)
    )

    def of(self, design: str, n: int, estimator: str, estimand: str | None = None) -> Tally:
        """One tally, or (``estimand`` None) the sum over the estimands."""
        if estimand is not None:
            return self.tallies[(design, n, estimator, estimand)]
        total = Tally()
        for name in ESTIMANDS:
            one = self.tallies[(design, n, estimator, name)]
            total.covered += one.covered
            total.intervals += one.intervals
            total.width += one.width
            total.error += one.error
        return total


def simulate(
    repetitions: int,
    queries: int = 100,
    sizes: tuple[int, ...] = SIZES,
    designs: tuple[str, ...] = ("uniform", "active"),
    seed: int = 7,
    population: int = 100_000,
) -> Coverage:
    """Over ``repetitions`` campaigns of ``queries`` queries: for each number ``n`` of
    ``sizes`` labelled by humans, drawn by each of ``designs``, whether each estimate's
    interval covered the truth (over ``population`` queries)."""
    truth = true_means(population)
    generator = np.random.default_rng(seed)
    found = Coverage()
    for repetition in range(repetitions):
        drawn = campaign(generator, queries)
        humans = {name: evaluate(run, drawn.humans, SETTINGS) for name, run in drawn.runs.items()}
        judge = {name: evaluate(run, drawn.judge, SETTINGS) for name, run in drawn.runs.items()}
        counts = drawn.humans.groupby("query_id").size().to_dict()
        all_queries = humans["good"].query_ids
        design = active_design(drawn, judge, repetition) if "active" in designs else None
        for n in sizes:
            for way in designs:
                if way == "uniform":
                    keep = set(generator.choice(all_queries, n, replace=False))
                    chosen = None
                else:
                    assert design is not None
                    keep, chosen = set(design.order[:n]), design
                labelled = {name: _subset(e, keep) for name, e in humans.items()}
                result = estimate(OPTIONS, labelled, judge, counts, chosen, minimum=0)
                for name, item in zip(ESTIMANDS, result.estimates):
                    for estimator, value in (
                        ("humans", item.humans),
                        ("corrected", item.corrected),
                        ("judge", item.automatic),
                    ):
                        if value.defined:
                            found.of(way, n, estimator, name).add(
                                value.low, value.high, value.mean, truth[name]
                            )
    return found


def table(found: Coverage, sizes: tuple[int, ...], designs: tuple[str, ...]) -> str:
    """The coverage table of the closing note: by design, n and estimator, each estimand's
    coverage, then all of them together with the mean width."""
    lines = [
        f"{'design':<8} {'n':>3} {'estimator':<10} "
        + " ".join(f"{name:>12}" for name in ESTIMANDS)
        + f" {'all':>6} {'width':>7}"
    ]
    for way in designs:
        for n in sizes:
            for estimator in ("humans", "corrected", "judge"):
                cells = [found.of(way, n, estimator, name).coverage for name in ESTIMANDS]
                total = found.of(way, n, estimator)
                width = total.width / total.intervals if total.intervals else float("nan")
                lines.append(
                    f"{way:<8} {n:>3} {estimator:<10} "
                    + " ".join(f"{cell:>12.3f}" for cell in cells)
                    + f" {total.coverage:>6.3f} {width:>7.4f}"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    sizes = tuple(int(size) for size in args.sizes.split(","))
    truth = true_means()
    print("true means:", {name: round(value, 4) for name, value in truth.items()})
    print(f"{args.repetitions} campaigns of {args.queries} queries; coverage of 95% intervals")
    designs = ("uniform", "active")
    print(table(simulate(args.repetitions, args.queries, sizes, designs), sizes, designs))


if __name__ == "__main__":
    main()
