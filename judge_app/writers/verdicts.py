"""Runs compared, for people and machines: each pair in words (:func:`describe`), the table of
``eval --compare``, its CSV and its JSON document. A pair has one interval of its mean
difference, the verdict test's (``Significance.interval``), named wherever it is shown; the
words never contradict the numbers: each verdict names its test and its adjustment, and a
p-value or a bound is never rounded across the threshold it is judged by."""

from __future__ import annotations

import math

import numpy as np

from judge_app.metrics.intervals import CONFIDENCE, MeanInterval
from judge_app.metrics.significance import (
    ADJUSTMENT_NAMES,
    PAIRED_TESTS,
    TEST_NAMES,
    PairResult,
    Significance,
)
from judge_app.numbers import MISSING, bound_text, count_text, p_text, score_text, signed_text
from judge_app.writers.json_document import json_document
from judge_app.writers.tables import listed, text_table

TABLE_DIGITS = 4
"""Digits of the table for people; CSV and JSON carry full precision."""


def interval_heading(significance: Significance) -> str:
    """The pairs' interval as a column names it: ``95% simultaneous HSD interval``,
    ``98.3% randomization interval``; ``interval`` when the verdict's test gives none."""
    method = significance.interval_method()
    if method is None:
        return "interval"
    return f"{level_text(1 - significance.interval_alpha())} {method} interval"


def level_text(confidence: float) -> str:
    """``95%``, ``98.3%``: a confidence level, with a decimal only where it has one."""
    text = f"{100 * confidence:.1f}".removesuffix(".0")
    return f"{text}%"


def span_text(interval: MeanInterval | None, digits: int = TABLE_DIGITS) -> str:
    """``[-0.0772, +0.0250]``; "–" for no interval."""
    if interval is None or not interval.defined:
        return MISSING
    return f"[{bound_text(interval.low, digits)}, {bound_text(interval.high, digits)}]"


def difference_words(
    other: str, baseline: str, difference: float, measure: str, digits: int
) -> str:
    """``neural is 0.0677 higher than bm25 on mean ndcg@10``: who is ahead, by how much,
    without a minus sign to read twice."""
    size = score_text(abs(difference), digits)
    if difference > 0 and size != score_text(0.0, digits):
        return f"{other} is {size} higher than {baseline} on mean {measure}"
    if difference < 0 and size != score_text(0.0, digits):
        return f"{other} is {size} lower than {baseline} on mean {measure}"
    if difference == 0:
        return f"{other} and {baseline} have the same mean {measure}"
    return f"{other} and {baseline} differ by less than {10.0**-digits:g} on mean {measure}"


def describe(significance: Significance, pair: PairResult, digits: int = TABLE_DIGITS) -> str:
    """Plain English: who is ahead by how much, the verdict with its one interval (the
    verdict test's), then what each chosen test says, adjusted as the verdicts are."""
    parts = [verdict_sentence(significance, pair, digits)]
    if not _tested(pair):
        return parts[0]
    tested = [
        test
        for test in significance.tests
        if test in pair.tests and not math.isnan(pair.tests[test].p_value)
    ]
    if tested:
        parts.append(_tests_words(significance, pair, tested, digits))
    return " ".join(parts)


def verdict_sentence(
    significance: Significance, pair: PairResult, digits: int = TABLE_DIGITS
) -> str:
    """Who is ahead by how much over how many queries, then the verdict with its one interval
    (the verdict test's): the start of :func:`describe`, the answer a report leads with."""
    comparison, measure = pair.comparison, significance.measure
    shared = count_text(comparison.n, "query", "queries")
    if comparison.n < 2:
        return (
            f"{comparison.other} against {comparison.baseline} on {measure}: too few queries "
            f"to test ({shared} in common)."
        )
    if not _tested(pair):
        return (
            f"{comparison.other} and {comparison.baseline} score the same on {measure} on "
            f"each of the {shared} they share."
        )
    head = difference_words(
        comparison.other,
        comparison.baseline,
        comparison.mean_difference,
        significance.measure,
        digits,
    )
    record = (
        f"{count_text(comparison.wins, 'win', 'wins')}, "
        f"{count_text(comparison.losses, 'loss', 'losses')}, "
        f"{count_text(comparison.ties, 'tie', 'ties')}"
    )
    return f"{head} over {shared} ({record}). {_verdict(significance, pair, digits)}"


