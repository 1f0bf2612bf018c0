"""``judge_app.trec_eval`` against pytrec_eval (trec_eval's own C code) on random qrels and
runs: ties in scores, graded and negative grades, unjudged documents, queries only in the run
or only in the qrels; every measure pytrec_eval supports, at every relevance level and with
judged documents only, per query at full precision.

pytrec_eval builds trec_eval 9.x, which differs from 10.0 in two places the data avoid: it
keeps scores as 32-bit floats (the scores here are exact in 32 bits, so they order alike)
and it rounds recall levels to relevant documents as ``(long) (r × R + 0.9)`` where 10.0 uses
``lround(r × R)`` (iprec_at_recall and 11pt_avg are compared at levels where both agree, and
at the default levels on queries with 10 or 20 relevant documents).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from judge_app.trec_eval import Settings, compute, rank, read_qrels, read_results, selected

NOT_NUMBERS = {"runid", "relstring"}
SPECIAL = {"iprec_at_recall", "11pt_avg"}  # see the module's docstring
MEASURES = sorted(pytrec_eval.supported_measures - NOT_NUMBERS - SPECIAL) + [
    "P.1,3,7",
    "ndcg_cut.3,7",
    "success.2,4",
    "recall.2,6",
    "map_cut.4",
    "relative_P.3,8",
    "Rprec_mult.0.5,1.5",
    "utility.0,0.5,1,2",  # pytrec_eval sorts parameters as text: these are
    "set_F.0.5",
    "iprec_at_recall.0,0.5,1",
    "11pt_avg.0,0.5,1",
]
SEEDS = range(8)
OUTSIDE_ALL_TREC = ["dcg", "ideal_dcg", "yaap", "rbp.p=0.8", "rbp_resid.p=0.8", "ndcg.1=2,2=1"]


def random_collection(seed: int, relevant: tuple[int, ...] | None = None) -> tuple[dict, dict]:
    """Qrels {query: {doc: grade}} and a run {query: {doc: score}}: grades -1 … 3 (every
    query has one of 0 or more, or trec_eval reads the query before's), scores in halves
    (ties; exact in 32 bits); some queries only judged, some only run. With ``relevant``,
    each judged query has one of those numbers of documents graded 1 or more."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for number in range(int(rng.integers(1, 25))):
        query = f"q{number}"
        pool = [f"d{i:02d}" for i in rng.permutation(60)]
        if rng.random() < 0.9:
            judged = pool[: int(rng.integers(1, 40))]
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if relevant is not None:
                count = int(rng.choice(relevant))
                judged = pool[: count + int(rng.integers(0, 15))]
                grades = np.r_[
                    rng.integers(1, 4, size=count), rng.choice([-1, 0], size=len(judged) - count)
                ]
            grades[0] = max(grades[0], 0)
            qrels[query] = {doc: int(grade) for doc, grade in zip(judged, grades)}
        if rng.random() < 0.85:
            size = int(rng.integers(1, 45))
            retrieved = rng.permutation(pool[:50])[:size]
            scores = rng.integers(0, 12, size=size) / 2.0
            run[query] = {doc: float(score) for doc, score in zip(retrieved, scores)}
    if not set(qrels) & set(run):  # at least one query to evaluate
        run["q0"] = {"d00": 1.0}
        qrels.setdefault("q0", {"d00": 1})
    return qrels, run


def write(folder: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    run_path.write_text(
        "".join(
            f"{q} Q0 {d} {rank} {s} tag\n"
            for q, docs in run.items()
            for rank, (d, s) in enumerate(docs.items(), start=1)
        )
    )
    return qrels_path, run_path


def compare(tmp_path: Path, qrels: dict, run: dict, measures: list[str], level: int, judged: bool):
    """Each measure of ours and of pytrec_eval, per query; returns how many values."""
    paths = write(tmp_path, qrels, run)
    settings = Settings(level, judged_only=judged)
    ranked = rank(read_qrels(paths[0]), read_results(paths[1]), settings)
    compared = 0
    for measure in measures:
        ours = compute(ranked, [measure])
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {measure}, relevance_level=level, judged_docs_only_flag=judged
        )
        theirs = evaluator.evaluate(run)
        assert sorted(theirs) == sorted(ranked.queries)
        names = sorted(next(iter(theirs.values())))
        if len(names) == len(ours) == 1:  # 9.x names some without their parameters
            pairs = [(names[0], next(iter(ours)))]
        else:
            assert names == sorted(ours), measure
            pairs = [(name, name) for name in names]
        for index, query in enumerate(ranked.queries):
            for their_name, our_name in pairs:
                expected, got = theirs[query][their_name], ours[our_name][index]
                assert got == pytest.approx(expected, rel=1e-9, abs=1e-9, nan_ok=True), (
                    our_name,
                    query,
                )
        compared += len(pairs)
    return compared


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", [1, 2, 3])  # pytrec_eval refuses 0
@pytest.mark.parametrize("judged", [False, True], ids=["all", "judged-only"])
def test_every_measure_equals_pytrec_eval(tmp_path, seed, level, judged):
    qrels, run = random_collection(seed)
    compared = compare(tmp_path, qrels, run, MEASURES, level, judged)
    assert compared >= len(MEASURES)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("judged", [False, True], ids=["all", "judged-only"])
def test_default_recall_levels_equal_pytrec_eval_where_roundings_agree(tmp_path, seed, judged):
    qrels, run = random_collection(seed, relevant=(10, 20))
    assert compare(tmp_path, qrels, run, ["iprec_at_recall", "11pt_avg"], 1, judged) == 12


def trec_order(run: dict) -> dict:
    """Each query's documents in trec_eval's order: score descending, then id descending."""
    return {
        query: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True))
        for query, docs in run.items()
    }


