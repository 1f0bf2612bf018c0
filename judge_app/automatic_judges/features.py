"""What the local judge knows of a (query, document) pair besides human grades: where the runs
put the document for the query, and how well its text matches the query's (BM25, the share
of query terms it holds). Pairs are integer codes; every feature is computed for all pairs at
once (numpy, scipy.sparse), with no Python loop over pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Placed:
    """The run results that concern the pairs: for each, the pair's place among the pairs,
    the run's code (0 … runs − 1), the rank and the score (NaN when the run gave none)."""

    pair: np.ndarray
    run: np.ndarray
    rank: np.ndarray
    score: np.ndarray


def run_features(
    placed: Placed, run_names: Sequence[str], pairs: int, depth: int
) -> tuple[np.ndarray, list[str]]:
    """Features from the runs, a column each, for ``pairs`` pairs: for every run its
    reciprocal rank (0 when it did not retrieve the document), whether it ranked it within
    ``depth`` and its score min-max normalised over the run's results for the query (NaN when
    absent or undefined); then how many runs ranked it within ``depth`` and its best rank
    (NaN when no run retrieved it). ``placed.score`` must already be normalised
    (:func:`normalised_scores`)."""
    runs = len(run_names)
    reciprocal = np.zeros((pairs, runs))
    reciprocal[placed.pair, placed.run] = 1.0 / placed.rank
    within = np.zeros((pairs, runs))
    within[placed.pair, placed.run] = placed.rank <= depth
    score = np.full((pairs, runs), np.nan)
    score[placed.pair, placed.run] = placed.score
    best = reciprocal.max(axis=1) if runs else np.zeros(pairs)
    with np.errstate(divide="ignore"):
        best_rank = np.where(best > 0, 1.0 / best, np.nan)
    columns = np.column_stack([reciprocal, within, score, within.sum(axis=1), best_rank])
    names = (
        [f"{run}: reciprocal rank" for run in run_names]
        + [f"{run}: in top {depth}" for run in run_names]
        + [f"{run}: score, min-max in the query" for run in run_names]
        + [f"runs ranking it in top {depth}", "best rank"]
    )
    return columns, names


def normalised_scores(run: np.ndarray, query: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Each score min-max normalised among the scores of its (run, query): 0 the lowest, 1
    the highest; NaN where the score is missing or all of them are equal."""
    group = run.astype(np.int64) * (int(query.max(initial=0)) + 1) + query
    _, inverse = np.unique(group, return_inverse=True)
    groups = int(inverse.max(initial=-1)) + 1
    low = np.full(groups, np.inf)
    high = np.full(groups, -np.inf)
    known = ~np.isnan(score)
    np.minimum.at(low, inverse[known], score[known])
    np.maximum.at(high, inverse[known], score[known])
    spread = (high - low)[inverse]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spread > 0, (score - low[inverse]) / spread, np.nan)


def bm25(
    query_texts: Sequence[str],
    document_texts: Sequence[str],
    query: np.ndarray,
    document: np.ndarray,
    k1: float = K1,
    b: float = B,
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair (``query[i]`` indexes ``query_texts``, ``document[i]`` indexes
    ``document_texts``): the BM25 score of the query's text against the document's, and the
    share of the query's distinct terms the document holds (0 for a query without terms).

    BM25 is Robertson's, with the idf Lucene uses, log(1 + (N − n + 0.5) / (n + 0.5)), which
    is never negative; the collection is ``document_texts`` (N documents, n holding the term),
    a repeated query term counts each time. Terms are scikit-learn's ``CountVectorizer``'s:
    lowercased words of two characters or more."""
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(dtype=np.float64)
    try:
        counts = sp.csr_matrix(vectorizer.fit_transform(document_texts))
    except ValueError:  # no document has a word: "empty vocabulary"
        return np.zeros(len(query)), np.zeros(len(query))
    asked = sp.csr_matrix(vectorizer.transform(query_texts))
    # only the terms some query asks for matter: the rest would be carried for nothing
    used = np.unique(asked.indices)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    held = np.diff(sp.csc_matrix(counts).indptr)
    documents = counts.shape[0]
    idf = np.log1p((documents - held + 0.5) / (held + 0.5))
    weights = counts.copy()
    rows = np.repeat(np.arange(documents), np.diff(counts.indptr))
    norm = k1 * (1 - b + b * lengths / lengths.mean())
    weights.data = idf[counts.indices] * counts.data * (k1 + 1) / (counts.data + norm[rows])
    weights, asked = weights[:, used], asked[:, used]
    scores = np.asarray(asked[query].multiply(weights[document]).sum(axis=1)).ravel()
    terms = (asked > 0).astype(np.float64)
    found = np.asarray(terms[query].multiply(weights[document] > 0).sum(axis=1)).ravel()
    # of all the query's terms, those no document holds too (a loop over queries, not pairs)
    analyze = vectorizer.build_analyzer()
    distinct = np.array([len(set(analyze(text))) for text in query_texts], dtype=np.float64)
    asked_terms = distinct[query]
    coverage = np.divide(found, asked_terms, out=np.zeros(len(query)), where=asked_terms > 0)
    return scores, coverage


def cosine(
    query_vectors: np.ndarray, document_vectors: np.ndarray, query: np.ndarray, document: np.ndarray
) -> np.ndarray:
    """Each pair's cosine similarity of its query's and its document's embeddings (rows)."""

    def unit(vectors: np.ndarray) -> np.ndarray:
        vectors = vectors.astype(np.result_type(vectors, np.float32))  # integers: float64
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

    queries, documents = unit(query_vectors), unit(document_vectors)
    return np.einsum("ij,ij->i", queries[query], documents[document])
