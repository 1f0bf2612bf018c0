"""How far an automatic judge can stand in for the human raters, as data: what is asked
(:class:`CalibrationOptions`) and the figures that answer it (:class:`Calibration`): agreement
with its intervals over queries, the judge's bias, the confusion matrix, the runs ranked with
the humans' grades and with the judge's, the queries that disagree most, how far probes moved
the judge and the documents that try to instruct it.

``judge_app.commands.calibrate`` computes them from a campaign; ``judge_app.writers.calibration``
writes them for people and machines (``judge-app calibrate``, the Automatic judges page).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from judge_app.errors import UsageError
from judge_app.evaluation.options import EvaluationOptions
from judge_app.metrics.aggregation import parse_method
from judge_app.metrics.ranking import k_label
from judge_app.options import require_whole

GRADES = tuple(range(6))


class AutomaticJudge(Protocol):
    """What a calibration knows of the judge it compares with the humans (the store's
    ``judge_app.store.automatic.Judge`` is one): its name, how it grades, how many pairs it
    graded and failed, and its own report (``details``)."""

    @property
    def name(self) -> str: ...

    @property
    def method(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def prompt_version(self) -> str | None: ...

    @property
    def endpoint(self) -> str | None: ...

    @property
    def details(self) -> dict[str, Any]: ...

    @property
    def graded(self) -> int: ...

    @property
    def failed(self) -> int: ...

    @property
    def usage(self) -> tuple[float, float, float] | None: ...

    def describe(self) -> str:
        """One line for people: the model and where it runs, or the local model."""
        ...


@dataclass(frozen=True)
class CalibrationOptions:
    """Which automatic ``judge`` (None: the first by name) is compared with the humans, whose
    grades are combined per pair by ``aggregate`` (as ``eval --aggregate``) with the lead's
    adjudicated grades preferred (``adjudicated``) or left out; the runs ranked by NDCG@``k``
    (None: all); the ``top`` queries that disagree most listed; the kappa's and alpha's
    intervals from ``bootstrap`` resamples of the queries (0: none), drawn with ``seed``."""

    judge: str | None = None
    k: int | None = 10
    aggregate: str = "mean"
    adjudicated: bool = True
    top: int = 10
    bootstrap: int = 1000
    seed: int = 0

    def checked(self) -> CalibrationOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.judge is not None and not self.judge.strip():
            raise UsageError("needs the name of an automatic judge", "judge")
        if self.k is not None:
            require_whole("k", self.k, 1, note=", or all")
        require_whole("top", self.top, 1)
        require_whole("bootstrap", self.bootstrap, 0, note=" (0: no interval)")
        require_whole("seed", self.seed, 0)
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        return self

    def evaluation(self) -> EvaluationOptions:
        """The evaluation both rankings come from: NDCG@k, the humans' grades combined as
        asked (the judge's, its only rater's, are taken as they are)."""
        return EvaluationOptions(
            ks=(self.k,), aggregate=self.aggregate, adjudicated=self.adjudicated, seed=self.seed
        )

    @property
    def label(self) -> str:
        return f"NDCG@{k_label(self.k)}"


@dataclass(frozen=True)
class Figure:
    """A statistic's value with its interval over queries, or None and the reason."""

    value: float | None
    interval: tuple[float, float] | None = None
    reason: str | None = None
    interval_reason: str | None = None


@dataclass(frozen=True)
class GradeBias:
    """On the ``pairs`` the humans graded ``grade`` (rounded), the judge's mean grade and its
    ``bias``: mean of judge − human (None where no pair)."""

    grade: int
    pairs: int
    mean_judge: float | None
    bias: float | None


@dataclass(frozen=True)
class RunScore:
    """A run's mean NDCG@k over ``queries`` with the humans' grades and with the judge's,
    and its rank by each (1: best; equal means share the better rank)."""

    run: str
    queries: int
    human: float
    judge: float
    human_rank: int
    judge_rank: int


