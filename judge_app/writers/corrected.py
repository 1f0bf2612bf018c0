"""Each run's mean corrected by an automatic judge (``evaluation.corrected``), for people and
machines: the table of ``eval --judge``, its CSV rows and its JSON member, and the sentences
the window and the report show beside them: what the interval assumes (:func:`assumption`),
why an interval is missing or the humans are not corrected (:func:`caveat`), and a judge that
learned nothing (:func:`quality_warning`). Every interval is named by its method."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from judge_app.evaluation.corrected import Corrected, PredictionPowered
from judge_app.evaluation.judge_quality import MIN_KAPPA, JudgeQuality
from judge_app.metrics.intervals import CONFIDENCE
from judge_app.metrics.ppi import Estimate
from judge_app.numbers import MISSING
from judge_app.writers.tables import text_table

if TYPE_CHECKING:
    import pandas as pd

ASSIGNED_ORDER = (
    "The interval assumes the queries humans judged completely are a random sample of all "
    "queries. Here they are the queries raters reached in the order they were given: if that "
    "order favours some kind of query (easier, longer, one topic), the interval can miss."
)
RANDOM_SAMPLE = (
    "The queries humans judged completely are the active sample drawn for this judge: each "
    "is weighted by the inverse of the probability it had to be drawn, which keeps the "
    "estimate unbiased."
)


def assumption(result: PredictionPowered) -> str:
    """What the intervals assume of the labelled queries, and how many judged completely
    outside the active sample were left out."""
    if not result.sampled:
        return ASSIGNED_ORDER
    if not result.left_out:
        return RANDOM_SAMPLE
    queries = "query" if result.left_out == 1 else "queries"
    return (
        f"{RANDOM_SAMPLE} {result.left_out} more {queries} judged completely, after the first "
        "one of the order not yet judged, are left out of the estimate."
    )


def quality_warning(quality: JudgeQuality) -> str | None:
    """A judge that learned nothing, in words, and what the evaluation does about it; None
    when it learned something (or nothing can be said)."""
    if not quality.learned_nothing:
        return None
    assert quality.kappa is not None
    verdict = "no better than chance" if quality.kappa <= 0 else "slight at best"
    return (
        f"The automatic judge {quality.judge} learned nothing worth using: its quadratic κ "
        f"with the humans is {quality.kappa:.3f} over the {quality.pairs:,} pairs both graded "
        f"({verdict}; below {MIN_KAPPA:g}), so its grades do not correct the humans' means: "
        "humans alone are shown."
    )


def caveat(result: PredictionPowered) -> str | None:
    """Why the humans are not corrected (a judge that learned nothing), or why the corrected
    intervals are missing (too few labelled queries); None when neither."""
    if result.fallback and result.quality is not None:
        return quality_warning(result.quality)
    if not result.too_few:
        return None
    labelled, queries, minimum = len(result.labelled), result.queries, result.minimum
    kind = "design-weighted and corrected" if result.sampled else "corrected"
    judged = "query is" if labelled == 1 else "queries are"
    head = (
        f"Only {labelled:,} of {queries:,} {judged} judged completely by humans: {kind} "
        f"intervals need at least {minimum} (with fewer, they missed the truth too often "
        "in our simulations), so only their means are shown."
    )
    if queries < minimum:
        return f"{head} This campaign has fewer queries than that."
    missing = minimum - labelled
    return f"{head} Judge {missing:,} more {'query' if missing == 1 else 'queries'} completely."


def _shown(value: float | None, digits: int | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return float(value) if digits is None else round(float(value), digits)


def _bounds(estimate: Estimate, digits: int | None) -> list[float | None]:
    if not estimate.defined:
        return [None, None]
    return [_shown(estimate.low, digits), _shown(estimate.high, digits)]


def record(item: Corrected, digits: int | None = None) -> dict[str, object]:
    """One run's (or difference's) estimates as machine formats give them: ``mean`` and
    ``interval`` are the humans-only ones, ``ppi_mean`` and ``ppi_interval`` the corrected
    ones, each interval's method beside it (null bounds: no interval)."""
    return {
        "mean": _shown(item.humans.mean, digits),
        "interval": _bounds(item.humans, digits),
        "interval_method": item.humans.method,
        "ppi_mean": _shown(item.corrected.mean, digits),
        "ppi_interval": _bounds(item.corrected, digits),
        "ppi_interval_method": item.corrected.method,
        "automatic_mean": _shown(item.automatic.mean, digits),
        "automatic_interval": _bounds(item.automatic, digits),
        "labelled_queries": item.corrected.n,
        "unlabelled_queries": item.corrected.unlabeled,
        "lambda": _shown(item.corrected.lam, digits),
        "equivalent_queries": _shown(item.equivalent_queries, digits),
        "grades_saved": _shown(item.grades_saved, digits),
    }


