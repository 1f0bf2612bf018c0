"""Runs scored by preferences: each query's ideal ranking from its preference judgments
(``metrics.preferences``), each run's compatibility with it per query (``metrics.compatibility``),
its mean with an interval, and the runs compared on it by the same machinery as NDCG
(``engine.compare_evaluations``). The one code path of ``eval --measure Compat``, of the
evaluation page and of the report, which show Compat wherever the campaign holds preferences
(``shown_measures``).

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
from judge_app.metrics.preferences import A_WINS, IdealRanking, comparisons, ideal_ranking
from judge_app.metrics.ranking import Evaluation, Settings

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.evaluation.options import EvaluationOptions, SignificanceOptions
    from judge_app.metrics.significance import Significance

SHOWN = "Compat"
"""The measure the evaluation page and the report show where the campaign holds preferences
and none was asked for by name."""


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


def shown_measures(
    options: EvaluationOptions, preferences: pd.DataFrame | None
) -> EvaluationOptions:
    """``options`` as the evaluation page and the report evaluate them: with ``SHOWN`` among
    the preference measures where ``preferences`` hold a choice that counts and the options
    name none (one named is kept: it leads)."""
    if options.preference_measures or preferences is None:
        return options
    if not preferences["choice"].isin(list(A_WINS)).any():
        return options
    from dataclasses import replace

    return replace(options, preference_measures=(SHOWN,))


def per_query_columns(found: PreferenceEvaluation) -> pd.DataFrame:
    """``query_id`` and each run's ``RUN MEASURE`` of every preference measure (by measure,
    then run, as the per-query table orders the named measures; NaN where the run has no
    value for the query), a row per query with a value, in query id order."""
    import pandas as pd

    table = pd.DataFrame({"query_id": pd.Series([], dtype="str")})
    for run, evaluation in found.evaluations.items():
        columns = pd.DataFrame(
            {
                "query_id": pd.Series(evaluation.query_ids, dtype="str"),
                **{f"{run} {name}": values for name, values in evaluation.values.items()},
            }
        )
        table = table.merge(columns, on="query_id", how="outer")
    measures = dict.fromkeys(name for e in found.evaluations.values() for name in e.values)
    order = [f"{run} {name}" for name in measures for run in found.evaluations]
    return table[["query_id", *order]].sort_values("query_id", ignore_index=True)


def with_per_query_columns(
    table: pd.DataFrame, found: PreferenceEvaluation, queries: dict[str, str]
) -> pd.DataFrame:
    """The per-query ``table`` (``engine.per_query_table``) with each run's values of every
    preference measure after the NDCG columns (and their difference); a query only the
    preferences score gets a row of its own, its text from ``queries``."""
    added = per_query_columns(found)
    merged = table.merge(added, on="query_id", how="outer")
    merged["query"] = merged["query_id"].map(queries).fillna("")
    merged["incomplete"] = merged["incomplete"].astype("boolean").fillna(False).astype(bool)
    lead = 2 + len(found.evaluations) + ("difference" in table.columns)  # text and NDCG
    columns = [*table.columns[:lead], *added.columns[1:], *table.columns[lead:]]
    return merged[columns].sort_values("query_id", ignore_index=True)


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
