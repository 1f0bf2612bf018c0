"""What to judge next (``judge-app sample``, the Pooling dialog's query order): an active
sample of queries for an automatic judge (``metrics.active_order``), with the interval width it
is expected to give beside a uniform random sample's; shown only, or (``apply``) stored as the
order raters take their queries in.

Each query's scale comes from the judge's grades of the pooled runs' top k, how much human
grades varied given the judge's on the pairs both graded (humans' aggregated by the mean, an
adjudicated grade preferred, as evaluation does by default) and the judge's IDCG@k. The sample
is drawn over the queries the pooled runs returned results for. ``eval --judge`` with the same
judge then weights the labelled queries by their inclusion probabilities
(``commands.prediction_powered``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import UsageError
from judge_app.evaluation.options import EvaluationOptions
from judge_app.metrics import active_order
from judge_app.metrics.ranking import Evaluation, k_label
from judge_app.options import require_whole
from judge_app.writers.json_document import json_document

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.evaluation.campaign import Campaign
    from judge_app.store import Database
    from judge_app.store.rater_queue import PoolSettings

BUDGET_SHARES = (0.1, 0.25, 0.5)
"""The budgets shown when none is asked for, as shares of the queries."""

ORDER_SHOWN = 20
"""How many queries of the order the table names."""


@dataclass(frozen=True)
class ActiveSamplingOptions:
    """An active sample for the automatic ``judge``, drawn with ``seed`` for NDCG@``k``
    (None: all), with the expected interval at ``budgets`` queries (none: 10%, 25% and 50% of
    the queries); ``apply``: store it as the raters' query order (else it is only shown);
    ``off``: back to the order queries were assigned in."""

    judge: str | None = None
    seed: int = 0
    k: int | None = 10
    budgets: tuple[int, ...] = ()
    apply: bool = False
    off: bool = False

    def checked(self) -> ActiveSamplingOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.off:
            if self.judge is not None or self.budgets or self.apply:
                raise UsageError(
                    "returns to the assigned order at once: it takes no --judge, --budget or "
                    "--apply",
                    "off",
                )
            return self
        if self.judge is None or not self.judge.strip():
            raise UsageError("NAME: the automatic judge to sample for (or --off)", "judge")
        require_whole("seed", self.seed, 0)
        if self.k is not None:
            require_whole("k", self.k, 1, note=", or all")
        for budget in self.budgets:
            require_whole("budget", budget, 1)
        return self


@dataclass(frozen=True)
class Budget:
    """The expected 95% half-width at ``queries`` queries of the active order and of a
    uniform random sample, and how many of those queries are ``left`` to judge completely."""

    queries: int
    left: int
    active: float
    uniform: float


@dataclass(frozen=True)
class ActiveSample:
    """A drawn sample: the ``judge`` it is for, the query ids in queue ``order`` with their
    ``scales`` and ``keys``, the ``labelled`` queries (judged completely by humans already),
    the ``variance`` of human grades given the judge's and the expected widths (``design``);
    ``applied`` once stored as the raters' order."""

    judge: str
    seed: int
    k: int | None
    runs: tuple[str, ...]
    order: tuple[str, ...]
    scales: tuple[float, ...]
    keys: tuple[float, ...]
    labelled: frozenset[str]
    variance: active_order.GradeVariance
    design: active_order.ActiveDesign
    applied: bool = False

    @property
    def judged_start(self) -> int:
        """How many queries the longest start of the order judged completely holds: those
        ``eval --judge`` weights once the sample is the raters' order."""
        from judge_app.evaluation.corrected import Design

        drawn, _ = Design(self.order, self.scales).drawn(set(self.labelled))
        return len(drawn)

    def budgets(self, asked: tuple[int, ...] = ()) -> list[Budget]:
        """The expected widths at ``asked`` queries (none: ``BUDGET_SHARES`` of them)."""
        total = len(self.order)
        sizes = asked or tuple(
            dict.fromkeys(max(1, round(share * total)) for share in BUDGET_SHARES)
        )
        return [
            Budget(
                queries=min(size, total),
                left=sum(query not in self.labelled for query in self.order[:size]),
                active=self.design.half_width(size),
                uniform=self.design.half_width(size, uniform=True),
            )
            for size in sizes
        ]

    def sentence(self, queries: int) -> str:
        """``Expected ±0.021 at 40 queries (random order: ±0.028)``."""
        budget = self.budgets((queries,))[0]
        return (
            f"Expected ±{budget.active:.3f} at {budget.queries:,} queries "
            f"(random order: ±{budget.uniform:.3f})"
        )

    @property
    def default_budget(self) -> int:
        """The budget a sentence names by default: a quarter of the queries."""
        return max(1, round(0.25 * len(self.order)))

    def as_text(self, output: str, asked: tuple[int, ...] = ()) -> str:
        """The sample as ``sample --format`` prints it: ``table`` (rounded) or ``json`` (in
        full, with every query's scale and key in queue order)."""
        budgets = self.budgets(asked)
        if output == "json":
            document = {
                "judge": self.judge,
                "seed": self.seed,
                "k": k_label(self.k),
                "runs": list(self.runs),
                "queries": len(self.order),
                "labelled_queries": len(self.labelled),
                "judged_start": self.judged_start,
                "applied": self.applied,
                "shared_pairs": self.variance.shared,
                "variance_by_judge_grade": list(self.variance.by_grade),
                "budgets": [
                    {
                        "queries": budget.queries,
                        "left_to_judge": budget.left,
                        "half_width": _finite(budget.active),
                        "uniform_half_width": _finite(budget.uniform),
                    }
                    for budget in budgets
                ],
                "order": [
                    {"query_id": query, "scale": scale, "key": key}
                    for query, scale, key in zip(self.order, self.scales, self.keys)
                ],
            }
            return json_document(document, indent=2)
        from judge_app.writers.tables import text_table

        rows: list[dict[str, object]] = [
            {
                "queries": f"{budget.queries:,}",
                "left to judge": f"{budget.left:,}",
                "active order": f"±{budget.active:.4f}",
                "random order": f"±{budget.uniform:.4f}",
            }
            for budget in budgets
        ]
        head = (
            f"Active sample for {self.judge} (seed {self.seed}): {len(self.order):,} queries of "
            f"{', '.join(self.runs)}, NDCG@{k_label(self.k)}; {len(self.labelled):,} judged "
            f"completely already; human grades given the judge's from "
            f"{self.variance.shared:,} pairs both graded."
        )
        return (
            f"{head}\nExpected 95% half-width of each run's mean and difference (root mean "
            f"square) by prediction-powered inference:\n{text_table(rows)}\n"
            f"{self._order_line()}\n{self._consequence()}\n"
        )

    def _order_line(self) -> str:
        """The order, its first ``ORDER_SHOWN`` queries at most."""
        shown = ", ".join(self.order[:ORDER_SHOWN])
        more = len(self.order) - ORDER_SHOWN
        if more > 0:
            shown += f" and {more:,} more (--format json lists them all)"
        verb = "take" if self.applied else "would take"
        return f"Order raters {verb} their assigned queries in: {shown}."

    def _consequence(self) -> str:
        """What was stored, or how to store it, and what ``eval --judge`` weights then."""
        start, labelled = self.judged_start, len(self.labelled)
        if not labelled:
            counted = "no query is judged completely yet"
        elif start == labelled:
            counted = f"all {labelled:,} queries judged completely so far"
        else:
            counted = (
                f"{start:,} of the {labelled:,} queries judged completely so far; the other "
                f"{labelled - start:,} come after a query not yet judged"
            )
        if self.applied:
            return (
                "Stored: raters now take their assigned queries in this order, and eval "
                f"--judge {self.judge} weights the longest start of it judged completely: "
                f"{counted}."
            )
        return (
            "Nothing was stored: to make this the raters' order, run the same command with "
            f"--apply.\nApplied, eval --judge {self.judge} would weight the longest start of "
            f"this order judged completely: {counted}."
        )


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def draw(campaign: Campaign, options: ActiveSamplingOptions, pool: PoolSettings) -> ActiveSample:
    """The active sample of ``campaign``'s queries for the options' judge, over the runs
    ``pool`` chooses (nothing is written)."""
    import pandas as pd

    from judge_app.commands.evaluate import evaluate
    from judge_app.evaluation.corrected import labelled_queries
    from judge_app.evaluation.options import EvaluationRequest
    from judge_app.names import known_name

    options = options.checked()
    assert options.judge is not None
    judge_grades = campaign.automatic_grades(options.judge)  # a usage error if unknown
    judge = known_name(options.judge, campaign.judges) or options.judge
    runs = tuple(
        campaign.runs if pool.runs is None else [r for r in campaign.runs if r in pool.runs]
    )
    if not runs:
        raise UsageError(f"{campaign.source} holds no run results of the pool: import a run first")
    evaluation = EvaluationOptions(ks=(options.k,), runs=runs)
    by_judge = EvaluationRequest(replace(evaluation, judge=judge, grades="automatic"))
    automatic = evaluate(by_judge, campaign).evaluations
    labelled: set[str] = set()
    if len(campaign.graded.query):
        humans = evaluate(EvaluationRequest(evaluation), campaign).evaluations
        labelled = labelled_queries(humans, options.k)

    results = campaign.results
    results = results[results["run"].isin(runs)]
    if options.k is not None:
        results = results[results["rank"] <= options.k]
    queries = np.array(sorted(set(results["query_id"].astype(str))), dtype=object)
    human = campaign.aggregated_grades()
    shared = judge_grades.merge(human, on=["query_id", "doc_id"], suffixes=("_judge", "_human"))
    variance = active_order.grade_variance(
        shared["grade_judge"].to_numpy(), shared["grade_human"].to_numpy()
    )
    rows = results.merge(judge_grades, on=["query_id", "doc_id"], how="left")
    query_code = pd.Index(queries).get_indexer(rows["query_id"].astype(str))
    doc_code, _ = pd.factorize(rows["doc_id"])
    run_code, _ = pd.factorize(rows["run"])
    label = f"idcg@{k_label(options.k)}"
    ideal_of: dict[str, float] = {}
    for run_evaluation in automatic.values():
        ideal_of.update(zip(run_evaluation.query_ids, run_evaluation.values[label].tolist()))
    ideal = np.array([ideal_of.get(query, 0.0) for query in queries], dtype=np.float64)
    scales = active_order.floored(
        active_order.query_scales(
            query_code,
            doc_code,
            run_code,
            rows["rank"].to_numpy(),
            variance.of(rows["grade"].to_numpy(dtype=np.float64)),
            ideal,
            options.k,
        )
    )
    keys = active_order.order_keys(scales, options.seed)
    order = np.argsort(keys, kind="stable")
    judge_variance, estimands = _judge_variance(automatic, f"ndcg@{k_label(options.k)}")
    return ActiveSample(
        judge=judge,
        seed=options.seed,
        k=options.k,
        runs=runs,
        order=tuple(str(query) for query in queries[order]),
        scales=tuple(scales[order].tolist()),
        keys=tuple(keys[order].tolist()),
        labelled=frozenset(labelled),
        variance=variance,
        design=active_order.ActiveDesign(scales, judge_variance, estimands),
    )


