"""Printing a report's HTML to PDF with WeasyPrint, a CSS paged-media engine: A4 pages that
keep headings with what follows, repeat a table's header on a new page and never split a chart
(which Qt's rich-text printer could not). No Qt: a PDF is written off the UI thread, or on a
server without a display."""

from __future__ import annotations

import logging
from pathlib import Path

from judge_app.io.outputs import output_bytes


def pdf_bytes(html: str) -> bytes:
    """``html`` (self-contained: its images inline) printed as a PDF."""
    from weasyprint import HTML  # a second's import: only for a PDF

    logging.getLogger("weasyprint").setLevel(logging.ERROR)  # its CSS notes are not ours
    return HTML(string=html).write_pdf()


def write_pdf(html: str, out: Path) -> None:
    """Print ``html`` to ``out``, written whole or not at all."""
    output_bytes(out, pdf_bytes(html))
