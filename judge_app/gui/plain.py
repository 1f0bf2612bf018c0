"""Text that comes from a file (a query, a document, a run's or a rater's name, a note), shown as
it is. Qt reads a label's or a tooltip's text as HTML wherever it looks like HTML: a query
"what does the <br> tag do" would lose its tag, and a description "<h1 style='color:red'>…"
would be shown to the rater as a red order. Labels that show such text are plain (``PLAIN``),
and tooltips go through ``plain_tip``; where markup of ours surrounds such a text, the text is
escaped (``html.escape``)."""

from __future__ import annotations

from typing import overload

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt

PLAIN = Qt.TextFormat.PlainText


@overload
def plain_tip(text: str) -> str: ...
@overload
def plain_tip(text: None) -> None: ...
def plain_tip(text: str | None) -> str | None:
    """``text`` as a tooltip shows it whole and as it is (a tooltip that looks like HTML is
    read as HTML: such a text is escaped into a paragraph)."""
    if not text or not GuiQt.mightBeRichText(text):
        return text
    return GuiQt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
