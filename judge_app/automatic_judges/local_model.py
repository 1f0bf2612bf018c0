"""The local judge's model, on frames (no database): learned from a campaign's human grades,
it grades every pooled pair (``fit_predict``; ``commands.autojudge_local`` reads and writes
the database).

Its pairs are every pooled (query, document) pair, any run's results to the pool depth, and
every pair humans graded. What it knows of a pair is in ``automatic_judges.features`` (the
runs' ranks and scores, BM25 and query-term coverage; an embedding similarity when a model is
already on this computer, ``automatic_judges.embeddings``); what it learns is the humans' grade
of the pair as evaluation aggregates it (their mean, a lead's adjudicated grade preferred),
with scikit-learn's ``HistGradientBoostingRegressor``: it takes the missing values these
features have (no score, no rank) as they are, finds the steps and interactions of ranks
without scaling, and fits a campaign's grades in seconds.

Cross-fitting. Prediction-powered inference corrects the judge on the queries humans graded by
(human − automatic); a prediction made by a model that saw the query's human grades would
make that difference small by construction and the intervals too narrow. So the graded
queries are dealt into folds (at most ``MAX_FOLDS``, by a seeded shuffle) and every pair of a
graded query, graded or not, is predicted by the model fitted on the other folds' queries;
pairs of queries no human graded get the mean of the fold models' predictions
(cross-prediction, Zrnic & Candès 2024). The held-out quality is measured on those
out-of-fold predictions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from judge_app.automatic_judges.embeddings import Embedder
from judge_app.automatic_judges.features import (
    Placed,
    bm25,
    cosine,
    normalised_scores,
    run_features,
)
from judge_app.errors import UsageError
from judge_app.metrics.codes import Graded

MODEL = "HistGradientBoostingRegressor"
PARAMETERS: dict[str, Any] = {
    "learning_rate": 0.1,
    "max_iter": 150,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 20,
    "l2_regularization": 1.0,
    "early_stopping": False,
}
"""Small, regularised trees (a campaign may have a few hundred graded pairs) and no early
stopping (its validation split would take graded pairs away): the same data and seed give the
same model."""
MAX_FOLDS = 5
MIN_GRADES = 20
MIN_QUERIES = 2
GRADES = np.arange(6)

Progress = Callable[[int, int], None]
FindEmbedder = Callable[[], tuple[Embedder | None, str]]


@dataclass(frozen=True)
class LocalData:
    """What the local judge learns from, as frames (external ids): the run results (``run,
    query_id, doc_id, rank, score``), the human judgments (``query_id, doc_id, rater, grade,
    skipped``, as ``store.reads.grades_frame``), the queries' texts (``query_id, text``), the
    documents' (``doc_id, title, body``) and the pool depth."""

    results: pd.DataFrame
    judgments: pd.DataFrame
    queries: pd.DataFrame
    documents: pd.DataFrame
    depth: int


