"""The report's "Runs compared": the run × run matrix of mean differences the evaluation page
shows, coloured the same way, the randomized Tukey HSD's groups, a row per pair with its
effects and p-values, and each pair's verdicts in words. Plain HTML tables with attributes,
which Qt's rich-text engine prints as the PDF."""

from __future__ import annotations

import html
import math

from judge_app.metrics.intervals import CONFIDENCE
from judge_app.metrics.significance import (
    ADJUSTMENT_NAMES,
    PAIRED_TESTS,
    TEST_NAMES,
    Significance,
)
from judge_app.numbers import MISSING, score_text, signed_text
from judge_app.reports.palette import SIGNIFICANCE_COLOURS
from judge_app.writers.significance import describe, interval_heading, verdict_words

NOT_COMPARED = "–"


def significance_html(significance: Significance, digits: int = 4) -> str:
    """The runs compared as report HTML: the matrix, the groups, the pairs, the verdicts."""
    parts = [
        f"<p>{_e(_matrix_caption(significance))}</p>",
        _matrix(significance, digits),
    ]
    groups = significance.groups()
    if groups:
        listed = "; ".join(f"{letter}: {', '.join(runs)}" for letter, runs in groups)
        words = f"Groups {TEST_NAMES['hsd']} cannot tell apart at {significance.alpha:g}"
        parts.append(f"<p>{_e(words)} (the letters beside the names): {_e(listed)}.</p>")
    parts.append(_pairs(significance, digits))
    parts += [
        f"<p class='finding'>{_e(describe(significance, pair, digits))}</p>"
        for pair in significance.pairs
    ]
    return "\n".join(parts)


def _matrix_caption(significance: Significance) -> str:
    return (
        f"Each cell: the row run's mean {significance.measure} minus the column run's, over "
        f"the queries both scored; shaded where the {verdict_words(significance)} tells "
        f"them apart at {significance.alpha:g} (green: the row run is better, red: worse)."
    )


def _matrix(significance: Significance, digits: int) -> str:
    runs = significance.runs
    letters = significance.letters()
    names = [run + (f" ({letters[run]})" if letters.get(run) else "") for run in runs]
    head = "<th></th>" + "".join(f"<th>{_e(name)}</th>" for name in names)
    rows = []
    for a, name in zip(runs, names):
        cells = [f"<th>{_e(name)}</th>"]
        for b in runs:
            found = None if a == b else significance.between(a, b)
            if found is None:
                cells.append(f"<td class='n'>{'' if a == b else NOT_COMPARED}</td>")
                continue
            pair, sign = found
            difference = sign * pair.comparison.mean_difference
            text = _e(signed_text(difference, digits))
            if significance.significant(pair):
                colours = SIGNIFICANCE_COLOURS["light"]["better" if difference > 0 else "worse"]
                background, colour = colours
                cells.append(
                    f"<td class='n' bgcolor='{background}' style='color:{colour}'><b>{text}</b>"
                    "</td>"
                )
            else:
                cells.append(f"<td class='n'>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table cellspacing='0' cellpadding='4'><tr>{head}</tr>{''.join(rows)}</table>"


def _pairs(significance: Significance, digits: int) -> str:
    """A row per pair: its effects, then each test's p-value (adjusted as the verdicts are,
    the raw one beside it)."""
    adjustment = significance.adjustment
    paired = [test for test in significance.tests if test in PAIRED_TESTS]
    header = [
        "baseline",
        "other",
        "queries",
        "difference",
        interval_heading(significance),
        "d_z",
        f"d_z {CONFIDENCE:.0%}",
        "wins/ties/losses",
    ]
    if significance.hsd is not None:
        header.append("HSD p")
    header += [f"{TEST_NAMES[test]} p" for test in paired]
    rows = []
    for pair in significance.pairs:
        comparison, effect = pair.comparison, pair.effect
        interval = significance.interval(pair)
        row = [
            _e(pair.baseline),
            _e(pair.other),
            f"{comparison.n:,}",
            signed_text(comparison.mean_difference, digits),
            MISSING if interval is None else _span(interval.low, interval.high, digits),
            signed_text(effect.d_z, digits),
            _span(effect.low, effect.high, digits),
            f"{comparison.wins}/{comparison.ties}/{comparison.losses}",
        ]
        if significance.hsd is not None:
            row.append(score_text(pair.hsd_p_value, digits))
        for test in paired:
            result = pair.tests[test]
            shown = score_text(result.adjusted(adjustment), digits)
            if adjustment != "none" and not math.isnan(result.p_value):
                shown += f" ({score_text(result.p_value, digits)})"
            row.append(shown)
        rows.append(row)
    # the interval's name on two lines: the table must fit a page
    head = "".join(f"<th>{_e(name).replace(' interval', '<br>interval')}</th>" for name in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='n'>{cell}</td>" if index >= 2 else f"<td>{cell}</td>"
            for index, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    note = (
        "p-values unadjusted"
        if adjustment == "none"
        else f"p-values {ADJUSTMENT_NAMES[adjustment]}-adjusted over the pairs, raw in brackets"
    )
    return (
        f"<table cellspacing='0' cellpadding='4'><tr>{head}</tr>{body}</table>"
        f"<p class='note'>{_e(note)}; {significance.permutations:,} permutations, seed "
        f"{significance.seed}; d_z: mean difference over the differences' standard deviation "
        "(interval from the noncentral t).</p>"
    )


def _span(low: float, high: float, digits: int) -> str:
    if math.isnan(low):
        return MISSING
    return f"{signed_text(low, digits)} – {signed_text(high, digits)}"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