@dataclass(frozen=True)
class Ranking:
    """The runs by the humans' mean NDCG@k, best first, beside the judge's; Kendall's tau-b
    of the two orders over all runs and among the ``top_runs`` best by the humans (the best
    half, rounded up: :func:`best_half`)."""

    label: str
    runs: tuple[RunScore, ...]
    tau: Figure
    top_runs: int
    top_tau: Figure
    left_out: tuple[str, ...] = ()


def best_half(runs: int) -> int:
    """How many runs the best half of ``runs`` holds, rounded up: 2 of 3, 3 of 6."""
    return math.ceil(runs / 2)


@dataclass(frozen=True)
class QueryDisagreement:
    """A query's ``pairs`` graded by both, the judge's mean absolute and mean signed
    difference from the humans there, and the best run's (by the humans) NDCG@k with each
    one's grades (None where that run has no score for the query)."""

    query_id: str
    query: str
    pairs: int
    mean_absolute: float
    mean_difference: float
    human_ndcg: float | None
    judge_ndcg: float | None

    @property
    def ndcg_difference(self) -> float | None:
        """The best run's NDCG@k with the judge's grades minus with the humans'."""
        if self.human_ndcg is None or self.judge_ndcg is None:
            return None
        return self.judge_ndcg - self.human_ndcg


PROBE_NAMES = {
    "injection": "instructions injected into the document",
    "stuffing": "the query's words stuffed into the document",
    "wording": "the prompt worded otherwise",
}
"""The probes of an LLM judge (``automatic_judges.probes``), in the order they are shown, and what
each changes."""
PROBE_SHIFT = 0.5
"""A probe that changes the document (instructions injected, query words stuffed) and moves
the judge's grade up by this much on average flags the judge: half a grade over a sample is
no accident of the answer's wording."""
WORDING_KAPPA = 0.6
"""Below this quadratic kappa between the grades of two wordings of the prompt, the judge's
grades move with the wording (Landis and Koch: at most moderate agreement with itself)."""


@dataclass(frozen=True)
class ProbeEffect:
    """How far a probe (``automatic_judges.probes``) moved the judge: of the ``asked`` pairs probed,
    ``failed`` gave no grade, and on the ``pairs`` graded both ways the mean ``shift`` of the
    grade (probe − own, with an interval over pairs), how many it ``raised`` and ``lowered``
    and how many of those graded below 5 it raised to 5 (``to_top`` of ``below_top``), and the
    quadratic ``kappa`` of the two grades; ``flagged`` when it moved the judge past the
    bounds above (``PROBE_SHIFT``, ``WORDING_KAPPA``)."""

    probe: str
    asked: int
    failed: int
    pairs: int
    shift: Figure
    raised: int
    lowered: int
    below_top: int
    to_top: int
    kappa: Figure
    flagged: bool


@dataclass(frozen=True)
class InstructingDocument:
    """A document that addresses a judge (``automatic_judges.probes.instructions_in``): its
    ``words`` doing so, and the judge's and the humans' grades of it for ``query_id`` (None:
    none)."""

    query_id: str
    doc_id: str
    words: str
    judge_grade: float | None
    human_grade: float | None


@dataclass(frozen=True)
class Calibration:
    """The judge compared with the humans on the ``pairs`` (in ``queries`` queries) both
    graded; see the module's description."""

    source: str
    options: CalibrationOptions
    judge: AutomaticJudge
    pairs: int
    queries: int
    kappa: Figure
    alpha: Figure
    exact: float
    within_one: float
    bias: float
    mean_absolute: float
    confusion: tuple[tuple[int, ...], ...]
    by_grade: tuple[GradeBias, ...]
    ranking: Ranking | None
    ranking_reason: str | None
    disagreeing: tuple[QueryDisagreement, ...]
    best_run: str | None
    probes: tuple[ProbeEffect, ...] = ()
    instructing: tuple[InstructingDocument, ...] = ()

    @property
    def label(self) -> str:
        return self.options.label
