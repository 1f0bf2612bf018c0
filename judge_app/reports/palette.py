"""Colours shared by the window and the reports (no Qt, no matplotlib: cheap to import)."""

GRADE_COLOURS = ("#b8473d", "#d9822b", "#d6a72c", "#7ba63a", "#3b9960", "#1f7a8c")
"""Grades 0–5, from red (irrelevant) to teal (perfect)."""

SIGNIFICANCE_COLOURS = {
    "light": {"better": ("#e6f4ec", "#1e6b41"), "worse": ("#fdecec", "#8a1f1f")},
    "dark": {"better": ("#173b27", "#9fe0b8"), "worse": ("#5a1f1f", "#ffd7d7")},
}
"""(background, text) of a run significantly better or worse than another, by theme: the
window's "good" and "poor" notices (the matrix of runs compared, the report's)."""
