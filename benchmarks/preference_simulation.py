"""Simulation (issue 36): how many judgments per query preference judging and graded judging
need to tell apart two runs that differ by a little, and how often they tell apart two runs of
the same quality.

    .venv/bin/python benchmarks/preference_simulation.py        # about 4 minutes on 2 cores
    .venv/bin/python benchmarks/preference_simulation.py --simulated 12000   # docs' table

Model of one query (every number a constant below or an option):

- a pool of ``POOL`` documents, each with a latent relevance r on the grade scale
  (continuous): 5·Beta(1.5, 2.5) in a typical pool (mean 1.9: most documents marginal, a few
  highly relevant), 5·Beta(5, 1.5) where the top is saturated (mean 3.8: most documents
  relevant, the best ones near the scale's end, where grades stop telling them apart);
- **B better**: run A ranks the pool by r + N(0, 1) (a fair ranker); run B is A with
  ``SWAPS`` of the adjacent pairs of A's top 10 that are in the wrong order put right (each
  drawn among those still wrong), so B is better than A by a little, at the top;
- **same quality** (the false-positive rows): one ranking by r + N(0, 1), and A and B each
  that ranking with ``SWAPS`` adjacent pairs of its top 10 swapped at random, independently:
  A and B differ by as little, and neither is better (they are exchangeable);
- a **grade**: round(r + N(0, σ²)) cut to 0–5, σ chosen so that two assessors' ordinal
  Krippendorff alpha on the pool is ``--alpha`` (0.55: TREC assessors' agreement on graded
  scales is of this order);
- a **preference**: each document seen as r + N(0, σ²) afresh, with the same σ (a Thurstone
  case V comparison: a preference sees a document as noisily as a grade does): ``neither``
  if both are seen below 0.5 (both would be graded 0), ``equal`` if they are seen within
  ``EQUAL_WITHIN`` (half a grade) of each other, else the one seen higher. The ``steadier``
  scenario halves that σ, for assessors who compare more consistently than they grade (as
  Carterette et al. found): the assumption the result turns on.

One assessor judges each query with a budget of b judgments (a grade or a preference is one
judgment each):

- **graded**: the first b documents of the pool in reciprocal-rank fusion order of the two
  runs are graded; each run's NDCG@10 by ``metrics.ranking.evaluate`` (as ``judge-app eval``:
  linear gain, unjudged documents gain 0, the ideal over the judged);
- **preferences**: pairs as the pair screen asks them (``judging.pair_plan``): the top t
  candidates by fusion, the seed chain, then adaptive pairs until b pairs are chosen or every
  pair is settled; t is the smallest number of candidates with b pairs or more, and at least
  b // 2 + 1, so that half the budget goes to the seed chain, as the app's default (6
  candidates, 10 pairs) does; each run's compatibility (p = 0.95) with the Bradley–Terry
  ideal ranking (``metrics.preferences``), as ``judge-app eval --measure Compat``; a query
  whose ideal ranking is empty is left out, as the evaluation leaves it out.

Cost: a preference counts as much as a grade. Published studies find a preference takes
about as long as a grade or less (Carterette, Bennett, Chickering and Dumais, "Here or there:
preference judgments for relevance", ECIR 2008; Clarke, Vtyurina and Smucker, "Assessing
top-k preferences", ACM TOIS 39(3), 2021), so counting both as one judgment does not favour
preferences.

A campaign is ``queries`` distinct queries drawn from ``--simulated`` simulated ones (the same
draws for every budget and both ways of judging); B is told better than A when the two-sided
paired t-test (``metrics.comparison.paired_t_test``) gives p < 0.05 with B's mean above A's.
The table gives that share over the campaigns (power, B better) and the share with p < 0.05
either way (false positives, same quality: 0.05 is the test's nominal rate). Campaigns drawn
from one set of simulated queries share them, so the figures carry that set's chance: from
one seed to another, a power of 50 queries moves with a standard deviation of about 0.1
with 1,000 queries simulated (the default: a first look in a few minutes), 0.03–0.04 with
4,000 and 0.015 with 12,000 (measured on the graded power at 10 judgments, six seeds each).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from judge_app.agreement.coefficients import grade_counts, krippendorff_alpha
from judge_app.agreement.preference_agreement import preference_agreement
from judge_app.judging.pair_plan import candidates, next_pair, seed_pairs
from judge_app.metrics.comparison import paired_t_test
from judge_app.metrics.compatibility import compatibility
from judge_app.metrics.preferences import comparisons, ideal_ranking
from judge_app.metrics.ranking import Settings, evaluate
from judge_app.store.pair_queue import FUSION_K, MAX_TOP

POOL = 30
TOP = 10
"""The depth of NDCG@10, and of the runs' top where B differs from A."""
SWAPS = 2
EQUAL_WITHIN = 0.5
NEITHER_BELOW = 0.5
LEVEL = 0.05
BUDGETS = (5, 10, 15, 20, 30)
QUERIES = (25, 50)
TYPICAL = (1.5, 2.5)
"""Latent relevance 5·Beta(1.5, 2.5): mean 1.9, most documents marginal."""
SATURATED = (5.0, 1.5)
"""5·Beta(5, 1.5): mean 3.8, most documents relevant, the top ones near the scale's end."""
CHUNKS = 8
"""Pieces the preference judging is cut into (for the worker processes): fixed, so that the
figures do not depend on the number of workers."""


