"""What a report shows, computed beforehand by the report use case (``commands.report``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from judge_app.agreement.preference_agreement import PreferenceAgreement
    from judge_app.agreement.quality import RatersReport
    from judge_app.agreement.report import AgreementReport
    from judge_app.evaluation.calibration import Calibration
    from judge_app.evaluation.corrected import PredictionPowered
    from judge_app.evaluation.preferences import PreferenceEvaluation
    from judge_app.metrics.intervals import MeanInterval
    from judge_app.metrics.ranking import Evaluation
    from judge_app.metrics.significance import Significance


@dataclass
class ReportData:
    """Everything a report shows: ``intervals`` holds each run's mean at the leading k with
    its t interval, ``significance`` the runs compared (None: fewer than two runs),
    ``differences`` the first two runs' per-query differences (the window's chart's),
    ``agreement`` the raters' (without the ranking stability, which it does not show);
    ``preferences`` the runs scored by preference judgments and ``preference_agreement`` the
    raters' agreement on them (None: no rater made one)."""

    title: str
    source: str
    created: str
    counts: dict[str, int]
    coverage: list[dict]
    settings: dict[str, object]
    evaluations: dict[str, Evaluation]
    intervals: dict[str, MeanInterval]
    curves: dict[str, tuple[list[int], list[float]]]
    significance: Significance | None = None
    agreement: AgreementReport | None = None
    agreement_missing: str = ""
    raters: RatersReport | None = None
    digits: int = 4
    corrected: PredictionPowered | None = None  # each run's mean corrected by a judge
    differences: tuple[str, str, np.ndarray] | None = None
    calibration: Calibration | None = None  # of the judge the evaluation uses, if any
    preferences: PreferenceEvaluation | None = None
    preference_agreement: PreferenceAgreement | None = None

    @property
    def k(self) -> int | None:
        """The leading cut-off, the one every table is at."""
        return next(iter(self.evaluations.values())).settings.ks[0]