def _tested(pair: PairResult) -> bool:
    """Whether the pair can be tested: two queries or more, not all of them ties."""
    comparison = pair.comparison
    return comparison.n >= 2 and not comparison.wins == comparison.losses == 0


def leading_pair(significance: Significance, means: dict[str, float]) -> PairResult | None:
    """The pair that says whether the best run (by ``means``) wins: the best run against the
    best of the runs it was compared with; None when it was compared with none."""
    compared = [run for run in significance.runs if run in means and not math.isnan(means[run])]
    if not compared:
        return None
    best = max(compared, key=lambda run: means[run])
    rivals = [
        (means[other], pair)
        for pair in significance.pairs
        if best in (pair.baseline, pair.other)
        for other in [pair.other if pair.baseline == best else pair.baseline]
        if other in means and not math.isnan(means[other])
    ]
    return max(rivals, key=lambda rival: rival[0])[1] if rivals else None


def _verdict(significance: Significance, pair: PairResult, digits: int) -> str:
    """The verdict's test, its p-value and the interval that goes with it."""
    alpha, test = significance.alpha, significance.verdict_test
    p = significance.verdict_p(pair)
    significant = significance.significant(pair)
    if test == "hsd":
        assert significance.hsd is not None
        how = (
            f"the {TEST_NAMES['hsd']} over the {len(significance.runs)} runs "
            f"({significance.permutations:,} permutations, on the "
            f"{count_text(significance.hsd.n, 'query', 'queries')} every run scored; "
            "family-wise)"
        )
    else:
        family = significance.family_size(test)
        how = f"the paired {TEST_NAMES[test]}"
        if significance.adjustment != "none" and family > 1:
            how += f", {_adjusted(significance.adjustment)} over {family:,} pairs"
    words = (
        f"By {how} {p_text(p, digits, alpha)}, the difference is "
        f"{'' if significant else 'not '}significant at {alpha:g}"
    )
    interval = significance.interval(pair)
    if interval is None or not interval.defined:
        return f"{words} (this test gives no interval of the mean difference)."
    level = level_text(interval.confidence)
    if significance.interval_alpha() != alpha:
        level += f" (the level {_adjusted(significance.adjustment)} verdicts are decided at)"
    return (
        f"{words}; its {level} {interval.method} interval, {bound_text(interval.low, digits)} "
        f"to {bound_text(interval.high, digits)}, {'excludes' if significant else 'includes'} 0."
    )


def _tests_words(
    significance: Significance, pair: PairResult, tested: list[str], digits: int
) -> str:
    """Which of the chosen paired tests tell the runs apart, adjusted as the verdicts are."""
    adjustment, alpha = significance.adjustment, significance.alpha
    p = {test: pair.tests[test].adjusted(adjustment) for test in tested}
    said = {test: f"the {TEST_NAMES[test]} ({p_text(p[test], digits, alpha)})" for test in tested}
    yes = [said[test] for test in tested if p[test] < alpha]
    no = [said[test] for test in tested if p[test] >= alpha]
    sizes = sorted({significance.family_size(test) for test in tested})
    family = " or ".join(f"{size:,}" for size in sizes)
    words = _adjusted(adjustment)
    head = f"{words[:1].upper()}{words[1:]} over {family} " + (
        "comparison" if sizes == [1] else "comparisons"
    )
    verdicts = []
    if yes:
        verdicts.append(f"significant at {alpha:g} by {listed(yes, 'and')}")
    if no:
        verdicts.append(
            f"not by {listed(no, 'nor')}"
            if yes
            else f"not significant at {alpha:g} by {listed(no, 'nor')}"
        )
    return f"{head}: {'; '.join(verdicts)}."


