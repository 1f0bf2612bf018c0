"""The charts of the evaluation and agreement pages: the same figure functions as the reports,
drawn without Qt (off the UI thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from judge_app.agreement.raters import BLOCK
from judge_app.agreement.report import AgreementReport
from judge_app.agreement.tables import kappa_matrix
from judge_app.reports import charts

if TYPE_CHECKING:
    from judge_app.agreement.quality import RaterQuality
    from judge_app.evaluation.campaign import Campaign
    from judge_app.evaluation.result import EvaluationResult


def evaluation_figures(campaign: Campaign, evaluation: EvaluationResult) -> dict[str, Figure]:
    """NDCG@k by k, the per-query distribution and the per-query difference of two runs (of
    the leading measure) and the grades by rater."""
    label = evaluation.options.leading_label  # of scores() and differences()
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


KAPPA_HEATMAP_LABEL = "Quadratic κ"


def agreement_figures(report: AgreementReport) -> dict[str, Figure]:
    """The rater × rater kappa heat map and the grades by rater."""
    return {
        "kappa": charts.kappa_heatmap(report.raters, kappa_matrix(report), KAPPA_HEATMAP_LABEL),
        "grades": charts.grades_by_rater({r.rater: r.grades for r in report.per_rater}),
    }


DRIFT_PERIODS = {"block": f"judgments, in blocks of {BLOCK}", "day": "day (UTC)"}


def rater_drift_figure(rater: RaterQuality, by: str, min_seconds: float = 0.0) -> Figure:
    """One rater's drift ``by`` "block" (of 50 judgments, in the order judged) or "day": alpha
    with the others and accuracy on gold items, and the median seconds of a judgment."""
    points = rater.by_block if by == "block" else rater.by_day
    nan = float("nan")
    return charts.rater_drift(
        [point.period for point in points],
        {
            "α with others": [
                nan if p.alpha_with_others.value is None else p.alpha_with_others.value
                for p in points
            ],
            "gold accuracy": [
                nan if p.gold_accuracy.value is None else p.gold_accuracy.value for p in points
            ],
        },
        [nan if p.median_seconds.value is None else p.median_seconds.value for p in points],
        f"{rater.rater}, by {'block of ' + str(BLOCK) if by == 'block' else 'day'}",
        DRIFT_PERIODS[by],
        min_seconds,
    )