def all_values(tmp_path: Path, qrels: dict, run: dict, settings: Settings) -> tuple[list, dict]:
    """The queries evaluated and every value of all_trec and the measures outside it."""
    folder = tmp_path / f"collection{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    qrels_path, run_path = write(folder, qrels, run)
    ranked = rank(read_qrels(qrels_path), read_results(run_path), settings)
    return ranked.queries, compute(ranked, selected(["all_trec", *OUTSIDE_ALL_TREC]))


def assert_same(name: str, got: list, expected: list) -> None:
    if name.startswith("relstring"):
        assert got == expected, name
    else:
        assert got == pytest.approx(expected, nan_ok=True), name


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("depth", [1, 3, 10])
def test_max_documents_equals_the_run_cut_at_that_depth(tmp_path, seed, depth):
    """``-M k`` evaluates what a run of each query's top k (in trec_eval's order) evaluates."""
    qrels, run = random_collection(seed)
    cut = {query: dict(list(docs.items())[:depth]) for query, docs in trec_order(run).items()}
    queries, limited = all_values(tmp_path, qrels, run, Settings(max_docs=depth))
    same_queries, expected = all_values(tmp_path, qrels, cut, Settings())
    assert queries == same_queries
    assert limited.keys() == expected.keys()
    for name, values in expected.items():
        assert_same(name, list(limited[name]), list(values))


@pytest.mark.parametrize("seed", SEEDS)
def test_judged_only_equals_the_run_without_its_unjudged_documents(tmp_path, seed):
    """``-J`` evaluates what the run without documents not judged (or judged negative)
    evaluates, for every query that keeps a document."""
    qrels, run = random_collection(seed)
    kept = {
        query: {doc: s for doc, s in docs.items() if qrels.get(query, {}).get(doc, -1) >= 0}
        for query, docs in run.items()
    }
    queries, judged = all_values(tmp_path, qrels, run, Settings(judged_only=True))
    kept = {query: docs for query, docs in kept.items() if docs}
    kept_queries, expected = all_values(tmp_path, qrels, kept, Settings())
    for name, values in expected.items():
        mine = {q: v for q, v in zip(queries, judged[name]) if q in kept_queries}
        assert_same(name, list(mine.values()), list(values))


@pytest.mark.parametrize("seed", SEEDS)
def test_measures_pytrec_eval_lacks_follow_from_those_it_has(tmp_path, seed):
    """dcg / ideal_dcg is pytrec_eval's ndcg; yaap is log((1 + S) / (1 + R − S)) with S
    = map × R, the sum of the precisions at relevant documents."""
    qrels, run = random_collection(seed)
    paths = write(tmp_path, qrels, run)
    ranked = rank(read_qrels(paths[0]), read_results(paths[1]))
    ours = compute(ranked, ["dcg", "ideal_dcg", "yaap"])
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map", "num_rel"}).evaluate(run)
    for index, query in enumerate(ranked.queries):
        ideal = ours["ideal_dcg"][index]
        ndcg = ours["dcg"][index] / ideal if ideal > 0 else 0.0
        assert ndcg == pytest.approx(theirs[query]["ndcg"], rel=1e-9, abs=1e-12)
        found = theirs[query]["map"] * theirs[query]["num_rel"]
        yaap = np.log((1 + found) / (1 + theirs[query]["num_rel"] - found))
        assert ours["yaap"][index] == pytest.approx(yaap, rel=1e-9, abs=1e-12)
