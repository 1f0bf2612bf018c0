"""Per-rater evaluation: each rater's own NDCG of every run, to show how much the score
depends on who judged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge_app.metrics.aggregation import aggregate_grades
from judge_app.metrics.ranking import Settings, evaluate, k_label

if TYPE_CHECKING:
    import pandas as pd


def per_rater_means(
    judgments: pd.DataFrame, runs: dict[str, pd.DataFrame], settings: Settings
) -> pd.DataFrame:
    """``rater, run, queries, ndcg@K…``: each run evaluated with one rater's grades alone,
    over the queries that rater judged (skipped judgments left out)."""
    import pandas as pd

    rows = []
    for rater in sorted(judgments["rater"].unique()):
        qrels = aggregate_grades(judgments, f"rater:{rater}")
        for name, run in runs.items():
            evaluation = evaluate(run, qrels, settings)
            means = evaluation.means()
            row = {"rater": rater, "run": name, "queries": evaluation.n_queries}
            row.update({f"ndcg@{k_label(k)}": means[f"ndcg@{k_label(k)}"] for k in settings.ks})
            rows.append(row)
    columns = ["rater", "run", "queries"] + [f"ndcg@{k_label(k)}" for k in settings.ks]
    return pd.DataFrame(rows, columns=columns)
