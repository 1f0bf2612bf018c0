"""The raters' quality report (``agreement.quality``) for people and machines: ``judge-app
raters`` as a table, CSV or JSON (:func:`as_text`), the one-value figures of every rater in
full precision (:func:`frame`, which the raters page shows), the table for people the report
prints (:func:`header`, :func:`rows`, each figure rounded by ``TEXTS``; the preference figures
where a rater made preference judgments) and a line per rater out of line
(:func:`warning_lines`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from judge_app.io.exports import csv_text
from judge_app.numbers import MISSING, score_text, seconds_text, share_text, signed_text
from judge_app.writers.json_document import json_document

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.quality import DriftPoint, RaterQuality, RatersReport

SCALAR_KEYS = (
    "rater", "active", "assigned", "done", "skipped", "remaining", "timed", "median_seconds",
    "per_active_hour", "too_fast", "too_fast_share", "repeats", "repeats_pending",
    "self_agreement_exact", "self_agreement_within_one", "self_agreement_kappa",
    "self_agreement_mean_absolute_error", "self_agreement_bias", "gold_items", "gold_accuracy",
    "gold_within_one", "gold_kappa", "gold_mean_absolute_error", "gold_bias",
    "alpha_with_others", "alpha_contribution", "preferences", "preferences_skipped",
    "cyclic_triples", "ordered_triples", "intransitive_share",
)  # fmt: skip
"""The one-value figures of a rater, in the order the CSV gives them."""


def _count(value: int) -> str:
    return f"{value:,}"


def _bias(value: float | None) -> str:
    return signed_text(value, 2)  # a mean difference of grades: two decimals say enough


def _whole(value: float | None) -> str:
    return MISSING if value is None else f"{value:,.0f}"


TABLE_COLUMNS = {
    "rater": "rater", "done": "done", "remaining": "left", "median_seconds": "median s",
    "per_active_hour": "per hour", "too_fast_share": "too fast", "self_agreement_kappa":
    "self kappa", "gold_accuracy": "gold exact", "gold_bias": "gold bias",
    "alpha_with_others": "alpha others", "alpha_contribution": "alpha contrib",
}  # fmt: skip
"""The figures a table for people shows (keys of :func:`record`), and their headers; the
window's page shows the same figures, ``TEXTS`` rounding each."""
PREFERENCE_COLUMNS = {"preferences": "prefs", "intransitive_share": "intransitive"}
"""The preference figures a table for people shows after those, where a rater made one."""
PREFERENCES_NOTE = (
    "Prefs: preference judgments made, skips included; intransitive: the share of cyclic "
    "triples (x over y over z over x) among the triples of a query's documents whose three "
    "pairs the rater ordered."
)
TEXTS: dict[str, Callable[[Any], str]] = {
    "rater": str,
    "done": _count,
    "remaining": _count,
    "skipped": _count,
    "median_seconds": seconds_text,
    "per_active_hour": _whole,
    "too_fast_share": share_text,
    "self_agreement_kappa": score_text,
    "gold_accuracy": share_text,
    "gold_bias": _bias,
    "alpha_with_others": score_text,
    "alpha_contribution": signed_text,
    "preferences": _count,
    "intransitive_share": share_text,
}


def record(rater: RaterQuality) -> dict[str, object]:
    """The figures as JSON-ready values, in full precision (None: undefined; ``reasons``
    says why)."""
    speed, repeats, gold = rater.speed, rater.self_agreement, rater.gold
    estimates = {
        "median_seconds": speed.median_seconds,
        "per_active_hour": speed.per_active_hour,
        "too_fast_share": speed.too_fast_share,
        "self_agreement_exact": repeats.exact,
        "self_agreement_within_one": repeats.within_one,
        "self_agreement_kappa": repeats.kappa,
        "self_agreement_mean_absolute_error": repeats.mean_absolute_error,
        "self_agreement_bias": repeats.bias,
        "gold_accuracy": gold.exact,
        "gold_within_one": gold.within_one,
        "gold_kappa": gold.kappa,
        "gold_mean_absolute_error": gold.mean_absolute_error,
        "gold_bias": gold.bias,
        "alpha_with_others": rater.alpha_with_others,
        "alpha_contribution": rater.alpha_contribution,
        "intransitive_share": rater.preferences.share,
    }
    preferences = rater.preferences
    counts = {
        "rater": rater.rater,
        "active": rater.active,
        "assigned": rater.assigned,
        "done": rater.done,
        "skipped": rater.skipped,
        "remaining": rater.remaining,
        "timed": speed.timed,
        "too_fast": speed.too_fast,
        "repeats": repeats.pairs,
        "repeats_pending": rater.repeats_pending,
        "gold_items": gold.pairs,
        "preferences": preferences.made,
        "preferences_skipped": preferences.skipped,
        "cyclic_triples": preferences.cyclic,
        "ordered_triples": preferences.triples,
    }
    values = counts | {key: estimate.value for key, estimate in estimates.items()}
    reasons = {
        key: estimate.reason
        for key, estimate in estimates.items()
        if estimate.value is None and estimate.reason
    }
    return {
        **{key: values[key] for key in SCALAR_KEYS},
        "warnings": rater.warnings,
        "reasons": reasons,
        "drift": {
            "by_day": [_drift_record(point) for point in rater.by_day],
            "by_block": [_drift_record(point) for point in rater.by_block],
        },
    }


