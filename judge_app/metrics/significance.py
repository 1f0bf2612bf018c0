"""Many runs compared on one measure: every pair of runs, or each run against a baseline, by
the paired t-test, the Wilcoxon signed-rank test, the sign test and the paired randomization
test, each p-value adjusted over the family of pairs by Holm and by Benjamini–Hochberg; the
randomized Tukey HSD test of all runs with the groups of runs it cannot tell apart (of two
runs, the randomization test itself: one draw of sign flips, one p-value); and each pair's
effect: the mean difference, Cohen's d_z with its noncentral-t interval, wins, ties and
losses.

Each pair has one interval of its mean difference (:meth:`Significance.interval`): the one of
the test its verdict comes from, at the level that verdict is decided at, so the two always
agree: the HSD's simultaneous interval; the randomization test inverted, or the t interval,
at 1 − α unadjusted, at 1 − α/(m − r) under Holm (m pairs tested, r rejected: every pair Holm
rejects has p below that level and every other above it) and at 1 − Rα/m under
Benjamini–Hochberg (the false-coverage-rate interval of Benjamini & Yekutieli, JASA 2005; R
rejected). The Wilcoxon and sign tests give none (their verdicts are not about the mean).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judge_app.metrics.comparison import Comparison, compare_rows
from judge_app.metrics.intervals import ALPHA, CONFIDENCE, MeanInterval, difference_range
from judge_app.metrics.multiple_testing import (
    TukeyHSD,
    benjamini_hochberg,
    holm,
    randomized_tukey_hsd,
)
from judge_app.metrics.paired_tests import Effect, sign_test, standardized_effect, wilcoxon_test

PAIRED_TESTS = ("randomization", "t", "wilcoxon", "sign")
"""The tests of one pair at a time, adjusted over the family of pairs."""
TESTS = ("hsd", *PAIRED_TESTS)
"""Every test, in the order of their verdicts by default: the first decides."""
TEST_NAMES = {
    "hsd": "randomized Tukey HSD",
    "randomization": "randomization test",
    "t": "t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
}
HSD_METHOD = "simultaneous HSD"
"""The name of the HSD's interval (``95% simultaneous HSD interval``)."""
ADJUSTMENTS = ("holm", "bh", "none")
ADJUSTMENT_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "unadjusted"}


@dataclass(frozen=True)
class PairTest:
    """One test of one pair: its statistic and p-value, and the p-value adjusted over the
    family of pairs by Holm and by Benjamini–Hochberg (NaN: too few queries to test)."""

    statistic: float
    p_value: float
    holm: float
    bh: float

    def adjusted(self, adjustment: str) -> float:
        """The p-value adjusted by ``adjustment`` (``holm``, ``bh`` or ``none``)."""
        return {"holm": self.holm, "bh": self.bh, "none": self.p_value}[adjustment]


@dataclass(frozen=True)
class PairResult:
    """Run ``other`` against run ``baseline`` (differences other − baseline, over the queries
    both scored): the ``comparison`` (means, mean difference, randomization test, t-test,
    wins, losses, ties), the standardized
    ``effect``, the chosen paired ``tests`` and, if chosen, the randomized Tukey HSD's
    p-value and simultaneous interval (the mean difference over the queries every run
    scored ± the critical difference)."""

    comparison: Comparison
    effect: Effect
    tests: dict[str, PairTest]
    hsd_p_value: float
    hsd_interval: MeanInterval

    @property
    def baseline(self) -> str:
        return self.comparison.baseline

    @property
    def other(self) -> str:
        return self.comparison.other


