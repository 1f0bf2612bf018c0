"""Each run's values as a table for a paper (``eval --format latex|markdown``): the measures
asked for by name (a count's sum over the queries, else the mean: a note names the sums), NDCG
and P at each cut-off, those of preference judgments (``Compat``, each run's mean over the
queries it scores), MRR and MAP, rounded, the best value of each measure in bold, and a
dagger on a run's value of a measure compared where the comparison's verdict (its deciding
test, adjusted for the pairs compared) finds it significantly better (a double dagger: worse)
than the baseline, the first run unless one is chosen; a note names the test, its adjustment
and the level. The preference measure that leads has its own comparison, and its own note.

LaTeX uses booktabs (``\\toprule``, ``\\midrule``, ``\\bottomrule``); Markdown is a GitHub
pipe table. Run names are escaped for each."""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge_app.metrics.measure_names import aggregate_note
from judge_app.metrics.ranking import Evaluation, k_label
from judge_app.metrics.significance import Significance

if TYPE_CHECKING:
    from judge_app.evaluation.preferences import PreferenceEvaluation

BETTER, WORSE = "†", "‡"
LATEX_MARKS = {BETTER: r"\dag", WORSE: r"\ddag"}
LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
"""LaTeX's special characters in text, and ``<``, ``>`` and ``|``, which the default (OT1)
font encoding prints as other characters."""
LIGATURES = {("-", "-"), ("`", "`"), ("'", "'"), ("!", "`"), ("?", "`"), (",", ",")}
"""Pairs the fonts join into one sign (an en dash, quotes, ¡, ¿, „): kept apart by ``{}``."""


def latex_text(text: str) -> str:
    """``text`` as LaTeX prints it verbatim: its special characters escaped, its ligatures
    broken, line breaks and other control characters as spaces."""
    parts = []
    for char, after in zip(text, [*text[1:], ""]):
        parts.append(LATEX_ESCAPES.get(char, " " if _control(char) else char))
        if (char, after) in LIGATURES:
            parts.append("{}")
    return "".join(parts)


def markdown_text(text: str) -> str:
    """``text`` as a Markdown table cell shows it verbatim: every ASCII punctuation character
    backslash-escaped (CommonMark allows it for all of them: no emphasis, link, code, HTML,
    entity or cell border can start), line breaks and other control characters as spaces."""
    return "".join(
        "\\" + char if char in string.punctuation else " " if _control(char) else char
        for char in text
    )


def _control(char: str) -> bool:
    return ord(char) < 32 or 0x7F <= ord(char) < 0xA0 or char in "\u2028\u2029"


