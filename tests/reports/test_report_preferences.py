"""The report of a campaign with preference judgments: each run's Compat beside its NDCG with
its interval, the runs compared on Compat as on NDCG, the raters' agreement on preferences
(checked against the krippendorff package) and each rater's intransitive triples, the numbers
of ``eval --db --measure Compat``, ``preferences summary`` and ``raters``, in the HTML and the
PDF; a campaign without preferences has none of it."""

from __future__ import annotations

import html
import json
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import krippendorff
import pypdfium2
import pytest
from preference_support import with_preferences

from judge_app.agreement.preference_agreement import VALUES, intransitive_triples
from judge_app.cli import main
from judge_app.commands.report import ReportOptions, gather
from judge_app.numbers import score_text, share_text, signed_text
from judge_app.reports.document import render_html
from judge_app.store import open_database
from judge_app.store.preferences import preferences_frame


@pytest.fixture(scope="module")
def preferring(demo, tmp_path_factory) -> Path:
    return with_preferences(demo, tmp_path_factory.mktemp("preferring"))


@pytest.fixture(scope="module")
def expected(preferring) -> dict:
    """The preference part of ``eval --db --measure Compat --compare --format json``."""
    out = StringIO()
    with redirect_stdout(out):
        args = ["eval", "--db", str(preferring), "--measure", "Compat", "--compare"]
        assert main([*args, "--format", "json"]) == 0
    return json.loads(out.getvalue())["preferences"]


@pytest.fixture(scope="module")
def report(preferring):
    data = gather(preferring, ReportOptions(bootstrap=0))
    return data, render_html(data, lambda figure, name: name)


def test_each_run_s_compat_and_its_comparison_are_those_of_eval(report, expected):
    data, text = report
    found = data.preferences
    assert found is not None and found.significance is not None
    means = text.split("per run</h2>", 1)[1].split("<h2", 1)[0]
    assert "<h2>Mean NDCG@10 and Compat per run</h2>" in text
    for record in expected["runs"]:
        interval = found.interval(record["run"])
        shown = record["interval"]
        assert (interval.mean, interval.low, interval.high) == (
            shown["mean"], shown["low"], shown["high"]
        )  # fmt: skip
        cell = f"{shown['mean']:.4f} [{shown['low']:.4f}, {shown['high']:.4f}]"
        assert f"<td class='n'>{cell}</td>" in means
        assert f"{record['run']} {cell}" in text  # in the answer's line too
    section = text.split("<h2>Runs compared on Compat</h2>", 1)[1].split("<h2", 1)[0]
    [pair] = expected["significance"]["pairs"]
    assert f"<td class='n'>{signed_text(pair['mean_difference'])}</td>" in section
    assert f"<td class='n'>{pair['t_p_holm']:.4f}</td>" in section
    assert html.escape(pair["summary"]) in section


def test_agreement_and_intransitive_triples_are_those_of_the_preferences(report, preferring):
    data, text = report
    with open_database(preferring) as database, database.reading() as session:
        frame = preferences_frame(session)
    units = frame[frame["choice"] != "skipped"].pivot_table(
        index="rater", columns=["query_id", "doc_a", "doc_b"], values="choice", aggfunc="first"
    )
    codes = units.apply(lambda column: column.map({v: i for i, v in enumerate(VALUES)}))
    oracle = krippendorff.alpha(codes.to_numpy(dtype=float), level_of_measurement="nominal")
    agreement = data.preference_agreement
    assert agreement is not None and agreement.alpha.value == pytest.approx(oracle, abs=1e-12)
    section = text.split("<h2>Preference judgments</h2>", 1)[1].split("<h2", 1)[0]
    assert f"{len(frame):,} preference judgments by 3 raters" in section
    assert f"<td class='n'>{agreement.units:,}</td>" in section
    share_low, share_high = agreement.share_interval.bounds
    alpha_low, alpha_high = agreement.alpha_interval.bounds
    share = (
        f"{share_text(agreement.share.value)} [{share_text(share_low)}, {share_text(share_high)}]"
    )
    alpha = (
        f"{score_text(agreement.alpha.value)} [{score_text(alpha_low)}, {score_text(alpha_high)}]"
    )
    assert f"<td class='n'>{share}</td>" in section  # as preferences summary says it
    assert f"<td class='n'>{alpha}</td>" in section
    assert "95% bootstrap interval from 1,000 resamples of the pairs" in section
    for row in intransitive_triples(frame).itertuples(index=False):
        cells = [row.rater, f"{(frame['rater'] == row.rater).sum():,}"]
        skipped = ((frame["rater"] == row.rater) & (frame["choice"] == "skipped")).sum()
        cells += [f"{skipped:,}", f"{row.cyclic:,}", f"{row.triples:,}", share_text(row.share)]
        line = "".join(
            f"<td class='{'key' if index == 0 else 'n'}'>{cell}</td>"
            for index, cell in enumerate(cells)
        )
        assert f"<tr>{line}</tr>" in section


def test_the_pdf_has_the_same_preference_figures(report, preferring, tmp_path, expected):
    out = tmp_path / "report.pdf"
    with redirect_stdout(StringIO()):
        assert main(["report", str(preferring), "--out", str(out), "--bootstrap", "0"]) == 0
    document = pypdfium2.PdfDocument(out)
    text = " ".join(page.get_textpage().get_text_range() for page in document)
    document.close()
    data, _ = report
    assert "Runs compared on Compat" in text and "Each rater's intransitive triples" in text
    for record in expected["runs"]:
        assert f"{record['interval']['mean']:.4f}" in text
    assert score_text(data.preference_agreement.alpha.value) in text


def test_without_preferences_the_report_has_none_of_it(demo):
    data = gather(demo, ReportOptions(bootstrap=0))
    text = render_html(data, lambda figure, name: name)
    assert data.preferences is None and data.preference_agreement is None
    assert "Compat" not in text and "Preference judgments" not in text
    assert "<h2>Mean NDCG@10 per run</h2>" in text and "intransitive" not in text
