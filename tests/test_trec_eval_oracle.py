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

from judge_app.trec_eval import Settings, compute, rank, read_qrels, read_results

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
