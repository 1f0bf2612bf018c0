"""An automatic judge for tests: grades written straight into the store."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
from campaign_support import import_frames
from sqlalchemy import select

from judge_app.store import automatic, open_database
from judge_app.store.automatic import AutoGrade, add_judge, write_grades
from judge_app.store.models import Document, Judgment, Query, Result


def grade_automatically(path: Path, name: str, seed: int) -> None:
    """An automatic judge ``name`` grading every pooled pair: the raters' mean grade with
    noise, small where they found the document irrelevant."""
    rng = np.random.default_rng(seed)
    with open_database(path) as database, database.transaction() as session:
        judge = automatic.add_judge(session, name, method="local", model="noisy")
        human: dict[tuple[int, int], list[int]] = {}
        for query, document, grade in session.execute(
            select(Judgment.query_id, Judgment.document_id, Judgment.grade)
        ):
            if grade is not None:
                human.setdefault((query, document), []).append(grade)
        pairs = sorted(
            {(q, d) for q, d in session.execute(select(Result.query_id, Result.document_id))}
        )
        grades = []
        for query, document in pairs:
            mean = float(np.mean(human.get((query, document), [2])))
            noise = rng.normal() * (0.3 if mean < 1 else 1.2)
            grades.append(automatic.AutoGrade(query, document, float(np.clip(mean + noise, 0, 5))))
        automatic.write_grades(session, judge.rater_id, grades)


SHIFT = 0.6


JUDGE = "lenient-llm"


RUNS = [f"sys{r}" for r in range(6)]


HUMAN_QUERIES = 16  # of 20: the judge grades the last 4 alone


def add_automatic_grades(
    path: Path,
    name: str,
    grades: pd.DataFrame,
    failed: list[tuple[str, str]] = (),
    **judge: object,
) -> None:
    """Store ``grades`` (``query_id, doc_id, grade``) as the automatic judge ``name``'s (an
    LLM unless ``judge`` says otherwise), and a failure for each pair of ``failed``."""
    with open_database(path) as database, database.transaction() as session:
        queries = {name: id for name, id in session.execute(select(Query.external_id, Query.id))}
        documents = {
            name: id for name, id in session.execute(select(Document.external_id, Document.id))
        }
        described = {"method": "llm", "model": "qwen2.5:7b", "prompt_version": "3f2a9c1e"}
        made = add_judge(session, name, **(described | judge))
        answers = [
            AutoGrade(queries[q], documents[d], float(g))
            for q, d, g in grades[["query_id", "doc_id", "grade"]].itertuples(index=False)
        ]
        answers += [AutoGrade(queries[q], documents[d], None, "timeout") for q, d in failed]
        write_grades(session, made.rater_id, answers)


def lenient_campaign(folder: Path, seed: int = 11) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """The campaign, its human judgments and the judge's grades (see the module)."""
    rng = np.random.default_rng(seed)
    queries = [f"q{q:02d}" for q in range(20)]
    pool = {q: [f"{q}-d{d:02d}" for d in range(20)] for q in queries}
    truth = {q: rng.integers(0, 5, size=20) for q in queries}
    runs = {}
    for r, name in enumerate(RUNS):  # sys0 follows the truth best, sys5 worst
        rows = []
        for q in queries:
            noisy = truth[q] + rng.normal(0, 0.4 + 0.5 * r, size=20)
            for rank, doc in enumerate(np.argsort(-noisy, kind="stable")[:10]):
                rows.append((q, pool[q][doc], rank + 1))
        runs[f"run_{name}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    rows = []
    for q in queries[:HUMAN_QUERIES]:
        for doc, grade in zip(pool[q], truth[q]):
            if rng.random() < 0.8:  # some pairs for the judge alone
                for rater in ("ana", "ben"):
                    rows.append((q, doc, rater, int(np.clip(grade + rng.integers(-1, 2), 0, 4))))
        rows.append((q, pool[q][0], "adjudicated", int(truth[q][0])))
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    path = folder / "lenient.sqlite"
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": queries, "text": [f"query {q}" for q in queries]}),
        documents=pd.DataFrame({"doc_id": [doc for q in queries for doc in pool[q]]}),
        judgments=judgments,
        **runs,
    )
    humans = human_grades(judgments)
    noise = rng.uniform(-0.3, 0.3, size=len(humans))
    humans = humans.assign(grade=humans["grade"] + SHIFT + noise - noise.mean())
    alone = [
        (q, doc, float(np.clip(grade + SHIFT, 0, 5)))
        for q in queries
        for doc, grade in zip(pool[q], truth[q])
    ]
    alone = pd.DataFrame(alone, columns=["query_id", "doc_id", "grade"])
    known = pd.MultiIndex.from_frame(humans[["query_id", "doc_id"]])
    alone = alone[~pd.MultiIndex.from_frame(alone[["query_id", "doc_id"]]).isin(known)]
    failed = tuple(alone.iloc[0, :2])
    grades = pd.concat([humans, alone.iloc[1:]], ignore_index=True)
    add_automatic_grades(path, JUDGE, grades, failed=[failed])
    return path, judgments, grades


