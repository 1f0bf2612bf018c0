"""What a database holds (``judge-app info``, and after ``demo``): each table's rows, the
queries and documents still known by id alone, each rater's judgments, each run's
coverage and each automatic judge's grades and held-out quality."""

from __future__ import annotations

import pandas as pd

from judge_app.errors import typed
from judge_app.store import automatic, reads
from judge_app.store.automatic import Judge
from judge_app.store.database import Database, opened
from judge_app.writers.calibration import judge_facts, judge_title

RATERS_SHOWN = 50
"""Raters listed by name (a campaign of a million would print a million lines)."""


def info(database: Database | str) -> str:
    """A plain-text overview of ``database`` (an open one, or a path or URL, opened
    read-only): table counts, raters, runs with their judged coverage, the automatic judges."""
    with opened(database, read_only=True) as found, found.reading() as session:
        source = found.describe()
        counts = reads.table_counts(session)
        raters = reads.raters_frame(session, limit=RATERS_SHOWN)
        coverage = reads.coverage_frame(session)
        lacking = reads.ids_without_text(session)
        judges = automatic.judges(session)
    lines = [source, ""]
    width = max(map(len, counts))
    lines += [f"  {name:<{width}}  {value:>9,}" for name, value in counts.items()]
    for name, ids in lacking.items():
        if ids:
            more = counts[f"{name} without text"] - len(ids)
            shown = ", ".join(ids) + (f" and {more:,} more" if more else "")
            lines += ["", f"{name.capitalize()} known by id alone (import their file): {shown}"]
    if not raters.empty:
        more = counts["raters"] - len(raters)
        raters = raters.assign(
            active=raters["active"].astype(bool).map({True: "yes", False: "no"}),
            mean_grade=raters["mean_grade"].map(
                lambda value: "" if pd.isna(value) else f"{value:.2f}"
            ),
        )
        lines += ["", "Raters", _indent(raters.to_string(index=False))]
        if more:
            lines.append(f"  and {more:,} more (judge-app raters lists every one)")
    if not coverage.empty:
        table = pd.DataFrame(
            {
                "run": coverage["run"],
                "queries": coverage["queries"],
                "results": coverage["results"],
                "judged": _percent(coverage["judged"], coverage["results"]),
                "judged@10": _percent(coverage["judged_at_depth"], coverage["results_at_depth"]),
            }
        )
        lines += ["", "Runs (judged: share of results graded by at least one rater)"]
        lines.append(_indent(table.to_string(index=False)))
    lines += _judge_lines(judges)
    return "\n".join(lines)


def _judge_lines(judges: list[Judge]) -> list[str]:
    """The automatic judges, each named as ``--judge`` takes it, with what it did."""
    if not judges:
        return []
    width = max(len(typed(judge.name)) for judge in judges)
    lines = ["", "Automatic judges (as --judge takes their names)"]
    for judge in judges:
        facts = ", ".join(judge_facts(judge))
        lines.append(f"  {typed(judge.name):<{width}}  {judge_title(judge)}: {facts}")
    return lines


def _percent(part: pd.Series, whole: pd.Series) -> list[str]:
    return [f"{100 * p / w:.1f}%" if w else "–" for p, w in zip(part, whole)]


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
