"""Ids and rater names as typed, made one: trimmed and in Unicode NFC wherever they come from
(a file, the command line, the window), so that "café" typed with a combining accent names
the same query as "café"; and rater names told apart from those that differ from them only
by case or spaces ("Ben" beside "ben"), which would make one person two raters. No pandas.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from judge_app.errors import quoted


def normal_id(text: str) -> str:
    """``text`` trimmed of surrounding spaces, in Unicode NFC."""
    return unicodedata.normalize("NFC", text.strip())


def normal_ids(text: str) -> list[str]:
    """The names of a comma-separated list (``--raters a,b``), each normal, none empty."""
    return [normal_id(part) for part in text.split(",") if part.strip()]


def name_key(name: str) -> str:
    """What rater names that differ only by case or spaces have in common."""
    return "".join(normal_id(name).split()).casefold()


def similar_name(name: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` other than ``name`` that differs from it only by case or spaces."""
    key = name_key(name)
    return next((other for other in names if other != name and name_key(other) == key), None)


def similar_reason(name: str, other: str) -> str:
    """Why the rater ``name`` is refused where the rater ``other`` exists."""
    return (
        f"rater {quoted(name)} differs from the rater {quoted(other)} only by case or spaces: "
        f"use {quoted(other)}"
    )
