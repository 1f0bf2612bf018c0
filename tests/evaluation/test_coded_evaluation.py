"""The two edges where judgments and runs become integer codes give the one evaluation the
same numbers: a database's campaign coded as the store reads it (``eval --db``, the
evaluation page, the report) and the same rows coded where files are read
(``metrics.codes.code_frames``: ``eval --qrels … --run-file …``, tested against
pytrec_eval), for every option that changes which grades count or how they combine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.commands.evaluate import evaluate
from judge_app.errors import UsageError
from judge_app.evaluation.campaign import Campaign
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest, SignificanceOptions
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.metrics.codes import Graded, Results, code_frames

RATERS = ["ana", "ben", "Çelik", ADJUDICATED]
QUERIES = ["q1", "q10", "q2", "Q3", "é4"]
DOCS = [f"d{i}" for i in range(12)] + ["D5", "ü"]


@st.composite
def campaigns(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Graded judgments (each rater grades a pair at most once) and two or three runs (each
    document at most once in a query, ranks 1, 2, …)."""
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS)), min_size=1, max_size=30
        )
    )
    rows = []
    for query, doc in dict.fromkeys(pairs):
        for rater in draw(st.sets(st.sampled_from(RATERS), min_size=1)):
            rows.append((query, doc, rater, float(draw(st.integers(0, 5)))))
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    judgments["skipped"] = False
    results = []
    for run in draw(st.sets(st.sampled_from(["bm25", "dense", "Zeta"]), min_size=2)):
        for query in draw(st.sets(st.sampled_from(QUERIES), min_size=1)):
            ranked = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=8))
            results += [(run, query, doc, rank) for rank, doc in enumerate(ranked, start=1)]
    return judgments, pd.DataFrame(results, columns=["run", "query_id", "doc_id", "rank"])


def _campaign(judgments: pd.DataFrame, results: pd.DataFrame) -> Campaign:
    """The campaign as ``load_campaign`` codes it: names of both tables in code-point order."""
    names = {
        column: np.asarray(sorted(set(judgments[column]) | set(results[column])), dtype=object)
        for column in ("query_id", "doc_id")
    }
    raters = np.asarray(sorted(set(judgments["rater"])), dtype=object)

    def codes(values: pd.Series, known: np.ndarray) -> np.ndarray:
        return np.searchsorted(known, values.to_numpy(dtype=object)).astype(np.int64)

    graded = Graded(
        codes(judgments["query_id"], names["query_id"]),
        codes(judgments["doc_id"], names["doc_id"]),
        codes(judgments["rater"], raters),
        judgments["grade"].to_numpy(np.float64),
        names["query_id"],
        names["doc_id"],
        raters,
    )
    runs = np.asarray(sorted(set(results["run"])), dtype=object)
    coded = Results(
        codes(results["run"], runs),
        codes(results["query_id"], names["query_id"]),
        codes(results["doc_id"], names["doc_id"]),
        results["rank"].to_numpy(np.int64),
        runs,
    )
    return Campaign("test.sqlite", graded, coded, {}, (0,))


OPTIONS = st.builds(
    EvaluationOptions,
    ks=st.sampled_from([(10,), (3, None), (1, 5)]),
    gain=st.sampled_from(["linear", "exponential"]),
    ideal=st.sampled_from(["judged", "retrieved"]),
    unjudged=st.sampled_from(["zero", "condensed"]),
    threshold=st.sampled_from([1.0, 3.0]),
    complete=st.booleans(),
    aggregate=st.sampled_from(["mean", "median", "majority", "max", "min", "rater:ana"]),
    adjudicated=st.booleans(),
    raters=st.sampled_from([None, ("ana", "ben"), ("Çelik",)]),
    permutations=st.just(50),
)


def _files(judgments: pd.DataFrame, results: pd.DataFrame) -> Campaign:
    """The campaign as files are coded where they are read."""
    runs = {
        name: group[["query_id", "doc_id", "rank"]]
        for name, group in results.sort_values(["run", "query_id", "rank"]).groupby("run")
    }
    graded, coded = code_frames(judgments, runs)
    return Campaign("test.sqlite", graded, coded, {})


@settings(max_examples=150, deadline=None)
@given(campaigns(), OPTIONS, st.booleans())
def test_the_store_and_the_files_code_the_same_numbers(campaign, options, per_rater):
    judgments, results = campaign
    request = EvaluationRequest(
        options, SignificanceOptions.following(options), per_rater=per_rater
    )
    try:
        expected = evaluate(request, _files(judgments, results))
    except UsageError as error:
        with pytest.raises(UsageError, match="^" + _escaped(str(error)) + "$"):
            evaluate(request, _campaign(judgments, results))
        return
    got = evaluate(request, _campaign(judgments, results))
    assert list(got.evaluations) == list(expected.evaluations)
    for name, evaluation in expected.evaluations.items():
        mine = got.evaluations[name]
        assert mine.query_ids == evaluation.query_ids
        assert mine.run_only == evaluation.run_only
        assert mine.judged_only == evaluation.judged_only
        assert np.array_equal(mine.idcg_zero, evaluation.idcg_zero)
        assert mine.values.keys() == evaluation.values.keys()
        for measure, values in evaluation.values.items():
            assert np.array_equal(mine.values[measure], values, equal_nan=True), measure
    assert [c.randomization_p_value for c in got.comparisons] == [
        c.randomization_p_value for c in expected.comparisons
    ]

    def rows(result):  # files code documents in the order met, the store in name order
        qrels = result.qrels.astype({"query_id": object, "doc_id": object})
        return qrels.sort_values(["query_id", "doc_id"], ignore_index=True).to_dict("list")

    assert rows(got) == rows(expected)
    if per_rater:
        pd.testing.assert_frame_equal(got.per_rater, expected.per_rater)


def _escaped(text: str) -> str:
    import re

    return re.escape(text)
