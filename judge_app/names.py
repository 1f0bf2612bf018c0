"""Ids and rater names as typed, made one: trimmed and in Unicode NFC wherever they come from
(a file, the command line, the window), so that "café" typed with a combining accent names
the same query as "café". A rater's name is also known without case or extra spaces ("  Ben  "
is the rater "ben"), and told apart from names that differ from it only by the spaces between
words ("Ben Smith" beside "bensmith"), which would make one person two raters. No pandas.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from judge_app.errors import quoted

ADJUDICATED = "adjudicated"
"""The name a lead's adjudicated grades are stored under: a role, never one of the raters."""


def normal_id(text: str) -> str:
    """``text`` trimmed of surrounding spaces, in Unicode NFC."""
    return unicodedata.normalize("NFC", text.strip())


def normal_ids(text: str) -> list[str]:
    """The names of a comma-separated list (``--raters a,b``), each normal, none empty."""
    return [normal_id(part) for part in text.split(",") if part.strip()]


def rater_key(name: str) -> str:
    """What the names of one rater have in common: trimmed, the spaces between words as one,
    without case ("  Ben  " is "ben")."""
    return " ".join(normal_id(name).split()).casefold()


def name_key(name: str) -> str:
    """What rater names that differ only by case or spaces have in common."""
    return "".join(normal_id(name).split()).casefold()


def is_role(name: str) -> bool:
    """Whether ``name`` is a lead's role (``adjudicated``) rather than a rater's name."""
    return rater_key(name) == ADJUDICATED


def known_name(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``name`` is: itself, else the first equal to it without case
    or extra spaces (``rater_key``); None if there is none."""
    names = list(names)
    normal = normal_id(name)
    if normal in names:
        return normal
    key = rater_key(name)
    return next((other for other in names if rater_key(other) == key), None)


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
