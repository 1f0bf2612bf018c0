"""Ids and rater names as typed, made one: trimmed and in Unicode NFC wherever they come from
(a file, the command line, the window), so that "café" typed with a combining accent names
the same query as "café". A rater's name is also known without case or extra spaces ("  Ben  "
is the rater "ben"), and told apart from names that differ from it only by the spaces between
words ("Ben Smith" beside "bensmith"), by invisible characters or by letters of another script
that look alike ("ana" with a Cyrillic "а"), which would make one person two raters. No
pandas.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

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
    """What rater names that look alike have in common: without case, spaces and invisible
    characters (a zero-width joiner, a right-to-left override, a soft hyphen), in Unicode
    NFKC (a full-width "ａ" is "a"), each letter that looks like a Latin one as that letter
    (a Cyrillic "а" is "a")."""
    folded = unicodedata.normalize("NFKC", normal_id(name)).casefold()
    return "".join(_latin(char) for char in folded if not char.isspace() and not _invisible(char))


def _invisible(char: str) -> bool:
    """Whether ``char`` is a format character, drawn as nothing (or as a change of direction)."""
    return unicodedata.category(char) == "Cf"


@cache
def _latin(char: str) -> str:
    """``char``, or the ASCII letter it is made to look like (Unicode's confusables)."""
    if char.isascii():
        return char
    from confusable_homoglyphs.confusables import confusables_data

    return next(
        (glyph["c"] for glyph in confusables_data.get(char, ()) if glyph["c"].isascii()), char
    )


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
    return f"rater {_shown(name)} {similar_how(name, other)}: use {quoted(other)}"


def similar_how(name: str, other: str) -> str:
    """How ``name`` is like the rater ``other``, in words."""
    if only_case_or_spaces(name, other):
        return f"differs from the rater {quoted(other)} only by case or spaces"
    return (
        f"looks like the rater {quoted(other)}: it differs only by invisible or look-alike "
        "characters"
    )


def only_case_or_spaces(name: str, other: str) -> bool:
    """Whether similar names ``name`` and ``other`` differ only by case or spaces (not by
    invisible or look-alike characters)."""
    return (
        "".join(normal_id(name).split()).casefold() == "".join(normal_id(other).split()).casefold()
    )


def _shown(name: str) -> str:
    """``name`` quoted, with any character that is not plain ASCII named by its code point
    (look-alikes and invisible characters are what set two such names apart)."""
    if name.isascii():
        return quoted(name)
    return quoted(name) + " (" + " ".join(f"U+{ord(c):04X}" for c in name if not c.isascii()) + ")"
