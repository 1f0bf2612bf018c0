"""The printed report as a lead sends it: every table whole on its pages (no column cut at
the page edge), no heading or caption left at a page's foot, the answer on page one in the
words ``eval --compare`` uses, settings in words; the HTML's wide tables scroll."""

from __future__ import annotations

import html
import json
import re
from contextlib import redirect_stdout
from html import escape
from io import StringIO
from pathlib import Path

import pypdfium2
import pytest
from campaign_support import judged_by_machine

from judge_app.cli import main
from judge_app.commands.report import ReportOptions, gather
from judge_app.evaluation.options import EvaluationOptions
from judge_app.reports.answer import answer_lines
from judge_app.reports.document import render_html, report_tables
from judge_app.reports.pdf import pdf_bytes
from judge_app.reports.tables import split, text_of

FOOTER = re.compile(r"page \d+ of \d+\s*$")


def run(*args: object) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert main([str(arg) for arg in args]) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    run("demo", path)
    return path


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("judged")
    return judged_by_machine(folder / "judged.sqlite", folder)


CASES = {"demo": ("demo", None), "judge": ("judged", "lenient")}


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def printed(request, tmp_path_factory):
    """(report data, its HTML, each PDF page's text) of ``judge-app report --out r.pdf``."""
    fixture, judge = CASES[request.param]
    db = request.getfixturevalue(fixture)
    out = tmp_path_factory.mktemp("pdf") / "report.pdf"
    run("report", db, "--out", out, *(["--judge", judge] if judge else []))
    document = pypdfium2.PdfDocument(out)
    pages = [page.get_textpage().get_text_range() for page in document]
    drawn = [len(list(page.get_objects())) for page in document]  # text, paths, images
    document.close()
    options = ReportOptions(EvaluationOptions(judge=judge))
    data = gather(str(db), options)
    return db, data, render_html(data), pages, drawn


def flat(text: str) -> str:
    """Page text with a line-end hyphen restored and every run of spaces one space."""
    return re.sub(r"\s+", " ", re.sub("\ufffe\\s*", "-", text)).strip()


def test_every_table_is_printed_whole_row_by_row(printed):
    """Each row of each table (as laid out: turned or split to fit) is a line of the PDF,
    cell after cell; every header's words are there; no Python None or False anywhere."""
    _db, data, _html, pages, _drawn = printed
    text = flat(" ".join(pages))
    tables = report_tables(data)
    assert len(tables) >= 7
    for table in tables:
        for part in split(table):
            for word in " ".join(part.header).split():
                assert word in text, (part.caption, word)
            for row in part.rows:
                line = " ".join(cell for cell in map(text_of, row) if cell)
                assert line in text, (part.caption, line)
    assert not re.search(r"\b(None|False|True|nan)\b", text)


def test_the_wide_tables_keep_every_column(printed):
    """The columns Qt's printer cut at the page edge: the pairs' p-values and verdict, the
    raters' gold bias and alphas, the corrected table's last columns."""
    _db, data, _html, pages, _drawn = printed
    text = flat(" ".join(pages))
    for name in ("rand. p", "Wilcoxon p", "sign p", "verdict", "W/T/L"):
        assert name in text
    assert data.significance is not None
    assert ("HSD p" in text) == (len(data.significance.runs) > 2)  # two: the rand. p
    for name in ("gold bias", "alpha others", "alpha contrib"):
        assert name in text
    if data.corrected is not None:
        assert "humans corrected by the judge" in text and "human grades saved" in text


def test_no_heading_or_caption_ends_a_page(printed):
    _db, _data, document, pages, drawn = printed
    headings = {
        html.unescape(text)
        for text in re.findall(r"<h[12][^>]*>(.*?)</h[12]>|<p class='caption'>(.*?)</p>", document)
        for text in text
        if text
    }
    assert "Charts" in headings and "Raters" in headings
    for number, page in enumerate(pages, start=1):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        assert lines and FOOTER.search(lines[-1]), number  # the footer: page n of m
        body = lines[:-1]
        if not body:  # a page of charts: drawn, with no words
            assert drawn[number - 1] > 10, f"page {number} is empty"
            continue
        assert body[-1] not in headings, (number, body[-1])
        assert any(line not in headings for line in body), number


def test_the_first_page_gives_the_answer_in_evals_words(printed):
    """Which run wins and how sure (the verdict test and its named interval, as
    ``eval --compare`` words them), each run's mean and interval, how much was judged."""
    db, data, _html, pages, _drawn = printed
    headline, _tone, lines = answer_lines(data)
    first = flat(pages[0])
    for line in [headline, *lines]:
        assert flat(line) in first
    if data.corrected is None:
        [pair] = json.loads(run("eval", "--db", db, "--compare", "--format", "json"))[
            "significance"
        ]["pairs"]
        assert pair["summary"].startswith(lines[0])  # the same test, the same interval
        assert "95% simultaneous HSD interval" in lines[0] and "randomized Tukey HSD" in headline
    assert "Judged:" in first and "judgments by" in first


def test_settings_are_in_words(printed):
    _db, _data, _html, pages, _drawn = printed
    text = flat(" ".join(pages))
    assert "missing queries score 0 no" in text
    assert re.search(r"automatic judge (none|lenient)", text)


def test_html_wide_tables_scroll_and_the_pdf_layout_fits_the_page(printed):
    """On a screen every table sits in a box that scrolls sideways; printed, no table, cell
    or line reaches past the page's right margin (WeasyPrint's own layout)."""
    from weasyprint import HTML

    _db, _data, document, _pages, _drawn = printed
    assert re.search(r"\.wide \{ overflow-x: auto;", document)
    assert document.count("<table>") == document.count("<div class='wide'><table>") > 5
    for page in HTML(string=document).render().pages:
        box = page._page_box
        right = box.content_box_x() + box.width
        for child in box.descendants():
            kind = type(child).__name__
            if kind in ("TableBox", "TableCellBox", "LineBox", "TextBox"):
                assert child.position_x + child.margin_width() <= right + 0.5, kind


def test_the_pdf_is_written_without_qt(demo):
    """The PDF engine is the core's: no PySide6 module loads while printing."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from judge_app.reports.pdf import pdf_bytes\n"
        "assert pdf_bytes('<p>x</p>').startswith(b'%PDF')\n"
        "assert not any(name.startswith('PySide6') for name in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert pdf_bytes("<h1>t</h1>").startswith(b"%PDF")


def test_a_report_that_leans_on_a_judge_says_how_far_it_can_be_trusted(printed):
    """Issue 32: what ``calibrate`` says of the judge the numbers use, said again in the
    report (the same findings, in the same order), on the page after the means."""
    db, data, html, pages, _ = printed
    if data.settings.get("judge") is None:
        assert "<h2>The automatic judge" not in html and data.calibration is None
        return
    record = json.loads(run("calibrate", db, "--judge", "lenient", "--format", "json"))
    assert data.calibration is not None
    assert [escape(line) for line in record["findings"]] == re.findall(
        r"<li>(.*?)</li>", html.split("<h2>The automatic judge lenient</h2>")[1].split("</ul>")[0]
    )
    text = flat(" ".join(pages))
    assert "The automatic judge lenient" in text and flat(record["findings"][0]) in text
