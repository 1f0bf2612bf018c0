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


SHOWN_CHARACTERS = 100_000
"""The most of a document's text the panes show (some 25 pages)."""
TITLE_CHARACTERS = 1_000
"""The most of a title, a URL or an id shown."""


def _cut(text: str) -> str:
    """``text``, or its first ``TITLE_CHARACTERS`` and "…" (a title, a URL, an id)."""
    return text if len(text) <= TITLE_CHARACTERS else text[:TITLE_CHARACTERS] + "…"


def document_html(
    title: str | None,
    doc_id: str,
    url: str | None,
    body: str | None,
    terms: list[str],
    mark_style: str,
    muted: str,
) -> str:
    """A document as the document panes show it: its title (or id) large, its URL and id in
    ``muted`` colour, its text (its first ``SHOWN_CHARACTERS`` at most, and a note saying so:
    a body of megabytes would freeze the window, and no rater reads that far); the query's
    ``terms`` marked in ``mark_style``."""
    heading = highlighted_html(_cut(title or doc_id), terms, mark_style)
    shown = body[:SHOWN_CHARACTERS] if body is not None else None
    text = highlighted_html(shown, terms, mark_style) or (
        f'<p style="color:{muted}"><i>This document has no text.</i></p>'
    )
    if body is not None and len(body) > SHOWN_CHARACTERS:
        text += (
            f'<p style="color:{muted}"><i>The first {SHOWN_CHARACTERS:,} of the document\'s '
            f"{len(body):,} characters are shown.</i></p>"
        )
    return (
        f'<div style="font-size:15pt; font-weight:600; margin-bottom:2px">'
        f"{heading.removeprefix('<p>').removesuffix('</p>')}</div>"
        f'<div style="color:{muted}; font-size:9.5pt; margin-bottom:10px">'
        f"{html.escape(_cut(url or ''))} &nbsp;·&nbsp; {html.escape(_cut(doc_id))}</div>"
        f'<div style="font-size:11pt; line-height:150%">{text}</div>'
    )
