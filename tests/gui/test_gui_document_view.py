"""A document's text is shown in pieces (issue 31, item 8: an 18 MB body froze the window
for 32 s): the first at once, the rest one by one on later turns of the event loop, the
same text as shown whole; a key pressed meanwhile is handled and grades the document shown."""

from __future__ import annotations

from gui_support import own_state, press
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser
from sqlalchemy import text

from judge_app.gui.document_view import DocumentView
from judge_app.judging.highlight import (
    BODY_STYLE,
    PIECE_CHARACTERS,
    SHOWN_CHARACTERS,
    document_pieces,
    highlighted_html,
)
from judge_app.store import open_database

WORDS = st.sampled_from(["pizza", "dough", "a", "très", "x.", "\n", "\n\n", " ", "  "])


def shown(view: QTextBrowser) -> list[str]:
    """The view's lines, as a reader sees them (a kept space and a line break as such)."""
    plain = view.toPlainText().replace("\xa0", " ").replace("\u2028", "\n")
    return [line.strip() for line in plain.split("\n") if line.strip()]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(WORDS, max_size=80).map("".join), st.integers(6, 40))
def test_a_text_in_pieces_reads_as_the_text_shown_whole(qtbot, body, size):
    view = DocumentView()
    qtbot.addWidget(view)
    view.show_pieces(document_pieces("T", "d1", None, body, ["pizza"], "M", "gray", size))
    qtbot.waitUntil(lambda: not view.loading())
    whole = QTextBrowser()
    qtbot.addWidget(whole)
    whole.document().setDefaultStyleSheet(BODY_STYLE)
    no_text = "<p>This document has no text.</p>"
    whole.setHtml(highlighted_html(body, ["pizza"], "M") if body.strip() else no_text)
    pieces, at_once = shown(view)[2:], shown(whole)  # after the title and the id
    # every character in its place; a cut only adds a line break (where a paragraph is
    # longer than a piece: here, pieces of 6 to 40 characters)
    assert "".join("".join(pieces).split()) == "".join("".join(at_once).split())
    assert [word for line in pieces for word in line.split()] == [
        word for line in at_once for word in line.split()
    ] or size < max(map(len, body.split()))


def test_a_long_document_comes_in_pieces_and_a_key_meanwhile_grades_it(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    first = window.judging.session.items[window.judging.current_row]
    window.close()
    body = "pizza dough " * 250_000  # 3,000,000 characters
    with open_database(demo_db) as database, database.transaction() as session:
        session.execute(
            text("UPDATE document SET body = :body WHERE id = :id"),
            {"body": body, "id": first.document_id},
        )
    window = open_window(demo_db)
    view = window.judging.document.view
    assert window.judging.session.items[window.judging.current_row].document_id == (
        first.document_id
    )
    assert view.loading() and view.document().characterCount() < 2 * PIECE_CHARACTERS
    press(qtbot, window, Qt.Key.Key_2)  # before the rest of the text has come
    assert own_state(demo_db, "dan", "q01", first.external_id) == (2, False, None)
    assert "pizza dough" not in view.toPlainText()  # the next document, only its own text
    press(qtbot, window, Qt.Key.Key_K)  # back to the long one: shown whole, in time
    assert "pizza dough" in view.toPlainText()
    qtbot.waitUntil(lambda: not view.loading(), timeout=60_000)
    plain = view.toPlainText()
    text_shown = plain.split("\n", 2)[2]  # after the title and the URL
    assert text_shown.count("pizza") == body[:SHOWN_CHARACTERS].count("pizza")
    assert plain.endswith(
        f"The first {SHOWN_CHARACTERS:,} of the document's 3,000,000 characters are shown."
    )
