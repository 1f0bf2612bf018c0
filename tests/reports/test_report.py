"""``judge-app report``: the campaign as HTML and PDF, with the command line's numbers."""

from __future__ import annotations

import gc
import html
import json
import re
from pathlib import Path

import pypdfium2
import pytest

from judge_app.cli import main
from judge_app.commands import report as report_command
from judge_app.commands.report import ReportOptions
from judge_app.numbers import signed_text


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    return path


def said(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    assert main([str(arg) for arg in args]) == 0
    return capsys.readouterr().out


def expected_numbers(capsys, demo: Path) -> list[str]:
    """Mean NDCG@10 of each run and the ordinal alpha, as eval and agreement print them."""
    evaluation = json.loads(said(capsys, "eval", "--db", demo, "--format", "json"))
    agreement = json.loads(said(capsys, "agreement", "--db", demo, "--format", "json"))
    means = [f"{run['mean']['ndcg@10']:.4f}" for run in evaluation["runs"]]
    return means + [f"{agreement['krippendorff_alpha']['ordinal']:.4f}"]


def compared_pairs(capsys, demo: Path) -> list[dict]:
    """The runs compared as ``eval --compare`` gives them."""
    document = json.loads(said(capsys, "eval", "--db", demo, "--compare", "--format", "json"))
    return document["significance"]["pairs"]


def test_html_report_is_self_contained_and_carries_the_same_numbers(capsys, demo, tmp_path):
    out = tmp_path / "report.html"
    assert f"{out}: report of {demo}" in said(capsys, "report", demo, "--out", out)
    text = out.read_text(encoding="utf-8")
    for number in expected_numbers(capsys, demo):
        assert number in text
    sources = re.findall(r"src='([^']*)'", text)
    assert len(sources) == 5  # NDCG@k curve, distribution, differences, grades, kappa
    assert all(source.startswith("data:image/svg+xml;base64,") for source in sources)
    assert not re.search(r"(href|src)=['\"]https?:", text)
    assert text.count("<tr>") >= 16 + 2 + 1  # a row per query, per run, and headers
    assert "neural is 0.0677 higher than bm25 on mean ndcg@10" in text
    # the runs compared: the page's matrix, the groups, the pairs' numbers and verdicts
    [pair] = compared_pairs(capsys, demo)
    section = text.split("<h2>Runs compared on NDCG@10</h2>", 1)[1].split("<h2", 1)[0]
    assert f"<td class='n'>{signed_text(pair['mean_difference'])}</td>" in section
    assert "Groups randomized Tukey HSD cannot tell apart at 0.05" in section
    assert f"<td class='n'>{pair['hsd_p']:.4f}</td>" in section
    assert f"<td class='n'>{pair['t_p_holm']:.4f}</td>" in section  # one pair: no raw beside
    assert html.escape(pair["summary"]) in section
    agreement = json.loads(said(capsys, "agreement", "--db", demo, "--format", "json"))
    assert f"<td class='n'>{100 * agreement['percent_agreement']:.1f}%</td>" in text  # a share
    assert "100.0%" in text and not re.search(r">\d+%<", text)  # shares: one decimal


def test_pdf_report_has_pages_with_the_same_numbers(capsys, demo, tmp_path, qapp):
    out = tmp_path / "report.pdf"
    said(capsys, "report", demo, "--out", out, "--title", "Demo campaign")
    assert out.read_bytes().startswith(b"%PDF")
    document = pypdfium2.PdfDocument(out)
    pages = [page.get_textpage().get_text_range() for page in document]
    document.close()
    assert len(pages) >= 3
    text = " ".join(pages)
    assert "Demo campaign" in text
    # the charts and the per-query table each start a page: no heading left alone at a foot
    for heading in ("Charts", "Per query (NDCG@10)"):
        holding = [page for page in pages if heading in page]
        assert len(holding) == 1 and holding[0].lstrip().startswith(heading), heading
    for number in expected_numbers(capsys, demo):
        assert number in text
    [pair] = compared_pairs(capsys, demo)
    assert "Runs compared on NDCG@10" in text and signed_text(pair["mean_difference"]) in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bootstrap", "-5"], "--bootstrap takes a whole number from 0 (0: no interval)"),
        (["--seed", "-1"], "--seed takes a whole number from 0"),
        (["--k", "0"], "--k '0': use whole numbers from 1, or all"),
    ],
)
def test_numeric_options_out_of_range_are_usage_errors(capsys, demo, tmp_path, args, message):
    out = tmp_path / "report.html"
    assert main(["report", str(demo), "--out", str(out), *args]) == 2
    assert capsys.readouterr().err == f"judge-app report: {message}\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("out", "code", "message"),
    [
        ("report.docx", 2, "written as .html or .pdf"),
        ("absent/report.html", 1, "folder"),
        ("folder.html", 1, "is a folder, not a file"),
    ],
)
def test_bad_destinations_are_refused(capsys, demo, tmp_path, out, code, message):
    (tmp_path / "folder.html").mkdir()
    assert main(["report", str(demo), "--out", str(tmp_path / out)]) == code
    assert message in capsys.readouterr().err
    assert not (tmp_path / out).is_file()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_report_leaves_the_garbage_collector_as_it_found_it(
    demo, tmp_path, monkeypatch, enabled
):
    """Paused while the report is computed, the collector runs again after, unless it was
    off before."""
    seen = []
    real = report_command.gather
    monkeypatch.setattr(
        report_command, "gather", lambda *a: seen.append(gc.isenabled()) or real(*a)
    )
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        report_command.render_report(str(demo), ReportOptions(bootstrap=0, out=tmp_path / "r.html"))
        assert seen == [False] and gc.isenabled() == enabled
    finally:
        (gc.enable if before else gc.disable)()
