"""How many queries are enough (``judge-app plan``, the evaluation page's planning panel): the
queries a paired t-test needs to detect a difference Δ in mean NDCG@k with the power asked
for (Sakai's topic set size design, ``metrics.sample_size``), with the variance of per-query
differences estimated from the campaign's runs, and what judging them would cost at the
campaign's own pace: queries × the pool of a query (its distinct documents in the top d of
the runs) × raters per query, in judgments, and × the median seconds of a judgment, in hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import JudgeAppError, UsageError
from judge_app.evaluation.options import EvaluationOptions
from judge_app.io.exports import csv_text
from judge_app.metrics.ranking import k_label
from judge_app.metrics.sample_size import (
    TooFewQueries,
    VarianceEstimate,
    difference_variance,
    paired_t_power,
    queries_needed,
)
from judge_app.options import require_finite, require_whole
from judge_app.writers.json_document import json_document

if TYPE_CHECKING:
    from judge_app.evaluation.result import EvaluationResult
    from judge_app.store import Database
    from judge_app.store.judging_cost import JudgingCost

DELTAS = (0.01, 0.02, 0.03, 0.05, 0.1)
"""The differences of the small table beside the one asked for."""


@dataclass(frozen=True)
class PlanOptions:
    """The plan asked for: the difference ``delta`` in mean NDCG@``k`` to detect with
    ``power`` by the two-sided paired t-test at level ``alpha``; the ``runs`` whose per-query
    differences give the variance (None: all); the pool of a query, its documents in the top
    ``pool_depth`` (None: k) of those runs; ``raters_per_query`` (None: the campaign's mean)."""

    delta: float
    power: float = 0.8
    alpha: float = 0.05
    k: int | None = 10
    runs: tuple[str, ...] | None = None
    pool_depth: int | None = None
    raters_per_query: float | None = None

    def checked(self) -> PlanOptions:
        """These options, or a usage error naming the first that is wrong."""
        require_finite("delta", self.delta)
        if not 0 < self.delta <= 1:
            raise UsageError("takes a difference of mean NDCG above 0 and at most 1", "delta")
        require_finite("alpha", self.alpha)
        if not 0 < self.alpha < 1:
            raise UsageError("takes a significance level above 0 and below 1", "alpha")
        require_finite("power", self.power)
        if not self.alpha < self.power < 1:
            raise UsageError(
                f"takes a probability above --alpha ({self.alpha:g}) and below 1", "power"
            )
        if self.k is not None:
            require_whole("k", self.k, 1, note=", or all")
        if self.pool_depth is not None:
            require_whole("pool-depth", self.pool_depth, 1)
        if self.runs is not None and (not self.runs or len(set(self.runs)) != len(self.runs)):
            raise UsageError("needs names, each once", "runs")
        if self.raters_per_query is not None:
            require_finite("raters-per-query", self.raters_per_query)
            if self.raters_per_query <= 0:
                raise UsageError("takes a number above 0", "raters-per-query")
        return self

    @property
    def depth(self) -> int | None:
        """The pool depth: ``pool_depth``, else k (None: every result)."""
        return self.k if self.pool_depth is None else self.pool_depth

    def evaluation(self) -> EvaluationOptions:
        """The evaluation the per-query scores come from: NDCG@k of the runs, as ``eval``'s
        defaults compute it."""
        return EvaluationOptions(ks=(self.k,), runs=self.runs)

    def record(self) -> dict[str, object]:
        return {
            "delta": self.delta,
            "power": self.power,
            "alpha": self.alpha,
            "k": k_label(self.k),
            "runs": list(self.runs) if self.runs else "all",
            "pool_depth": k_label(self.depth),
            "raters_per_query": self.raters_per_query,
        }


@dataclass(frozen=True)
class Pace:
    """The campaign's cost of judging a query: ``pool_size`` documents on average (over
    ``pool_queries`` queries), each judged by ``raters_per_query`` raters (``measured``: the
    campaign's mean, else given), each judgment taking ``seconds`` (the median of ``timed``
    judgments; None when none was timed)."""

    pool_size: float
    pool_queries: int
    raters_per_query: float | None
    measured: bool
    seconds: float | None
    timed: int

    def judgments(self, queries: int) -> float | None:
        """The judgments ``queries`` queries take (None: raters per query unknown)."""
        if self.raters_per_query is None:
            return None
        return queries * self.pool_size * self.raters_per_query

    def hours(self, queries: int) -> float | None:
        """The hours of judging ``queries`` queries take (None: no time or raters known)."""
        judgments = self.judgments(queries)
        if judgments is None or self.seconds is None:
            return None
        return judgments * self.seconds / 3600


@dataclass(frozen=True)
class Need:
    """To detect ``delta`` (``effect_size`` = Δ/σ): ``queries`` needed; the ``current_power``
    of the queries the campaign has (None: fewer than two); their judging cost."""

    delta: float
    effect_size: float
    queries: int
    current_power: float | None
    judgments: float | None
    hours: float | None

    def record(self) -> dict[str, object]:
        return {
            "delta": self.delta,
            "effect_size": self.effect_size,
            "queries_needed": self.queries,
            "current_power": self.current_power,
            "judgments": self.judgments,
            "hours": self.hours,
        }


@dataclass(frozen=True)
class Plan:
    """The queries needed for ``options``' Δ (``need``) and for the table's (``table``), from
    the ``variance`` of per-query differences of ``label`` (NDCG@k); the ``current`` number of
    queries (scored by every run) and the judging ``pace`` of ``source``."""

    source: str
    options: PlanOptions
    label: str
    variance: VarianceEstimate
    current: int
    need: Need
    table: list[Need]
    pace: Pace

    @property
    def enough(self) -> bool:
        """Does the campaign have the queries needed?"""
        return self.current >= self.need.queries

    @property
    def more_queries(self) -> int:
        """The queries still to judge (0 if enough)."""
        return max(0, self.need.queries - self.current)

    def sentence(self) -> str:
        """The plan in words: "To detect a difference of 0.02 in NDCG@10 with 80% power at
        0.05 you need 212 queries (you have 50); judging them takes about 9,300 judgments,
        21 hours at 8.1 s each"."""
        options, need, pace = self.options, self.need, self.pace
        text = (
            f"To detect a difference of {options.delta:g} in {self.label} with "
            f"{_percent(options.power)} power at {options.alpha:g} you need "
            f"{need.queries:,} {_queries(need.queries)} (you have {self.current:,})"
        )
        if need.judgments is None:
            return text + "; how many judgments they take needs --raters-per-query."
        text += f"; judging them takes about {_about(need.judgments)} judgments"
        if need.hours is None or pace.seconds is None:
            return text + " (no judgment was timed: their hours are unknown)."
        return text + f", {_hours(need.hours)} at {pace.seconds:.1f} s each."

    def record(self) -> dict[str, object]:
        """The plan as JSON-ready values, in full precision."""
        variance, pace = self.variance, self.pace
        return {
            "source": self.source,
            "measure": self.label,
            "test": "paired t-test, two-sided",
            "options": self.options.record(),
            "variance": {
                "value": variance.variance,
                "deviation": variance.deviation,
                "method": "pooled pairs" if variance.pooled else "twice one run's",
                "runs": list(variance.runs),
                "pairs": variance.pairs,
                "queries": variance.queries,
                "df": variance.df,
                "description": variance.describe(),
            },
            "current_queries": self.current,
            "enough": self.enough,
            **self.need.record(),
            "cost": {
                "pool_size": pace.pool_size,
                "pool_queries": pace.pool_queries,
                "pool_depth": k_label(self.options.depth),
                "raters_per_query": pace.raters_per_query,
                "raters_measured": pace.measured,
                "median_seconds": pace.seconds,
                "timed_judgments": pace.timed,
                "more_queries": self.more_queries,
                "more_judgments": pace.judgments(self.more_queries),
                "more_hours": pace.hours(self.more_queries),
            },
            "sentence": self.sentence(),
            "deltas": [need.record() for need in self.table],
        }

    def as_text(self, output: str) -> str:
        """The plan as ``table`` (rounded, for people), ``json`` or ``csv`` (in full)."""
        if output == "json":
            return json_document(self.record(), indent=2)
        if output == "csv":
            return self._csv()
        return self._table()

    def _csv(self) -> str:
        """One row per Δ of the table, numbers in full."""
        import pandas as pd

        rows = [
            {
                **need.record(),
                "asked": need.delta == self.options.delta,
                "current_queries": self.current,
                "enough": self.current >= need.queries,
                "variance": self.variance.variance,
            }
            for need in self.table
        ]
        return csv_text(pd.DataFrame(rows))

    def _table(self) -> str:
        options, need, pace = self.options, self.need, self.pace
        verdict = "enough" if self.enough else f"{self.more_queries:,} more needed"
        lines = [
            self.sentence(),
            "",
            f"Test: two-sided paired t-test on per-query {self.label}, "
            f"α = {options.alpha:g}, power {_percent(options.power)}.",
            f"Variance of per-query differences: {self.variance.variance:.6f} "
            f"(σ = {self.variance.deviation:.4f}), {self.variance.describe()}.",
            f"Queries needed for Δ = {options.delta:g} (Δ/σ = {need.effect_size:.4f}): "
            f"{need.queries:,}; the campaign has {self.current:,} ({verdict}).",
            f"Power of its {self.current:,} queries for that Δ: {_power_text(need.current_power)}.",
            self._pace_line(),
        ]
        header = ("Δ", "queries", "power now", "judgments", "hours")
        rows = [
            (
                f"{row.delta:g}",
                f"{row.queries:,}",
                _power_text(row.current_power),
                "–" if row.judgments is None else f"{row.judgments:,.0f}",
                "–" if row.hours is None else f"{row.hours:,.1f}",
            )
            for row in self.table
        ]
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines.append("")
        for row in [header, *rows]:
            lines.append("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
        if pace.seconds is None:
            lines.append("No judgment was timed (imported ones carry no time): hours unknown.")
        return "\n".join(lines) + "\n"

    def _pace_line(self) -> str:
        pace = self.pace
        depth = k_label(self.options.depth)
        pool = (
            f"{pace.pool_size:.1f} documents a query (distinct in the top {depth} of the runs, "
            f"over {pace.pool_queries:,} queries)"
        )
        if pace.raters_per_query is None:
            return f"Judging cost: {pool}; no rater has judged: give --raters-per-query."
        raters = f"{pace.raters_per_query:.2f} raters a query" + (
            " (the campaign's mean)" if pace.measured else ""
        )
        seconds = (
            "no judgment timed"
            if pace.seconds is None
            else f"{pace.seconds:.1f} s a judgment (median of {pace.timed:,} timed)"
        )
        return f"Judging cost: {pool} × {raters} × {seconds}."


def _percent(value: float) -> str:
    """``80%``, ``97.5%``."""
    return f"{100 * value:.4g}%"


def _power_text(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _queries(count: int) -> str:
    return "query" if count == 1 else "queries"


def _about(value: float) -> str:
    """A count to two significant figures, as said aloud: ``9,300``, ``45``, ``0``."""
    if value < 1:
        return f"{value:.2g}"
    rounded = round(value, 1 - int(math.floor(math.log10(value))))
    return f"{rounded:,.0f}"


def _hours(hours: float) -> str:
    """``21 hours``, ``1.5 hours``, ``40 minutes``: two significant figures."""
    if hours < 1:
        return f"{_about(hours * 60)} minutes"
    text = _about(hours) if hours >= 10 else f"{hours:.2g}"
    return f"{text} {'hour' if text == '1' else 'hours'}"


def scores_matrix(evaluation: EvaluationResult, measure: str) -> tuple[list[str], np.ndarray]:
    """The runs of ``evaluation`` and their per-query ``measure`` as a queries × runs matrix
    over every query any run scored (NaN where a run did not)."""
    runs = list(evaluation.evaluations)
    ids = [np.asarray(evaluation.evaluations[run].query_ids, dtype=object) for run in runs]
    queries = np.unique(np.concatenate(ids)) if ids else np.array([], dtype=object)
    matrix = np.full((len(queries), len(runs)), np.nan)
    for column, (run, own) in enumerate(zip(runs, ids)):
        rows = np.searchsorted(queries, own)
        matrix[rows, column] = evaluation.evaluations[run].values[measure]
    return runs, matrix


def pace_of(cost: JudgingCost, raters_per_query: float | None) -> Pace:
    """The judging pace the campaign's ``cost`` shows (raters per query as given, if)."""
    if not len(cost.pool_sizes):
        raise JudgeAppError("the runs list no result: no pool to plan the judging of")
    measured = raters_per_query is None
    if measured:
        raters_per_query = float(np.mean(cost.raters)) if len(cost.raters) else None
    return Pace(
        pool_size=float(np.mean(cost.pool_sizes)),
        pool_queries=len(cost.pool_sizes),
        raters_per_query=raters_per_query,
        measured=measured,
        seconds=float(np.median(cost.seconds)) if len(cost.seconds) else None,
        timed=len(cost.seconds),
    )


def plan(
    options: PlanOptions, evaluation: EvaluationResult, cost: JudgingCost, source: str
) -> Plan:
    """The plan of ``options`` from an ``evaluation`` at NDCG@k (its runs' per-query scores)
    and the judging ``cost`` of the same campaign (``source``), pooled over the same runs."""
    options.checked()
    measure = f"ndcg@{k_label(options.k)}"
    label = f"NDCG@{k_label(options.k)}"
    runs, matrix = scores_matrix(evaluation, measure)
    try:
        variance = difference_variance(runs, matrix)
    except TooFewQueries as error:
        raise JudgeAppError(f"{source}: too few queries to estimate a variance: {error}") from None
    if variance.variance == 0:
        raise JudgeAppError(
            f"{source}: the per-query {label} differences do not vary (variance 0): "
            "they give no number of queries"
        )
    current = int(np.count_nonzero(~np.isnan(matrix).any(axis=1)))
    pace = pace_of(cost, options.raters_per_query)

    def need(delta: float) -> Need:
        effect_size = delta / variance.deviation
        queries = queries_needed(effect_size, options.power, options.alpha)
        return Need(
            delta=delta,
            effect_size=effect_size,
            queries=queries,
            current_power=(
                paired_t_power(current, effect_size, options.alpha) if current >= 2 else None
            ),
            judgments=pace.judgments(queries),
            hours=pace.hours(queries),
        )

    table = [need(delta) for delta in sorted({*DELTAS, options.delta})]
    asked = next(row for row in table if row.delta == options.delta)
    return Plan(source, options, label, variance, current, asked, table, pace)


def read_judging_cost(
    database: Database | str, depth: int | None, runs: list[str] | None
) -> JudgingCost:
    """The judging cost of ``database`` (an open one, or a path or URL, opened read-only):
    pools of the top ``depth`` of ``runs`` (None: all)."""
    from judge_app.store.database import opened
    from judge_app.store.judging_cost import judging_cost

    with opened(database, read_only=True) as found, found.reading() as session:
        return judging_cost(session, depth, runs)


def plan_of(database: Database | str, options: PlanOptions) -> Plan:
    """``plan`` for ``database`` (an open one, or a path or URL, opened read-only): its runs
    evaluated at NDCG@k as ``eval --db`` does by default, and its judging cost, read in one
    snapshot."""
    from judge_app.commands.campaign import campaign_of
    from judge_app.commands.evaluate import evaluate
    from judge_app.evaluation.options import EvaluationRequest
    from judge_app.store.database import opened
    from judge_app.store.judging_cost import judging_cost

    options.checked()
    with opened(database, read_only=True) as found, found.reading() as session:
        source = database if isinstance(database, str) else found.describe()
        campaign = campaign_of(session, source, queries=False, automatic=False)
        evaluation = evaluate(EvaluationRequest(options.evaluation()), campaign)
        cost = judging_cost(session, options.depth, list(evaluation.evaluations))
    return plan(options, evaluation, cost, source)
