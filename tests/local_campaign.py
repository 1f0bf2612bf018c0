"""A generated campaign whose relevance is a known function of what the local judge sees,
plus noise (``tests/automatic_judges/test_local_judge.py``, ``benchmarks/bench_local_judge.py``).

Each query asks three words of a 5,000-word vocabulary. Each of its documents has a true
relevance r, uniform on [0, 5]; its body is 30 random words and holds each query word with
probability r / 5, 1 + Poisson(r / 2) times: the relevant documents match the query better
(BM25, query-term coverage). Three runs rank the documents by r plus noise of standard
deviation 0.8, 1.5 and 3 (the score given), to ``RETRIEVED`` results. Humans grade every
pooled pair (any run's top ``depth``) of the first ``graded`` queries: ``ana`` gives
round(r + N(0, 0.5²)) cut to 0–5, and ``ben`` grades one pair in three the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.automatic_judges.local_model import LocalData

WORDS = 5000
QUERY_TERMS = 3
FILLER = 30
RUN_NOISE = {"good": 0.8, "fair": 1.5, "poor": 3.0}
RETRIEVED = 20
HUMAN_NOISE = 0.5


@dataclass(frozen=True)
class Generated:
    """The campaign's files as frames, and each pair's true relevance (``query_id, doc_id,
    relevance``)."""

    queries: pd.DataFrame  # query_id, text
    documents: pd.DataFrame  # doc_id, title, body
    runs: dict[str, pd.DataFrame]  # query_id, doc_id, rank, score
    judgments: pd.DataFrame  # query_id, doc_id, rater, grade
    truth: pd.DataFrame
    depth: int

    def local_data(self) -> LocalData:
        """The frames as the local judge reads them from a database."""
        results = pd.concat(
            [run.assign(run=name) for name, run in self.runs.items()], ignore_index=True
        )
        return LocalData(
            results=results[["run", "query_id", "doc_id", "rank", "score"]],
            judgments=self.judgments.assign(
                grade=self.judgments["grade"].astype(np.float64), skipped=False
            ),
            queries=self.queries,
            documents=self.documents,
            depth=self.depth,
        )


def generate(
    seed: int = 0, queries: int = 40, documents: int = 30, graded: int = 24, depth: int = 10
) -> Generated:
    """A campaign of ``queries`` queries with ``documents`` documents each, humans grading
    the pooled pairs of the first ``graded`` queries."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{word:04d}" for word in range(WORDS)])
    query_ids = np.array([f"q{query:05d}" for query in range(queries)])
    asked = np.stack([rng.choice(WORDS, QUERY_TERMS, replace=False) for _ in range(queries)])
    relevance = rng.uniform(0, 5, size=(queries, documents))
    doc_ids = np.char.add(
        np.repeat(query_ids, documents), np.tile([f"-d{d:03d}" for d in range(documents)], queries)
    )
    held = rng.random((queries, documents, QUERY_TERMS)) < relevance[..., None] / 5
    times = held * (1 + rng.poisson(relevance[..., None] / 2))
    filler = rng.integers(0, WORDS, size=(queries * documents, FILLER))
    bodies = [
        " ".join([*vocabulary[row], *np.repeat(vocabulary[asked[index // documents]], count)])
        for index, (row, count) in enumerate(
            zip(filler, times.reshape(-1, QUERY_TERMS), strict=True)
        )
    ]
    runs = {}
    pooled = np.zeros((queries, documents), dtype=bool)
    for name, noise in RUN_NOISE.items():
        score = relevance + rng.normal(0, noise, size=relevance.shape)
        order = np.argsort(-score, axis=1)[:, :RETRIEVED]
        rows = np.repeat(np.arange(queries), RETRIEVED)
        runs[name] = pd.DataFrame(
            {
                "query_id": query_ids[rows],
                "doc_id": doc_ids[rows * documents + order.ravel()],
                "rank": np.tile(np.arange(1, RETRIEVED + 1), queries),
                "score": score[rows, order.ravel()],
            }
        )
        np.put_along_axis(pooled, order[:, :depth], True, axis=1)
    query, document = np.nonzero(pooled[:graded])
    truth = relevance[query, document]
    ana = np.clip(np.rint(truth + rng.normal(0, HUMAN_NOISE, len(truth))), 0, 5)
    second = rng.random(len(truth)) < 1 / 3
    ben = np.clip(np.rint(truth + rng.normal(0, HUMAN_NOISE, len(truth))), 0, 5)[second]
    pair_ids = doc_ids[query * documents + document]
    judgments = pd.concat(
        [
            pd.DataFrame({"query_id": query_ids[query], "doc_id": pair_ids, "rater": "ana",
                          "grade": ana.astype(np.int64)}),
            pd.DataFrame({"query_id": query_ids[query][second], "doc_id": pair_ids[second],
                          "rater": "ben", "grade": ben.astype(np.int64)}),
        ],
        ignore_index=True,
    )  # fmt: skip
    return Generated(
        queries=pd.DataFrame(
            {"query_id": query_ids, "text": [" ".join(vocabulary[words]) for words in asked]}
        ),
        documents=pd.DataFrame(
            {"doc_id": doc_ids, "title": [f"document {d}" for d in doc_ids], "body": bodies}
        ),
        runs=runs,
        judgments=judgments,
        truth=pd.DataFrame(
            {
                "query_id": np.repeat(query_ids, documents),
                "doc_id": doc_ids,
                "relevance": relevance.ravel(),
            }
        ),  # fmt: skip
        depth=depth,
    )


def write_campaign(generated: Generated, path: Path, folder: Path) -> Path:
    """The campaign imported into the SQLite file ``path`` with ``judge-app import``, the
    pool depth stored as the campaign's."""
    from campaign_support import import_frames

    from judge_app.store import open_database
    from judge_app.store.rater_queue import PoolSettings, set_pool_settings

    import_frames(
        path,
        folder,
        queries=generated.queries,
        documents=generated.documents,
        judgments=generated.judgments,
        **{f"run_{name}": run for name, run in generated.runs.items()},
    )
    with open_database(path) as database, database.transaction() as session:
        set_pool_settings(session, PoolSettings(depth=generated.depth))
    return path
