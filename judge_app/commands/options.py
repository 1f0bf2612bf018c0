"""The options of the questions both front ends ask, parsed and checked in one place: an
evaluation's (``EvaluationOptions``: ``eval --db``, the evaluation page and the report carry
the same object), and the lists of names, cut-offs and numbers they are built from.

A usage error (exit code 2) names the option and what it takes; an unknown rater or run is
one too, with the names the source does hold. No pandas: evaluating files starts without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from judge_app.errors import UsageError, quoted
from judge_app.metrics.aggregation import parse_method
from judge_app.metrics.measure_names import MeasureName, parse_measures
from judge_app.metrics.ranking import Settings, k_label
from judge_app.names import normal_ids, similar_name, similar_reason

CURVE_KS = 20
"""NDCG@k against k is computed for k = 1 … 20 (or the largest k asked for, if larger)."""
ADJUDICATED_CHOICES = ("prefer", "ignore")


def names(text: str | None, option: str, what: str = "rater") -> tuple[str, ...] | None:
    """The names of a comma-separated list as typed (``"ana, ben"``), each trimmed and in
    Unicode NFC; None when the option was not given; a usage error for no name or one twice."""
    if text is None:
        return None
    listed = normal_ids(text)
    if not listed:
        raise UsageError(f"{option} needs at least one name: {option} a,b,c")
    twice = sorted({name for name in listed if listed.count(name) > 1})
    if twice:
        raise UsageError(f"{option} names a {what} twice: {', '.join(map(quoted, twice))}")
    return tuple(listed)


def check_known(
    asked: Iterable[str] | None, known: Iterable[str], what: str, option: str, source: str
) -> None:
    """A usage error naming the ``asked`` names ``source`` does not hold, with those it does
    (and the one meant, where a name differs from one only by case or spaces)."""
    if asked is None:
        return
    known = sorted(set(known))
    unknown = [name for name in asked if name not in known]
    if not unknown:
        return
    text = f"{option}: {source} has no {what} {', '.join(map(quoted, unknown))}"
    text += f" ({what}s it has: {', '.join(known) or 'none'})"
    for name in unknown:
        meant = similar_name(name, known)
        if meant is not None:
            text += "; " + similar_reason(name, meant)
    raise UsageError(text)


def measure_names(values: Iterable[str] | None) -> tuple[str, ...]:
    """``--measure`` lists (``["AP,P@5", "Bpref"]``) as the names ir_measures writes, each
    once, in the order given; a usage error for a name that is wrong."""
    return tuple(str(m) for m in parse_measures(",".join(values))) if values else ()


def parse_ks(values: Iterable[str]) -> tuple[int | None, ...]:
    """``["10"]``, ``["5,10,20"]``, ``["all", "10"]`` → cut-offs, None for all, in order given."""
    ks: list[int | None] = []
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part == "all":
                k = None
            elif part.isdigit() and int(part) > 0:
                k = int(part)
            else:
                raise UsageError(f"--k {quoted(value)}: use whole numbers from 1, or all")
            if k not in ks:
                ks.append(k)
    if not ks:
        raise UsageError("--k needs a cut-off: a whole number from 1, or all")
    return tuple(ks)


def parse_k(value: str) -> int | None:
    """One cut-off as ``--k`` gives it (``10`` or ``all``); a usage error for more than one."""
    ks = parse_ks([value])
    if len(ks) != 1:
        raise UsageError("--k takes one cut-off: a whole number from 1, or all")
    return ks[0]


def require_whole(
    option: str, value: int, low: int, high: int | None = None, note: str = ""
) -> None:
    """A usage error unless ``option``'s ``value`` is a whole number from ``low`` (to ``high``)."""
    if value < low or (high is not None and value > high):
        span = f"from {low}" + ("" if high is None else f" to {high}")
        raise UsageError(f"{option} takes a whole number {span}{note}")


def require_finite(option: str, value: float) -> None:
    """A usage error unless ``option``'s ``value`` is a finite number (not nan or inf)."""
    if not math.isfinite(value):
        raise UsageError(f"{option} takes a finite number (not nan or inf)")


def check_digits(digits: int | None) -> None:
    """A usage error unless ``--digits`` is None (full precision) or 0 to 15."""
    if digits is not None:
        require_whole("--digits", digits, 0, 15)


GRADE_SOURCES = ("humans", "automatic", "corrected")
"""Whose grades an evaluation reads (``EvaluationOptions.grades``)."""