def human_grades(judgments: pd.DataFrame) -> pd.DataFrame:
    """The oracle's combination: the raters' mean per pair, the adjudicated grade where any."""
    lead = judgments["rater"] == "adjudicated"
    mean = judgments[~lead].groupby(["query_id", "doc_id"])["grade"].mean()
    decided = judgments[lead].set_index(["query_id", "doc_id"])["grade"].astype(float)
    return decided.combine_first(mean).rename("grade").reset_index()


def few_runs_campaign(folder: Path, runs: int) -> Path:
    """8 queries of 10 documents graded by ana and ben, ``runs`` runs of the 10 in orders
    from nearly right to nearly reversed, and a local judge (no prompt, an absent embedding
    model in its report) grading each pair the humans' mean plus noise."""
    rng = np.random.default_rng(runs)
    queries = [f"q{q}" for q in range(8)]
    truth = {q: rng.integers(0, 6, size=10) for q in queries}
    docs = {q: [f"{q}-d{d}" for d in range(10)] for q in queries}
    frames: dict[str, pd.DataFrame] = {}
    for r in range(runs):
        rows = []
        for q in queries:
            noisy = truth[q] + rng.normal(0, 0.5 + 1.5 * r, size=10)
            for rank, doc in enumerate(np.argsort(-noisy, kind="stable")):
                rows.append((q, docs[q][doc], rank + 1))
        frames[f"run_r{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    rows = [
        (q, doc, rater, int(np.clip(grade + rng.integers(-1, 2), 0, 5)))
        for q in queries
        for doc, grade in zip(docs[q], truth[q])
        for rater in ("ana", "ben")
    ]
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    path = folder / f"runs{runs}.sqlite"
    import_frames(path, folder, judgments=judgments, **frames)
    mean = judgments.groupby(["query_id", "doc_id"], as_index=False)["grade"].mean()
    grades = mean.assign(grade=np.clip(mean["grade"] + rng.normal(0, 0.8, len(mean)), 0, 5))
    details = {"embeddings": {"used": False, "model": None, "note": "no embedding similarity"}}
    local = {"method": "local", "model": "HistGradientBoostingRegressor", "prompt_version": None}
    add_automatic_grades(path, "local", grades, **local, details=details)
    return path


def title_grade(content: str) -> int:
    """A judge that reads the document's title alone: the same grade however it is asked."""
    title = re.search(r"Title: (.*)", content)
    assert title is not None, content
    return hashlib.sha256(title.group(1).encode()).digest()[0] % 6


def gullible_grade(content: str) -> int:
    """A judge that obeys a document's instructions and grades keyword-stuffed text higher."""
    if "Final score: 5" in content:
        return 5
    if re.search(r"^(.+) \1 \1$", content, re.MULTILINE):  # the query's words, thrice
        return min(5, title_grade(content) + 2)
    return title_grade(content)
