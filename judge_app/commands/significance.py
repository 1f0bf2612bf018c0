"""Compare runs with statistics a lead can publish (``eval --compare``, the evaluation
page's matrix of runs, the report's "Runs compared"): every pair of runs or each run against
a baseline, by the paired t-test, the Wilcoxon signed-rank test, the sign test and the
paired randomization test, each p-value adjusted by Holm and by Benjamini–Hochberg over the
pairs; the randomized Tukey HSD test of all runs and its groups; each pair's mean difference
with its bootstrap interval, Cohen's d_z with its noncentral-t interval and wins, ties and
losses. Always through :func:`compare_evaluations` with one :class:`SignificanceOptions`.

Machine formats carry every number in full: p-values raw and adjusted both ways, the HSD's
p-values, interval and groups, the effects. No pandas but for CSV.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from judge_app.commands.options import EvaluationOptions, check_known, names, require_whole
from judge_app.errors import UsageError, quoted
from judge_app.metrics.comparison import CONFIDENCE
from judge_app.metrics.ranking import Evaluation
from judge_app.metrics.significance import (
    ADJUSTMENT_NAMES,
    ADJUSTMENTS,
    PAIRED_TESTS,
    TEST_NAMES,
    TESTS,
    PairResult,
    Significance,
    compare_runs,
)
from judge_app.numbers import MISSING, score_text, signed_text

TABLE_DIGITS = 4
"""Digits of the table for people; CSV and JSON carry full precision."""


@dataclass(frozen=True)
class SignificanceOptions:
    """How to compare runs: the ``tests`` (among ``hsd``, ``randomization``, ``t``,
    ``wilcoxon``, ``sign``; the first decides the verdicts and the matrix's colours), the
    ``adjustment`` of the paired tests' p-values the verdicts use (``holm``, ``bh`` or
    ``none``; both adjustments are computed), every pair of runs or each against a
    ``baseline`` run, and the ``permutations`` and ``seed`` of the randomized tests and the
    bootstrap."""

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
            raise UsageError(f"--tests needs test names, each once: {', '.join(TESTS)}")
        unknown = [test for test in self.tests if test not in TESTS]
        if unknown:
            raise UsageError(
                f"--tests: no test {', '.join(map(quoted, unknown))} (tests: {', '.join(TESTS)})"
            )
        if self.adjustment not in ADJUSTMENTS:
            raise UsageError(f"--adjust takes {', '.join(ADJUSTMENTS)}")
        require_whole("--permutations", self.permutations, 1)
        require_whole("--seed", self.seed, 0)
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
    listed = names(text, "--tests", "test")
    return TESTS if listed is None else tuple(name.lower() for name in listed)


def compare_evaluations(
    evaluations: dict[str, Evaluation], measure: str, options: SignificanceOptions, source: str
) -> Significance:
    """Compare the runs of ``evaluations`` on ``measure`` as ``options`` say, each pair over
    the queries both scored (in query id order); a usage error naming a ``baseline`` that
    ``source`` has no run of, or fewer than two runs."""
    options.checked()
    runs = list(evaluations)
    if len(runs) < 2:
        raise UsageError("--compare needs at least two runs")
    if options.baseline is not None:
        check_known([options.baseline], runs, "run", "--baseline", source)
    queries = sorted({query for each in evaluations.values() for query in each.query_ids})
    row = {query: index for index, query in enumerate(queries)}
    scores = np.full((len(queries), len(runs)), np.nan)
    for column, evaluation in enumerate(evaluations.values()):
        rows = np.fromiter((row[q] for q in evaluation.query_ids), np.int64, evaluation.n_queries)
        scores[rows, column] = evaluation.values[measure]
    return compare_runs(
        runs,
        scores,
        measure,
        tests=options.tests,
        adjustment=options.adjustment,
        baseline=options.baseline,
        permutations=options.permutations,
        seed=options.seed,
    )


def pair_record(significance: Significance, pair: PairResult) -> dict[str, object]:
    """One pair's numbers, flat and in full (NaN as None): the effect, each chosen test's
    statistic and p-value raw, Holm- and BH-adjusted, the HSD's p-value and interval, the
    runs' HSD letters and the verdict."""
    comparison, effect = pair.comparison, pair.effect
    letters = significance.letters()
    record: dict[str, object] = {
        "baseline": pair.baseline,
        "other": pair.other,
        "measure": comparison.measure,
        "n": comparison.n,
        "mean_baseline": comparison.mean_baseline,
        "mean_other": comparison.mean_other,
        "mean_difference": comparison.mean_difference,
        "difference_low": comparison.difference_interval.low,
        "difference_high": comparison.difference_interval.high,
        "d_z": effect.d_z,
        "d_z_low": effect.low,
        "d_z_high": effect.high,
        "wins": comparison.wins,
        "ties": comparison.ties,
        "losses": comparison.losses,
    }
    for test in PAIRED_TESTS:
        if test in pair.tests:
            result = pair.tests[test]
            record[f"{test}_statistic"] = result.statistic
            record[f"{test}_p"] = result.p_value
            record[f"{test}_p_holm"] = result.holm
            record[f"{test}_p_bh"] = result.bh
        if test == "randomization" and test in pair.tests:
            record["randomization_low"] = comparison.randomization_interval.low
            record["randomization_high"] = comparison.randomization_interval.high
    if significance.hsd is not None:
        record["hsd_p"] = pair.hsd_p_value
        record["hsd_low"] = pair.hsd_interval.low
        record["hsd_high"] = pair.hsd_interval.high
        record["hsd_queries"] = significance.hsd.n
        record["baseline_group"] = letters.get(pair.baseline, "")
        record["other_group"] = letters.get(pair.other, "")
    record["verdict"] = significance.verdict_words()
    record["verdict_p"] = significance.verdict_p(pair)
    record["significant"] = significance.significant(pair)
    return {key: _plain(value) for key, value in record.items()}


