"""Settings kept in the database: the grading scale's labels and descriptions, and others."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge_app.store.judgments import validate_grade
from judge_app.store.models import Setting


@dataclass(frozen=True)
class GradeLabel:
    """One step of the scale as raters see it."""

    grade: int
    label: str
    description: str


DEFAULT_SCALE = (
    GradeLabel(0, "Irrelevant", "Has nothing to do with the query, or is spam or broken."),
    GradeLabel(1, "Slightly relevant", "Touches the topic but does not help with the need."),
    GradeLabel(2, "Fairly relevant", "Partly answers the need; a searcher would keep looking."),
    GradeLabel(3, "Relevant", "Answers the need well, with some gaps or detours."),
    GradeLabel(4, "Highly relevant", "Answers the need fully; one of the best results."),
    GradeLabel(5, "Perfect", "Exactly what the searcher wanted; the ideal first result."),
)


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