@dataclass(frozen=True)
class EvaluationOptions:
    """How to evaluate: the cut-offs ``ks`` (None: all; the first leads), gain, ideal pool,
    unjudged results, relevance threshold and trec_eval's ``-c``; the raters' grades combined
    by ``aggregate`` (a method or ``rater:NAME``), the lead's adjudicated grades preferred or
    left out; the ``runs`` and ``raters`` chosen (None: all); and the ``seed``, bootstrap
    ``resamples`` and randomization-test ``permutations`` of the statistics."""

    ks: tuple[int | None, ...] = (10,)
    gain: str = "linear"
    ideal: str = "judged"
    unjudged: str = "zero"
    threshold: float = 1.0
    complete: bool = False
    aggregate: str = "mean"
    adjudicated: bool = True
    runs: tuple[str, ...] | None = None
    raters: tuple[str, ...] | None = None
    seed: int = 0
    resamples: int = 10_000
    permutations: int = 10_000
    measures: tuple[str, ...] = ()
    """More measures by the names ir_measures writes (``AP``, ``P(rel=2)@5``: as
    :func:`measure_names` gives them); the first leads the comparison of runs in place of
    NDCG@k."""
    judge: str | None = None
    """An automatic judge of the database, whose grades ``grades`` uses."""
    grades: str | None = None
    """Whose grades: ``humans``, ``automatic`` (the judge's alone) or ``corrected`` (humans',
    with each run's mean also estimated by prediction-powered inference from the judge's
    grades of every query); None: ``corrected`` with a judge, else ``humans``."""

    def __post_init__(self) -> None:
        """``measures`` as ir_measures writes them (``MAP`` is ``AP``); a wrong name is left
        for :meth:`checked` to report."""
        try:
            object.__setattr__(self, "measures", measure_names(self.measures))
        except UsageError:
            pass

    def checked(self) -> EvaluationOptions:
        """These options, or a usage error naming the first that is wrong."""
        self.settings()
        self.named_measures()
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        require_whole("--seed", self.seed, 0)
        require_whole("--resamples", self.resamples, 1)
        require_whole("--permutations", self.permutations, 1)
        for option, chosen in (("--run", self.runs), ("--raters", self.raters)):
            if chosen is not None and (not chosen or len(set(chosen)) != len(chosen)):
                raise UsageError(f"{option} needs names, each once")
        self._check_grades()
        return self

    def _check_grades(self) -> None:
        if self.grades not in (None, *GRADE_SOURCES):
            raise UsageError(f"--grades: use {', '.join(GRADE_SOURCES)}, not {self.grades!r}")
        source = self.grade_source
        if source != "humans" and self.judge is None:
            raise UsageError(f"--grades {source} needs an automatic judge: --judge NAME")
        if source == "humans" and self.judge is not None:
            raise UsageError("--judge chooses automatic grades: --grades humans reads none")
        if source == "automatic":
            for option, asked in (
                ("--raters", self.raters is not None),
                ("--aggregate", self.aggregate != "mean"),
            ):
                if asked:
                    raise UsageError(f"{option} chooses human grades: --grades automatic has none")

    @property
    def grade_source(self) -> str:
        """``humans``, ``automatic`` or ``corrected``: whose grades are evaluated."""
        if self.grades is not None:
            return self.grades
        return "humans" if self.judge is None else "corrected"

    def settings(self, more_ks: Iterable[int | None] = ()) -> Settings:
        """The metric settings, at ``ks`` and ``more_ks``; a usage error if one is wrong."""
        require_finite("--threshold", self.threshold)
        ks = tuple(dict.fromkeys([*self.ks, *more_ks]))
        try:
            return Settings(
                ks=ks,
                gain=self.gain,
                ideal=self.ideal,
                unjudged=self.unjudged,
                threshold=self.threshold,
                complete=self.complete,
            )
        except ValueError as error:
            raise UsageError(str(error)) from None

    def named_measures(self) -> tuple[MeasureName, ...]:
        """``measures`` parsed (a usage error for a name that is wrong)."""
        return parse_measures(",".join(self.measures)) if self.measures else ()

    @property
    def k(self) -> int | None:
        """The cut-off that leads: the measure of intervals, comparisons and tables."""
        return self.ks[0]

    @property
    def measure(self) -> str:
        """The key of the values the runs are compared on: the first named measure, else
        ``ndcg@k`` at the leading k."""
        return self.measures[0] if self.measures else f"ndcg@{k_label(self.k)}"

    @property
    def label(self) -> str:
        """NDCG at the leading k, as tables and charts of NDCG name it."""
        return f"NDCG@{k_label(self.k)}"

    @property
    def leading_label(self) -> str:
        """The measure comparisons are of, as people read it: ``AP`` or ``NDCG@10``."""
        return self.measure if self.measures else self.label

    def curve_ks(self) -> list[int]:
        """The cut-offs of the NDCG@k against k curve: 1 … 20, or to the largest k."""
        largest = max([k for k in self.ks if k is not None] + [CURVE_KS])
        return list(range(1, largest + 1))

    def record(self) -> dict[str, object]:
        """The options as a report or a JSON document states them."""
        return {
            "k": [k_label(k) for k in self.ks],
            "gain": self.gain,
            "ideal": self.ideal,
            "unjudged": self.unjudged,
            "threshold": self.threshold,
            "complete": self.complete,
            "aggregate": self.aggregate,
            "adjudicated": "prefer" if self.adjudicated else "ignore",
            "runs": list(self.runs) if self.runs else "all",
            "raters": list(self.raters) if self.raters else "all",
            "seed": self.seed,
            "resamples": self.resamples,
            "permutations": self.permutations,
            "measures": list(self.measures),
            "grades": self.grade_source,
            "judge": self.judge,
        }