def document(result: PredictionPowered, digits: int | None = None) -> dict[str, object]:
    """The estimates as ``eval --format json`` gives them (its ``judge`` member)."""
    return {
        "judge": result.judge,
        "measure": result.measure,
        "confidence": CONFIDENCE,
        "queries": result.queries,
        "labelled_queries": len(result.labelled),
        "grades_per_labelled_query": _shown(result.grades_per_query, None),
        "assumption": assumption(result),
        "caveat": caveat(result),
        "quality": None if result.quality is None else quality_record(result),
        "differences": [
            {"runs": difference.name, **record(difference, digits)}
            for difference in result.differences
        ],
    }


def quality_record(result: PredictionPowered) -> dict[str, object]:
    """The judge's agreement with the humans, and whether it corrects them."""
    quality = result.quality
    assert quality is not None
    return {
        "kappa_quadratic": quality.kappa,
        "pairs": quality.pairs,
        "min_kappa": MIN_KAPPA,
        "learned_nothing": quality.learned_nothing,
        "corrects_the_humans": not result.fallback,
        "reason": quality.reason or None,
    }


def quality_text(result: PredictionPowered) -> str | None:
    """``llm's quadratic κ with the humans: 0.523 over 813 pairs both graded.``; None
    without a quality."""
    quality = result.quality
    if quality is None:
        return None
    if quality.kappa is None:
        return f"{result.judge}'s quadratic κ with the humans: undefined ({quality.reason})."
    return (
        f"{result.judge}'s quadratic κ with the humans: {quality.kappa:.3f} over "
        f"{quality.pairs:,} pairs both graded."
    )


def cell(estimate: Estimate, digits: int = 4) -> str:
    """``0.9150 [0.8800, 0.9500]``; the mean alone without an interval; "–" without a mean."""
    if math.isnan(estimate.mean):
        return MISSING
    if not estimate.defined:
        return f"{estimate.mean:.{digits}f}"
    return f"{estimate.mean:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def saved_text(item: Corrected) -> str:
    """The human grades the correction saves, a whole number; "–" where it is unknown."""
    return MISSING if math.isnan(item.grades_saved) else f"{item.grades_saved:,.0f}"


def heading(result: PredictionPowered) -> str:
    """What the table shows, how many queries humans judged and the intervals' methods."""
    return (
        f"{result.measure} by prediction-powered inference ({CONFIDENCE:.0%} t intervals; "
        f"humans alone and corrected): {len(result.labelled):,} of {result.queries:,} queries "
        f"judged completely by humans, every query by {result.judge}"
    )


def estimate_rows(result: PredictionPowered, digits: int = 4) -> list[dict[str, str]]:
    """A row per run (then per difference) as :func:`table_text` shows it, and the report."""
    return [
        {
            "": item.name,
            f"humans ({item.humans.n} queries)": cell(item.humans, digits),
            f"{result.judge} alone": cell(item.automatic, digits),
            "humans corrected by the judge": cell(item.corrected, digits),
            "human grades saved": saved_text(item),
        }
        for item in result.estimates
    ]


def table_text(result: PredictionPowered, digits: int = 4) -> str:
    """The estimates for people: a row per run (then per difference), rounded, with what
    the interval assumes and, where an interval is missing, why."""
    rows = estimate_rows(result, digits)
    notes = [note for note in (quality_text(result), assumption(result), caveat(result)) if note]
    return f"{heading(result)}\n{text_table(rows)}\n" + "\n".join(notes) + "\n"


def frame(result: PredictionPowered) -> pd.DataFrame:
    """A row per run and per difference, every number in full (:func:`csv_text`'s)."""
    import pandas as pd

    rows = []
    for item in result.estimates:
        fields = record(item)
        low, high = fields.pop("interval"), fields.pop("ppi_interval")
        automatic = fields.pop("automatic_interval")
        assert isinstance(low, list) and isinstance(high, list)
        assert isinstance(automatic, list)
        rows.append(
            {
                "run": item.name,
                "judge": result.judge,
                "measure": result.measure,
                **fields,
                "low": low[0],
                "high": low[1],
                "ppi_low": high[0],
                "ppi_high": high[1],
                "automatic_low": automatic[0],
                "automatic_high": automatic[1],
            }
        )
    return pd.DataFrame(rows)


def csv_text(result: PredictionPowered, digits: int | None = None) -> str:
    """A row per run and per difference, every number in full unless rounded to ``digits``."""
    from judge_app.io import exports

    return exports.csv_text(frame(result), float_format=None if digits is None else f"%.{digits}f")
