"""Where an item of a JSON document begins: its character offset, found by walking the
document with ``json.JSONDecoder.raw_decode`` (each value it steps over is decoded in C)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

Path = Sequence[str | int]
"""The keys and indexes that lead from the document to an item: ``("pairs", 3, "grades", 0)``."""

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def offset_of(text: str, path: Path) -> int:
    """The offset in ``text`` (a valid JSON document) where the item at ``path`` begins."""
    at = _skip(text, 0)
    for step in path:
        if isinstance(step, int):
            at = next(offset for index, offset in enumerate(_elements(text, at)) if index == step)
        else:
            at = dict(_members(text, at))[step]
    return at


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``text`` that ``offset`` is on."""
    return text.count("\n", 0, offset) + 1


def label_of(path: Path) -> str:
    """``path`` as a reader writes it: ``query_doc_pairs[3].judgements[0]``."""
    label = ""
    for step in path:
        label += f"[{step}]" if isinstance(step, int) else (f".{step}" if label else step)
    return label


def _skip(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found else at


def _elements(text: str, at: int) -> Iterator[int]:
    """The offset of each element of the array that begins at ``at``."""
    at = _skip(text, at + 1)  # past "["
    while text[at] != "]":
        yield at
        _, end = _DECODER.raw_decode(text, at)
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)


def _members(text: str, at: int) -> Iterator[tuple[str, int]]:
    """Each member's key and the offset of its value, of the object that begins at ``at``."""
    at = _skip(text, at + 1)  # past "{"
    while text[at] != "}":
        key, end = _DECODER.raw_decode(text, at)
        at = _skip(text, _skip(text, end) + 1)  # past ":"
        yield key, at
        _, end = _DECODER.raw_decode(text, at)
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
