"""Runs scored by preferences: each query's ideal ranking from its preference judgments
(``metrics.preferences``), each run's compatibility with it per query (``metrics.compatibility``),
its mean with an interval, and the runs compared on it by the same machinery as NDCG
(``engine.compare_evaluations``). The one code path of ``eval --measure Compat``, and of the
evaluation page and the report once they show it.

A query counts for a run where it has an ideal ranking (a relevant document ordered by
preferences) and the run has results for it, as the reference implementation scores the
topics of the run that have preferences.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.compatibility import compatibility
from judge_app.metrics.intervals import MeanInterval, measure_range, t_interval
from judge_app.metrics.measure_names import MeasureName
from judge_app.metrics.preferences import IdealRanking, comparisons, ideal_ranking
from judge_app.metrics.ranking import Evaluation, Settings

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.evaluation.options import SignificanceOptions
    from judge_app.metrics.significance import Significance


@dataclass
class PreferenceEvaluation:
    """Each query's ``ideals``, each run's per-query values of every preference measure
    (``evaluations``, as the engine's: ``query_ids`` and ``values``), the measure the runs
    are compared on (``measure``) and the comparison (``significance``)."""

    ideals: dict[str, IdealRanking]
    evaluations: dict[str, Evaluation]
    measure: str
    significance: Significance | None = None
    _intervals: dict[str, MeanInterval] = field(default_factory=dict, repr=False)

    def interval(self, run: str) -> MeanInterval:
        """``run``'s mean of the leading measure with its t interval, within [0, 1]."""
        if run not in self._intervals:
            values = self.evaluations[run].values[self.measure]
            self._intervals[run] = t_interval(values, measure_range(self.measure))
        return self._intervals[run]


def ideal_rankings(preferences: pd.DataFrame) -> dict[str, IdealRanking]:
    """Each query's ideal ranking from ``preferences`` (``query_id, doc_a, doc_b, choice``,
    every rater's), for the queries with a choice that counts."""
    ideals = {}
    for query, rows in preferences.groupby("query_id", sort=True):
        data = comparisons(list(rows["doc_a"]), list(rows["doc_b"]), list(rows["choice"]))
        if data.docs:
            ideals[str(query)] = ideal_ranking(data)
    return ideals


def evaluate_preferences(
    preferences: pd.DataFrame,
    results: pd.DataFrame,
    runs: list[str],
    measures: tuple[MeasureName, ...],
    comparison: SignificanceOptions | None = None,
    source: str = "",
) -> PreferenceEvaluation:
    """Every measure of ``measures`` (Compat with its ``p`` and ``normalize``) for each of
    ``runs`` (``results``: ``run, query_id, doc_id, rank``) against the ideal rankings of
    ``preferences``; compared on the first as ``comparison`` says, with two runs or more."""
    ideals = ideal_rankings(preferences)
    evaluations = {}
    for run in runs:
        mine = results[results["run"] == run].sort_values(["query_id", "rank"])
        lists = {str(q): list(rows["doc_id"]) for q, rows in mine.groupby("query_id", sort=True)}
        query_ids = [query for query in ideals if query in lists and ideals[query].groups]
        values = {
            str(measure): np.array(
                [
                    compatibility(
                        lists[query],
                        ideals[query].groups,
                        p=float(measure.param("p")),  # type: ignore[arg-type]
                        normalize=bool(measure.param("normalize")),
                    )
                    for query in query_ids
                ],
                dtype=np.float64,
            )
            for measure in measures
        }
        evaluations[run] = Evaluation(
            Settings(), query_ids, values, np.zeros(len(query_ids), dtype=bool)
        )
    found = PreferenceEvaluation(ideals, evaluations, str(measures[0]))
    if comparison is not None and len(evaluations) >= 2:
        from judge_app.evaluation.engine import compare_evaluations

        found.significance = compare_evaluations(evaluations, found.measure, comparison, source)
    return found
