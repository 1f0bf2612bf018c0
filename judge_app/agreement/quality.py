"""The raters' quality report as data (``judge-app raters``, View ▸ Raters, the report's
raters section): per rater, progress, speed, self-agreement on hidden repeats, accuracy on
gold items, agreement with the others and its drift over days and blocks of judgments
(``agreement.raters`` computes each figure), the preference judgments made and their
intransitive triples (``agreement.preference_agreement``), with a warning in plain words where
a figure is out of line.

``judge_app.commands.rater_quality`` reads a campaign and computes the report;
``judge_app.writers.raters`` writes it for people and machines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge_app.agreement import coefficients as co
from judge_app.agreement import raters as figures

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class DriftPoint:
    """One period of a rater's work: a day or a block of judgments."""

    period: str
    judgments: int
    alpha_with_others: co.Estimate
    gold_items: int
    gold_accuracy: co.Estimate
    median_seconds: co.Estimate


NO_TRIPLES = "no three documents of a query whose three pairs the rater ordered"


@dataclass(frozen=True)
class PreferenceFigures:
    """A rater's preference judgments: how many (``skipped`` among them), and their
    intransitive triples: the ``cyclic`` ones (x over y over z over x) among the ``triples``
    whose three pairs the rater ordered, and their ``share``."""

    made: int = 0
    skipped: int = 0
    cyclic: int = 0
    triples: int = 0
    share: co.Estimate = co.Estimate.undefined(NO_TRIPLES)


@dataclass(frozen=True)
class RaterQuality:
    """Every quality figure of one rater."""

    rater: str
    active: bool
    assigned: int
    done: int
    skipped: int
    remaining: int
    speed: figures.Speed
    repeats_pending: int
    self_agreement: figures.Consistency
    gold: figures.Consistency
    alpha_with_others: co.Estimate
    alpha_contribution: co.Estimate
    by_day: list[DriftPoint]
    by_block: list[DriftPoint]
    preferences: PreferenceFigures = PreferenceFigures()
    out_of_line: dict[str, str] = field(default_factory=dict)
    """The warnings by the figure each is about, a key of ``writers.raters.record``:
    ``too_fast_share``, ``self_agreement_kappa``, ``gold_within_one``, ``gold_bias``,
    ``alpha_contribution``, or ``alpha_with_others`` (its fall from the first block to the
    last)."""

    @property
    def warnings(self) -> list[str]:
        """Each figure out of line, in plain words."""
        return list(self.out_of_line.values())


@dataclass(frozen=True)
class RatersReport:
    """The quality figures of every rater of a campaign, under the lead's settings they were
    computed with (``min_seconds``, the fastest credible judgment; ``repeat_share``, the share
    of judged items shown again), and the judgments flagged as too fast (``rater, query_id,
    doc_id, grade, skipped, seconds, judged_at``)."""

    source: str
    min_seconds: float
    repeat_share: float
    raters: list[RaterQuality]
    flagged: pd.DataFrame

    @property
    def with_preferences(self) -> bool:
        """Whether any rater made a preference judgment (then their figures are shown)."""
        return any(rater.preferences.made for rater in self.raters)