def _measures(
    ks: Sequence[int | None], named: Sequence[str], preferred: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """(key, header) of the table's measures: those named, NDCG and P at each cut-off, those
    of preferences (``preferred``), MRR, MAP."""
    measures = [(name, name) for name in named]
    for k in ks:
        label = k_label(k)
        measures += [(f"ndcg@{label}", f"NDCG@{label}"), (f"p@{label}", f"P@{label}")]
    measures += [(name, name) for name in preferred]
    return [*measures, ("rr", "MRR"), ("ap", "MAP")]


def significance_marks(runs: dict[str, Evaluation], significance: Significance) -> dict[str, str]:
    """Each run the comparison's verdict finds significantly different from the baseline on
    its measure: ``BETTER`` where its mean is higher, ``WORSE`` where lower."""
    baseline, measure = _baseline(significance), significance.measure
    marks = {}
    for pair in significance.pairs:
        if pair.baseline == baseline and significance.significant(pair):
            means = runs[pair.other].means()[measure], runs[baseline].means()[measure]
            marks[pair.other] = BETTER if means[0] > means[1] else WORSE
    return marks


def _baseline(significance: Significance) -> str:
    return significance.baseline or significance.runs[0]


def _cells(
    summaries: dict[str, dict[str, float]], measures: list[tuple[str, str]], digits: int
) -> dict[str, list[tuple[str, bool]]]:
    """Each run's rounded values of ``measures`` (of its ``summaries``; NaN where it has
    none), with whether each is the best (highest when rounded; ties all best)."""
    rounded = {
        run: [round(summary.get(key, math.nan), digits) for key, _header in measures]
        for run, summary in summaries.items()
    }
    best = [
        max((values[i] for values in rounded.values() if not math.isnan(values[i])), default=None)
        for i in range(len(measures))
    ]
    return {
        run: [
            ("" if math.isnan(value) else f"{value:.{digits}f}", value == best[i])
            for i, value in enumerate(values)
        ]
        for run, values in rounded.items()
    }


def _note(
    significance: Significance,
    header: str,
    marks: dict[str, str],
    escape: Callable[[str], str],
    mark: Callable[[str], str],
) -> str:
    """What the marks mean: the baseline (escaped), the measure, the test, its adjustment and
    the level."""
    name = escape(_baseline(significance))
    kinds = [
        f"{mark(symbol)} significantly {word} than {name}"
        for symbol, word in ((BETTER, "better"), (WORSE, "worse"))
        if symbol in marks.values()
    ]
    found = " and ".join(kinds) if kinds else f"No run differs significantly from {name}"
    from judge_app.writers.verdicts import verdict_words

    test = verdict_words(significance)  # our words: nothing to escape
    return f"{found} on {header} by the {test} ({significance.alpha:g} level)."


def _rows(
    runs: dict[str, Evaluation],
    ks: Sequence[int | None],
    significance: Significance | None,
    digits: int,
    style: _Style,
    named: Sequence[str],
    preferences: PreferenceEvaluation | None = None,
) -> tuple[list[str], list[list[str]], list[str]]:
    """The header, each run's row of cells (escaped, bold, marked) and the notes: on the
    measures that are sums, on marks."""
    scored = {} if preferences is None else preferences.evaluations
    preferred = list(next(iter(scored.values())).values) if scored else []
    measures = _measures(ks, named, preferred)
    headers = dict(measures)
    compared = [] if significance is None else [significance]
    if preferences is not None and preferences.significance is not None:
        compared.append(preferences.significance)
    marks = {
        found.measure: significance_marks(scored if found.measure in preferred else runs, found)
        for found in compared
    }
    summaries = {
        run: evaluation.summary() | (scored[run].summary() if run in scored else {})
        for run, evaluation in runs.items()
    }
    rows = []
    for run, values in _cells(summaries, measures, digits).items():
        row = [style.escape(run)]
        for (key, _header), (text, best) in zip(measures, values):
            shown = (style.bold(text) if best else text) if text else style.missing
            if run in marks.get(key, {}):
                shown += style.mark(marks[key][run])
            row.append(shown)
        rows.append(row)
    by_name = {*named, *preferred}  # names as ir_measures writes them: text to escape

    def title(key: str) -> str:
        return style.escape(headers[key]) if key in by_name else headers[key]

    header = ["Run", *(title(key) for key, _title in measures)]
    summed = aggregate_note(named)
    notes = [] if summed is None else [style.escape(summed)]
    for found in compared:
        notes.append(_note(found, title(found.measure), marks[found.measure], style.escape,
                           style.mark))  # fmt: skip
    return header, rows, notes


@dataclass(frozen=True)
class _Style:
    """How a format escapes text, sets a number bold, marks one and shows a missing one."""

    escape: Callable[[str], str]
    bold: Callable[[str], str]
    mark: Callable[[str], str]
    missing: str


LATEX = _Style(
    escape=latex_text,
    bold=lambda text: rf"\textbf{{{text}}}",
    mark=lambda symbol: rf"\textsuperscript{{{LATEX_MARKS[symbol]}}}",
    missing="--",
)
MARKDOWN = _Style(escape=markdown_text, bold=lambda text: f"**{text}**", mark=str, missing="–")


def latex_table(
    runs: dict[str, Evaluation],
    ks: Sequence[int | None],
    significance: Significance | None,
    digits: int = 4,
    named: Sequence[str] = (),
    preferences: PreferenceEvaluation | None = None,
) -> str:
    """The runs' values as a booktabs ``tabular``, the notes a small paragraph below it (a
    line of the table would widen its last column to the note's length)."""
    header, rows, notes = _rows(runs, ks, significance, digits, LATEX, named, preferences)
    lines = [
        rf"\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
        *(" & ".join(row) + r" \\" for row in rows),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    if notes:
        lines += [r"\par\smallskip", rf"{{\footnotesize {' '.join(notes)}\par}}"]
    return "\n".join(lines) + "\n"


def markdown_table(
    runs: dict[str, Evaluation],
    ks: Sequence[int | None],
    significance: Significance | None,
    digits: int = 4,
    named: Sequence[str] = (),
    preferences: PreferenceEvaluation | None = None,
) -> str:
    """The runs' values as a GitHub pipe table, the notes below it."""
    header, rows, notes = _rows(runs, ks, significance, digits, MARKDOWN, named, preferences)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---", *("---:" for _ in header[1:])]) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
    if notes:
        lines += ["", " ".join(notes)]
    return "\n".join(lines) + "\n"