@dataclass(frozen=True)
class Quality:
    """How well the judge predicts human grades it did not learn from (its out-of-fold
    predictions of the human-graded pairs), and how it was made."""

    kappa: float  # quadratic weighted, rounded prediction against rounded human grade
    mae: float
    spearman: float
    graded_pairs: int
    graded_queries: int
    pairs: int
    folds: int
    seed: int
    depth: int
    features: tuple[str, ...]
    embedding_model: str | None
    embeddings: str  # what was used, or why no embedding similarity was

    def details(self) -> dict[str, Any]:
        """The judge's ``details`` JSON (full precision; NaN as null)."""

        def number(value: float) -> float | None:
            return None if math.isnan(value) else float(value)

        return {
            "held_out": {
                "quadratic_kappa": number(self.kappa),
                "mae": number(self.mae),
                "spearman": number(self.spearman),
                "graded_pairs": self.graded_pairs,
                "graded_queries": self.graded_queries,
                "measured_on": "out-of-fold predictions (no model saw the pair's query)",
            },
            "model": MODEL,
            "parameters": PARAMETERS,
            "cross_fitting": {"folds": self.folds, "by": "query", "seed": self.seed},
            "pairs": self.pairs,
            "depth": self.depth,
            "features": list(self.features),
            "embeddings": {"used": self.embedding_model is not None, "model": self.embedding_model,
                           "note": self.embeddings},
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The quality as people read it (rounded)."""
        return [
            f"learned from {self.graded_pairs:,} human-graded pairs of {self.graded_queries:,} "
            f"queries ({self.folds} folds by query), graded {self.pairs:,} pairs",
            f"held out: quadratic kappa {self.kappa:.3f}, MAE {self.mae:.3f}, "
            f"Spearman {self.spearman:.3f}",
            self.embeddings,
        ]


def fit_predict(
    data: LocalData,
    seed: int = 0,
    *,
    find_embedder: FindEmbedder | None = None,
    progress: Progress | None = None,
) -> tuple[pd.DataFrame, Quality]:
    """The local judge's grade of every pair (``query_id, doc_id, grade, human``: grade in
    [0, 5], human the humans' grade or NaN) and its held-out quality; cross-fitted as the
    module says, the same for the same data and ``seed``. ``find_embedder`` is asked for an
    embedding model once there are enough grades to learn from; ``progress(done, total)``
    follows the features and each fold. UsageError when there are too few human grades."""
    pairs = _pairs(data)
    labelled = ~np.isnan(pairs.human)
    graded_queries = np.unique(pairs.query[labelled])
    if labelled.sum() < MIN_GRADES or len(graded_queries) < MIN_QUERIES:
        raise UsageError(
            f"the local judge learns from human grades: it needs at least {MIN_GRADES} graded "
            f"pairs in at least {MIN_QUERIES} queries, and this campaign has "
            f"{int(labelled.sum())} in {len(graded_queries)}"
        )
    folds = min(MAX_FOLDS, len(graded_queries))
    embedder, note = (None, "no embedding similarity") if find_embedder is None else find_embedder()
    features, names = _features(data, pairs, embedder)
    known = ~np.isnan(features).all(axis=0)  # a run without scores: nothing to learn from
    features, names = features[:, known], [name for name, keep in zip(names, known) if keep]
    if progress is not None:
        progress(1, folds + 1)
    fold_of_query = np.full(len(pairs.query_names), -1)
    shuffled = np.random.default_rng(seed).permutation(graded_queries)
    fold_of_query[shuffled] = np.arange(len(shuffled)) % folds
    fold = fold_of_query[pairs.query]
    unseen = fold < 0
    predicted = np.zeros(len(pairs.query))
    for number in range(folds):
        learned = labelled & (fold != number)
        held_out = fold == number
        # one thread: on a busy two-core machine, threads made a fit of 130 pairs 15 times slower
        with threadpool_limits(1, "openmp"):
            model = _model(seed).fit(features[learned], pairs.human[learned])
            predicted[held_out] = model.predict(features[held_out])
            if unseen.any():
                predicted[unseen] += model.predict(features[unseen]) / folds
        if progress is not None:
            progress(number + 2, folds + 1)
    predicted = np.clip(predicted, 0.0, 5.0)
    frame = pd.DataFrame(
        {
            "query_id": pairs.query_names[pairs.query],
            "doc_id": pairs.doc_names[pairs.document],
            "grade": predicted,
            "human": pairs.human,
        }
    )
    human, guess = pairs.human[labelled], predicted[labelled]
    quality = Quality(
        kappa=_kappa(human, guess),
        mae=float(np.mean(np.abs(human - guess))),
        spearman=_spearman(human, guess),
        graded_pairs=int(labelled.sum()),
        graded_queries=len(graded_queries),
        pairs=len(frame),
        folds=folds,
        seed=seed,
        depth=data.depth,
        features=tuple(names),
        embedding_model=None if embedder is None else embedder.name,
        embeddings=note,
    )
    return frame, quality


@dataclass(frozen=True)
class _Pairs:
    """The pairs as codes into ``query_names`` and ``doc_names`` (in order of query, then
    document), the humans' grade of each (NaN: none), and the run results placed on them."""

    query: np.ndarray
    document: np.ndarray
    human: np.ndarray
    query_names: np.ndarray
    doc_names: np.ndarray
    placed: Placed
    run_names: list[str]


def _pairs(data: LocalData) -> _Pairs:
    """Every pooled pair and every pair humans graded, with the humans' grade as evaluation
    aggregates it (the mean, the adjudicated grade preferred)."""
    results = data.results
    target = Graded.from_frame(data.judgments).aggregated("mean", prefer=True)
    count = len(results)
    query_codes, query_names = pd.factorize(
        pd.concat([results["query_id"], target["query_id"]], ignore_index=True), sort=True
    )
    doc_codes, doc_names = pd.factorize(
        pd.concat([results["doc_id"], target["doc_id"]], ignore_index=True), sort=True
    )
    width = max(len(doc_names), 1)
    keys = query_codes.astype(np.int64) * width + doc_codes
    result_keys, target_keys = keys[:count], keys[count:]
    rank = results["rank"].to_numpy(np.int64)
    pair_keys = np.unique(np.concatenate([result_keys[rank <= data.depth], target_keys]))
    human = np.full(len(pair_keys), np.nan)
    human[np.searchsorted(pair_keys, target_keys)] = target["grade"].to_numpy(np.float64)
    at = np.searchsorted(pair_keys, result_keys)
    found = at < len(pair_keys)
    found[found] = pair_keys[at[found]] == result_keys[found]
    run_codes, run_names = pd.factorize(results["run"], sort=True)
    score = normalised_scores(
        run_codes, query_codes[:count], results["score"].to_numpy(np.float64, na_value=np.nan)
    )
    placed = Placed(at[found], run_codes[found], rank[found].astype(np.float64), score[found])
    query, document = np.divmod(pair_keys, width)
    return _Pairs(
        query=query,
        document=document,
        human=human,
        query_names=np.asarray(query_names, dtype=object),
        doc_names=np.asarray(doc_names, dtype=object),
        placed=placed,
        run_names=[str(name) for name in run_names],
    )


def _features(
    data: LocalData, pairs: _Pairs, embedder: Embedder | None
) -> tuple[np.ndarray, list[str]]:
    """The feature matrix of the pairs (a row each) and the columns' names."""
    columns, names = run_features(pairs.placed, pairs.run_names, len(pairs.query), data.depth)
    # the pairs' queries and documents only (a run's results beyond the depth are many more)
    queries, query_at = np.unique(pairs.query, return_inverse=True)
    docs, doc_at = np.unique(pairs.document, return_inverse=True)
    texts = data.queries.set_index("query_id")["text"]
    query_texts = texts.reindex(pairs.query_names[queries]).fillna("").astype(str).tolist()
    documents = data.documents.set_index("doc_id")
    joined = documents["title"].fillna("").astype(str) + " " + documents["body"].fillna("")
    doc_texts = joined.reindex(pairs.doc_names[docs]).fillna("").astype(str).tolist()
    scores, coverage = bm25(query_texts, doc_texts, query_at, doc_at)
    columns = np.column_stack([columns, scores, coverage])
    names = [*names, "BM25", "query-term coverage"]
    if embedder is not None:
        similarity = cosine(
            embedder.encode(query_texts), embedder.encode(doc_texts), query_at, doc_at
        )
        columns = np.column_stack([columns, similarity])
        names.append("embedding similarity")
    return columns, names


def _model(seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(**PARAMETERS, random_state=seed)


def _rounded(grades: np.ndarray) -> np.ndarray:
    """Grades rounded half up to whole grades 0–5."""
    return np.clip(np.floor(grades + 0.5), 0, 5).astype(np.int64)


def _kappa(human: np.ndarray, predicted: np.ndarray) -> float:
    """Quadratic weighted Cohen's kappa of the rounded grades (NaN when both are one grade)."""
    from sklearn.metrics import cohen_kappa_score

    first, second = _rounded(human), _rounded(predicted)
    if np.unique(np.concatenate([first, second])).size < 2:
        return math.nan
    return float(cohen_kappa_score(first, second, weights="quadratic", labels=GRADES))


def _spearman(human: np.ndarray, predicted: np.ndarray) -> float:
    """Spearman's correlation (NaN when either side is constant)."""
    from scipy.stats import spearmanr

    if np.ptp(human) == 0 or np.ptp(predicted) == 0:
        return math.nan
    return float(spearmanr(human, predicted).statistic)