@dataclass(frozen=True)
class Model:
    """The simulated campaign: the assessor's ``noise`` σ when grading, times ``comparison``
    when comparing; latent relevance 5·Beta(``shape``); ``better``: B is A put right (else A
    and B are of the same quality)."""

    noise: float
    shape: tuple[float, float] = TYPICAL
    comparison: float = 1.0
    better: bool = True
    swaps: int = SWAPS
    equal_within: float = EQUAL_WITHIN


@dataclass(frozen=True)
class Queries:
    """Simulated queries: each document's latent ``relevance`` (n, POOL), the runs as
    document indices best first, and each document's reciprocal-rank fusion of the two."""

    relevance: np.ndarray
    run_a: np.ndarray
    run_b: np.ndarray
    fused: np.ndarray

    def __len__(self) -> int:
        return len(self.relevance)

    def part(self, rows: slice) -> Queries:
        return Queries(self.relevance[rows], self.run_a[rows], self.run_b[rows], self.fused[rows])


def latent_relevance(rng: np.random.Generator, n: int, shape: tuple[float, float]) -> np.ndarray:
    return 5.0 * rng.beta(*shape, size=(n, POOL))


def draw_queries(rng: np.random.Generator, n: int, model: Model) -> Queries:
    """``n`` queries with two runs as ``model`` says (B better, or the same quality)."""
    relevance = latent_relevance(rng, n, model.shape)
    ranked = np.argsort(-(relevance + rng.normal(size=relevance.shape)), axis=1)
    if model.better:
        run_a, run_b = ranked, _put_right(ranked, relevance, model.swaps, rng)
    else:
        run_a = _swapped(ranked, model.swaps, rng)
        run_b = _swapped(ranked, model.swaps, rng)
    fused = np.zeros(relevance.shape)
    rows = np.arange(n)[:, None]
    places = np.arange(1, POOL + 1)[None, :]
    for run in (run_a, run_b):
        fused[rows, run] += 1.0 / (FUSION_K + places)
    return Queries(relevance, run_a, run_b, fused)


def _put_right(
    ranked: np.ndarray, relevance: np.ndarray, swaps: int, rng: np.random.Generator
) -> np.ndarray:
    """``ranked`` with ``swaps`` adjacent pairs of its top ``TOP`` that are in the wrong order
    (each drawn among those still wrong) put right, where there are that many."""
    ranked = ranked.copy()
    rows = np.arange(len(ranked))
    for _ in range(swaps):
        seen = np.take_along_axis(relevance, ranked[:, :TOP], axis=1)
        wrong = seen[:, :-1] < seen[:, 1:]
        drawn = np.where(wrong, rng.random(wrong.shape), -1.0)
        place = drawn.argmax(axis=1)
        rows_wrong = rows[wrong.any(axis=1)]
        _swap(ranked, rows_wrong, place[rows_wrong])
    return ranked