@dataclass(frozen=True)
class Significance:
    """The runs compared on ``measure``: ``pairs`` (every pair of ``runs``, first run as the
    baseline of each, or each run against ``baseline``), by ``tests`` (the first decides the
    verdicts and the colours), adjusted by ``adjustment``; the Tukey HSD test over all runs
    if chosen; ``permutations`` and ``seed`` of every randomized test."""

    measure: str
    runs: list[str]
    tests: tuple[str, ...]
    adjustment: str
    baseline: str | None
    permutations: int
    seed: int
    pairs: list[PairResult]
    hsd: TukeyHSD | None
    alpha: float = ALPHA

    @property
    def verdict_test(self) -> str:
        """The test whose p-value (adjusted, but for the HSD: family-wise already) decides."""
        return self.tests[0]

    def verdict_p(self, pair: PairResult) -> float:
        """``pair``'s p-value by the verdict's test and adjustment."""
        if self.verdict_test == "hsd":
            return pair.hsd_p_value
        return pair.tests[self.verdict_test].adjusted(self.adjustment)

    def significant(self, pair: PairResult) -> bool:
        """Does the verdict's test, adjusted, tell the two runs apart at ``alpha``?"""
        return bool(self.verdict_p(pair) < self.alpha)

    def family_size(self, test: str) -> int:
        """How many pairs ``test`` could test: the family its p-values are adjusted over."""
        return sum(not math.isnan(pair.tests[test].p_value) for pair in self.pairs)

    def between(self, a: str, b: str) -> tuple[PairResult, float] | None:
        """The pair of runs ``a`` and ``b`` with the sign that makes its differences
        ``a − b`` (+1 when ``b`` is its baseline, −1 when ``a`` is); None if not compared."""
        for pair in self.pairs:
            if (pair.other, pair.baseline) == (a, b):
                return pair, 1.0
            if (pair.baseline, pair.other) == (a, b):
                return pair, -1.0
        return None

    def groups(self) -> list[tuple[str, list[str]]]:
        """The groups of runs the HSD cannot tell apart at ``alpha``, each with its letter
        (none without the HSD, or with fewer than two queries every run scored)."""
        return [] if self.hsd is None or self.hsd.n < 2 else self.hsd.groups()

    def letters(self) -> dict[str, str]:
        """Each run's letters of :meth:`groups` (none without them)."""
        return {} if self.hsd is None or self.hsd.n < 2 else self.hsd.letters()

    def interval_alpha(self) -> float:
        """The level 1 − α' of the pairs' intervals that makes each agree with its verdict:
        α for the HSD (family-wise already) or unadjusted p-values, α/(m − r) under Holm and
        Rα/m under Benjamini–Hochberg (m pairs tested, r or R of them rejected; none
        rejected: α/m), as the module says."""
        if self.verdict_test == "hsd" or self.adjustment == "none":
            return self.alpha
        tested = self.family_size(self.verdict_test)
        rejected = sum(self.significant(pair) for pair in self.pairs)
        if tested <= 1:
            return self.alpha
        if self.adjustment == "holm":
            return self.alpha / max(tested - rejected, 1)
        return self.alpha * max(rejected, 1) / tested

    def interval(self, pair: PairResult) -> MeanInterval | None:
        """``pair``'s interval of its mean difference: the verdict test's, at the level of
        :meth:`interval_alpha` (None for a test without one, and with fewer than two
        queries)."""
        if pair.comparison.n < 2:
            return None
        if self.verdict_test == "hsd":
            interval = None if math.isnan(pair.hsd_p_value) else pair.hsd_interval
        else:
            interval = pair.comparison.interval(self.verdict_test, self.interval_alpha())
        return None if interval is None else interval.within(difference_range(self.measure))

    def interval_method(self) -> str | None:
        """The name of the pairs' interval (``randomization``, ``t``, ``simultaneous HSD``);
        None when the verdict's test gives none."""
        return {"hsd": HSD_METHOD, "randomization": "randomization", "t": "t"}.get(
            self.verdict_test
        )


