"""A document's text as HTML with the query's terms marked, for the document view."""

from __future__ import annotations

import html
import re

STOPWORDS = frozenset(
    "a an and are as at be by for from how in is it of on or the to what when where which who "
    "why with".split()
)


def query_terms(query: str | None) -> list[str]:
    """The words of a query worth marking: no stop words, no one-letter words, each once."""
    words = re.findall(r"\w+", (query or "").lower())
    return list(dict.fromkeys(w for w in words if len(w) > 1 and w not in STOPWORDS))


def highlighted_html(text: str | None, terms: list[str], mark_style: str) -> str:
    """``text`` HTML-escaped, paragraphs kept, each whole-word, case-insensitive occurrence of a
    term wrapped in ``<span style=mark_style>``."""
    if not text:
        return ""
    pattern = (
        re.compile(r"\b(" + "|".join(map(re.escape, terms)) + r")\b", re.IGNORECASE)
        if terms
        else None
    )
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        parts = []
        position = 0
        for match in pattern.finditer(paragraph) if pattern else ():
            parts.append(html.escape(paragraph[position : match.start()]))
            parts.append(f'<span style="{mark_style}">{html.escape(match.group(0))}</span>')
            position = match.end()
        parts.append(html.escape(paragraph[position:]))
        paragraphs.append("<p>" + "".join(parts).replace("\n", "<br>") + "</p>")
    return "".join(paragraphs)