def _adjusted(adjustment: str) -> str:
    return "unadjusted" if adjustment == "none" else f"{ADJUSTMENT_NAMES[adjustment]}-adjusted"


def verdict_words(significance: Significance) -> str:
    """The verdict's test and adjustment, in words: ``randomized Tukey HSD`` or e.g.
    ``t-test, Holm-adjusted``."""
    test = significance.verdict_test
    if test == "hsd":
        return TEST_NAMES[test]
    return f"{TEST_NAMES[test]}, {_adjusted(significance.adjustment)}"


def pair_record(significance: Significance, pair: PairResult) -> dict[str, object]:
    """One pair's numbers, flat and in full (NaN as None): the effect, its one interval
    (method, level, bounds), each chosen test's statistic and p-value raw, Holm- and
    BH-adjusted, the HSD's p-value, the runs' HSD letters and the verdict."""
    comparison, effect = pair.comparison, pair.effect
    letters = significance.letters()
    interval = significance.interval(pair)
    record: dict[str, object] = {
        "baseline": pair.baseline,
        "other": pair.other,
        "measure": comparison.measure,
        "n": comparison.n,
        "mean_baseline": comparison.mean_baseline,
        "mean_other": comparison.mean_other,
        "mean_difference": comparison.mean_difference,
        "interval_method": significance.interval_method(),
        "interval_confidence": 1 - significance.interval_alpha(),
        "interval_low": None if interval is None else interval.low,
        "interval_high": None if interval is None else interval.high,
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
    if significance.hsd is not None:
        record["hsd_p"] = pair.hsd_p_value
        record["hsd_queries"] = significance.hsd.n
        record["baseline_group"] = letters.get(pair.baseline, "")
        record["other_group"] = letters.get(pair.other, "")
    record["verdict"] = verdict_words(significance)
    record["verdict_p"] = significance.verdict_p(pair)
    record["significant"] = significance.significant(pair)
    return {key: plain(value) for key, value in record.items()}


def plain(value: object) -> object:
    """NaN and infinities as None (JSON has neither), numpy numbers as Python's."""
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def rounded(record: dict[str, object], digits: int | None) -> dict[str, object]:
    """``record``'s real numbers rounded to ``digits`` (None: as they are)."""
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
        "interval": {
            "method": significance.interval_method(),
            "confidence": 1 - significance.interval_alpha(),
        },
        "settings": {
            "tests": list(significance.tests),
            "adjustment": significance.adjustment,
            "baseline": significance.baseline,
            "permutations": significance.permutations,
            "seed": significance.seed,
        },
        "verdict": verdict_words(significance),
        "family_size": {
            test: significance.family_size(test)
            for test in significance.tests
            if test in PAIRED_TESTS
        },
        "hsd": None if hsd is None else _hsd_record(significance, digits),
        "pairs": [
            rounded(pair_record(significance, pair), digits)
            | {"summary": describe(significance, pair, TABLE_DIGITS if digits is None else digits)}
            for pair in significance.pairs
        ],
    }


def _hsd_record(significance: Significance, digits: int | None) -> dict[str, object]:
    hsd = significance.hsd
    assert hsd is not None
    return {
        "queries": hsd.n,
        "critical_difference": rounded({"value": plain(hsd.critical)}, digits)["value"],
        "means": rounded(dict(zip(hsd.runs, map(plain, hsd.means))), digits),
        "groups": dict(significance.groups()),
        "letters": significance.letters(),
    }


def csv_text(significances: list[Significance], digits: int | None = None) -> str:
    """A row per pair of each comparison (:func:`pair_record`, which names its measure),
    numbers in full unless rounded to ``digits``."""
    import pandas as pd

    from judge_app.io import exports

    frame = pd.DataFrame(
        [pair_record(found, pair) for found in significances for pair in found.pairs]
    )
    return exports.csv_text(frame, float_format=None if digits is None else f"%.{digits}f")


def json_text(significance: Significance, digits: int | None = None) -> str:
    return json_document(as_document(significance, digits))


