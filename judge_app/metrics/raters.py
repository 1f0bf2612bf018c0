"""Per-rater evaluation: each rater's own NDCG of every run, to show how much the score
depends on who judged."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judge_app.metrics.ranking import Settings, evaluate_codes, k_label

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.metrics.codes import Coded, Graded


def rater_means(graded: Graded, runs: dict[str, Coded], settings: Settings) -> pd.DataFrame:
    """``rater, run, queries, ndcg@K…``: each of ``runs`` evaluated with one rater's grades
    alone, over the queries that rater judged (skipped judgments are not in ``graded``)."""
    import pandas as pd

    measures = [f"ndcg@{k_label(k)}" for k in settings.ks]
    queries = [str(name) for name in graded.queries]
    width = len(graded.docs)
    order = np.argsort((graded.rater * len(graded.queries) + graded.query) * width + graded.doc)
    starts = np.searchsorted(graded.rater[order], np.arange(len(graded.raters) + 1))
    rows = []
    for rater in np.flatnonzero(np.bincount(graded.rater, minlength=len(graded.raters))):
        mine = order[starts[rater] : starts[rater + 1]]
        qrels = (graded.query[mine], graded.doc[mine], graded.grade[mine])
        for name, run in runs.items():
            evaluation = evaluate_codes(queries, run, qrels, settings)
            means = evaluation.means()
            row = {"rater": str(graded.raters[rater]), "run": name, "queries": evaluation.n_queries}
            rows.append(row | {measure: means[measure] for measure in measures})
    return pd.DataFrame(rows, columns=["rater", "run", "queries", *measures])
