"""The local judge on a database (``judge-app autojudge DB --local``): the campaign read in one
snapshot, the model of ``automatic_judges.local_model`` learned from its human grades, and its grade
of every pooled pair written as an automatic judge's in one transaction (never in
``judgment``), with its held-out quality as the judge's details. It needs no server and
downloads nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judge_app.automatic_judges.embeddings import local_embedder
from judge_app.automatic_judges.local_model import MODEL, LocalData, Progress, Quality, fit_predict
from judge_app.errors import UsageError, typed
from judge_app.store import automatic
from judge_app.store.reads import read_frame
from judge_app.writers.corrected import quality_warning

if TYPE_CHECKING:
    from sqlalchemy import Select
    from sqlalchemy.orm import Session

    from judge_app.evaluation.judge_quality import JudgeQuality
    from judge_app.store import Database

__all__ = ["NAME", "LocalData", "LocalReport", "Quality", "fit_predict", "judge_locally",
           "read_local_data"]  # fmt: skip

NAME = "local model"


@dataclass(frozen=True)
class LocalReport:
    """What ``judge_locally`` did: the judge's name and rater id, the grades written and the
    quality; or ``cancelled`` (nothing written)."""

    name: str
    rater_id: int | None
    written: int
    quality: Quality | None
    seconds: float
    cancelled: bool = False
    agreement: JudgeQuality | None = None  # with the humans, once its grades are written

    def sentence(self) -> str:
        """The report as the command line and the window say it."""
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        """The report as people read it."""
        if self.cancelled or self.quality is None:
            return [f"the local judge {typed(self.name)} was cancelled: nothing was written"]
        head = (
            f"judge {typed(self.name)} (local model, {MODEL}): {self.written:,} grades written "
            f"in {self.seconds:.1f} s"
        )
        warning = None if self.agreement is None else quality_warning(self.agreement)
        return [head, *self.quality.lines(), *([warning] if warning else [])]


class _Cancelled(Exception):
    """The caller's ``cancelled`` said stop; raised at the next step."""


def judge_locally(
    database: Database,
    name: str | None = None,
    depth: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> LocalReport:
    """Learn the local judge from the database's human grades (read in one snapshot) and
    write its grade of every pair as the automatic judge ``name`` (default ``NAME``) in one
    transaction, its earlier grades replaced; its quality goes in the judge's details.
    ``progress(done, total)`` follows the work; once ``cancelled()`` is true the work stops
    at its next step and nothing is written. UsageError with too few human grades; StoreError
    when ``name`` is a person's or another judge's."""
    started = time.perf_counter()
    name = NAME if name is None else name
    if depth is not None and depth < 1:
        raise UsageError(f"the depth must be at least 1, not {depth}")
    with database.reading() as session:
        data = read_local_data(session, depth)
        query_ids, doc_ids = _ids(session, data.depth)

    def check() -> None:
        if cancelled is not None and cancelled():
            raise _Cancelled

    def step(done: int, total: int) -> None:
        check()
        if progress is not None:
            progress(done, total + 1)  # and the writing

    try:
        predictions, quality = fit_predict(data, seed, find_embedder=local_embedder, progress=step)
        check()
    except _Cancelled:
        return LocalReport(name, None, 0, None, time.perf_counter() - started, cancelled=True)
    grades = [
        automatic.AutoGrade(int(query), int(document), float(grade))
        for query, document, grade in zip(
            query_ids.loc[predictions["query_id"]].to_numpy(),
            doc_ids.loc[predictions["doc_id"]].to_numpy(),
            predictions["grade"].to_numpy(),
            strict=True,
        )
    ]
    with database.transaction() as session:
        judge = automatic.add_judge(
            session, name, method="local", model=MODEL, details=quality.details()
        )
        automatic.forget_grades(session, judge.rater_id)
        written = automatic.write_grades(session, judge.rater_id, grades)
    if progress is not None:
        progress(quality.folds + 2, quality.folds + 2)
    return LocalReport(judge.name, judge.rater_id, written, quality, time.perf_counter() - started)


def read_local_data(session: Session, depth: int | None = None) -> LocalData:
    """What the local judge learns from, read in ``session`` (one snapshot): every run
    result, the graded judgments, the queries' texts and the texts of the documents it
    grades; ``depth`` None is the stored pool depth."""
    from sqlalchemy import select

    from judge_app.store.models import Document
    from judge_app.store.rater_queue import pool_settings
    from judge_app.store.reads import grades_frame, queries_frame, results_frame

    depth = pool_settings(session).depth if depth is None else depth
    documents = select(Document.external_id.label("doc_id"), Document.title, Document.body).where(
        Document.id.in_(_graded_documents(depth))
    )
    return LocalData(
        results=results_frame(session),
        judgments=grades_frame(session),
        queries=queries_frame(session)[["query_id", "text"]],
        documents=read_frame(session, documents),
        depth=depth,
    )


def _graded_documents(depth: int) -> Select:
    """The ids of the documents the local judge grades: pooled to ``depth`` or graded."""
    from sqlalchemy import select, union

    from judge_app.store.models import Judgment, Result

    pooled = select(Result.document_id).where(Result.rank <= depth)
    graded = select(Judgment.document_id).where(Judgment.grade.is_not(None))
    return select(union(pooled, graded).subquery().c[0])


def _ids(session: Session, depth: int) -> tuple[pd.Series, pd.Series]:
    """The database ids of the queries and of the documents the judge grades, by external
    id."""
    from sqlalchemy import select

    from judge_app.store.models import Document, Query

    queries = session.execute(select(Query.external_id, Query.id)).all()
    documents = session.execute(
        select(Document.external_id, Document.id).where(Document.id.in_(_graded_documents(depth)))
    ).all()
    return (
        pd.Series(dict(queries), dtype=np.int64),
        pd.Series(dict(documents), dtype=np.int64),
    )
