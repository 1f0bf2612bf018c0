"""The agreement report of a judgments frame: pairs, raters, queries with their adjudication
lists, ranking stability, and the undefined cases, each null with a reason.

Expected values come from the oracles (krippendorff, scikit-learn, statsmodels, scipy) or from
pandas computations written independently here.
"""

from __future__ import annotations

import json
import math
import warnings
from itertools import combinations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from judge_app.agreement.report import Ratings, build_report, unique_inverse
from judge_app.agreement.stability import ranking_stability, raters_judging_all
from judge_app.writers import agreement as agreement_writer


def judgments_frame(grades: np.ndarray, raters: list[str], docs_per_query: int = 4) -> pd.DataFrame:
    """Rows ``query_id, doc_id, rater, grade, skipped`` from ``grades[unit, rater]`` (-1:
    missing); unit u is document d{u:03d} of query q{u // docs_per_query:02d}."""
    rows = [
        {"query_id": f"q{unit // docs_per_query:02d}", "doc_id": f"d{unit:03d}",
         "rater": rater, "grade": int(grade), "skipped": False}
        for unit, row in enumerate(grades)
        for rater, grade in zip(raters, row)
        if grade >= 0
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade", "skipped"])


def alpha_of(frame: pd.DataFrame, level: str = "ordinal") -> float | None:
    """krippendorff.alpha of a judgments frame (None where it is undefined)."""
    table = frame.pivot_table(index="rater", columns=["query_id", "doc_id"], values="grade")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(
                reliability_data=table.to_numpy(float), level_of_measurement=level
            )
    except ValueError:
        return None
    return None if np.isnan(value) else float(value)


@st.composite
def frames(draw):
    raters = [f"r{i}" for i in range(draw(st.integers(2, 5)))]
    units = draw(st.integers(2, 30))
    pool = [-1] * draw(st.integers(0, 4)) + [0] * draw(st.integers(1, 10)) + [1, 2, 3, 4, 5]
    cells = draw(st.lists(st.sampled_from(pool), min_size=units * len(raters),
                          max_size=units * len(raters)))  # fmt: skip
    grades = np.array(cells).reshape(units, len(raters))
    return judgments_frame(grades, raters, draw(st.integers(1, 6))), raters


# --------------------------------------------------------------------------- against oracles


@settings(max_examples=40, deadline=None)
@given(frames())
def test_report_equals_the_oracles_overall_and_per_pair(case):
    frame, raters = case
    report = build_report(Ratings.from_frame(frame), resamples=0)
    assert report.raters == sorted(set(frame["rater"]))
    units = frame.groupby(["query_id", "doc_id"]).size()
    assert report.n_units == len(units)
    assert report.n_multi_rated == int((units >= 2).sum())
    for level in ("nominal", "ordinal", "interval"):
        expected = alpha_of(frame, level)
        ours = report.krippendorff_alpha[level]
        assert (ours is None) == (expected is None), level
        if expected is not None:
            assert ours == pytest.approx(expected, abs=1e-9)
        else:
            assert report.reasons[f"krippendorff_alpha.{level}"]

    wide = frame.pivot_table(index=["query_id", "doc_id"], columns="rater", values="grade")
    complete = wide.dropna()
    assert len(report.raters) == wide.shape[1]
    if wide.shape[1] < 2:  # one rater: Fleiss' kappa is undefined, over no unit
        complete = complete.iloc[:0]
    assert report.fleiss_units == len(complete)
    if len(complete):
        table = np.stack([(complete == g).sum(axis=1) for g in range(6)], axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = fleiss_kappa(table)
        if np.isnan(expected):
            assert report.fleiss_kappa is None and report.reasons["fleiss_kappa"]
        else:
            assert report.fleiss_kappa == pytest.approx(expected, abs=1e-9)

    sharing = {(a, b) for a, b in combinations(report.raters, 2) if not wide[[a, b]].dropna().empty}
    assert {(pair.rater_a, pair.rater_b) for pair in report.pairwise} == sharing
    assert report.pairs_apart == len(report.raters) * (len(report.raters) - 1) // 2 - len(sharing)
    for pair in report.pairwise:
        both = wide[[pair.rater_a, pair.rater_b]].dropna().astype(int)
        assert pair.n_units == len(both) > 0
        a, b = both[pair.rater_a], both[pair.rater_b]
        assert pair.percent_agreement == pytest.approx((a == b).mean())
        for key, weights in (("cohen_kappa", None), ("cohen_kappa_linear", "linear"),
                             ("cohen_kappa_quadratic", "quadratic")):  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = cohen_kappa_score(a, b, labels=list(range(6)), weights=weights)
            ours = getattr(pair, key)
            if np.isnan(expected):
                assert ours is None and pair.reasons[key]
            else:
                assert ours == pytest.approx(expected, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(frames())
def test_per_rater_and_per_query_equal_independent_computations(case):
    frame, _ = case
    report = build_report(Ratings.from_frame(frame), resamples=0)
    alpha_all = report.krippendorff_alpha["ordinal"]
    for rater in report.per_rater:
        own = frame[frame["rater"] == rater.rater]["grade"]
        assert rater.n_units == len(own)
        assert rater.mean_grade == pytest.approx(own.mean())
        assert list(rater.grades) == [int((own == g).sum()) for g in range(6)]
        without = alpha_of(frame[frame["rater"] != rater.rater])
        if without is None:
            assert rater.alpha_without_rater is None
            assert rater.reasons["alpha_without_rater"] and rater.reasons["alpha_contribution"]
        else:
            assert rater.alpha_without_rater == pytest.approx(without, abs=1e-9)
            if alpha_all is not None:
                assert rater.alpha_contribution == pytest.approx(alpha_all - without, abs=1e-9)

    assert [q.query_id for q in report.per_query] == sorted(set(frame["query_id"]))
    for query in report.per_query:
        rows = frame[frame["query_id"] == query.query_id]
        assert query.n_units == rows["doc_id"].nunique()
        assert query.n_raters == rows["rater"].nunique()
        expected = alpha_of(rows)
        if expected is None:
            assert query.krippendorff_alpha_ordinal is None
            assert query.reasons["krippendorff_alpha_ordinal"]
        else:
            assert query.krippendorff_alpha_ordinal == pytest.approx(expected, abs=1e-9)
        spread = rows.groupby("doc_id")["grade"].agg(lambda g: g.max() - g.min())
        flagged = spread[spread >= 2]
        listed = {unit.doc_id: unit for unit in query.adjudicate}
        assert set(listed) == set(flagged.index)
        for doc_id, unit in listed.items():
            assert unit.spread == flagged[doc_id]
            doc_rows = rows[rows["doc_id"] == doc_id]
            assert unit.grades == dict(zip(doc_rows["rater"], doc_rows["grade"]))
        spreads = [unit.spread for unit in query.adjudicate]
        assert spreads == sorted(spreads, reverse=True)


# --------------------------------------------------------------------------- a small case by hand


def small_frame() -> pd.DataFrame:
    """Query qa: three documents all three raters graded; qb: one document graded 0, 0, 4
    (to adjudicate) and one graded by ana alone; chloe skipped one (left out)."""
    rows = [
        ("qa", "d1", "ana", 3), ("qa", "d1", "ben", 3), ("qa", "d1", "chloe", 2),
        ("qa", "d2", "ana", 0), ("qa", "d2", "ben", 0), ("qa", "d2", "chloe", 0),
        ("qa", "d3", "ana", 5), ("qa", "d3", "ben", 4), ("qa", "d3", "chloe", 5),
        ("qb", "d4", "ana", 0), ("qb", "d4", "ben", 0), ("qb", "d4", "chloe", 4),
        ("qb", "d5", "ana", 1),
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    frame["grade"] = frame["grade"].astype("Int64")
    frame["skipped"] = False
    skipped = pd.DataFrame(
        {"query_id": ["qb"], "doc_id": ["d5"], "rater": ["chloe"], "grade": [pd.NA],
         "skipped": [True]}
    )  # fmt: skip
    return pd.concat([frame, skipped.astype(frame.dtypes.to_dict())], ignore_index=True)


def test_small_case_counts_adjudication_and_skipped():
    report = build_report(Ratings.from_frame(small_frame()), resamples=200, seed=3)
    assert report.raters == ["ana", "ben", "chloe"]
    assert (report.n_units, report.n_multi_rated, report.fleiss_units) == (5, 4, 4)
    by_rater = {rater.rater: rater for rater in report.per_rater}
    assert by_rater["ana"].n_units == 5 and by_rater["chloe"].n_units == 4
    assert by_rater["ana"].grades == (2, 1, 0, 1, 0, 1)
    assert by_rater["chloe"].mean_grade == pytest.approx(11 / 4)
    qa, qb = report.per_query
    assert (qa.query_id, qa.n_units, qa.n_raters, qa.adjudicate) == ("qa", 3, 3, [])
    assert (qb.n_units, qb.n_raters) == (2, 3)
    [unit] = qb.adjudicate
    assert (unit.doc_id, unit.grades, unit.spread) == ("d4", {"ana": 0, "ben": 0, "chloe": 4}, 4)
    # per unit shares of agreeing pairs: d1 1/3, d2 1, d3 1/3, d4 1/3
    assert report.percent_agreement == pytest.approx((1 / 3 + 1 + 1 / 3 + 1 / 3) / 4)
    assert report.within_one_agreement == pytest.approx((1 + 1 + 1 + 1 / 3) / 4)
    assert qb.percent_agreement == pytest.approx(1 / 3)
    low, high = report.krippendorff_alpha_ci["ordinal"]
    assert -1 <= low <= high <= 1
    assert report.reasons == {"ranking_stability": "no runs were given"}


def test_chosen_raters_restrict_and_order():
    ratings = Ratings.from_frame(small_frame(), raters=["chloe", "ana"])
    assert ratings.raters == ("chloe", "ana")
    report = build_report(ratings, resamples=0)
    assert [(p.rater_a, p.rater_b) for p in report.pairwise] == [("chloe", "ana")]
    assert report.n_units == 5  # ana's d5
    assert report.fleiss_units == 4


def test_grades_outside_the_scale_and_repeats_are_refused():
    frame = small_frame()
    with pytest.raises(ValueError, match="0 to 5"):
        Ratings.from_frame(frame.assign(grade=frame["grade"].astype("Float64") + 0.5))
    with pytest.raises(ValueError, match="more than once"):
        Ratings.from_frame(pd.concat([frame, frame.iloc[:1]]))


# --------------------------------------------------------------------------- undefined cases


def test_one_rater_gives_nulls_with_one_reason():
    frame = small_frame()
    report = build_report(Ratings.from_frame(frame[frame["rater"] == "ana"]))
    reason = "agreement needs two or more raters; there is only ana"
    keys = ["percent_agreement", "within_one_agreement", "fleiss_kappa", "gwet_ac1",
            "gwet_ac2.linear", "gwet_ac2.quadratic", "krippendorff_alpha.nominal",
            "krippendorff_alpha.ordinal", "krippendorff_alpha.interval",
            "krippendorff_alpha_ci.ordinal"]  # fmt: skip
    assert {key: report.reasons[key] for key in keys} == dict.fromkeys(keys, reason)
    assert report.pairwise == []
    assert all(q.krippendorff_alpha_ordinal is None for q in report.per_query)
    [ana] = report.per_rater
    assert ana.alpha_without_rater is None and ana.mean_grade == pytest.approx(1.8)
    document = json.loads(agreement_writer.json_text(report))
    assert document["krippendorff_alpha"] == dict.fromkeys(["nominal", "ordinal", "interval"])
    assert document["krippendorff_alpha_ci"] == {"ordinal": None}


def test_raters_without_common_units():
    frame = judgments_frame(np.array([[1, -1], [3, -1], [-1, 2], [-1, 0]]), ["ana", "ben"])
    report = build_report(Ratings.from_frame(frame))
    assert report.pairwise == [] and report.pairs_apart == 1  # counted, not listed
    assert report.reasons["fleiss_kappa"] == "no unit was graded by both raters"
    assert report.reasons["krippendorff_alpha.ordinal"] == (
        "no unit was graded by two or more raters"
    )
    assert report.gwet_ac1 is None and report.percent_agreement is None


def test_all_grades_zero():
    """Kappa and alpha are undefined where every grade is 0; Gwet's AC1 is 1."""
    frame = judgments_frame(np.zeros((6, 3), dtype=int), ["a", "b", "c"], docs_per_query=3)
    report = build_report(Ratings.from_frame(frame))
    assert report.krippendorff_alpha == dict.fromkeys(["nominal", "ordinal", "interval"])
    assert "is 0" in report.reasons["krippendorff_alpha.ordinal"]
    assert (
        report.fleiss_kappa is None
        and "chance agreement is total" in report.reasons["fleiss_kappa"]
    )
    assert all(pair.cohen_kappa is None for pair in report.pairwise)
    assert report.gwet_ac1 == 1.0 and report.percent_agreement == 1.0
    for query in report.per_query:
        assert (
            "documents graded by two or more raters is 0"
            in query.reasons["krippendorff_alpha_ordinal"]
        )
    text = agreement_writer.json_text(report)
    assert "NaN" not in text
    assert json.loads(text)["fleiss_kappa"] is None


def test_no_unit_rated_by_all_raters():
    grades = np.array([[1, 2, -1], [-1, 3, 3], [0, -1, 1], [4, 4, -1]])
    report = build_report(Ratings.from_frame(judgments_frame(grades, ["a", "b", "c"])))
    assert report.fleiss_kappa is None and report.fleiss_units == 0
    assert report.reasons["fleiss_kappa"] == "no unit was graded by all 3 raters"
    assert report.krippendorff_alpha["ordinal"] is not None


def test_empty_frame_gives_an_empty_report():
    frame = judgments_frame(np.zeros((0, 2), dtype=int), ["a", "b"])
    report = build_report(Ratings.from_frame(frame))
    assert (report.n_units, report.raters, report.per_query) == (0, [], [])
    assert report.reasons["percent_agreement"] == "there are no judgments"
    json.loads(agreement_writer.json_text(report))


# --------------------------------------------------------------------------- ranking stability


def test_ranking_stability_orders_and_kendall_tau():
    means = pd.DataFrame(
        {
            "rater": ["ana"] * 3 + ["ben"] * 3 + ["cy"] * 3,
            "run": ["r1", "r2", "r3"] * 3,
            "ndcg@10": [0.5, 0.7, 0.6, 0.55, 0.65, 0.75, 0.4, 0.4, 0.4],
        }
    )
    ranking = ranking_stability(means, "ndcg@10", 12, {"dee": "judged 3 of the 12 queries"})
    assert ranking.raters == ["ana", "ben", "cy"]
    assert [run for run, _ in ranking.orders["ana"]] == ["r2", "r3", "r1"]
    assert [run for run, _ in ranking.orders["ben"]] == ["r3", "r2", "r1"]
    taus = {(t.rater_a, t.rater_b): t for t in ranking.taus}
    expected = kendalltau([0.5, 0.7, 0.6], [0.55, 0.65, 0.75]).statistic
    assert taus["ana", "ben"].tau == pytest.approx(expected)
    assert taus["ana", "cy"].tau is None
    assert "same mean ndcg@10 with cy's judgments" in taus["ana", "cy"].reason
    record = agreement_writer.report_record(
        build_report(Ratings.from_frame(small_frame()), resamples=0, ranking=ranking)
    )["ranking_stability"]
    assert record["left_out"] == {"dee": "judged 3 of the 12 queries"}
    assert record["orders"][0]["runs"][0] == {"run": "r2", "ndcg@10": 0.7}
    assert record["kendall_tau"][1]["tau"] is None


def test_raters_judging_all_queries():
    judged = {"ana": 2, "ben": 1, "chloe": 2}
    complete, left_out = raters_judging_all(judged, 2, ["ana", "ben", "chloe", "dee"])
    assert complete == ["ana", "chloe"]
    assert left_out == {
        "ben": "judged 1 of the 2 queries",
        "dee": "judged 0 of the 2 queries",
    }


def test_formats_agree_with_each_other():
    report = build_report(Ratings.from_frame(small_frame()), resamples=100)
    record = json.loads(agreement_writer.json_text(report, digits=6))
    lines = agreement_writer.csv_text(report, digits=6).splitlines()
    assert lines[0] == ",".join(agreement_writer.CSV_COLUMNS)
    ordinal = next(line for line in lines if ",krippendorff_alpha.ordinal," in line)
    assert float(ordinal.split(",")[7]) == record["krippendorff_alpha"]["ordinal"]
    adjudicate = [line for line in lines if line.startswith("adjudicate,")]
    assert adjudicate == [
        "adjudicate,ana,,qb,d4,,grade,0,",
        "adjudicate,ben,,qb,d4,,grade,0,",
        "adjudicate,chloe,,qb,d4,,grade,4,",
    ]
    table = agreement_writer.table_text(report, digits=3)
    alpha = record["krippendorff_alpha"]["ordinal"]
    assert f"Ordinal alpha {alpha:.3f}" in table
    assert agreement_writer.alpha_reading(alpha) in table
    assert "qb d4: ana 0, ben 0, chloe 4" in table
    assert not math.isnan(alpha)


@pytest.mark.parametrize(
    ("alpha", "word"),
    [(0.85, "reliable"), (0.8, "reliable"), (0.7, "tentative"), (0.3, "unreliable"),
     (0.0, "no better than chance"), (-0.2, "no better than chance")],
)  # fmt: skip
def test_alpha_reading_follows_krippendorffs_thresholds(alpha, word):
    assert agreement_writer.alpha_reading(alpha).startswith(word)


def test_thousands_of_raters_who_share_little_make_a_table_of_the_pairs_who_share():
    """Issue 31: 3,000 raters in pairs, each pair on its own two documents. The table lists
    the 1,500 pairs who share a document and counts the 4,497,000 who share none."""
    rows = [
        (f"q{pair}", f"d{pair}_{doc}", f"r{2 * pair + side}", (pair + doc + side) % 6)
        for pair in range(1500)
        for doc in range(2)
        for side in range(2)
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    report = build_report(Ratings.from_frame(frame), resamples=0)
    assert len(report.pairwise) == 1500
    assert report.pairs_apart == 3000 * 2999 // 2 - 1500
    assert all(pair.n_units == 2 for pair in report.pairwise)
    text = agreement_writer.table_text(report)
    assert "4,497,000 pairs of raters share no document: not listed." in text
    # a table for people: 50 pairs and 50 raters, said so (the JSON and CSV hold them all)
    assert text.startswith(
        "Agreement of 3,000 raters (r0, r1, r10, r100, r1000, r1001, r1002, r1003, r1004, "
        "r1005 and 2,990 more) on 3,000 documents"
    )
    pairs = text.split("Pairs (")[1].split("\n\n")[0].splitlines()
    assert pairs[0].endswith(
        "; the 50 of 1,500 pairs with the most common documents: --format csv or json lists all)"
    )
    assert len(pairs) == 2 + 50
    raters = text.split("Raters (")[1].split("\n\n")[0].splitlines()
    assert "; the 50 of 3,000 raters who lower the agreement most:" in raters[0]
    contributions = [float(line.split()[-1]) for line in raters[2:]]
    assert len(contributions) == 50
    lowest = sorted(r.alpha_contribution for r in report.per_rater)[:50]
    assert sorted(contributions) == pytest.approx(lowest, abs=5e-5)
    record = json.loads(agreement_writer.as_text(report, "json"))
    assert len(record["pairwise"]) == 1500 and len(record["per_rater"]) == 3000


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60), st.booleans())
def test_unique_inverse_is_numpys(values, counted):
    """Counted (below a bound) or sorted stably, the codes are ``np.unique``'s."""
    array = np.array(values, dtype=np.int64)
    found = unique_inverse(array, 41 if counted else None)
    expected = np.unique(array, return_inverse=True)
    assert all(np.array_equal(ours, theirs) for ours, theirs in zip(found, expected))
