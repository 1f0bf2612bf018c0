"""The runs scored by preference judgments (``evaluation.preferences``) as ``eval`` writes
them: a table beside NDCG's, and a part of the JSON document."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge_app.evaluation.preferences import PreferenceEvaluation


def table_text(found: PreferenceEvaluation, digits: int) -> str:
    """Each run's mean of every preference measure over its queries, the leading one with its
    interval, and the runs compared on it."""
    from judge_app.writers import verdicts as compared
    from judge_app.writers.evaluation import interval_text

    measures = list(next(iter(found.evaluations.values())).values) if found.evaluations else []
    lines = [
        f"By preference judgments ({len(found.ideals)} queries with an ideal ranking; "
        "compatibility: Clarke, Vtyurina and Smucker, TOIS 2021)"
    ]
    for run, evaluation in found.evaluations.items():
        interval = found.interval(run)
        cells = [f"{found.measure} {interval_text(interval, digits)} ({interval.method})"]
        cells += [
            f"{name} {evaluation.values[name].mean():.{digits}f}"
            for name in measures
            if name != found.measure and evaluation.n_queries
        ]
        lines.append(f"  {run}: {'; '.join(cells)} over {evaluation.n_queries} queries")
    text = "\n".join(lines) + "\n"
    if found.significance is not None:
        text += "\n" + compared.table_text(found.significance, digits)
    return text


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
