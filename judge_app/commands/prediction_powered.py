"""Each run's mean from few human grades and an automatic judge's grades of everything, by
prediction-powered inference (``metrics.ppi``): part of the evaluation use case
(``EvaluationOptions.grades`` ``corrected``), computed on its result.

The unit is the query. A query is *labelled* when humans judged the top k of every run
evaluated completely: its human value (NDCG@k, or the leading named measure) is then what
the estimate is of. The judge's value of the same measure is computed on its own grades for
every query it graded. The labelled queries give the rectifier (human − judge), the others
the judge's values alone. The interval is valid when the labelled queries are a random sample
of the queries, which judging in the raters' assigned order does not guarantee: the result
says which it assumes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics import active_order, ppi
from judge_app.metrics.ranking import Evaluation, k_label

if TYPE_CHECKING:
    from judge_app.commands.options import EvaluationOptions

ASSIGNED_ORDER = (
    "The interval assumes the queries humans judged completely are a random sample of all "
    "queries. Here they are the queries raters reached in the order they were given: if that "
    "order favours some kind of query (easier, longer, one topic), the interval can miss."
)
RANDOM_SAMPLE = (
    "The queries humans judged completely are the active sample drawn for this judge: each "
    "is weighted by the inverse of the probability it had to be drawn, which keeps the "
    "estimate unbiased."
)


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


def sample_assumption(left_out: int) -> str:
    """``RANDOM_SAMPLE``, saying how many labelled queries outside the sample were left out."""
    if not left_out:
        return RANDOM_SAMPLE
    queries = "query" if left_out == 1 else "queries"
    return (
        f"{RANDOM_SAMPLE} {left_out} more {queries} judged completely, after the first one "
        "of the order not yet judged, are left out of the estimate."
    )


@dataclass(frozen=True)
class Corrected:
    """One run's mean (or the difference of two runs') three ways: by humans alone on the
    labelled queries, by the judge alone on every query it graded (biased as the judge is),
    and prediction-powered (humans corrected by the judge), with the human grades the last
    saves for the same interval width."""

    name: str
    humans: ppi.Estimate
    automatic: ppi.Estimate
    corrected: ppi.Estimate
    equivalent_queries: float  # labelled queries humans alone would need for that width
    grades_saved: float  # human grades those extra queries would take

    def record(self, digits: int | None = None) -> dict[str, object]:
        """The estimates as machine formats give them: ``mean`` and ``interval`` are the
        humans-only ones, ``ppi_mean`` and ``ppi_interval`` the prediction-powered ones."""

        def shown(value: float) -> float | None:
            if np.isnan(value):
                return None
            return float(value) if digits is None else round(float(value), digits)

        def interval(estimate: ppi.Estimate) -> list[float | None]:
            return [shown(estimate.low), shown(estimate.high)]

        return {
            "mean": shown(self.humans.mean),
            "interval": interval(self.humans),
            "ppi_mean": shown(self.corrected.mean),
            "ppi_interval": interval(self.corrected),
            "automatic_mean": shown(self.automatic.mean),
            "automatic_interval": interval(self.automatic),
            "labelled_queries": self.corrected.n,
            "unlabelled_queries": self.corrected.unlabeled,
            "lambda": None if self.corrected.lam is None else shown(self.corrected.lam),
            "equivalent_queries": shown(self.equivalent_queries),
            "grades_saved": shown(self.grades_saved),
        }


@dataclass(frozen=True)
class PredictionPowered:
    """Every run's ``Corrected`` estimate and each other run's difference from the first,
    on the leading ``measure``, with the judge and what the interval assumes."""

    judge: str
    measure: str  # as people read it: NDCG@10, AP
    runs: dict[str, Corrected]
    differences: list[Corrected] = field(default_factory=list)
    labelled: list[str] = field(default_factory=list)  # the labelled queries
    queries: int = 0  # every query with a value, by humans or by the judge
    grades_per_query: float = float("nan")  # human grades per labelled query
    assumption: str = ASSIGNED_ORDER

    def document(self, digits: int | None = None) -> dict[str, object]:
        """The estimates as ``eval --format json`` gives them (its ``judge`` member)."""
        return {
            "judge": self.judge,
            "measure": self.measure,
            "confidence": ppi.CONFIDENCE,
            "queries": self.queries,
            "labelled_queries": len(self.labelled),
            "grades_per_labelled_query": None
            if np.isnan(self.grades_per_query)
            else self.grades_per_query,
            "assumption": self.assumption,
            "differences": [
                {"runs": difference.name, **difference.record(digits)}
                for difference in self.differences
            ],
        }

    def table_text(self, digits: int = 4) -> str:
        """The estimates for people: a row per run (then per difference), rounded."""
        from judge_app.metrics.formats import text_table

        def cell(estimate: ppi.Estimate) -> str:
            if np.isnan(estimate.mean):
                return "–"
            if np.isnan(estimate.se):
                return f"{estimate.mean:.{digits}f}"
            low, high = f"{estimate.low:.{digits}f}", f"{estimate.high:.{digits}f}"
            return f"{estimate.mean:.{digits}f} [{low}, {high}]"

        rows: list[dict[str, object]] = [
            {
                "": item.name,
                f"humans ({item.humans.n} queries)": cell(item.humans),
                f"{self.judge} alone": cell(item.automatic),
                "humans corrected by the judge": cell(item.corrected),
                "human grades saved": "–"
                if np.isnan(item.grades_saved)
                else f"{max(item.grades_saved, 0):,.0f}",
            }
            for item in [*self.runs.values(), *self.differences]
        ]
        head = (
            f"{self.measure} by prediction-powered inference (95% intervals): "
            f"{len(self.labelled)} of {self.queries} queries judged completely by humans, "
            f"every query by {self.judge}"
        )
        return f"{head}\n{text_table(rows)}\n{self.assumption}\n"

    def csv_rows(self) -> list[dict[str, object]]:
        """A row per run and per difference, every number in full."""
        rows = []
        for item in [*self.runs.values(), *self.differences]:
            record = item.record()
            low, high = record.pop("interval"), record.pop("ppi_interval")
            automatic = record.pop("automatic_interval")
            assert isinstance(low, list) and isinstance(high, list)
            assert isinstance(automatic, list)
            rows.append(
                {
                    "run": item.name,
                    "judge": self.judge,
                    "measure": self.measure,
                    **record,
                    "low": low[0],
                    "high": low[1],
                    "ppi_low": high[0],
                    "ppi_high": high[1],
                    "automatic_low": automatic[0],
                    "automatic_high": automatic[1],
                }
            )
        return rows


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
) -> PredictionPowered:
    """The prediction-powered estimates of every run of ``humans`` (evaluated on human
    grades) given ``automatic`` (the same runs evaluated on the judge's grades), on the
    options' leading measure; ``grades_per_query`` counts the human grades of each query.
    With the active ``design`` raters followed for this judge, the labelled queries are its
    sample (``Design.drawn``), each weighted by the inverse of its inclusion probability
    (``ppi.active_estimate``: with the judge, λ = 1; humans alone, Horvitz–Thompson)."""
    assert options.judge is not None
    measure = options.measure
    labelled = labelled_queries(humans, options.k) & _queries(automatic)
    probability: dict[str, float] | None = None
    assumption = ASSIGNED_ORDER
    if design is not None:
        probability, left_out = design.drawn(labelled)
        labelled = set(probability)
        assumption = sample_assumption(left_out)
    human_values = {run: _values(evaluation, measure) for run, evaluation in humans.items()}
    judge_values = {run: _values(evaluation, measure) for run, evaluation in automatic.items()}
    counted = [grades_per_query.get(query, 0) for query in labelled]
    per_query = float(np.mean(counted)) if counted else float("nan")
    runs = {
        run: _corrected(run, human_values[run], judge_values[run], labelled, per_query, probability)
        for run in humans
    }
    differences = []
    names = list(humans)
    for other in names[1:]:
        first = names[0]
        differences.append(
            _corrected(
                f"{other} − {first}",
                _minus(human_values[other], human_values[first]),
                _minus(judge_values[other], judge_values[first]),
                labelled,
                per_query,
                probability,
            )
        )
    everything = _queries(automatic) | {q for e in humans.values() for q in e.query_ids}
    return PredictionPowered(
        judge=options.judge,
        measure=options.leading_label,
        runs=runs,
        differences=differences,
        labelled=sorted(labelled),
        queries=len(everything),
        grades_per_query=per_query,
        assumption=assumption,
    )


def _corrected(
    name: str,
    humans: dict[str, float],
    judge: dict[str, float],
    labelled: set[str],
    grades_per_query: float,
    probability: dict[str, float] | None = None,
) -> Corrected:
    """``name``'s three estimates from per-query values by humans and by the judge; with
    the ``probability`` of each labelled query (an active sample), design-weighted."""
    automatic = ppi.classical(np.array(list(judge.values()), dtype=np.float64))
    if probability is not None:
        human_only, corrected = _weighted(humans, judge, probability)
        equivalent = ppi.equivalent_labels(human_only, corrected)
        saved = (equivalent - human_only.n) * grades_per_query
        return Corrected(name, human_only, automatic, corrected, equivalent, saved)
    shared = sorted(query for query in labelled if query in humans and query in judge)
    others = sorted(query for query in judge if query not in labelled)
    y = np.array([humans[query] for query in shared], dtype=np.float64)
    yhat = np.array([judge[query] for query in shared], dtype=np.float64)
    yhat_unlabeled = np.array([judge[query] for query in others], dtype=np.float64)
    human_only = ppi.classical(y)
    corrected = ppi.prediction_powered(y, yhat, yhat_unlabeled)
    equivalent = ppi.equivalent_labels(human_only, corrected)
    saved = (equivalent - human_only.n) * grades_per_query
    return Corrected(name, human_only, automatic, corrected, equivalent, saved)


def _weighted(
    humans: dict[str, float], judge: dict[str, float], probability: dict[str, float]
) -> tuple[ppi.Estimate, ppi.Estimate]:
    """Humans alone (Horvitz–Thompson) and corrected by the judge (λ = 1) over every query
    the judge has a value for, the sampled ones labelled."""
    units = sorted(judge)
    labelled = np.array([query in probability and query in humans for query in units])
    yhat_all = np.array([judge[query] for query in units], dtype=np.float64)
    weights = np.array([probability.get(query, 1.0) for query in units], dtype=np.float64)
    y = np.array([humans[query] for query in np.array(units)[labelled]], dtype=np.float64)
    return (
        ppi.active_estimate(y, yhat_all, labelled, weights, lam=0.0),
        ppi.active_estimate(y, yhat_all, labelled, weights),
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
