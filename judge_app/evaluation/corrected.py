"""Each run's mean from few human grades and an automatic judge's grades of everything, by
prediction-powered inference (``metrics.ppi``): part of an evaluation whose options ask for
``grades`` ``corrected``.

The unit is the query. A query is *labelled* when humans judged the top k of every run
evaluated completely: its human value (NDCG@k, or the leading named measure) is then what
the estimate is of. The judge's value of the same measure is computed on its own grades for
every query it graded. The labelled queries give the rectifier (human − judge), the others
the judge's values alone. The interval is valid when the labelled queries are a random sample
of the queries, which judging in the raters' assigned order does not guarantee: the result
says which it assumes. Where raters follow an active sample drawn for the judge, its judged
start is the sample, each query weighted by the inverse of its inclusion probability.

What a lead reads is possible: every interval lies in the measure's range; below
``MIN_LABELLED`` labelled queries the corrected and design-weighted estimates give a mean and
no interval (the simulation of ``tests/ppi_simulation.py`` chose it), which the writers say in
words; the queries humans alone would need never exceed the campaign's, and the grades saved
never exceed those the campaign could still ask for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics import active_order, ppi
from judge_app.metrics.intervals import difference_range, measure_range
from judge_app.metrics.measure_names import SUM, aggregate_of
from judge_app.metrics.ranking import Evaluation, k_label

if TYPE_CHECKING:
    from judge_app.evaluation.judge_quality import JudgeQuality
    from judge_app.evaluation.options import EvaluationOptions

MIN_LABELLED = 10
"""The fewest labelled queries a corrected or design-weighted interval is given at. Over the
4,000 generated campaigns of ``tests/ppi_simulation.py`` every estimate's intervals covered the
truth 93–96% of the time from 10 labelled queries on; at 8 the design-weighted humans-only
ones covered 92.8% (the prediction-powered ones 94.0–94.7%, the humans-only t interval of a
random sample 93.7%, which the evaluation gives from 2 queries on)."""


@dataclass(frozen=True)
class Design:
    """The active sample raters follow (``judge-app sample``): its query ids in queue order
    (ascending key) and each one's scale."""

    order: tuple[str, ...]
    scales: tuple[float, ...]

    def drawn(self, labelled: set[str]) -> tuple[dict[str, float], int]:
        """The sample the ``labelled`` queries make: the longest start of the order whose
        queries are all labelled, each with its inclusion probability at that size; and how
        many labelled queries after it are left out."""
        size = 0
        while size < len(self.order) and self.order[size] in labelled:
            size += 1
        probability = active_order.inclusion_probabilities(np.asarray(self.scales), size)
        drawn = dict(zip(self.order[:size], probability[:size].tolist()))
        return drawn, len(labelled - set(drawn))


@dataclass(frozen=True)
class Corrected:
    """One run's mean (or the difference of two runs') three ways: by humans alone on the
    labelled queries, by the judge alone on every query it graded (biased as the judge is),
    and prediction-powered (humans corrected by the judge), with the labelled queries humans
    alone would need for the corrected interval's width (at most every query) and the human
    grades that saves (at most those the campaign could still ask for)."""

    name: str
    humans: ppi.Estimate
    automatic: ppi.Estimate
    corrected: ppi.Estimate
    equivalent_queries: float
    grades_saved: float


@dataclass(frozen=True)
class PredictionPowered:
    """Every run's ``Corrected`` estimate and each other run's difference from the first,
    on the leading ``measure``, with the judge and its ``quality``; whether the labelled
    queries are the active sample drawn for the judge (``sampled``; ``left_out``: those
    judged completely after its first query not yet judged), the fewest labelled queries an
    interval is given at (``minimum``) and whether the judge learned too little to correct
    the humans with (``fallback``: every corrected estimate is the humans' own)."""

    judge: str
    measure: str  # as people read it: NDCG@10, AP, NumRet (mean per query)
    runs: dict[str, Corrected]
    differences: list[Corrected] = field(default_factory=list)
    labelled: list[str] = field(default_factory=list)  # the labelled queries
    queries: int = 0  # every query with a value, by humans or by the judge
    grades_per_query: float = float("nan")  # human grades per labelled query
    sampled: bool = False
    left_out: int = 0
    minimum: int = MIN_LABELLED
    quality: JudgeQuality | None = None
    fallback: bool = False

    @property
    def estimates(self) -> list[Corrected]:
        """The runs', then the differences'."""
        return [*self.runs.values(), *self.differences]

    @property
    def too_few(self) -> bool:
        """Are there too few labelled queries for a corrected interval?"""
        return len(self.labelled) < self.minimum


def labelled_queries(evaluations: dict[str, Evaluation], k: int | None) -> set[str]:
    """The queries whose top ``k`` every run has completely judged by humans (a run without
    the query asks nothing of it)."""
    key = f"judged@{k_label(k)}"
    complete: dict[str, bool] = {}
    for evaluation in evaluations.values():
        for query, judged in zip(evaluation.query_ids, evaluation.values[key]):
            complete[query] = complete.get(query, True) and bool(judged >= 1)
    return {query for query, done in complete.items() if done}


