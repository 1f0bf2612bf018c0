"""Ranking metrics against independent oracles: the seeds' worked examples (DESIGN section 3),
pytrec_eval (trec_eval 9 in a library) and scikit-learn's ``ndcg_score`` on generated data,
and the invariants every evaluation must satisfy.

The trec_eval reference files are checked in test_ranking_reference.py; not repeated here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from judge_app.metrics.codes import RepeatedDocument
from judge_app.metrics.ranking import Settings, evaluate

TOLERANCE = 1e-9
KS = (None, 1, 3, 5, 10)
TREC_MEASURES = {"ndcg", "ndcg_cut.1,3,5,10", "P.5,10", "recip_rank", "map"}
# the scores of generated runs: few values, so that ties (broken by doc id) are common. They
# must be exact in float32: pytrec_eval's trec_eval keeps scores as 32-bit floats (1.00000001
# ties with 1.0 there), trec_eval 10 and we as 64-bit (the "fp" reference case checks that).
SCORES = (-0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
# string order differs from "natural" order ("d10" < "d2", "B" < "a") on purpose
QUERY_IDS = ("q1", "q2", "q10", "Q3")
DOC_IDS = ("a", "b", "c", "d", "e", "B", "d2", "d10", "d9")

Qrels = dict[str, dict[str, float]]
Run = dict[str, dict[str, float]]


# ---------------------------------------------------------------------------------------------
# helpers


def _qrels_frame(qrels: Qrels) -> pd.DataFrame:
    rows = [
        (query, doc, float(grade)) for query, docs in qrels.items() for doc, grade in docs.items()
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])
    return frame.astype({"query_id": str, "doc_id": str, "grade": float})


def _run_frame(run: Run) -> pd.DataFrame:
    rows = [
        (query, doc, float(score)) for query, docs in run.items() for doc, score in docs.items()
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return frame.astype({"query_id": str, "doc_id": str, "score": float})


def _ranked(grades: list[float], query: str = "q") -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run of d1..dn in this order (scores n..1) and qrels giving d_i the i-th grade."""
    n = len(grades)
    docs = [f"d{i}" for i in range(1, n + 1)]
    run = pd.DataFrame({"query_id": query, "doc_id": docs, "score": np.arange(n, 0, -1.0)})
    qrels = pd.DataFrame({"query_id": query, "doc_id": docs, "grade": np.asarray(grades, float)})
    return run, qrels


def _ours_key(measure: str) -> str:
    """Our column for a pytrec_eval measure name."""
    if measure == "ndcg":
        return "ndcg@all"
    if measure.startswith("ndcg_cut_"):
        return "ndcg@" + measure.removeprefix("ndcg_cut_")
    if measure.startswith("P_"):
        return "p@" + measure.removeprefix("P_")
    return {"recip_rank": "rr", "map": "ap"}[measure]


# In no generated run; a grade-0 judgment of it changes no measure.
PADDING_DOC = "~never-retrieved"


