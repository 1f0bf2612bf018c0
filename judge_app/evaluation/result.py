"""What one evaluation computed (``engine.evaluate``), for every writer and screen to show."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.intervals import MeanInterval, measure_range, t_interval
from judge_app.metrics.ranking import Evaluation, Settings, k_label

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.evaluation.corrected import PredictionPowered
    from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
    from judge_app.evaluation.preferences import PreferenceEvaluation
    from judge_app.metrics.codes import Coded, Graded
    from judge_app.metrics.comparison import Comparison
    from judge_app.metrics.significance import Significance


@dataclass
class EvaluationResult:
    """What an evaluation computed, as ``request`` asked: each run's per-query
    ``evaluations`` under ``settings`` (the options' cut-offs, then any more asked for: the
    curve's, trec_eval's), the raters' grades evaluated against (``graded``, combined into
    ``coded_qrels``), the runs compared (``significance``), each rater's own means
    (``per_rater``), the per-query ``table``, the means corrected by a judge
    (``corrected``) and the runs scored by preference judgments (``preferences``)."""

    request: EvaluationRequest
    settings: Settings
    evaluations: dict[str, Evaluation]
    graded: Graded
    coded_qrels: Coded
    significance: Significance | None = None
    per_rater: pd.DataFrame | None = None
    table: pd.DataFrame | None = None
    corrected: PredictionPowered | None = None
    preferences: PreferenceEvaluation | None = None
    _intervals: dict[tuple[str, int | None], MeanInterval] = field(default_factory=dict, repr=False)

    @property
    def options(self) -> EvaluationOptions:
        return self.request.options

    @property
    def label(self) -> str:
        return self.options.label

    @property
    def comparisons(self) -> list[Comparison]:
        """The runs compared against the first run (or the baseline asked for)."""
        if self.significance is None:
            return []
        first = self.significance.baseline or self.significance.runs[0]
        return [pair.comparison for pair in self.significance.pairs if pair.baseline == first]

    @cached_property
    def qrels(self) -> pd.DataFrame:
        """``query_id, doc_id, grade``: the grades evaluated against."""
        import pandas as pd

        query, doc, grade = self.coded_qrels
        return pd.DataFrame(
            {
                "query_id": self.graded.queries[query],
                "doc_id": self.graded.docs[doc],
                "grade": grade,
            }
        )

    @cached_property
    def judgments(self) -> pd.DataFrame:
        """The chosen raters' judgments the grades came from."""
        return self.graded.frame()

    def interval(self, run: str, k: int | None = None) -> MeanInterval:
        """``run``'s mean NDCG@k (the leading k by default) with its t interval, within
        [0, 1] (computed once)."""
        k = self.options.k if k is None else k
        if (run, k) not in self._intervals:
            key = f"ndcg@{k_label(k)}"
            values = self.evaluations[run].values[key]
            self._intervals[(run, k)] = t_interval(values, measure_range(key))
        return self._intervals[(run, k)]

    def scores(self, run: str) -> np.ndarray:
        """``run``'s per-query values of the leading measure."""
        return self.evaluations[run].values[self.options.measure]

    def curves(self) -> dict[str, tuple[list[int], list[float]]]:
        """Each run's mean NDCG@k for k = 1 … 20 (evaluated with ``curves``)."""
        ks = self.options.curve_ks()
        return {
            run: (ks, [float(evaluation.values[f"ndcg@{k}"].mean()) for k in ks])
            for run, evaluation in self.evaluations.items()
        }

    def differences(self) -> tuple[str, str, np.ndarray] | None:
        """(first run, second run, per-query second − first over the queries both have)."""
        if len(self.evaluations) < 2:
            return None
        (first, a), (second, b) = list(self.evaluations.items())[:2]
        measure = self.options.measure
        other = dict(zip(b.query_ids, b.values[measure]))
        values = [
            other[q] - value for q, value in zip(a.query_ids, a.values[measure]) if q in other
        ]
        return first, second, np.asarray(values, dtype=float)
