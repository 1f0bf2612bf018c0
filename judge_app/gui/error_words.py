"""An error as the window says it."""

from __future__ import annotations

from judge_app.errors import in_words
from judge_app.option_declarations import label_of


def error_text(error: BaseException) -> str:
    """``error`` in words (``errors.in_words``), an option it is about named by the window's
    label for it ("Automatic judge: …"), never by the command line's flag."""
    return in_words(error, label_of)
