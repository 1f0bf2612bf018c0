"""Grade the pooled pairs with the local judge (``judge-app autojudge DB --local``, Lead ▸
Automatic judge… ▸ local model): the campaign read in one snapshot, the model of
``automatic_judges.local_model`` learned from its human grades, and its grade of every pooled
pair written as an automatic judge's in one transaction (never in ``judgment``), with its
held-out quality as the judge's details. It needs no server and downloads nothing; an LLM
judge is ``commands.autojudge``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge_app.automatic_judges.embeddings import local_embedder
from judge_app.automatic_judges.local_model import MODEL, LocalData, Progress, Quality, fit_predict
from judge_app.errors import UsageError, typed
from judge_app.names import normal_id
from judge_app.options import require_whole
from judge_app.store import automatic
from judge_app.store.database import Database, opened
from judge_app.store.rater_queue import pool_settings
from judge_app.store.reads import (
    grades_frame,
    pooled_or_graded_documents_frame,
    pooled_or_graded_ids,
    queries_frame,
    results_frame,
)
from judge_app.writers.corrected import quality_warning

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.orm import Session

    from judge_app.evaluation.judge_quality import JudgeQuality

NAME = "local model"


@dataclass(frozen=True)
class LocalJudgeOptions:
    """The local judge: its ``name`` (None: ``NAME``), the pool ``depth`` it grades (None: the
    lead's pooling depth) and the ``seed`` of its cross-fitting."""

    name: str | None = None
    depth: int | None = None
    seed: int = 0

    def checked(self) -> LocalJudgeOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.depth is not None:
            require_whole("depth", self.depth, 1)
        if self.name is not None and not normal_id(self.name):
            raise UsageError("needs a name", "name")
        return self

    @property
    def judge_name(self) -> str:
        """The name the judge's grades are kept under."""
        return NAME if self.name is None else self.name


@dataclass(frozen=True)
class LocalReport:
    """What ``autojudge_local`` did: the ``judge``'s name and rater id, the grades written,
    the quality and its agreement with the humans; or ``cancelled`` (nothing written)."""

    judge: str
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
            return [f"the local judge {typed(self.judge)} was cancelled: nothing was written"]
        head = (
            f"judge {typed(self.judge)} (local model, {MODEL}): {self.written:,} grades written "
            f"in {self.seconds:.1f} s"
        )
        warning = None if self.agreement is None else quality_warning(self.agreement)
        return [head, *self.quality.lines(), *([warning] if warning else [])]


class _Cancelled(Exception):
    """The caller's ``cancelled`` said stop; raised at the next step."""


def autojudge_local(
    database: Database | str,
    options: LocalJudgeOptions,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> LocalReport:
    """Learn the local judge from the human grades of ``database`` (an open one, or a path or
    URL; read in one snapshot) and write its grade of every pooled pair as the automatic
    judge ``options.judge_name`` in one transaction, its earlier grades replaced; its quality
    goes in the judge's details. ``progress(done, total)`` follows the work; once
    ``cancelled()`` is true the work stops at its next step and nothing is written.
    UsageError with too few human grades; StoreError when the name is a person's or another
    kind of judge's."""
    from judge_app.commands.autojudge import agreement

    options = options.checked()
    started = time.perf_counter()
    name = options.judge_name
    with opened(database) as found:
        with found.reading() as session:
            data = read_local_data(session, options.depth)
            query_ids, doc_ids = pooled_or_graded_ids(session, data.depth)

        def check() -> None:
            if cancelled is not None and cancelled():
                raise _Cancelled

        def step(done: int, total: int) -> None:
            check()
            if progress is not None:
                progress(done, total + 1)  # and the writing

        try:
            predictions, quality = fit_predict(
                data, options.seed, find_embedder=local_embedder, progress=step
            )
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
        with found.transaction() as session:
            judge = automatic.add_judge(
                session, name, method="local", model=MODEL, details=quality.details()
            )
            automatic.forget_grades(session, judge.rater_id)
            written = automatic.write_grades(session, judge.rater_id, grades)
        if progress is not None:
            progress(quality.folds + 2, quality.folds + 2)
        seconds = time.perf_counter() - started
        agreed = agreement(found, judge.name)
        return LocalReport(judge.name, judge.rater_id, written, quality, seconds, agreement=agreed)


def read_local_data(session: Session, depth: int | None = None) -> LocalData:
    """What the local judge learns from, read in ``session`` (one snapshot): every run
    result, the graded judgments, the queries' texts and the texts of the documents it
    grades; ``depth`` None is the stored pool depth."""
    depth = pool_settings(session).depth if depth is None else depth
    return LocalData(
        results=results_frame(session),
        judgments=grades_frame(session),
        queries=queries_frame(session)[["query_id", "text"]],
        documents=pooled_or_graded_documents_frame(session, depth),
        depth=depth,
    )