def _drift_record(point: DriftPoint) -> dict[str, object]:
    return {
        "period": point.period,
        "judgments": point.judgments,
        "alpha_with_others": point.alpha_with_others.value,
        "gold_items": point.gold_items,
        "gold_accuracy": point.gold_accuracy.value,
        "median_seconds": point.median_seconds.value,
    }


def records(report: RatersReport) -> list[dict[str, object]]:
    """Every rater's :func:`record`."""
    return [record(rater) for rater in report.raters]


def frame(report: RatersReport) -> pd.DataFrame:
    """One row per rater: the one-value figures and the warnings, in full precision."""
    import pandas as pd

    rows = []
    for rater in records(report):
        row = {key: rater[key] for key in SCALAR_KEYS}
        row["warnings"] = "; ".join(rater["warnings"])  # type: ignore[arg-type]
        rows.append(row)
    return pd.DataFrame(rows, columns=[*SCALAR_KEYS, "warnings"])


def warning_lines(report: RatersReport) -> list[str]:
    """One line per rater with a figure out of line: "ben: 18% of judgments under 2 s; …"."""
    return [
        f"{rater.rater}: {'; '.join(rater.warnings)}" for rater in report.raters if rater.warnings
    ]


def table_columns(report: RatersReport, preferences: bool = True) -> dict[str, str]:
    """The figures of the table for people and their headers: ``TABLE_COLUMNS``, then
    ``PREFERENCE_COLUMNS`` where a rater made preference judgments (and ``preferences``: the
    report shows them in a table of their own)."""
    shown = preferences and report.with_preferences
    return TABLE_COLUMNS | (PREFERENCE_COLUMNS if shown else {})


def header(report: RatersReport, preferences: bool = True) -> list[str]:
    """The columns of :func:`rows`."""
    return list(table_columns(report, preferences).values())


def rows(report: RatersReport, preferences: bool = True) -> list[tuple[str, ...]]:
    """The table for people (:func:`header`), rounded as the window and report round."""
    keys = list(table_columns(report, preferences))
    return [tuple(TEXTS[key](row[key]) for key in keys) for row in records(report)]


def as_text(report: RatersReport, output: str) -> str:
    """The report as ``table`` (rounded, for people), ``csv`` or ``json`` (in full)."""
    if output == "json":
        settings = {"min_seconds": report.min_seconds, "repeat_share": report.repeat_share}
        return json_document(
            {"source": report.source, "settings": settings, "raters": records(report)},
            indent=2,
        ).rstrip("\n")
    if output == "csv":
        return csv_text(frame(report))  # text cells inert, as every CSV of judge_app
    return _table(report)


def _table(report: RatersReport) -> str:
    if not report.raters:
        return f"{report.source} has no raters yet: nobody has judged or been assigned work"
    table = [header(report), *rows(report)]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = [
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        )
        for row in table
    ]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("")
    lines.append(
        f"Too fast: under {report.min_seconds:g} s (the lead's fastest credible "
        f"judgment); {len(report.flagged):,} judgments flagged."
    )
    if report.with_preferences:
        lines.append(PREFERENCES_NOTE)
    warnings = warning_lines(report)
    lines.extend(["", "Out of line:", *(f"  {line}" for line in warnings)] if warnings else [])
    return "\n".join(lines)
