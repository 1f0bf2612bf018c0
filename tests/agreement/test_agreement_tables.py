"""The agreement report as the agreement page's tables and the heat maps' kappa matrix,
without Qt; the report's heat map draws the very matrix the window draws."""

from __future__ import annotations

from contextlib import redirect_stdout
from html import escape
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from judge_app.agreement.report import AgreementReport, Ratings, build_report
from judge_app.agreement.tables import (
    adjudication_frame,
    kappa_matrix,
    pairs_frame,
    queries_frame,
    raters_frame,
)
from judge_app.cli import main as cli
from judge_app.commands.report import ReportOptions, gather
from judge_app.reports.document import render_html
from judge_app.reports.figures import agreement_figures
from judge_app.writers.agreement import KAPPA_MATRIX_NOTE

GRADES = {  # (query, document): grades of ana, ben, chloe (None: not graded)
    ("q1", "d1"): (3, 3, None),
    ("q1", "d2"): (0, 4, None),
    ("q1", "d3"): (2, 1, None),
    ("q1", "d4"): (5, 5, None),
    ("q2", "d5"): (1, None, 4),
    ("q2", "d6"): (2, None, 2),
    ("q2", "d7"): (4, None, 3),
}
RATERS = ("ana", "ben", "chloe")


@pytest.fixture(scope="module")
def report() -> AgreementReport:
    """ana grades everything, ben only q1 and chloe only q2: ben and chloe share nothing."""
    rows = [
        (query, document, rater, grade)
        for (query, document), grades in GRADES.items()
        for rater, grade in zip(RATERS, grades)
        if grade is not None
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    return build_report(Ratings.from_frame(frame), resamples=0)


def common_grades(first: str, second: str) -> tuple[list[int], list[int]]:
    a, b = RATERS.index(first), RATERS.index(second)
    both = [g for g in GRADES.values() if g[a] is not None and g[b] is not None]
    return [g[a] for g in both], [g[b] for g in both]


def test_the_kappa_matrix_is_each_pairs_quadratic_kappa_with_an_empty_diagonal(report):
    matrix = kappa_matrix(report)
    assert report.raters == list(RATERS) and matrix.shape == (3, 3)
    assert np.isnan(np.diag(matrix)).all()  # a rater is not compared with themselves
    np.testing.assert_array_equal(matrix, matrix.T)
    for first, second in (("ana", "ben"), ("ana", "chloe")):
        expected = cohen_kappa_score(
            *common_grades(first, second), labels=list(range(6)), weights="quadratic"
        )
        assert matrix[RATERS.index(first), RATERS.index(second)] == pytest.approx(expected)
    assert np.isnan(matrix[1, 2])  # ben and chloe graded no document in common
    assert "diagonal is left empty" in KAPPA_MATRIX_NOTE


def test_one_row_a_pair_and_a_rater(report):
    pairs = pairs_frame(report)
    assert pairs.columns.tolist() == [
        "rater_a", "rater_b", "documents", "percent_agreement", "cohen_kappa",
        "cohen_kappa_linear", "cohen_kappa_quadratic",
    ]  # fmt: skip
    assert list(zip(pairs["rater_a"], pairs["rater_b"], pairs["documents"])) == [
        ("ana", "ben", 4), ("ana", "chloe", 3),
    ]  # fmt: skip
    assert report.pairs_apart == 1  # ben and chloe share nothing: counted, not listed
    assert pairs["cohen_kappa"].isna().tolist() == [False, False]
    raters = raters_frame(report)
    assert raters["rater"].tolist() == list(RATERS)
    assert raters["documents"].tolist() == [7, 4, 3]
    assert raters.loc[1, "mean_grade"] == pytest.approx((3 + 4 + 1 + 5) / 4)
    assert raters[[f"grade_{grade}" for grade in range(6)]].sum(axis=1).tolist() == [7, 4, 3]
    assert raters["alpha_contribution"].dtype == "float64"


def test_queries_come_lowest_alpha_first_and_documents_widest_spread_first(report):
    queries = queries_frame(report)
    alphas = queries["alpha_ordinal"].tolist()
    assert alphas == sorted(alphas) and queries["documents"].tolist() in ([4, 3], [3, 4])
    by_query = queries.set_index("query_id")
    assert by_query.loc["q1", "to_adjudicate"] == 1  # d2: 0 against 4
    assert by_query.loc["q2", "to_adjudicate"] == 1  # d5: 1 against 4
    adjudication = adjudication_frame(report)
    assert adjudication.columns.tolist() == ["query_id", "doc_id", "spread", "decided", *RATERS]
    assert adjudication["decided"].isna().all()  # no lead's decision yet
    assert list(zip(adjudication["doc_id"], adjudication["spread"])) == [("d2", 4), ("d5", 3)]
    assert adjudication.loc[0, "ana"] == 0 and adjudication.loc[0, "ben"] == 4
    assert adjudication["chloe"].isna().tolist() == [True, False]  # not graded: missing


def test_an_undefined_alpha_is_listed_last():
    frame = pd.DataFrame(
        [("q1", "d1", "ana", 2), ("q1", "d1", "ben", 2), ("q2", "d2", "ana", 0),
         ("q2", "d2", "ben", 5), ("q2", "d3", "ana", 4), ("q2", "d3", "ben", 1)],
        columns=["query_id", "doc_id", "rater", "grade"],
    )  # fmt: skip
    queries = queries_frame(build_report(Ratings.from_frame(frame), resamples=0))
    assert queries["query_id"].tolist() == ["q2", "q1"]  # q1: a single grade, alpha undefined
    assert np.isnan(queries.loc[1, "alpha_ordinal"])


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
    return path


def cells(figure) -> np.ndarray:
    return np.ma.filled(figure.axes[0].images[0].get_array().astype(float), np.nan)


def test_the_reports_heat_map_is_the_agreement_pages(demo, tmp_path):
    drawn = {}

    def keep(figure, name: str) -> str:
        drawn[name] = figure
        return name

    data = gather(str(demo), ReportOptions(bootstrap=0))
    html = render_html(data, keep)
    assert data.agreement is not None
    page = agreement_figures(data.agreement)["kappa"]
    np.testing.assert_array_equal(cells(drawn["kappa"]), cells(page))
    np.testing.assert_array_equal(cells(page), kappa_matrix(data.agreement))
    texts = [text.get_text() for text in drawn["kappa"].axes[0].texts]
    assert [texts[4 * i] for i in range(3)] == ["–"] * 3  # no 1.00 on the diagonal
    assert "1.00" not in texts
    assert f"<figcaption>{escape(KAPPA_MATRIX_NOTE)}</figcaption>" in html
