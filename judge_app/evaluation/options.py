"""The options of an evaluation, parsed and checked in one place: ``EvaluationOptions`` (how
to evaluate: ``eval --db``, the evaluation page and the report carry the same object),
``SignificanceOptions`` (how to compare the runs) and ``EvaluationRequest`` (both, and what
else to compute), and the cut-offs and measure names they are built from.

A usage error (exit code 2) names the option (by its name: each front end words it) and what
it takes. No pandas: evaluating files starts without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from judge_app.errors import UsageError, quoted
from judge_app.metrics.aggregation import parse_method
from judge_app.metrics.measure_names import PREFERENCE_FAMILIES, MeasureName, parse_measures
from judge_app.metrics.ranking import Settings, k_label
from judge_app.metrics.significance import ADJUSTMENTS, TESTS
from judge_app.option_declarations import (
    ADJUDICATED,
    AGGREGATE,
    CUTOFF,
    GAIN,
    GRADES,
    IDEAL,
    JUDGE,
    RATERS,
    RUNS,
    UNJUDGED,
)
from judge_app.options import names, require_finite, require_whole

CURVE_KS = 20
"""NDCG@k against k is computed for k = 1 … 20 (or the largest k asked for, if larger)."""


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
                raise UsageError(f"{quoted(value)}: use whole numbers from 1, or all", CUTOFF.name)
            if k not in ks:
                ks.append(k)
    if not ks:
        raise UsageError("needs a cut-off: a whole number from 1, or all", CUTOFF.name)
    return tuple(ks)


def parse_k(value: str) -> int | None:
    """One cut-off as ``--k`` gives it (``10`` or ``all``); a usage error for more than one."""
    ks = parse_ks([value])
    if len(ks) != 1:
        raise UsageError("takes one cut-off: a whole number from 1, or all", CUTOFF.name)
    return ks[0]


GRADE_SOURCES = tuple(GRADES.choices)
"""Whose grades an evaluation reads (``EvaluationOptions.grades``)."""


@dataclass(frozen=True)
class EvaluationOptions:
    """How to evaluate: the cut-offs ``ks`` (None: all; the first leads), gain, ideal pool,
    unjudged results, relevance threshold and trec_eval's ``-c``; the raters' grades combined
    by ``aggregate`` (a method or ``rater:NAME``), the lead's adjudicated grades preferred or
    left out; the ``runs`` and ``raters`` chosen (None: all); and the ``seed`` and
    randomization-test ``permutations`` of the statistics."""

    ks: tuple[int | None, ...] = (CUTOFF.default,)
    gain: str = GAIN.default
    ideal: str = IDEAL.default
    unjudged: str = UNJUDGED.default
    threshold: float = 1.0
    complete: bool = False
    aggregate: str = AGGREGATE.default
    adjudicated: bool = ADJUDICATED.default == "prefer"
    runs: tuple[str, ...] | None = None
    raters: tuple[str, ...] | None = None
    seed: int = 0
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
    preference_measures: tuple[str, ...] = ()
    """The measures of ``measures`` computed from preference judgments (``Compat``), moved
    here: ``measures`` holds those of grades alone."""

    def __post_init__(self) -> None:
        """``measures`` as ir_measures writes them (``MAP`` is ``AP``), those of preferences
        moved to ``preference_measures``; a wrong name is left for :meth:`checked` to report."""
        try:
            parsed = parse_measures(",".join(self.measures)) if self.measures else ()
        except UsageError:
            return
        by_preferences = [str(m) for m in parsed if m.family in PREFERENCE_FAMILIES]
        graded = tuple(str(m) for m in parsed if m.family not in PREFERENCE_FAMILIES)
        object.__setattr__(self, "measures", graded)
        preferences = dict.fromkeys([*self.preference_measures, *by_preferences])
        object.__setattr__(self, "preference_measures", tuple(preferences))

    def checked(self) -> EvaluationOptions:
        """These options, or a usage error naming the first that is wrong."""
        self.settings()
        self.named_measures()
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        require_whole("seed", self.seed, 0)
        require_whole("permutations", self.permutations, 1)
        for option, chosen in ((RUNS.name, self.runs), (RATERS.name, self.raters)):
            if chosen is not None and (not chosen or len(set(chosen)) != len(chosen)):
                raise UsageError("needs names, each once", option)
        self._check_grades()
        return self

    def _check_grades(self) -> None:
        if self.grades not in (None, *GRADE_SOURCES):
            raise UsageError(f": use {', '.join(GRADE_SOURCES)}, not {self.grades!r}", GRADES.name)
        source = self.grade_source
        if source != "humans" and self.judge is None:
            raise UsageError(f"{source} needs an automatic judge: --judge NAME", GRADES.name)
        if source == "humans" and self.judge is not None:
            raise UsageError("chooses automatic grades: --grades humans reads none", JUDGE.name)
        if source == "automatic":
            for option, asked in (
                (RATERS.name, self.raters is not None),
                (AGGREGATE.name, self.aggregate != AGGREGATE.default),
            ):
                if asked:
                    raise UsageError("chooses human grades: --grades automatic has none", option)

    @property
    def grade_source(self) -> str:
        """``humans``, ``automatic`` or ``corrected``: whose grades are evaluated."""
        if self.grades is not None:
            return self.grades
        return "humans" if self.judge is None else "corrected"

    def settings(self, more_ks: Iterable[int | None] = ()) -> Settings:
        """The metric settings, at ``ks`` and ``more_ks``; a usage error if one is wrong."""
        require_finite("threshold", self.threshold)
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

    def named_preference_measures(self) -> tuple[MeasureName, ...]:
        """``preference_measures`` parsed."""
        names = ",".join(self.preference_measures)
        return parse_measures(names) if names else ()

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
            "permutations": self.permutations,
            "measures": list(self.measures),
            "preference_measures": list(self.preference_measures),
            "grades": self.grade_source,
            "judge": self.judge,
        }


@dataclass(frozen=True)
class SignificanceOptions:
    """How to compare runs: the ``tests`` (among ``hsd``, ``randomization``, ``t``,
    ``wilcoxon``, ``sign``; the first decides the verdicts and the matrix's colours), the
    ``adjustment`` of the paired tests' p-values the verdicts use (``holm``, ``bh`` or
    ``none``; both adjustments are computed), every pair of runs or each against a
    ``baseline`` run, and the ``permutations`` and ``seed`` of the randomized tests."""

    tests: tuple[str, ...] = TESTS
    adjustment: str = "holm"
    baseline: str | None = None
    permutations: int = 10_000
    seed: int = 0

    @classmethod
    def following(cls, options: EvaluationOptions) -> SignificanceOptions:
        """The default comparison of an evaluation: its permutations and seed."""
        return cls(permutations=options.permutations, seed=options.seed)

    def checked(self) -> SignificanceOptions:
        """These options, or a usage error naming the first that is wrong."""
        if not self.tests or len(set(self.tests)) != len(self.tests):
            raise UsageError(f"needs test names, each once: {', '.join(TESTS)}", "tests")
        unknown = [test for test in self.tests if test not in TESTS]
        if unknown:
            raise UsageError(
                f": no test {', '.join(map(quoted, unknown))} (tests: {', '.join(TESTS)})", "tests"
            )
        if self.adjustment not in ADJUSTMENTS:
            raise UsageError(f"takes {', '.join(ADJUSTMENTS)}", "adjust")
        require_whole("permutations", self.permutations, 1)
        require_whole("seed", self.seed, 0)
        return self

    def record(self) -> dict[str, object]:
        """The options as the JSON document states them."""
        return {
            "tests": list(self.tests),
            "adjustment": self.adjustment,
            "baseline": self.baseline,
            "permutations": self.permutations,
            "seed": self.seed,
        }


def parse_tests(text: str | None) -> tuple[str, ...]:
    """``--tests t,wilcoxon`` → ``("t", "wilcoxon")``; all tests when not given."""
    listed = names(text, "tests", "test")
    return TESTS if listed is None else tuple(name.lower() for name in listed)


@dataclass(frozen=True)
class EvaluationRequest:
    """One evaluation asked for: how to evaluate (``options``), and what to compute beside
    each run's values: the runs compared as ``comparison`` says (None: not compared; asked
    with fewer than two runs, nothing to compare), NDCG at the curve's cut-offs (``curves``),
    at ``more_ks`` too (trec_eval's), each rater's own means (``per_rater``) and the per-query
    table with the queries' texts (``table``)."""

    options: EvaluationOptions = EvaluationOptions()
    comparison: SignificanceOptions | None = None
    curves: bool = False
    per_rater: bool = False
    more_ks: tuple[int | None, ...] = ()
    table: bool = False

    @classmethod
    def shown(
        cls, options: EvaluationOptions, comparison: SignificanceOptions | None = None
    ) -> EvaluationRequest:
        """The evaluation as the evaluation page and the report show it: compared (as
        ``comparison`` says, by default with the options' permutations and seed), with the
        curve and the per-query table."""
        return cls(
            options,
            comparison or SignificanceOptions.following(options),
            curves=True,
            table=True,
        )

    def checked(self) -> EvaluationRequest:
        """This request, or a usage error naming the first option that is wrong."""
        self.options.checked()
        if self.comparison is not None:
            self.comparison.checked()
        return self

    def settings(self) -> Settings:
        """The metric settings: the options' cut-offs, then the curve's and ``more_ks``."""
        curve = self.options.curve_ks() if self.curves else ()
        return self.options.settings([*curve, *self.more_ks])