def compare_runs(
    runs: Sequence[str],
    scores: np.ndarray,
    measure: str,
    *,
    tests: Sequence[str] = TESTS,
    adjustment: str = "holm",
    baseline: str | None = None,
    permutations: int = 10_000,
    seed: int = 0,
) -> Significance:
    """Compare ``runs`` on ``scores`` (a row per query, a column per run, NaN where a run did
    not score the query): every pair (the earlier run in ``runs`` its baseline) or, with a
    ``baseline``, each other run against it; each pair over the queries both scored, the HSD
    over the queries every run scored. ``tests`` among :data:`TESTS`, the first deciding the
    verdicts; ``adjustment`` among :data:`ADJUSTMENTS`."""
    names = list(runs)
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(names) or len(names) < 2:
        raise ValueError(f"expected a query × run matrix of two or more runs, got {x.shape}")
    unknown = [test for test in tests if test not in TESTS]
    if unknown or not tests or adjustment not in ADJUSTMENTS:
        raise ValueError(f"unknown tests {unknown} or adjustment {adjustment!r}")
    if baseline is not None and baseline not in names:
        raise ValueError(f"no run {baseline!r} to compare against")
    pairs = _pairs(names, baseline)
    comparisons = _comparisons(names, x, pairs, measure, permutations, seed)
    differences = [_differences(x, i, j) for i, j in pairs]
    paired = {
        test: _paired_test(test, comparisons, differences) for test in PAIRED_TESTS if test in tests
    }
    complete = x[~np.isnan(x).any(axis=1)]
    # two runs: the HSD is the randomization test of their one pair, its sign flips drawn once
    flips = comparisons[0].flips if len(names) == 2 else None
    hsd = (
        randomized_tukey_hsd(
            names,
            complete,
            permutations=permutations,
            seed=seed,
            alpha=ALPHA,
            flipped=None if flips is None else flips.flipped,
        )
        if "hsd" in tests
        else None
    )
    adjusted = {
        test: (holm(raw[:, 1]), benjamini_hochberg(raw[:, 1])) for test, raw in paired.items()
    }
    results = []
    for index, ((i, j), comparison) in enumerate(zip(pairs, comparisons)):
        chosen = {
            test: PairTest(
                float(paired[test][index, 0]),
                float(paired[test][index, 1]),
                float(holm_p[index]),
                float(bh_p[index]),
            )
            for test, (holm_p, bh_p) in adjusted.items()
        }
        hsd_p = math.nan
        hsd_interval = MeanInterval(math.nan, math.nan, math.nan, 0, HSD_METHOD)
        if hsd is not None and hsd.n >= 2:
            hsd_p = float(hsd.p[i, j])
            difference, low, high = hsd.interval(names[i], names[j])
            hsd_interval = MeanInterval(difference, low, high, hsd.n, HSD_METHOD)
        results.append(
            PairResult(
                comparison,
                standardized_effect(differences[index], CONFIDENCE),
                chosen,
                hsd_p,
                hsd_interval,
            )
        )
    return Significance(
        measure, names, tuple(tests), adjustment, baseline, permutations, seed, results, hsd
    )


def _pairs(names: list[str], baseline: str | None) -> list[tuple[int, int]]:
    """(baseline, other) column indexes: every pair in order, or each run against one."""
    if baseline is None:
        return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    chosen = names.index(baseline)
    return [(chosen, j) for j in range(len(names)) if j != chosen]


def _differences(x: np.ndarray, i: int, j: int) -> np.ndarray:
    """Run j's scores minus run i's on the queries both scored."""
    both = ~(np.isnan(x[:, i]) | np.isnan(x[:, j]))
    return x[both, j] - x[both, i]


def _comparisons(
    names: list[str],
    x: np.ndarray,
    pairs: list[tuple[int, int]],
    measure: str,
    permutations: int,
    seed: int,
) -> list[Comparison]:
    """Each pair's comparison; the pairs that share their common queries (all of them,
    when every run scored the same queries) drawn together (``compare_rows``)."""
    scored = ~np.isnan(x)
    by_queries: dict[bytes, list[int]] = {}
    for index, (i, j) in enumerate(pairs):
        by_queries.setdefault((scored[:, i] & scored[:, j]).tobytes(), []).append(index)
    comparisons: list[Comparison | None] = [None] * len(pairs)
    for key, members in by_queries.items():
        rows = np.frombuffer(key, dtype=bool)
        base = np.array([x[rows, pairs[index][0]] for index in members]).reshape(len(members), -1)
        oth = np.array([x[rows, pairs[index][1]] for index in members]).reshape(len(members), -1)
        names_of = [(names[pairs[index][0]], names[pairs[index][1]]) for index in members]
        drawn = compare_rows(names_of, base, oth, measure, permutations=permutations, seed=seed)
        for index, comparison in zip(members, drawn):
            comparisons[index] = comparison
    return [comparison for comparison in comparisons if comparison is not None]


def _paired_test(
    test: str, comparisons: list[Comparison], differences: list[np.ndarray]
) -> np.ndarray:
    """A row (statistic, p) per pair for ``test``; NaN where the pair has fewer than two
    queries (too few to test). The randomization test's statistic is the mean difference,
    the sign test's the wins."""
    rows: list[tuple[float, float]] = []
    for comparison, d in zip(comparisons, differences):
        if d.size < 2:
            rows.append((math.nan, math.nan))
        elif test == "randomization":
            rows.append((comparison.mean_difference, comparison.randomization_p_value))
        elif test == "t":
            rows.append((comparison.t_statistic, comparison.t_p_value))
        elif test == "wilcoxon":
            rows.append(wilcoxon_test(d))
        else:
            rows.append(sign_test(d))
    return np.array(rows, dtype=np.float64).reshape(len(comparisons), 2)
