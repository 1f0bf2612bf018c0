"""The report's "Runs compared": the run × run matrix of mean differences the evaluation page
shows, coloured the same way, the randomized Tukey HSD's groups, the table of pairs
``eval --compare`` prints (split by columns to fit a page) and each pair's verdicts in words."""

from __future__ import annotations

import html
from collections.abc import Iterator

from judge_app.metrics.significance import ADJUSTMENT_NAMES, TEST_NAMES, Significance
from judge_app.numbers import signed_text
from judge_app.reports.tables import Cell, Table
from judge_app.writers.verdicts import (
    describe,
    pair_rows,
    raw_beside,
    unadjusted_words,
    verdict_words,
)

NOT_COMPARED = "–"


def significance_blocks(
    significance: Significance, colours: dict[str, str], digits: int = 4
) -> Iterator[str | Table]:
    """The runs compared as report blocks: the matrix, the groups, the pairs, the verdicts."""
    yield _matrix(significance, colours, digits)
    groups = significance.groups()
    if groups:
        listed = "; ".join(f"{letter}: {', '.join(runs)}" for letter, runs in groups)
        words = f"Groups {TEST_NAMES['hsd']} cannot tell apart at {significance.alpha:g}"
        yield f"<p>{_e(words)} (the letters beside the names): {_e(listed)}.</p>"
    rows = [
        {**row, "verdict": "significant" if row["verdict"] == "significant" else "not significant"}
        for row in pair_rows(significance, digits)
    ]
    yield Table.of("Each pair of runs", rows, keys=2, note=_pairs_note(significance))
    for pair in significance.pairs:
        yield f"<p class='finding'>{_e(describe(significance, pair, digits))}</p>"


def _matrix(significance: Significance, colours: dict[str, str], digits: int) -> Table:
    """Each cell the row run's mean minus the column run's, shaded where the verdict's test
    tells them apart."""
    runs = significance.runs
    letters = significance.letters()
    names = [run + (f" ({letters[run]})" if letters.get(run) else "") for run in runs]
    rows: list[list[str | Cell]] = []
    for a, name in zip(runs, names):
        row: list[str | Cell] = [Cell(name, swatch=colours.get(a, ""), heading=True)]
        for b in runs:
            found = None if a == b else significance.between(a, b)
            if found is None:
                row.append("" if a == b else NOT_COMPARED)
                continue
            pair, sign = found
            difference = sign * pair.comparison.mean_difference
            tone = ""
            if significance.significant(pair):
                tone = "better" if difference > 0 else "worse"
            row.append(Cell(signed_text(difference, digits), tone=tone))
        rows.append(row)
    caption = (
        f"Each cell: the row run's mean {significance.measure} minus the column run's, over "
        f"the queries both scored; shaded where the {verdict_words(significance)} tells "
        f"them apart at {significance.alpha:g} (green: the row run is better, red: worse)."
    )
    return Table("Mean differences", ["", *names], rows, note=caption)


def _pairs_note(significance: Significance) -> str:
    adjustment = significance.adjustment
    adjusted = (
        f"p-values {ADJUSTMENT_NAMES[adjustment]}-adjusted over the pairs, raw in brackets"
        if raw_beside(significance)
        else unadjusted_words(significance)
    )
    return (
        f"{adjusted}; {significance.permutations:,} permutations, seed {significance.seed}; "
        f"verdict: the {verdict_words(significance)} at {significance.alpha:g}; "
        "d_z: mean difference over the differences' standard deviation (interval from the "
        "noncentral t); W/T/L: the queries the other run wins, ties and loses."
    )


def _e(text: str) -> str:
    return html.escape(text, quote=True)