def _swapped(ranked: np.ndarray, swaps: int, rng: np.random.Generator) -> np.ndarray:
    """``ranked`` with ``swaps`` adjacent pairs of its top ``TOP`` swapped at random."""
    ranked = ranked.copy()
    rows = np.arange(len(ranked))
    for _ in range(swaps):
        _swap(ranked, rows, rng.integers(0, TOP - 1, size=len(ranked)))
    return ranked


def _swap(ranked: np.ndarray, rows: np.ndarray, place: np.ndarray) -> None:
    upper = ranked[rows, place]
    ranked[rows, place] = ranked[rows, place + 1]
    ranked[rows, place + 1] = upper


def grades(relevance: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """An assessor's grades 0–5 of documents of latent ``relevance``."""
    seen = relevance + noise * rng.normal(size=relevance.shape)
    return np.clip(np.rint(seen), 0, 5).astype(np.int64)


def choice(first: float, second: float, model: Model, rng: np.random.Generator) -> str:
    """An assessor's choice between documents of latent relevance ``first`` (a) and
    ``second`` (b)."""
    noise = model.noise * model.comparison
    a, b = first + noise * rng.normal(), second + noise * rng.normal()
    if a < NEITHER_BELOW and b < NEITHER_BELOW:
        return "neither"
    if abs(a - b) < model.equal_within:
        return "equal"
    return "a" if a > b else "b"


def assessor_noise(alpha: float, rng: np.random.Generator, n: int = 2000) -> float:
    """The σ with which two assessors' ordinal alpha on pooled documents is ``alpha``
    (bisection; the same draws for every σ, so alpha falls as σ grows)."""
    relevance = latent_relevance(rng, n, TYPICAL).ravel()
    first, second = rng.normal(size=(2, relevance.size))
    low, high = 0.0, 5.0
    for _ in range(30):
        noise = (low + high) / 2
        graded = np.clip(np.rint(relevance[:, None] + noise * np.stack([first, second], 1)), 0, 5)
        found = krippendorff_alpha(grade_counts(graded.astype(np.int64))).value
        assert found is not None
        low, high = (noise, high) if found > alpha else (low, noise)
    return (low + high) / 2


def preference_alpha(model: Model, rng: np.random.Generator, n: int = 2000) -> float | None:
    """Two assessors' nominal alpha on their choices of the seed pairs of the app's default
    plan (6 candidates by fusion, each against the next) of ``n`` queries (B better)."""
    queries = draw_queries(rng, n, replace(model, better=True))
    rows = []
    for query in range(n):
        relevance = queries.relevance[query]
        ranked = candidates({}, dict(enumerate(queries.fused[query].tolist())), 6)
        for a, b in seed_pairs(ranked):
            for rater in ("x", "y"):
                rows.append((query, a, b, rater, choice(relevance[a], relevance[b], model, rng)))
    frame = pd.DataFrame(rows, columns=["query_id", "doc_a", "doc_b", "rater", "choice"])
    return preference_agreement(frame).alpha.value


def graded_scores(
    queries: Queries, budgets: Sequence[int], noise: float, rng: np.random.Generator
) -> dict[int, np.ndarray]:
    """Each budget's (n, 2) NDCG@10 of runs A and B, from one assessor's grades of the first
    ``budget`` documents in fusion order (the same grades for every budget)."""
    n = len(queries)
    given = grades(queries.relevance, noise, rng)
    by_fusion = np.argsort(-queries.fused, axis=1, kind="stable")
    query_ids = np.char.add("q", np.arange(n).astype(str))
    places = np.tile(np.arange(1, POOL + 1), n)
    runs = {
        name: pd.DataFrame(
            {
                "query_id": np.repeat(query_ids, POOL),
                "doc_id": run.ravel().astype(str),
                "rank": places,
            }  # fmt: skip
        )
        for name, run in (("a", queries.run_a), ("b", queries.run_b))
    }
    scores = {}
    for budget in budgets:
        judged = by_fusion[:, :budget]
        qrels = pd.DataFrame(
            {
                "query_id": np.repeat(query_ids, budget),
                "doc_id": judged.ravel().astype(str),
                "grade": np.take_along_axis(given, judged, axis=1).ravel(),
            }
        )
        columns = []
        for run in runs.values():
            found = evaluate(run, qrels, Settings(ks=(TOP,)))
            values = pd.Series(found.values[f"ndcg@{TOP}"], index=found.query_ids)
            columns.append(values.reindex(query_ids).to_numpy())
        scores[budget] = np.stack(columns, axis=1)
    return scores


def candidates_for(budget: int) -> int:
    """How many candidates the plan compares for a budget of pairs (see the module's text)."""
    fewest = next(t for t in range(2, MAX_TOP + 1) if t * (t - 1) // 2 >= budget or t == MAX_TOP)
    return min(max(fewest, budget // 2 + 1), MAX_TOP)


def preference_scores(
    queries: Queries, budget: int, model: Model, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(n, 2) compatibility of runs A and B with the ideal ranking of one assessor's
    preferences (NaN where it is empty), and the preferences each query took."""
    rng = np.random.default_rng(seed)
    top = candidates_for(budget)
    scores = np.full((len(queries), 2), np.nan)
    used = np.zeros(len(queries), dtype=np.int64)
    for q in range(len(queries)):
        relevance = queries.relevance[q]
        ranked = candidates({}, dict(enumerate(queries.fused[q].tolist())), top)
        seeds = seed_pairs(ranked)
        chosen: list[tuple[int, int, str]] = []
        mine: set[tuple[int, int]] = set()
        while (pair := next_pair(seeds, ranked, chosen, mine, budget)) is not None:
            chosen.append((*pair, choice(relevance[pair[0]], relevance[pair[1]], model, rng)))
            mine.add(pair)
        used[q] = len(chosen)
        data = comparisons([str(c[0]) for c in chosen], [str(c[1]) for c in chosen],
                           [c[2] for c in chosen])  # fmt: skip
        groups = ideal_ranking(data).groups
        if groups:
            for column, run in enumerate((queries.run_a[q], queries.run_b[q])):
                scores[q, column] = compatibility([str(doc) for doc in run], groups)
    return scores, used


def preference_scores_parallel(
    queries: Queries, budget: int, model: Model, seed: int, workers: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`preference_scores` in ``CHUNKS`` pieces, on ``workers`` processes (1: here)."""
    bounds = np.linspace(0, len(queries), CHUNKS + 1).astype(int)
    parts = [queries.part(slice(lo, hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
    seeds = [seed * 1000 + budget * CHUNKS + k for k in range(CHUNKS)]
    if workers <= 1:
        done = [preference_scores(part, budget, model, s) for part, s in zip(parts, seeds)]
    else:
        with ProcessPoolExecutor(workers) as pool:
            done = list(
                pool.map(preference_scores, parts, [budget] * CHUNKS, [model] * CHUNKS, seeds)
            )
    return np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done])


def campaigns(rng: np.random.Generator, available: int, size: int, count: int) -> np.ndarray:
    """``count`` campaigns of ``size`` distinct queries of ``available``: (count, size)."""
    return np.argsort(rng.random((count, available)), axis=1)[:, :size]


def tell_apart(scores: np.ndarray, drawn: np.ndarray) -> tuple[float, float]:
    """Over the campaigns ``drawn`` of per-query ``scores`` (n, 2: A and B): the share where
    the paired t-test says B is better than A (p < LEVEL, B's mean higher), and the share
    where it says either is better. Queries without a score are left out."""
    better = either = 0
    for rows in drawn:
        a, b = scores[rows, 0], scores[rows, 1]
        kept = ~(np.isnan(a) | np.isnan(b))
        t, p = paired_t_test(b[kept], a[kept])
        if p < LEVEL:
            either += 1
            better += t > 0
    return better / len(drawn), either / len(drawn)


@dataclass(frozen=True)
class Row:
    budget: int
    queries: int
    graded_power: float
    preference_power: float
    graded_false: float
    preference_false: float
    pairs_used: float


def simulate(
    model: Model,
    simulated: int,
    campaign_count: int,
    budgets: Sequence[int] = BUDGETS,
    sizes: Sequence[int] = QUERIES,
    seed: int = 36,
    workers: int = 1,
) -> list[Row]:
    """The table's rows for ``model``: for each budget and number of queries, the power of
    each way of judging (B better) and its false-positive rate (same quality)."""
    shares: dict[tuple[bool, str, int, int], tuple[float, float]] = {}
    used: dict[int, float] = {}
    for better in (True, False):
        taken = replace(model, better=better)
        rng = np.random.default_rng([seed, better])
        queries = draw_queries(rng, simulated, taken)
        drawn = {size: campaigns(rng, simulated, size, campaign_count) for size in sizes}
        by_grades = graded_scores(queries, budgets, taken.noise, rng)
        for budget in budgets:
            by_preferences, pairs = preference_scores_parallel(
                queries, budget, taken, seed * 2 + better, workers
            )
            if better:
                used[budget] = float(pairs.mean())
            for size in sizes:
                for way, scores in (("graded", by_grades[budget]), ("preferences", by_preferences)):
                    shares[better, way, budget, size] = tell_apart(scores, drawn[size])
    return [
        Row(
            budget,
            size,
            shares[True, "graded", budget, size][0],
            shares[True, "preferences", budget, size][0],
            shares[False, "graded", budget, size][1],
            shares[False, "preferences", budget, size][1],
            used[budget],
        )
        for size in sizes
        for budget in budgets
    ]


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| judgments per query | queries | power, graded (NDCG@10) | power, preferences "
        "(Compat) | false positives, graded | false positives, preferences | pairs used |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {row.budget} | {row.queries} | {row.graded_power:.2f} | {row.preference_power:.2f} "
        f"| {row.graded_false:.3f} | {row.preference_false:.3f} | {row.pairs_used:.1f} |"
        for row in rows
    ]
    return "\n".join(lines)


def true_difference(model: Model, rng: np.random.Generator, n: int = 4000) -> float:
    """The mean difference of NDCG@10 of B and A (B better) with every document of the pool
    graded by its latent relevance, rounded: the effect the campaigns look for."""
    queries = draw_queries(rng, n, replace(model, better=True))
    scores = graded_scores(queries, [POOL], 0.0, rng)[POOL]
    return float(np.mean(scores[:, 1] - scores[:, 0]))


SCENARIOS = {
    "typical": ("a typical pool", TYPICAL, 1.0),
    "saturated": ("a saturated top (most documents relevant)", SATURATED, 1.0),
    "steadier": ("a typical pool, comparisons half as noisy as grades", TYPICAL, 0.5),
}
"""Each scenario's title, latent relevance's Beta shape and comparison noise (times σ)."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulated", type=int, default=1000,
                        help="queries simulated per setting (default 1,000)")  # fmt: skip
    parser.add_argument("--campaigns", type=int, default=1000,
                        help="campaigns drawn from them (default 1,000)")  # fmt: skip
    parser.add_argument("--alpha", type=float, default=0.55,
                        help="two assessors' ordinal alpha on grades (default 0.55)")  # fmt: skip
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS),
                        help="a scenario to run (repeatable; default all)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=36, help="numpy seed (default 36)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    noise = assessor_noise(args.alpha, np.random.default_rng(args.seed))
    print(f"assessor noise σ = {noise:.3f}: two assessors' ordinal alpha of grades {args.alpha}")
    for name in args.scenario or list(SCENARIOS):
        title, shape, comparison = SCENARIOS[name]
        model = Model(noise, shape, comparison)
        agreement = preference_alpha(model, np.random.default_rng(args.seed + 1))
        truth = true_difference(model, np.random.default_rng(args.seed + 2))
        print(
            f"\n{name}: {title}; latent relevance 5·Beta{shape}, comparison noise "
            f"{comparison:g}σ; two assessors' nominal alpha on the seed pairs' choices "
            f"{agreement:.2f}; true mean NDCG@{TOP} of B − A {truth:+.4f}\n"
        )
        rows = simulate(model, args.simulated, args.campaigns, seed=args.seed, workers=args.workers)
        print(table(rows))
    print(
        f"\n{args.simulated:,} queries simulated per setting, {args.campaigns:,} campaigns "
        f"drawn of each size; {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