def _plain(value: object) -> object:
    """NaN and infinities as None (JSON has neither), numpy numbers as Python's."""
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def _rounded(record: dict[str, object], digits: int | None) -> dict[str, object]:
    if digits is None:
        return record
    return {
        key: round(value, digits) if isinstance(value, float) else value
        for key, value in record.items()
    }


def as_document(significance: Significance, digits: int | None = None) -> dict[str, object]:
    """The comparison as the ``significance`` entry of ``eval --compare --format json``."""
    hsd = significance.hsd
    return {
        "measure": significance.measure,
        "alpha": significance.alpha,
        "confidence": CONFIDENCE,
        "settings": {
            "tests": list(significance.tests),
            "adjustment": significance.adjustment,
            "baseline": significance.baseline,
            "permutations": significance.permutations,
            "seed": significance.seed,
        },
        "verdict": significance.verdict_words(),
        "family_size": {
            test: significance.family_size(test)
            for test in significance.tests
            if test in PAIRED_TESTS
        },
        "hsd": None if hsd is None else _hsd_record(significance, digits),
        "pairs": [
            _rounded(pair_record(significance, pair), digits)
            | {"summary": significance.describe(pair, TABLE_DIGITS if digits is None else digits)}
            for pair in significance.pairs
        ],
    }


def _hsd_record(significance: Significance, digits: int | None) -> dict[str, object]:
    hsd = significance.hsd
    assert hsd is not None
    return {
        "queries": hsd.n,
        "critical_difference": _rounded({"value": _plain(hsd.critical)}, digits)["value"],
        "means": _rounded(dict(zip(hsd.runs, map(_plain, hsd.means))), digits),
        "groups": dict(significance.groups()),
        "letters": significance.letters(),
    }


def csv_text(significance: Significance, digits: int | None = None) -> str:
    """A row per pair (:func:`pair_record`), numbers in full unless rounded to ``digits``."""
    import pandas as pd

    from judge_app.io import exports

    frame = pd.DataFrame([pair_record(significance, pair) for pair in significance.pairs])
    return exports.csv_text(frame, float_format=None if digits is None else f"%.{digits}f")


def json_text(significance: Significance, digits: int | None = None) -> str:
    return json.dumps(as_document(significance, digits), ensure_ascii=False) + "\n"


def table_text(significance: Significance, digits: int = TABLE_DIGITS) -> str:
    """The comparison for people: what was compared and how, a row per pair (p-values
    adjusted as the options say, raw beside them), the HSD's groups, and each pair in words."""
    from judge_app.metrics.formats import text_table

    adjustment = significance.adjustment
    paired = [test for test in significance.tests if test in PAIRED_TESTS]
    rows = []
    for pair in significance.pairs:
        comparison, effect = pair.comparison, pair.effect
        interval = comparison.difference_interval
        row: dict[str, object] = {
            "baseline": pair.baseline,
            "other": pair.other,
            "queries": f"{comparison.n:,}",
            "difference": signed_text(comparison.mean_difference, digits),
            f"{CONFIDENCE:.0%} bootstrap": _span(interval.low, interval.high, digits),
            "d_z": signed_text(effect.d_z, digits),
            f"d_z {CONFIDENCE:.0%}": _span(effect.low, effect.high, digits),
            "W/T/L": f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
        }
        if significance.hsd is not None:
            row["HSD p"] = score_text(pair.hsd_p_value, digits)
        for test in paired:
            result = pair.tests[test]
            shown = score_text(result.adjusted(adjustment), digits)
            if adjustment != "none":
                shown += f" ({score_text(result.p_value, digits)})"
            row[f"{_short(test)} p"] = shown
        row["verdict"] = "significant" if significance.significant(pair) else "—"
        rows.append(row)
    lines = [_heading(significance), text_table(rows)]
    if significance.groups():
        lines.append(_groups_text(significance))
    lines += [significance.describe(pair, digits) for pair in significance.pairs]
    return "\n\n".join(lines) + "\n"


def _heading(significance: Significance) -> str:
    pairs = len(significance.pairs)
    which = (
        "every pair of runs"
        if significance.baseline is None
        else f"each run against {significance.baseline}"
    )
    adjusted = (
        "raw p-values"
        if significance.adjustment == "none"
        else f"p-values {ADJUSTMENT_NAMES[significance.adjustment]}-adjusted over the "
        f"{pairs:,} {'pair' if pairs == 1 else 'pairs'} (raw in brackets)"
    )
    return (
        f"Runs compared on {significance.measure}: {which}; {adjusted}; "
        f"{significance.permutations:,} permutations, seed {significance.seed}. "
        f"Verdict: {significance.verdict_words()} at {significance.alpha:g}."
    )


def _groups_text(significance: Significance) -> str:
    groups = "; ".join(f"{letter}: {', '.join(runs)}" for letter, runs in significance.groups())
    return (
        f"Groups {TEST_NAMES['hsd']} cannot tell apart at {significance.alpha:g} "
        f"(best first): {groups}"
    )


def _short(test: str) -> str:
    return {"randomization": "rand.", "t": "t", "wilcoxon": "Wilcoxon", "sign": "sign"}[test]


def _span(low: float, high: float, digits: int) -> str:
    if math.isnan(low):
        return MISSING
    return f"[{signed_text(low, digits)}, {signed_text(high, digits)}]"
