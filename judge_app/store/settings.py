"""Settings kept in the database: the grading scale's labels and descriptions, and others."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge_app.store.errors import StoreError
from judge_app.store.grade_labels import DEFAULT_SCALE, GradeLabel
from judge_app.store.judgments import validate_grade
from judge_app.store.models import Setting


def get_setting(session: Session, key: str, default: str | None = None) -> str | None:
    """A stored setting, or ``default`` when it was never set."""
    value = session.scalar(select(Setting.value).where(Setting.key == key))
    return default if value is None else value


def set_setting(session: Session, key: str, value: str) -> None:
    """Store a setting, replacing any earlier value."""
    session.merge(Setting(key=key, value=value))


def scale(session: Session) -> list[GradeLabel]:
    """The grading scale 0–5: the lead's labels and descriptions where set, else the defaults."""
    rows = session.execute(select(Setting.key, Setting.value).where(Setting.key.like("scale.%")))
    stored = {key: value for key, value in rows}
    return [
        GradeLabel(
            default.grade,
            stored.get(f"scale.{default.grade}.label", default.label),
            stored.get(f"scale.{default.grade}.description", default.description),
        )
        for default in DEFAULT_SCALE
    ]


def set_grade_label(session: Session, grade: int, label: str, description: str) -> None:
    """Change what the scale says of one grade."""
    grade = validate_grade(grade)
    set_setting(session, f"scale.{grade}.label", label.strip() or DEFAULT_SCALE[grade].label)
    set_setting(session, f"scale.{grade}.description", description.strip())


@dataclass(frozen=True)
class QualitySettings:
    """A lead's quality-control settings: ``min_seconds``, the fastest credible judgment
    (faster ones are flagged for the lead); ``repeat_share``, the share (0–0.5) of each
    rater's judged items shown to them again, hidden among new ones, for self-agreement."""

    min_seconds: float = 2.0
    repeat_share: float = 0.0

    def checked(self) -> QualitySettings:
        """These settings, or StoreError naming what is out of range."""
        if not (math.isfinite(self.min_seconds) and 0 <= self.min_seconds <= 600):
            raise StoreError(
                f"the fastest credible judgment must be 0–600 seconds, not {self.min_seconds}"
            )
        if not (math.isfinite(self.repeat_share) and 0 <= self.repeat_share <= MAX_REPEAT_SHARE):
            raise StoreError(
                f"the share of items shown again must be 0–{MAX_REPEAT_SHARE:.0%}, "
                f"not {self.repeat_share:.0%}"
            )
        return self


MAX_REPEAT_SHARE = 0.5
MIN_SECONDS, REPEAT_SHARE = "quality.min_seconds", "quality.repeat_share"


def quality_settings(session: Session) -> QualitySettings:
    """The quality-control settings a lead stored, or the defaults."""
    default = QualitySettings()
    return QualitySettings(
        min_seconds=float(get_setting(session, MIN_SECONDS) or default.min_seconds),
        repeat_share=float(get_setting(session, REPEAT_SHARE) or default.repeat_share),
    )


def set_quality_settings(session: Session, settings: QualitySettings) -> None:
    """Store the quality-control settings; StoreError for a value out of range."""
    settings.checked()
    set_setting(session, MIN_SECONDS, repr(settings.min_seconds))
    set_setting(session, REPEAT_SHARE, repr(settings.repeat_share))
