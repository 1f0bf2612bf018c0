"""Colours shared by the window and the reports (no Qt, no matplotlib: cheap to import)."""

GRADE_COLOURS = ("#b8473d", "#d9822b", "#d6a72c", "#7ba63a", "#3b9960", "#1f7a8c")
"""Grades 0–5, from red (irrelevant) to teal (perfect)."""
