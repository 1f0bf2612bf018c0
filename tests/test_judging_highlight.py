"""A query's terms marked in a document's text, without Qt."""

from __future__ import annotations

from judge_app.judging.highlight import (
    SHOWN_CHARACTERS,
    document_html,
    highlighted_html,
    query_terms,
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


def test_a_document_of_megabytes_is_shown_in_its_first_part_and_said_so():
    body = "pizza dough " * 1_500_000  # 18 MB
    shown = document_html("t" * 50_000, "d" * 5_000, "http://x/" + "u" * 5_000, body, ["pizza"],
                          "background:yellow", "gray")  # fmt: skip
    assert len(shown) < 10 * SHOWN_CHARACTERS
    assert (
        f"The first {SHOWN_CHARACTERS:,} of the document's 18,000,000 characters are shown" in shown
    )
    assert shown.count("…") == 3  # the title, the URL and the id cut
