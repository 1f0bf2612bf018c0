"""The grade scale as raters see it: a label and a description for each grade (no database
here: the judging screen shows them before the store is loaded)."""

from __future__ import annotations

from dataclasses import dataclass


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
