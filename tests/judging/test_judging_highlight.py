"""A query's terms marked in a document's text, without Qt."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.judging.highlight import (
    PIECE_CHARACTERS,
    SHOWN_CHARACTERS,
    document_pieces,
    highlighted_html,
    query_terms,
    text_pieces,
)

MARK = "M"


def test_query_terms_drop_stop_words_and_repeats():
    assert query_terms("How to reset an iPhone to factory settings") == [
        "reset", "iphone", "factory", "settings",
    ]  # fmt: skip
    assert query_terms("x y IPHONE iphone") == ["iphone"]  # one-letter words are left out
    assert query_terms(None) == []


def test_highlight_marks_whole_terms_case_insensitively_and_escapes_html():
    html = highlighted_html("Pizza <b>pizzas</b> & PIZZA.\n\nNext", ["pizza"], MARK)
    assert html == (
        '<p><span style="M">Pizza</span> &lt;b&gt;pizzas&lt;/b&gt; &amp; '
        '<span style="M">PIZZA</span>.</p><p>Next</p>'
    )
    assert highlighted_html("a <i>", [], MARK) == "<p>a &lt;i&gt;</p>"
    assert highlighted_html(None, ["x"], MARK) == ""


def test_highlight_keeps_lines_and_takes_terms_as_text_not_patterns():
    assert highlighted_html("first line\nsecond", ["line"], MARK) == (
        '<p>first <span style="M">line</span><br>second</p>'
    )
    assert highlighted_html("a.b axb", ["a.b"], MARK) == '<p><span style="M">a.b</span> axb</p>'


def test_a_document_of_megabytes_comes_in_pieces_up_to_its_first_two_million_characters():
    body = "pizza dough " * 1_500_000  # 18 MB
    pieces = document_pieces("t" * 50_000, "d" * 5_000, "http://x/" + "u" * 5_000, body,
                             ["pizza"], "background:yellow", "gray")  # fmt: skip
    assert pieces[-1].html == (
        f'<p style="color:gray"><i>The first {SHOWN_CHARACTERS:,} of the document\'s '
        "18,000,000 characters are shown.</i></p>"
    )
    assert len(pieces) == 2 + SHOWN_CHARACTERS // PIECE_CHARACTERS  # a cut word fills one more
    assert pieces[0].html.count("…") == 3  # the title, the URL and the id cut
    assert all(piece.continues for piece in pieces[1:-1]) and not pieces[-1].continues
    assert pieces[1].html.startswith(
        '<p style="margin-top:0">dough <span style="background:yellow">pizza</span>'
    )


def test_a_document_without_text_says_so():
    for body in (None, "", " \n\n "):
        (piece,) = document_pieces("T", "d1", None, body, [], "M", "gray")
        assert piece.html.endswith('<p style="color:gray"><i>This document has no text.</i></p>')


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab .\n"), max_size=400), st.integers(4, 60))
def test_text_pieces_keep_every_character_and_cut_between_words(text, size):
    pieces = text_pieces(text, size)
    assert "".join(pieces) == text
    assert all(0 < len(piece) <= size for piece in pieces[:-1]) and len(pieces[-1]) <= size
    for before, after in zip(pieces, pieces[1:]):
        if before[-1:].strip() and after[:1].strip() and before[-1] != ".":  # inside a word
            assert len(before) == size and not any(c.isspace() for c in before[size // 2 :])
