"""The charts of the evaluation and agreement pages: the same figure functions as the reports,
drawn without Qt (off the UI thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from judge_app.agreement.report import AgreementReport
from judge_app.agreement.tables import kappa_matrix
from judge_app.reports import charts

if TYPE_CHECKING:
    from judge_app.commands.evaluate import Campaign, EvaluationResult


def evaluation_figures(campaign: Campaign, evaluation: EvaluationResult) -> dict[str, Figure]:
    """NDCG@k by k, the per-query distribution, the per-query difference of two runs and the
    grades by rater."""
    label = evaluation.label
    figures = {
        "curve": charts.ndcg_by_k(evaluation.curves(), evaluation.options.k),
        "distribution": charts.ndcg_distribution(
            {run: evaluation.scores(run) for run in evaluation.evaluations}, label
        ),
        "grades": charts.grades_by_rater(campaign.grade_counts()),
    }
    compared = evaluation.differences()
    if compared is None:
        figures["differences"] = charts.query_differences(np.array([]), "—", "—", label)
        figures["differences"].axes[0].set_title(
            "Per-query difference: choose two runs (or have two)", loc="left", fontsize=11
        )
    else:
        first, second, differences = compared
        figures["differences"] = charts.query_differences(differences, first, second, label)
    return figures


KAPPA_HEATMAP_LABEL = "Weighted κ (quadratic)"


def agreement_figures(report: AgreementReport) -> dict[str, Figure]:
    """The rater × rater kappa heat map and the grades by rater."""
    return {
        "kappa": charts.kappa_heatmap(report.raters, kappa_matrix(report), KAPPA_HEATMAP_LABEL),
        "grades": charts.grades_by_rater({r.rater: r.grades for r in report.per_rater}),
    }