def _padded(trec_qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """trec_qrels with a grade-0 judgment added to every query whose grades are all negative.

    Works around a trec_eval bug that makes pytrec_eval hang: for such a query
    form_res_rels.c computes max_rel = -1, so it neither resets ``num_rel_levels`` (left from
    the previous query) nor allocates ``rel_levels`` (te_chk_and_malloc of 0 returns the old
    pointer, which pytrec_eval freed at the end of the previous evaluate()). m_ndcg.c then
    builds the ideal ranking from freed memory and its ``for (i = 0; 1; i++)`` loop can spin
    forever. The right values are unaffected: IDCG = 0, so every NDCG is 0, and the padding
    document (grade 0, never retrieved) adds nothing to any measure.
    """
    return {
        query: docs if any(grade >= 0 for grade in docs.values()) else {**docs, PADDING_DOC: 0}
        for query, docs in trec_qrels.items()
    }


def _check_against_pytrec_eval(
    run: Run, qrels: Qrels, trec_qrels: dict[str, dict[str, int]], **options: str
) -> None:
    """Ours on (run, qrels) equals pytrec_eval on (run, trec_qrels), query by query.

    pytrec_eval evaluates every query that is a key of both dictionaries, so a query given an
    empty list in the run dictionary is evaluated (all zeros). A run file cannot express an
    empty list: for us such a query is missing from the run, i.e. ``judged_only``, and
    ``complete`` scores it 0. Hence: ``complete=True`` equals pytrec_eval on all of its
    queries; without it we evaluate those of them whose list is not empty.
    """
    judged_flag = options.get("unjudged") == "condensed"
    evaluator = pytrec_eval.RelevanceEvaluator(
        _padded(trec_qrels), TREC_MEASURES, relevance_level=1, judged_docs_only_flag=judged_flag
    )
    expected = evaluator.evaluate(run)
    assert set(expected) == set(qrels) & set(run)

    run_frame, qrels_frame = _run_frame(run), _qrels_frame(qrels)
    listed = {query for query, docs in run.items() if docs}
    ours = evaluate(run_frame, qrels_frame, Settings(ks=KS, **options))
    assert set(ours.per_query["query_id"]) == set(expected) & listed
    assert ours.run_only == sorted(listed - set(qrels))
    assert ours.judged_only == sorted(set(qrels) - listed)
    assert ours.per_query["query_id"].tolist() == sorted(ours.per_query["query_id"])

    complete = evaluate(run_frame, qrels_frame, Settings(ks=KS, complete=True, **options))
    per_query = complete.per_query.set_index("query_id")
    assert set(per_query.index) == set(qrels)
    for query, measures in expected.items():
        for measure, value in measures.items():
            ours_value = per_query.loc[query, _ours_key(measure)]
            assert ours_value == pytest.approx(value, abs=TOLERANCE), (query, measure)
    # the evaluations agree where both evaluate a query
    plain = ours.per_query.set_index("query_id")
    pd.testing.assert_frame_equal(plain, per_query.loc[plain.index], check_dtype=False)


# ---------------------------------------------------------------------------------------------
# strategies

grades_int = st.integers(min_value=-1, max_value=4)  # -1: in the pool, not judged
judgments = st.dictionaries(st.sampled_from(DOC_IDS), grades_int, min_size=1)
qrels_dicts = st.dictionaries(st.sampled_from(QUERY_IDS), judgments, min_size=1, max_size=4)
ranked_lists = st.dictionaries(st.sampled_from(DOC_IDS), st.sampled_from(SCORES))  # may be {}
run_dicts = st.dictionaries(st.sampled_from(QUERY_IDS), ranked_lists, min_size=1, max_size=4)
real_grades = st.one_of(
    grades_int.map(float),
    st.floats(min_value=0, max_value=5, allow_nan=False).map(lambda g: round(g, 3)),
)
ORACLE_SETTINGS = settings(deadline=None, max_examples=150)
INVARIANT_SETTINGS = settings(deadline=None, max_examples=100)


# ---------------------------------------------------------------------------------------------
# 1. the seeds' worked examples (DESIGN section 3)

SEED_VECTORS = [
    # id, ranked grades, settings, k, DCG, IDCG, NDCG
    ("seed000_3_2_3_0_1", [3, 2, 3, 0, 1], {}, None, 6.148712, 6.323466, 0.972364),
    ("seed001_3_2_3_0", [3, 2, 3, 0], {}, None, 5.761860, 5.892789, 0.977781),
    (
        "seed002_0.5_0.9_0.3_0.6_0.1",
        [0.5, 0.9, 0.3, 0.6, 0.1],
        {},
        None,
        1.514928,
        1.696446,
        0.893001,
    ),
    (
        "seed002_0.6_0.5_0.1_0.3_0.9",
        [0.6, 0.5, 0.1, 0.3, 0.9],
        {},
        None,
        1.442835,
        1.696446,
        0.850505,
    ),
    ("seed003_4_3_2_1_1", [4, 3, 2, 1, 1], {}, None, 7.710319, 7.710319, 1.0),
    ("seed003_2_4_1_3_1", [2, 4, 1, 3, 1], {}, None, 6.702601, 7.710319, 0.869303),
    (
        "seed000_3_2_3_0_1_exponential",
        [3, 2, 3, 0, 1],
        {"gain": "exponential"},
        None,
        12.779642,
        13.347185,
        0.957478,
    ),
    ("seed003_2_4_1_3_1_k3", [2, 4, 1, 3, 1], {}, 3, 5.023719, 6.892789, 0.728837),
]


@pytest.mark.parametrize(
    ("grades", "options", "k", "dcg", "idcg", "ndcg"),
    [pytest.param(*row[1:], id=row[0]) for row in SEED_VECTORS],
)
@pytest.mark.parametrize("ideal", ["judged", "retrieved"])
def test_seed_worked_examples(grades, options, k, dcg, idcg, ndcg, ideal):
    run, qrels = _ranked(grades)
    evaluation = evaluate(run, qrels, Settings(ks=(k,), ideal=ideal, **options))
    row = evaluation.per_query.iloc[0]
    label = "all" if k is None else str(k)
    assert evaluation.n_queries == 1
    assert row[f"dcg@{label}"] == pytest.approx(dcg, abs=1e-6)
    assert row[f"idcg@{label}"] == pytest.approx(idcg, abs=1e-6)
    assert row[f"ndcg@{label}"] == pytest.approx(ndcg, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# 2. and 3. pytrec_eval on generated qrels and runs


@pytest.mark.parametrize("unjudged", ["zero", "condensed"])
@ORACLE_SETTINGS
@given(qrels=qrels_dicts, run=run_dicts)
def test_linear_gain_equals_pytrec_eval(unjudged, qrels, run):
    _check_against_pytrec_eval(run, qrels, qrels, unjudged=unjudged)


@pytest.mark.parametrize("unjudged", ["zero", "condensed"])
@ORACLE_SETTINGS
@given(qrels=qrels_dicts, run=run_dicts)
def test_exponential_gain_equals_pytrec_eval_on_rewritten_grades(unjudged, qrels, run):
    rewritten = {
        query: {doc: 2**grade - 1 if grade >= 0 else grade for doc, grade in docs.items()}
        for query, docs in qrels.items()
    }
    _check_against_pytrec_eval(run, qrels, rewritten, unjudged=unjudged, gain="exponential")


def test_pytrec_eval_examples_with_ties_unjudged_and_missing_queries():
    """A fixed case of everything at once, so a failure has a readable example too."""
    qrels = {"q1": {"a": 1, "b": -1, "c": 2, "d10": 0}, "q2": {"a": 0}, "q3": {"x": 1}}
    run = {
        "q1": {"a": 1.0, "b": 1.0, "z": 2.0, "d2": 1.0, "d10": 1.0},
        "q2": {},
        "q4": {"a": 1.0},
    }
    for unjudged in ("zero", "condensed"):
        _check_against_pytrec_eval(run, qrels, qrels, unjudged=unjudged)


def test_query_judged_only_negative_is_evaluated_with_ndcg_zero():
    """Every judgment negative (in the pool, unjudged): judged, so evaluated and counted; the
    ideal ordering is empty, so IDCG = 0, NDCG = 0 and the query is flagged."""
    qrels = {"q1": {"a": 2}, "q2": {"a": -1, "b": -1}}
    run = {"q1": {"a": 1.0}, "q2": {"a": 2.0, "b": 1.0, "c": 0.5}}
    evaluation = evaluate(_run_frame(run), _qrels_frame(qrels), Settings(ks=KS))
    row = evaluation.per_query.set_index("query_id").loc["q2"]
    assert row["idcg_zero"]
    for k in KS:
        label = "all" if k is None else str(k)
        assert row[f"idcg@{label}"] == 0 and row[f"ndcg@{label}"] == 0
        assert row[f"judged@{label}"] == 0
    assert evaluation.n_queries == 2
    assert evaluation.means()["ndcg@all"] == pytest.approx(0.5)
    for unjudged in ("zero", "condensed"):
        _check_against_pytrec_eval(run, qrels, qrels, unjudged=unjudged)


# ---------------------------------------------------------------------------------------------
# 4. scikit-learn's ndcg_score: the ideal ordering of the retrieved documents, no ties


@ORACLE_SETTINGS
@given(
    data=st.data(),
    n=st.integers(min_value=2, max_value=12),
    k=st.one_of(st.none(), st.integers(min_value=1, max_value=15)),
)
def test_retrieved_ideal_equals_sklearn_ndcg_score(data, n, k):
    grades = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    scores = data.draw(
        st.lists(
            st.floats(min_value=-100, max_value=100, allow_nan=False, width=32),
            min_size=n,
            max_size=n,
            unique=True,
        )
    )
    docs = [f"doc{i}" for i in range(n)]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": scores})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "grade": np.asarray(grades, float)})
    evaluation = evaluate(run, qrels, Settings(ks=(k,), ideal="retrieved"))
    ours = evaluation.per_query.iloc[0]["ndcg@" + ("all" if k is None else str(k))]
    expected = ndcg_score([grades], [scores], k=k)
    assert ours == pytest.approx(expected, abs=TOLERANCE)


# ---------------------------------------------------------------------------------------------
# 5. invariants


@INVARIANT_SETTINGS
@given(
    qrels=st.dictionaries(
        st.sampled_from(QUERY_IDS),
        st.dictionaries(st.sampled_from(DOC_IDS), real_grades, min_size=1),
        min_size=1,
        max_size=4,
    ),
    run=run_dicts,
    gain=st.sampled_from(["linear", "exponential"]),
    unjudged=st.sampled_from(["zero", "condensed"]),
    threshold=st.sampled_from([1.0, 0.5, 2.0]),
    complete=st.booleans(),
)
def test_bounds(qrels, run, gain, unjudged, threshold, complete):
    options = {"gain": gain, "unjudged": unjudged, "threshold": threshold, "complete": complete}
    per_query = evaluate(_run_frame(run), _qrels_frame(qrels), Settings(ks=KS, **options)).per_query
    for k in KS:
        label = "all" if k is None else str(k)
        ndcg = per_query[f"ndcg@{label}"]
        assert ((ndcg >= 0) & (ndcg <= 1 + 1e-12)).all()
        assert (per_query[f"dcg@{label}"] <= per_query[f"idcg@{label}"] + 1e-9).all()
        recall = per_query[f"recall@{label}"]
        assert ((recall >= 0) & (recall <= 1 + 1e-12)).all()
        judged = per_query[f"judged@{label}"]
        assert ((judged >= 0) & (judged <= 1)).all()
        if k is not None:
            count = per_query[f"p@{label}"] * k
            assert np.allclose(count, np.round(count), atol=1e-9)
            assert ((count >= -1e-9) & (count <= k + 1e-9)).all()
    for name in ("rr", "ap"):
        assert ((per_query[name] >= 0) & (per_query[name] <= 1 + 1e-12)).all()


@INVARIANT_SETTINGS
@given(
    judged=st.dictionaries(st.sampled_from(DOC_IDS), real_grades, min_size=1),
    unjudged_tail=st.lists(st.sampled_from(["u1", "u2", "u3"]), unique=True),
    gain=st.sampled_from(["linear", "exponential"]),
    unjudged=st.sampled_from(["zero", "condensed"]),
    ideal=st.sampled_from(["judged", "retrieved"]),
)
def test_ideal_ordering_scores_one_at_every_k(judged, unjudged_tail, gain, unjudged, ideal):
    if max(judged.values()) <= 0:
        return  # nothing relevant: IDCG = 0, NDCG is 0 by definition
    # every judged document, best grade first; then documents without a judgment
    order = sorted(judged, key=lambda doc: -judged[doc]) + unjudged_tail
    run = pd.DataFrame({"query_id": "q", "doc_id": order, "rank": range(1, len(order) + 1)})
    qrels = _qrels_frame({"q": judged})
    ks = (None, 1, 2, 3, 5, 10, 20)
    settings_ = Settings(ks=ks, gain=gain, unjudged=unjudged, ideal=ideal)
    row = evaluate(run, qrels, settings_).per_query.iloc[0]
    for k in ks:
        assert row["ndcg@" + ("all" if k is None else str(k))] == pytest.approx(1.0, abs=1e-12)


@INVARIANT_SETTINGS
@given(
    qrels=st.dictionaries(
        st.sampled_from(QUERY_IDS),
        st.dictionaries(st.sampled_from(DOC_IDS), real_grades, min_size=1),
        min_size=1,
        max_size=4,
    ),
    data=st.data(),
    gain=st.sampled_from(["linear", "exponential"]),
    ideal=st.sampled_from(["judged", "retrieved"]),
)
def test_condensed_equals_zero_mode_when_every_retrieved_document_is_judged(
    qrels, data, gain, ideal
):
    run = {
        query: data.draw(st.dictionaries(st.sampled_from(sorted(docs)), st.sampled_from(SCORES)))
        for query, docs in qrels.items()
        if all(grade >= 0 for grade in docs.values())
    }
    run = {query: docs for query, docs in run.items() if docs}
    if not run:
        return
    frames = _run_frame(run), _qrels_frame(qrels)
    zero = evaluate(*frames, Settings(ks=KS, gain=gain, ideal=ideal, unjudged="zero"))
    condensed = evaluate(*frames, Settings(ks=KS, gain=gain, ideal=ideal, unjudged="condensed"))
    pd.testing.assert_frame_equal(zero.per_query, condensed.per_query)
    assert (zero.per_query["judged@all"] == 1.0).all()


def test_real_valued_grades_are_used_as_they_are():
    run, qrels = _ranked([2.5, 0])
    row = evaluate(run, qrels, Settings(ks=(None, 1))).per_query.iloc[0]
    assert row["dcg@all"] == pytest.approx(2.5, abs=1e-12)
    assert row["idcg@all"] == pytest.approx(2.5, abs=1e-12)
    assert row["ndcg@all"] == pytest.approx(1.0, abs=1e-12)
    assert row["cg@all"] == pytest.approx(2.5, abs=1e-12)
    # 2.5 is not truncated to 2 (as trec_eval's integer qrels would be): [2, 2.5] is not ideal
    run, qrels = _ranked([2.0, 2.5])
    row = evaluate(run, qrels, Settings(ks=(None,))).per_query.iloc[0]
    assert row["dcg@all"] == pytest.approx(2.0 + 2.5 / math.log2(3), abs=1e-12)
    assert row["ndcg@all"] < 1.0
    run, qrels = _ranked([0.5, 1.5])
    row = evaluate(run, qrels, Settings(ks=(None,), gain="exponential")).per_query.iloc[0]
    assert row["dcg@all"] == pytest.approx(2**0.5 - 1 + (2**1.5 - 1) / math.log2(3), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# 6. reporting of queries that only one side has


def _reporting_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    run = _run_frame({"q1": {"a": 2.0, "b": 1.0}, "q_run_only": {"a": 1.0}})
    qrels = _qrels_frame({"q1": {"a": 1, "b": 0}, "q_judged_only": {"a": 2, "b": 1}})
    return run, qrels


def test_queries_on_one_side_only_are_reported_not_evaluated():
    evaluation = evaluate(*_reporting_case(), Settings(ks=KS))
    assert evaluation.run_only == ["q_run_only"]
    assert evaluation.judged_only == ["q_judged_only"]
    assert evaluation.per_query["query_id"].tolist() == ["q1"]
    assert evaluation.n_queries == 1
    means = evaluation.means()
    assert means["ndcg@all"] == pytest.approx(1.0) and means["ap"] == pytest.approx(1.0)


def test_complete_scores_judged_only_queries_zero_and_counts_them():
    evaluation = evaluate(*_reporting_case(), Settings(ks=KS, complete=True))
    assert evaluation.per_query["query_id"].tolist() == ["q1", "q_judged_only"]
    assert "q_run_only" not in evaluation.per_query["query_id"].tolist()
    assert evaluation.run_only == ["q_run_only"]
    assert evaluation.judged_only == ["q_judged_only"]
    missing = evaluation.per_query.set_index("query_id").loc["q_judged_only"]
    scored = [
        name
        for name in missing.index
        if name.split("@")[0] in {"cg", "dcg", "ndcg", "p", "recall", "judged", "rr", "ap"}
    ]
    assert len(scored) == 6 * len(KS) + 2  # cg dcg ndcg p recall judged per k; rr, ap
    assert (missing[scored] == 0).all()
    # its ideal is still that of its judgments: 2, then 1 at position 2
    assert missing["idcg@all"] == pytest.approx(2 + 1 / math.log2(3))
    means = evaluation.means()
    assert evaluation.n_queries == 2
    assert means["ndcg@all"] == pytest.approx(0.5)
    assert means["ap"] == pytest.approx(0.5)
    assert means["rr"] == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------
# 7. a run with ranks and no scores


def test_rank_column_gives_the_order():
    # rows shuffled; rank order (c, a, d, b) is neither row order nor any doc id order
    run = pd.DataFrame(
        {"query_id": "q", "doc_id": ["a", "b", "c", "d"], "rank": [2, 4, 1, 3]}
    ).sample(frac=1.0, random_state=3)
    qrels = _qrels_frame({"q": {"a": 1, "b": 0, "c": 3, "d": 2}})
    row = evaluate(run, qrels, Settings(ks=(None, 1))).per_query.iloc[0]
    expected = 3 + 1 / math.log2(3) + 2 / math.log2(4) + 0 / math.log2(5)
    assert row["dcg@all"] == pytest.approx(expected, abs=1e-12)
    assert row["dcg@1"] == pytest.approx(3.0)
    assert row["rr"] == 1.0


@INVARIANT_SETTINGS
@given(
    qrels=qrels_dicts,
    order=st.lists(st.sampled_from(DOC_IDS), unique=True, min_size=1),
    unjudged=st.sampled_from(["zero", "condensed"]),
)
def test_rank_column_equals_scores_that_give_the_same_order(qrels, order, unjudged):
    query = sorted(qrels)[0]
    ranks = pd.DataFrame({"query_id": query, "doc_id": order, "rank": range(1, len(order) + 1)})
    # the same order as distinct descending scores; ranks given in reverse row order
    scored = ranks.assign(score=-ranks["rank"].astype(float)).drop(columns="rank")
    ranks = ranks.iloc[::-1]
    settings_ = Settings(ks=KS, unjudged=unjudged)
    by_rank = evaluate(ranks, _qrels_frame(qrels), settings_).per_query
    by_score = evaluate(scored, _qrels_frame(qrels), settings_).per_query
    pd.testing.assert_frame_equal(by_rank, by_score)


def test_negative_zero_score_ties_zero_and_the_document_id_breaks_the_tie():
    """trec_eval compares scores with < and >, so -0.0 and 0.0 tie and the larger document
    id comes first: b (-0.0) before a (0.0)."""
    run = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [0.0, -0.0]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "grade": [1.0]})
    row = evaluate(run, qrels, Settings(ks=(1,))).per_query.iloc[0]
    assert row["rr"] == 1.0 and row["ndcg@1"] == 1.0


@pytest.mark.parametrize("source", ["run", "qrels"])
def test_a_document_twice_for_one_query_is_refused(source):
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "grade": [1.0, 2.0]})
    frame = run if source == "run" else qrels
    frame.loc[len(frame) - 1, "doc_id"] = "a"
    with pytest.raises(RepeatedDocument) as raised:
        evaluate(run, qrels)
    assert (raised.value.source, raised.value.query_id, raised.value.doc_id) == (source, "q", "a")


@pytest.mark.parametrize("repeated", [False, True])
def test_documents_whose_hashes_meet_are_told_apart_by_their_ids(monkeypatch, repeated):
    """A run's repeats are looked for among 64-bit hashes of its documents; where two hashes
    meet (every one here: the hash is made constant) the ids decide, so a run without a
    repeat is evaluated as it is and a repeat is still named."""
    import judge_app.metrics.codes as codes

    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "grade": [1.0, 2.0]})
    expected = evaluate(run, qrels).per_query
    monkeypatch.setattr(codes, "string_hashes", lambda column: np.zeros(len(column), np.uint64))
    if not repeated:
        pd.testing.assert_frame_equal(evaluate(run, qrels).per_query, expected)
        return
    run.loc[2, "doc_id"] = "b"
    with pytest.raises(RepeatedDocument) as raised:
        evaluate(run, qrels)
    assert (raised.value.source, raised.value.query_id, raised.value.doc_id) == ("run", "q", "b")
