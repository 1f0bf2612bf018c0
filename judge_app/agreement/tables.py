"""An agreement report as tables: one row a pair of raters, a rater, a query, a document to
adjudicate, and the rater × rater kappa matrix of the heat maps. The agreement page puts these
frames into its models; the campaign report draws the same matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd

from judge_app.agreement.coefficients import GRADES
from judge_app.agreement.report import AgreementReport, adjudications

PAIR_MEASURES = ("percent_agreement", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic")


def pairs_frame(report: AgreementReport) -> pd.DataFrame:
    """One row a pair of raters: common documents, agreement, Cohen's kappas."""
    return pd.DataFrame(
        {
            "rater_a": pd.Series([p.rater_a for p in report.pairwise], dtype=object),
            "rater_b": pd.Series([p.rater_b for p in report.pairwise], dtype=object),
            "documents": pd.Series([p.n_units for p in report.pairwise], dtype="int64"),
            **{
                key: pd.Series([getattr(p, key) for p in report.pairwise], dtype="float64")
                for key in PAIR_MEASURES
            },
        }
    )


def raters_frame(report: AgreementReport) -> pd.DataFrame:
    """One row a rater: documents, mean grade, alpha without the rater, how many of each grade."""
    raters = report.per_rater
    return pd.DataFrame(
        {
            "rater": pd.Series([r.rater for r in raters], dtype=object),
            "documents": pd.Series([r.n_units for r in raters], dtype="int64"),
            "mean_grade": pd.Series([r.mean_grade for r in raters], dtype="float64"),
            "alpha_without_rater": pd.Series(
                [r.alpha_without_rater for r in raters], dtype="float64"
            ),
            "alpha_contribution": pd.Series(
                [r.alpha_contribution for r in raters], dtype="float64"
            ),
            **{
                f"grade_{grade}": pd.Series([r.grades[grade] for r in raters], dtype="int64")
                for grade in GRADES
            },
        }
    )


def queries_frame(report: AgreementReport) -> pd.DataFrame:
    """One row a query, lowest ordinal alpha first and undefined alpha last; ``to_adjudicate``
    counts its documents that await adjudication."""
    queries = report.per_query
    frame = pd.DataFrame(
        {
            "query_id": pd.Series([q.query_id for q in queries], dtype=object),
            "documents": pd.Series([q.n_units for q in queries], dtype="int64"),
            "raters": pd.Series([q.n_raters for q in queries], dtype="int64"),
            "percent_agreement": pd.Series([q.percent_agreement for q in queries], dtype="float64"),
            "alpha_ordinal": pd.Series(
                [q.krippendorff_alpha_ordinal for q in queries], dtype="float64"
            ),
            "to_adjudicate": pd.Series(
                [len(adjudications([q]).awaiting) for q in queries], dtype="int64"
            ),
        }
    )
    return frame.sort_values("alpha_ordinal", kind="stable", na_position="last").reset_index(
        drop=True
    )


def adjudication_frame(report: AgreementReport) -> pd.DataFrame:
    """Every document to adjudicate, widest spread first: its query, spread, the lead's
    decision and each rater's grade (missing where not decided or not graded)."""
    items = [(query.query_id, item) for query in report.per_query for item in query.adjudicate]
    frame = pd.DataFrame(
        {
            "query_id": pd.Series([query_id for query_id, _item in items], dtype=object),
            "doc_id": pd.Series([item.doc_id for _query_id, item in items], dtype=object),
            "spread": pd.Series([item.spread for _query_id, item in items], dtype="int64"),
            "decided": pd.Series([item.decided for _q, item in items], dtype="Int64"),
            **{
                rater: pd.Series([item.grades.get(rater) for _q, item in items], dtype="Int64")
                for rater in report.raters
            },
        }
    )
    return frame.sort_values("spread", ascending=False, kind="stable").reset_index(drop=True)


def kappa_matrix(report: AgreementReport) -> np.ndarray:
    """Rater × rater quadratic weighted kappa, rows and columns in the order of
    ``report.raters``: NaN where undefined and on the diagonal (a rater is not compared with
    themselves; see ``writers.agreement.KAPPA_MATRIX_NOTE``)."""
    index = {rater: position for position, rater in enumerate(report.raters)}
    matrix = np.full((len(index), len(index)), np.nan)
    for pair in report.pairwise:
        value = np.nan if pair.cohen_kappa_quadratic is None else pair.cohen_kappa_quadratic
        a, b = index[pair.rater_a], index[pair.rater_b]
        matrix[a, b] = matrix[b, a] = value
    return matrix