def _judge_variance(automatic: dict[str, Evaluation], measure: str) -> tuple[float, int]:
    """The variance over queries of the judge's values of each run and of each difference
    of two runs, summed, and how many of them there are."""
    values = {
        run: dict(zip(evaluation.query_ids, evaluation.values[measure].tolist()))
        for run, evaluation in automatic.items()
    }
    parts = [list(run.values()) for run in values.values()]
    for first, second in combinations(values.values(), 2):
        parts.append([second[query] - value for query, value in first.items() if query in second])
    total = sum(float(np.var(part)) for part in parts if len(part) > 1)
    return total, len(parts)


def _stored(session: Session, sample: ActiveSample, pool: PoolSettings) -> None:
    """Write ``sample`` in place of any earlier one and ``pool`` with the active query order."""
    from judge_app.store.active_sample import replace_named_active_sample
    from judge_app.store.rater_queue import set_pool_settings

    drawn = zip(sample.order, sample.scales, sample.keys)
    replace_named_active_sample(session, sample.judge, drawn)
    set_pool_settings(session, replace(pool, query_order="active"))


def sample_queries(
    database: Database | str, options: ActiveSamplingOptions, pool: PoolSettings | None = None
) -> ActiveSample | None:
    """Draw the options' sample of ``database`` (an open one, or a path or URL, opened
    read-only unless the sample is to be stored or the order given up) over the runs ``pool``
    chooses (None: the stored pooling); with ``apply``, store it and make it the raters'
    order, ``pool`` saved in the same unit of work (else nothing is written); with ``off``,
    save the pooling with the assigned order instead (None)."""
    from judge_app.store.database import opened

    options = options.checked()
    with opened(database, read_only=not (options.apply or options.off)) as found:
        return _sampled(found, options, pool)


def _sampled(
    database: Database, options: ActiveSamplingOptions, pool: PoolSettings | None
) -> ActiveSample | None:
    """``sample_queries`` on the open ``database``."""
    from judge_app.commands.campaign import load_campaign
    from judge_app.store.rater_queue import pool_settings, set_pool_settings

    if pool is None:
        with database.reading() as session:
            pool = pool_settings(session)
    if options.off:
        assigned = replace(pool, query_order="assigned")
        database.write(lambda session: set_pool_settings(session, assigned))
        return None
    sample = draw(load_campaign(database, queries=False), options, pool)
    if not options.apply:
        return sample
    database.write(lambda session: _stored(session, sample, pool))
    return replace(sample, applied=True)