def estimate(
    options: EvaluationOptions,
    humans: dict[str, Evaluation],
    automatic: dict[str, Evaluation],
    grades_per_query: dict[str, int],
    design: Design | None = None,
    minimum: int = MIN_LABELLED,
) -> PredictionPowered:
    """The prediction-powered estimates of every run of ``humans`` (evaluated on human
    grades) given ``automatic`` (the same runs evaluated on the judge's grades), on the
    options' leading measure; ``grades_per_query`` counts the human grades of each query.
    With the active ``design`` raters followed for this judge, the labelled queries are its
    sample (``Design.drawn``), each weighted by the inverse of its inclusion probability.
    Below ``minimum`` labelled queries the corrected and design-weighted estimates have no
    interval (the coverage simulation asks for every interval, to choose the minimum)."""
    assert options.judge is not None
    measure = options.measure
    labelled = labelled_queries(humans, options.k) & _queries(automatic)
    probability: dict[str, float] | None = None
    left_out = 0
    if design is not None:
        probability, left_out = design.drawn(labelled)
        labelled = set(probability)
    everything = _queries(automatic) | {q for e in humans.values() for q in e.query_ids}
    counted = [grades_per_query.get(query, 0) for query in labelled]
    per_query = float(np.mean(counted)) if counted else float("nan")
    context = _Context(labelled, per_query, probability, len(everything), minimum)
    human_values = {run: _values(evaluation, measure) for run, evaluation in humans.items()}
    judge_values = {run: _values(evaluation, measure) for run, evaluation in automatic.items()}
    runs = {
        run: context.corrected(run, human_values[run], judge_values[run], measure_range(measure))
        for run in humans
    }
    names = list(humans)
    differences = [
        context.corrected(
            f"{other} − {names[0]}",
            _minus(human_values[other], human_values[names[0]]),
            _minus(judge_values[other], judge_values[names[0]]),
            difference_range(measure),
        )
        for other in names[1:]
    ]
    label = options.leading_label
    if aggregate_of(measure) == SUM:
        label += " (mean per query)"
    return PredictionPowered(
        judge=options.judge,
        measure=label,
        runs=runs,
        differences=differences,
        labelled=sorted(labelled),
        queries=len(everything),
        grades_per_query=per_query,
        sampled=probability is not None,
        left_out=left_out,
        minimum=minimum,
    )


@dataclass(frozen=True)
class _Context:
    """What every estimate of one evaluation shares: the labelled queries, the human grades
    a labelled query took, the design's inclusion probabilities (None: assigned order), how
    many queries there are and the fewest labelled queries an interval is given at."""

    labelled: set[str]
    grades_per_query: float
    probability: dict[str, float] | None
    queries: int
    minimum: int

    def corrected(
        self,
        name: str,
        humans: dict[str, float],
        judge: dict[str, float],
        bounds: tuple[float, float],
    ) -> Corrected:
        """``name``'s three estimates from per-query values by humans and by the judge."""
        automatic = ppi.classical(np.array(list(judge.values()), dtype=np.float64), bounds=bounds)
        if self.probability is not None:
            human_only, corrected = _weighted(humans, judge, self.probability, bounds)
        else:
            shared = sorted(q for q in self.labelled if q in humans and q in judge)
            others = sorted(q for q in judge if q not in self.labelled)
            y = np.array([humans[q] for q in shared], dtype=np.float64)
            yhat = np.array([judge[q] for q in shared], dtype=np.float64)
            rest = np.array([judge[q] for q in others], dtype=np.float64)
            human_only = ppi.classical(y, bounds=bounds)
            corrected = ppi.prediction_powered(y, yhat, rest, bounds=bounds)
        if corrected.n < self.minimum:
            corrected = corrected.without_interval()
            if self.probability is not None:
                human_only = human_only.without_interval()
        equivalent = min(ppi.equivalent_labels(human_only, corrected), float(self.queries))
        still = max(self.queries - human_only.n, 0) * self.grades_per_query
        saved = min((equivalent - human_only.n) * self.grades_per_query, still)
        return Corrected(name, human_only, automatic, corrected, equivalent, max(saved, 0.0))


def _weighted(
    humans: dict[str, float],
    judge: dict[str, float],
    probability: dict[str, float],
    bounds: tuple[float, float],
) -> tuple[ppi.Estimate, ppi.Estimate]:
    """Humans alone (Hájek) and corrected by the judge (λ = 1) over every query the judge
    has a value for, the sampled ones labelled."""
    units = sorted(judge)
    labelled = np.array([query in probability and query in humans for query in units])
    yhat_all = np.array([judge[query] for query in units], dtype=np.float64)
    weights = np.array([probability.get(query, 1.0) for query in units], dtype=np.float64)
    chosen = np.array(units, dtype=object)[labelled]
    y = np.array([humans[query] for query in chosen], dtype=np.float64)
    return (
        ppi.weighted_humans(y, len(units), weights[labelled], bounds=bounds),
        ppi.active_estimate(y, yhat_all, labelled, weights, bounds=bounds),
    )


def _values(evaluation: Evaluation, measure: str) -> dict[str, float]:
    """Query → the run's value of ``measure``, NaN left out."""
    values = evaluation.values[measure]
    return {q: float(v) for q, v in zip(evaluation.query_ids, values) if not np.isnan(v)}


def _minus(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Per query both have: a − b."""
    return {query: value - b[query] for query, value in a.items() if query in b}


def _queries(evaluations: dict[str, Evaluation]) -> set[str]:
    return {query for evaluation in evaluations.values() for query in evaluation.query_ids}


def humans_alone(result: PredictionPowered) -> PredictionPowered:
    """``result`` with the judge's correction left out: each corrected estimate is the
    humans-only one, no grade saved."""
    runs = {name: _uncorrected(item) for name, item in result.runs.items()}
    differences = [_uncorrected(item) for item in result.differences]
    return replace(result, runs=runs, differences=differences, fallback=True)


def _uncorrected(item: Corrected) -> Corrected:
    return replace(
        item, corrected=item.humans, equivalent_queries=float(item.humans.n), grades_saved=0.0
    )