def table_text(significance: Significance, digits: int = TABLE_DIGITS) -> str:
    """The comparison for people: what was compared and how, a row per pair with its one
    interval (p-values adjusted as the options say, raw beside them), the HSD's groups, and
    each pair in words."""
    rows = pair_rows(significance, digits)
    lines = [_heading(significance), text_table(rows)]
    if significance.groups():
        lines.append(groups_text(significance))
    lines += [describe(significance, pair, digits) for pair in significance.pairs]
    return "\n\n".join(lines) + "\n"


def pair_rows(significance: Significance, digits: int = TABLE_DIGITS) -> list[dict[str, str]]:
    """A row per pair as :func:`table_text` shows it (the report prints the same cells): its
    effects and one interval, each test's p-value (adjusted as the options say, raw in
    brackets) and the verdict."""
    adjustment = significance.adjustment
    paired = [test for test in significance.tests if test in PAIRED_TESTS]
    heading = interval_heading(significance)
    rows = []
    for pair in significance.pairs:
        comparison, effect = pair.comparison, pair.effect
        row = {
            "baseline": pair.baseline,
            "other": pair.other,
            "queries": f"{comparison.n:,}",
            "difference": signed_text(comparison.mean_difference, digits),
            heading: span_text(significance.interval(pair), digits),
            "d_z": signed_text(effect.d_z, digits),
            f"d_z {CONFIDENCE:.0%}": _span(effect.low, effect.high, digits),
            "W/T/L": f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
        }
        if significance.hsd is not None and not _hsd_is_randomization(significance):
            row["HSD p"] = score_text(pair.hsd_p_value, digits)
        for test in paired:
            result = pair.tests[test]
            shown = score_text(result.adjusted(adjustment), digits)
            if raw_beside(significance):
                shown += f" ({score_text(result.p_value, digits)})"
            row[f"{_short(test)} p"] = shown
        row["verdict"] = "significant" if significance.significant(pair) else "—"
        rows.append(row)
    return rows


def _hsd_is_randomization(significance: Significance) -> bool:
    """Whether the HSD's p-values are the randomization test's, shown once: with two runs
    the HSD draws the test's own sign flips, and the range of two means is their
    difference."""
    return len(significance.runs) == 2 and "randomization" in significance.tests


def unadjusted_words(significance: Significance) -> str:
    """How p-values shown without raw ones beside them are said: raw, or adjusted over one
    pair (which leaves them as they are)."""
    if significance.adjustment == "none":
        return "raw p-values"
    name = ADJUSTMENT_NAMES[significance.adjustment]
    return f"one pair: its {name}-adjusted p-values are the raw ones"


def raw_beside(significance: Significance) -> bool:
    """Whether raw p-values are shown beside the adjusted ones: some adjustment, over two
    pairs or more (any adjustment of one p-value leaves it as it is)."""
    return significance.adjustment != "none" and len(significance.pairs) > 1


def _heading(significance: Significance) -> str:
    pairs = len(significance.pairs)
    which = (
        "every pair of runs"
        if significance.baseline is None
        else f"each run against {significance.baseline}"
    )
    adjusted = (
        f"p-values {ADJUSTMENT_NAMES[significance.adjustment]}-adjusted over the "
        f"{pairs:,} pairs (raw in brackets)"
        if raw_beside(significance)
        else unadjusted_words(significance)
    )
    return (
        f"Runs compared on {significance.measure}: {which}; {adjusted}; "
        f"{significance.permutations:,} permutations, seed {significance.seed}. "
        f"Verdict: {verdict_words(significance)} at {significance.alpha:g}, with "
        f"{_interval_words(significance)}."
    )


def _interval_words(significance: Significance) -> str:
    method = significance.interval_method()
    if method is None:
        return "no interval of the mean difference (the test gives none)"
    return f"its {interval_heading(significance)} of each difference"


def groups_text(significance: Significance) -> str:
    """The groups of runs the HSD cannot tell apart, best first."""
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
