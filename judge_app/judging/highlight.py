"""A document's text as HTML with the query's terms marked, for the document view."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

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


SHOWN_CHARACTERS = 2_000_000
"""The most of a document's text the panes show (some 500 pages: no rater reads that far,
and an 18 MB body would take the window's memory for nothing)."""
PIECE_CHARACTERS = 20_000
"""The text of one piece the panes add at a time (some 10-25 ms of Qt's work)."""
TITLE_CHARACTERS = 1_000
"""The most of a title, a URL or an id shown."""
BODY_STYLE = "p { font-size: 11pt; line-height: 150%; }"
"""The style of the text's paragraphs, the document's default style sheet (a piece added
later takes it as the first does)."""


def _cut(text: str) -> str:
    """``text``, or its first ``TITLE_CHARACTERS`` and "…" (a title, a URL, an id)."""
    return text if len(text) <= TITLE_CHARACTERS else text[:TITLE_CHARACTERS] + "…"


def text_pieces(text: str, size: int = PIECE_CHARACTERS) -> list[str]:
    """``text`` cut into pieces of at most ``size`` characters: after a paragraph break where
    one falls in the last half of a piece, else before a line break, after a sentence's end
    or before a space, never inside a word shorter than a piece."""
    pieces = []
    start = 0
    while len(text) - start > size:
        end = start + size
        middle = start + size // 2
        cut = end
        for mark, offset in (("\n\n", 2), ("\n", 0), (". ", 1), (" ", 0)):
            found = text.rfind(mark, middle, end)
            if found >= 0:
                cut = found + offset
                break
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


@dataclass(frozen=True)
class Piece:
    """A piece of a document's HTML; ``continues``: its first paragraph goes on with the
    last one of the piece before, on a new line without a gap (a paragraph longer than a
    piece is cut where a space or a line break falls: one paragraph of megabytes laid out
    again at each piece would take minutes)."""

    html: str
    continues: bool = False


def document_pieces(
    title: str | None,
    doc_id: str,
    url: str | None,
    body: str | None,
    terms: list[str],
    mark_style: str,
    muted: str,
    piece_size: int = PIECE_CHARACTERS,
) -> list[Piece]:
    """A document as the document panes show it, as pieces of HTML to add one after the
    other (a body of megabytes at once froze the window for seconds): the first holds its
    title (or id) large, its URL and id in ``muted`` colour and the start of its text; each
    next one ``piece_size`` characters of the text or fewer (``text_pieces``); the last a note
    where the text is cut at ``SHOWN_CHARACTERS``. The query's ``terms`` are marked in
    ``mark_style``."""
    heading = highlighted_html(_cut(title or doc_id), terms, mark_style)
    first = (
        f'<div style="font-size:15pt; font-weight:600; margin-bottom:2px">'
        f"{heading.removeprefix('<p>').removesuffix('</p>')}</div>"
        f'<div style="color:{muted}; font-size:9.5pt; margin-bottom:10px">'
        f"{html.escape(_cut(url or ''))} &nbsp;·&nbsp; {html.escape(_cut(doc_id))}</div>"
    )
    if not body or not body.strip():
        return [Piece(first + f'<p style="color:{muted}"><i>This document has no text.</i></p>')]
    texts = text_pieces(body[:SHOWN_CHARACTERS], piece_size)
    pieces = [Piece(first + highlighted_html(texts[0], terms, mark_style))]
    for before, text in zip(texts, texts[1:]):
        continues = not before.endswith("\n\n")
        shown = highlighted_html(text, terms, mark_style)
        if continues:  # its first paragraph goes on the last one's, on a line of its own
            shown = '<p style="margin-top:0">' + shown.removeprefix("<p>")
        pieces.append(Piece(shown, continues))
    if len(body) > SHOWN_CHARACTERS:
        pieces.append(
            Piece(
                f'<p style="color:{muted}"><i>The first {SHOWN_CHARACTERS:,} of the '
                f"document's {len(body):,} characters are shown.</i></p>"
            )
        )
    return pieces
