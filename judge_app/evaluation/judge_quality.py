"""Whether an automatic judge learned anything: its quadratic-weighted Cohen's kappa with the
humans on the pairs both graded (grades rounded to whole ones), a held-out figure for every
judge (an LLM never sees the human grades; the local judge grades each human-graded pair with
a model that never saw that pair's query).

Below ``MIN_KAPPA`` the judge is said to have learned nothing and the evaluation does not
correct the humans with it. Why 0.2: a judge's grades help a prediction-powered mean only as
far as its per-query values follow the humans' — at best the variance falls by the squared
correlation of the two — and quadratic kappa is a correlation of grades (it equals Pearson's
where the two have the same mean and variance). Below 0.2, the best a correction could save is
4% of the variance, less than tuning its weight on a few queries costs, and Landis and Koch
(1977) call such agreement slight at best; at 0 and below it is no better than chance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_app.agreement import coefficients as co
from judge_app.metrics.codes import Graded

MIN_KAPPA = 0.2
"""The quadratic kappa with the humans below which a judge learned nothing worth using."""


@dataclass(frozen=True)
class JudgeQuality:
    """The ``judge``'s quadratic kappa with the humans over ``pairs`` pairs both graded (None:
    undefined, ``reason`` says why)."""

    judge: str
    kappa: float | None
    pairs: int
    reason: str = ""

    @property
    def learned_nothing(self) -> bool:
        """Is the judge's agreement with the humans too low to correct them with?"""
        return self.kappa is not None and self.kappa < MIN_KAPPA


def judge_quality(name: str, humans: Graded, judge: Graded) -> JudgeQuality:
    """The quadratic kappa of ``judge``'s grades (one rater) with ``humans``' (aggregated as
    the evaluation aggregates them: the mean, the adjudicated grade preferred), both rounded to
    whole grades, on the pairs both graded; ``humans`` and ``judge`` coded with the same
    query and document names."""
    from judge_app.metrics.aggregation import aggregate

    width = len(humans.docs)
    query, doc, human_grade = aggregate(humans, "mean", True)
    human_keys = query * width + doc
    judge_keys = judge.query * width + judge.doc
    order = np.argsort(judge_keys, kind="stable")
    judge_keys, judge_grade = judge_keys[order], judge.grade[order]
    place = np.searchsorted(judge_keys, human_keys)
    inside = place < len(judge_keys)
    shared = np.zeros(len(human_keys), dtype=bool)
    shared[inside] = judge_keys[place[inside]] == human_keys[inside]
    pairs = int(shared.sum())
    if not pairs:
        return JudgeQuality(name, None, 0, "it shares no pair with the humans")
    confusion = co.confusion_matrix(
        whole_grades(human_grade[shared]), whole_grades(judge_grade[place[shared]])
    )
    kappa = co.cohen_kappa(confusion, "quadratic")
    return JudgeQuality(name, kappa.value, pairs, kappa.reason or "")


def whole_grades(grades: np.ndarray) -> np.ndarray:
    """Grades 0–5 rounded half up to whole grades (an automatic judge's, a mean of raters')."""
    return np.clip(np.floor(np.asarray(grades, dtype=np.float64) + 0.5), 0, 5).astype(np.int64)
