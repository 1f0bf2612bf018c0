"""The runs scored by preference judgments (``evaluation.preferences``) as ``eval`` writes them,
beside NDCG in every format: the summary table's cells and note (which the report prints
too), trec_eval's lines, the CSV's rows and the part of the JSON document; and the raters'
agreement on preferences as ``preferences summary`` and the report say it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from judge_app.metrics.intervals import CONFIDENCE
from judge_app.numbers import MISSING, count_text, score_text, share_text

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.coefficients import Estimate, Interval
    from judge_app.agreement.preference_agreement import PreferenceAgreement
    from judge_app.evaluation.preferences import PreferenceEvaluation

SOURCE = "Clarke, Vtyurina and Smucker, TOIS 2021"


def summary_cells(found: PreferenceEvaluation, run: str, digits: int) -> dict[str, str]:
    """``run``'s cell of the leading preference measure in the summary table (its mean with
    its interval, the column naming the method), as NDCG's; empty for a run not scored."""
    from judge_app.writers.evaluation import interval_text

    if run not in found.evaluations:
        return {}
    interval = found.interval(run)
    heading = f"{found.measure} ({interval.confidence:.0%} {interval.method})"
    return {heading: interval_text(interval, digits) if interval.n else MISSING}


def more_cells(found: PreferenceEvaluation, run: str, digits: int) -> dict[str, str]:
    """``run``'s mean of each preference measure after the leading one, as the named measures'
    cells."""
    if run not in found.evaluations:
        return {}
    means = found.evaluations[run].summary()
    return {name: score_text(mean, digits) for name, mean in means.items() if name != found.measure}


def note(found: PreferenceEvaluation) -> str:
    """What the summary table's preference column holds: over which queries, and its
    interval."""
    counts = {run: evaluation.n_queries for run, evaluation in found.evaluations.items()}
    if len(set(counts.values())) == 1:
        over = f"the {count_text(next(iter(counts.values())), 'query', 'queries')}"
    else:
        over = "; ".join(f"{run} {count:,}" for run, count in counts.items())
        over = f"each run's queries ({over})"
    return (
        f"{found.measure}: each run's compatibility with the ideal ranking the preference "
        f"judgments give a query ({SOURCE}), over {over} that have one and that the run "
        f"answers; its {CONFIDENCE:.0%} Student t interval stays within [0, 1] as NDCG's does."
    )


def trec_lines(found: PreferenceEvaluation, run: str) -> dict[str, list[tuple[str, float]]]:
    """``run``'s preference measures as trec_eval's lines would hold them: by query (and
    ``all``, their means), (measure, value) pairs."""
    evaluation = found.evaluations.get(run)
    if evaluation is None or not evaluation.n_queries:
        return {}
    lines: dict[str, list[tuple[str, float]]] = {}
    for row, query in enumerate(evaluation.query_ids):
        lines[query] = [(name, float(values[row])) for name, values in evaluation.values.items()]
    lines["all"] = list(evaluation.summary().items())
    return lines


def mean_rows(found: PreferenceEvaluation) -> list[dict[str, object]]:
    """A CSV row per run and preference measure, in full: its mean over its queries and
    (the leading measure's) interval, beside the rows of the means corrected by a judge."""
    rows: list[dict[str, object]] = []
    for run, evaluation in found.evaluations.items():
        for name, mean in evaluation.summary().items():
            row: dict[str, object] = {"run": run, "measure": name, "mean": mean}
            if name == found.measure:
                interval = found.interval(run)
                row |= {"interval_method": interval.method, "low": interval.low}
                row["high"] = interval.high
            row["queries"] = evaluation.n_queries
            rows.append(row)
    return rows


def document(found: PreferenceEvaluation, digits: int | None) -> dict:
    """The preference part of ``eval --format json``: each query's ideal ranking (tied
    documents grouped, best first) and each run's per-query values, mean and interval."""
    from judge_app.writers import verdicts as compared
    from judge_app.writers.evaluation import interval_record

    def number(value: float) -> float | None:
        value = float(value)
        if value != value:
            return None
        return value if digits is None else round(value, digits)

    record: dict = {
        "measure": found.measure,
        "ideal_rankings": {
            query: [list(group) for group in ideal.groups] for query, ideal in found.ideals.items()
        },
        "runs": [
            {
                "run": run,
                "n_queries": evaluation.n_queries,
                "mean": {name: number(column.mean()) for name, column in evaluation.values.items()},
                "interval": interval_record(found.interval(run), found.measure, digits),
                "queries": [
                    {"query_id": query}
                    | {name: number(column[row]) for name, column in evaluation.values.items()}
                    for row, query in enumerate(evaluation.query_ids)
                ],
            }
            for run, evaluation in found.evaluations.items()
        ],
    }
    if found.significance is not None:
        record["significance"] = compared.as_document(found.significance, digits)
    return record


AGREEMENT_NOTE = (
    "A pair is a query and two of its documents; the choices are a, b, equal and neither (a "
    "skip is none of them). Share agreeing: the share of agreeing pairs of choices; "
    "Krippendorff's alpha at the nominal level (the choices have no order)."
)


def agreement_frame(agreement: PreferenceAgreement) -> pd.DataFrame:
    """The agreement as one row of numbers in full precision (None where there is none):
    the pairs, the share agreeing and alpha, each with its interval's bounds."""
    import pandas as pd

    row: dict[str, object] = {"pairs": agreement.units}
    for name, estimate, interval in (
        ("share", agreement.share, agreement.share_interval),
        ("alpha", agreement.alpha, agreement.alpha_interval),
    ):
        low, high = interval.bounds or (None, None)
        row.update({name: estimate.value, f"{name}_low": low, f"{name}_high": high})
    return pd.DataFrame([row])


def agreement_cells(agreement: PreferenceAgreement, digits: int) -> tuple[str, str]:
    """The share agreeing (a percentage) and Krippendorff's alpha, each with its bootstrap
    interval in brackets where there is one, or why there is no figure."""
    return (
        _with_interval(agreement.share, agreement.share_interval, share_text),
        _with_interval(agreement.alpha, agreement.alpha_interval, lambda v: score_text(v, digits)),
    )


def interval_words(agreement: PreferenceAgreement) -> str:
    """What the brackets of ``agreement_cells`` hold ("" where none has an interval)."""
    if agreement.share_interval.bounds is None and agreement.alpha_interval.bounds is None:
        return ""
    return (
        f"In brackets: the 95% bootstrap interval from {agreement.resamples:,} resamples of "
        "the pairs."
    )


def _with_interval(
    estimate: Estimate, interval: Interval, text: Callable[[float | None], str]
) -> str:
    if estimate.value is None:
        return f"none ({estimate.reason})" if estimate.reason else MISSING
    bounds = interval.bounds
    return text(estimate.value) + (f" [{text(bounds[0])}, {text(bounds[1])}]" if bounds else "")
