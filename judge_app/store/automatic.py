"""Automatic judges and their grades (DESIGN: automatic raters).

An automatic judge is a rater of kind ``automatic`` with one ``AutomaticJudge`` row (its
method, model and prompt). Its grades are ``AutoJudgment`` rows, never ``Judgment`` rows: the
judging screen, agreement, exports and a humans-only evaluation read ``judgment`` alone, so
they cannot show or count an automatic grade, and no automatic grade can replace a human's.
Every function takes a Session and does not commit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.orm import Session

from judge_app.errors import quoted, unknown_judge
from judge_app.store.errors import StoreError
from judge_app.store.models import (
    AUTOMATIC,
    AutoJudgment,
    AutomaticJudge,
    AutoProbe,
    Document,
    Query,
    Rater,
    utcnow,
)
from judge_app.store.people import find_rater, new_rater_name

if TYPE_CHECKING:  # the judging window lists judges, never a frame: no pandas at its start
    import pandas as pd


@dataclass(frozen=True)
class Judge:
    """An automatic judge as the calibration page, ``eval --judge`` and reports name it."""

    rater_id: int
    name: str
    method: str  # "llm", "local" or "ensemble"
    model: str
    prompt_version: str | None
    template: str | None
    endpoint: str | None
    details: dict[str, Any]
    created_at: datetime
    graded: int = 0
    failed: int = 0
    usage: tuple[float, float, float] | None = None
    """Its mean prompt tokens, completion tokens and seconds an answer (None: not counted,
    as a local model's)."""

    def describe(self) -> str:
        """One line for people: ``qwen2.5:7b over http://…, prompt 3f2a9c1`` or
        ``local model (HistGradientBoostingRegressor)`` or ``ensemble: mean of a, b``, and
        ``pairs: qwen2.5:7b …`` for a judge of pairs (``store.auto_preferences``)."""
        if self.method == "local":
            return f"local model ({self.model})"
        if self.method == "ensemble":
            return f"ensemble: {self.model}"
        where = f" at {self.endpoint}" if self.endpoint else ""
        version = f", prompt {self.prompt_version[:7]}" if self.prompt_version else ""
        task = "pairs: " if self.judges_pairs else ""
        return f"{task}{self.model}{where}{version}"

    @property
    def judges_pairs(self) -> bool:
        """Whether it chooses between two documents (``autojudge-pairs``) rather than grades."""
        return self.details.get("task") == "pairs"


@dataclass(frozen=True)
class AutoGrade:
    """One answer of a judge for a pair (ids are the database's): a grade or a failure."""

    query_id: int
    document_id: int
    grade: float | None
    failure: str | None = None
    answer: str | None = None
    prompt_sha: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    duration_ms: int | None = None
    judged_at: datetime | None = None


def add_judge(
    session: Session,
    name: str,
    *,
    method: str,
    model: str,
    prompt_version: str | None = None,
    template: str | None = None,
    endpoint: str | None = None,
    details: dict[str, Any] | None = None,
) -> Judge:
    """The automatic judge called ``name``: made if new; the same one if it exists with this
    method, model and prompt (a rerun); StoreError if ``name`` is a human rater's, or a judge
    with another model or prompt (which would mix two judges' grades under one name)."""
    found = find_rater(session, name)
    if found is None:
        rater = Rater(name=new_rater_name(session, name), kind=AUTOMATIC)
        session.add(rater)
        session.flush()
        session.add(
            AutomaticJudge(
                rater_id=rater.id,
                method=method,
                model=model,
                prompt_version=prompt_version,
                template=template,
                endpoint=endpoint,
                details=None if details is None else json.dumps(details),
            )
        )
        session.flush()
        return judge(session, rater.name)
    if found.kind != AUTOMATIC:
        raise StoreError(
            f"{quoted(found.name)} is a human rater: name the automatic judge otherwise"
        )
    existing = judge(session, found.name)
    theirs = (existing.method, existing.model, existing.prompt_version)
    if theirs != (method, model, prompt_version):
        raise StoreError(
            f"the judge {quoted(found.name)} grades with {existing.describe()}; a judge with "
            "another model or prompt needs another name"
        )
    row = session.get_one(AutomaticJudge, found.id)
    row.endpoint = endpoint
    if details is not None:
        row.details = json.dumps(details)
    session.flush()
    return judge(session, found.name)


def set_details(session: Session, rater_id: int, details: dict[str, Any]) -> None:
    """Replace a judge's report (a local model's held-out quality, its features)."""
    session.get_one(AutomaticJudge, rater_id).details = json.dumps(details)
    session.flush()


def judges(session: Session) -> list[Judge]:
    """Every automatic judge, by name, with its numbers of grades and failures and what an
    answer cost it."""
    counts = {}
    usages = {}
    for rater_id, graded, total, prompt, completion, milliseconds in session.execute(
        select(
            AutoJudgment.rater_id,
            func.count(AutoJudgment.grade),
            func.count(),
            func.avg(AutoJudgment.prompt_tokens),
            func.avg(AutoJudgment.completion_tokens),
            func.avg(AutoJudgment.duration_ms),
        ).group_by(AutoJudgment.rater_id)
    ):
        counts[rater_id] = (graded, total - graded)
        if None not in (prompt, completion, milliseconds):
            usages[rater_id] = (float(prompt), float(completion), float(milliseconds) / 1000)
    rows = session.execute(
        select(Rater.id, Rater.name, AutomaticJudge)
        .join(AutomaticJudge, AutomaticJudge.rater_id == Rater.id)
        .order_by(Rater.name)
    )
    found = []
    for rater_id, name, row in rows:
        graded, failed = counts.get(rater_id, (0, 0))
        found.append(
            Judge(
                rater_id=rater_id,
                name=name,
                method=row.method,
                model=row.model,
                prompt_version=row.prompt_version,
                template=row.template,
                endpoint=row.endpoint,
                details=json.loads(row.details) if row.details else {},
                created_at=row.created_at,
                graded=graded,
                failed=failed,
                usage=usages.get(rater_id),
            )
        )
    return found


def judge_names(session: Session) -> list[str]:
    """The automatic judges' names, in order."""
    statement = select(Rater.name).where(Rater.kind == AUTOMATIC).order_by(Rater.name)
    return list(session.scalars(statement))


def judge_methods(session: Session) -> list[tuple[str, str]]:
    """Each automatic judge's name and method, by name (no count: quick to read)."""
    statement = (
        select(Rater.name, AutomaticJudge.method)
        .join(AutomaticJudge, AutomaticJudge.rater_id == Rater.id)
        .order_by(Rater.name)
    )
    return [(name, method) for name, method in session.execute(statement)]


def judge(session: Session, name: str, source: str = "the database") -> Judge:
    """The automatic judge called ``name`` (as ``find_rater`` finds it), or the usage error
    of ``unknown_judge`` naming the judges ``source`` has."""
    found = find_rater(session, name)
    if found is not None and found.kind == AUTOMATIC:
        for candidate in judges(session):
            if candidate.rater_id == found.id:
                return candidate
    raise unknown_judge(source, name, judge_names(session))


def is_automatic(session: Session, rater_id: int) -> bool:
    """Whether the rater is an automatic judge."""
    return session.get_one(Rater, rater_id).kind == AUTOMATIC


def cached(session: Session, rater_id: int) -> dict[tuple[int, int], tuple[str | None, bool]]:
    """(query id, document id) → (request hash, whether it failed) of the judge's answers: a
    rerun asks again only pairs missing here or whose request changed (and, when asked to,
    those that failed)."""
    statement = select(
        AutoJudgment.query_id,
        AutoJudgment.document_id,
        AutoJudgment.prompt_sha,
        AutoJudgment.grade.is_(None),
    ).where(AutoJudgment.rater_id == rater_id)
    return {
        (query, document): (sha, bool(failed))
        for query, document, sha, failed in session.execute(statement)
    }


def write_grades(session: Session, rater_id: int, grades: Iterable[AutoGrade]) -> int:
    """Store a judge's answers, each replacing that judge's earlier answer for the pair (its
    own only: no other rater's row is touched). Returns how many were written."""
    rows = _answer_rows(session, rater_id, grades)
    _replace(session, AutoJudgment, ("query_id", "document_id"), rater_id, rows)
    return len(rows)


def write_probes(session: Session, rater_id: int, probes: Iterable[tuple[str, AutoGrade]]) -> int:
    """Store a judge's answers to probes (``automatic_judges.probes``: the probe's name and
    the answer), each replacing its earlier answer to that probe of the pair. Returns how
    many."""
    probes = list(probes)
    rows = _answer_rows(session, rater_id, [grade for _probe, grade in probes])
    for row, (probe, _grade) in zip(rows, probes):
        row["probe"] = probe
    _replace(session, AutoProbe, ("probe", "query_id", "document_id"), rater_id, rows)
    return len(rows)


def _replace(
    session: Session,
    table: type[AutoJudgment] | type[AutoProbe],
    keys: tuple[str, ...],
    rater_id: int,
    rows: list[dict[str, Any]],
) -> None:
    """Insert ``rows`` of one judge into ``table``, each replacing the judge's row with the
    same ``keys`` (500 at a time: a bound list SQLite and PostgreSQL both take)."""
    columns = tuple_(*(getattr(table, key) for key in keys))
    for start in range(0, len(rows), 500):
        chunk = rows[start : start + 500]
        chosen = [tuple(row[key] for key in keys) for row in chunk]
        session.execute(delete(table).where(table.rater_id == rater_id, columns.in_(chosen)))
        session.execute(table.__table__.insert(), chunk)
    session.flush()


def _answer_rows(
    session: Session, rater_id: int, grades: Iterable[AutoGrade]
) -> list[dict[str, Any]]:
    """The rows of a judge's answers, checked: an automatic judge's, a grade 0–5 or a
    failure's reason."""
    if not is_automatic(session, rater_id):
        raise StoreError("only an automatic judge's grades are written here")
    rows = [
        {
            "rater_id": rater_id,
            "query_id": grade.query_id,
            "document_id": grade.document_id,
            "grade": None if grade.grade is None else float(grade.grade),
            "failure": grade.failure if grade.grade is None else None,
            "answer": grade.answer,
            "prompt_sha": grade.prompt_sha,
            "prompt_tokens": grade.prompt_tokens,
            "completion_tokens": grade.completion_tokens,
            "duration_ms": grade.duration_ms,
            "judged_at": grade.judged_at or utcnow(),
        }
        for grade in grades
    ]
    for answer in rows:
        grade = answer["grade"]
        if grade is None and not answer["failure"]:
            raise StoreError("an automatic answer without a grade needs its failure's reason")
        if isinstance(grade, float) and not 0 <= grade <= 5:
            raise StoreError(f"an automatic grade must be from 0 to 5, not {grade}")
    return rows


def answers_frame(session: Session, rater_id: int) -> pd.DataFrame:
    """Every answer of a judge: ``query_id, document_id, grade`` (the database's ids; grade
    NaN where it failed), in order of the ids."""
    import numpy as np

    from judge_app.store.reads import read_frame

    statement = (
        select(AutoJudgment.query_id, AutoJudgment.document_id, AutoJudgment.grade)
        .where(AutoJudgment.rater_id == rater_id)
        .order_by(AutoJudgment.query_id, AutoJudgment.document_id)
    )
    frame = read_frame(session, statement)
    frame["grade"] = frame["grade"].astype(np.float64)
    return frame


def probes_cached(
    session: Session, rater_id: int
) -> dict[tuple[str, int, int], tuple[str | None, bool]]:
    """(probe, query id, document id) → (request hash, whether it failed) of the judge's
    answers to probes: a rerun asks only the probes missing here or whose request changed."""
    statement = select(
        AutoProbe.probe,
        AutoProbe.query_id,
        AutoProbe.document_id,
        AutoProbe.prompt_sha,
        AutoProbe.grade.is_(None),
    ).where(AutoProbe.rater_id == rater_id)
    return {
        (probe, query, document): (sha, bool(failed))
        for probe, query, document, sha, failed in session.execute(statement)
    }


def probes_frame(session: Session, rater_id: int) -> pd.DataFrame:
    """The judge's answers to probes: ``probe, query_id, doc_id, grade`` (external ids; grade
    NaN where the answer failed), in order of probe, query and document."""
    import numpy as np

    from judge_app.store.reads import read_frame

    statement = (
        select(
            AutoProbe.probe,
            Query.external_id.label("query_id"),
            Document.external_id.label("doc_id"),
            AutoProbe.grade,
        )
        .join(Query, Query.id == AutoProbe.query_id)
        .join(Document, Document.id == AutoProbe.document_id)
        .where(AutoProbe.rater_id == rater_id)
        .order_by(AutoProbe.probe, Query.external_id, Document.external_id)
    )
    frame = read_frame(session, statement)
    frame["grade"] = frame["grade"].astype(np.float64)
    return frame


def document_texts(
    session: Session, rater_id: int, chars: int | None = None
) -> Iterator[tuple[str, str, str]]:
    """The documents a judge graded, each with the query it was graded for: (query id,
    document id, title and text, the text cut to its first ``chars`` characters as the judge
    read it; None: whole), streamed (the texts are not all held at once)."""
    body = Document.body if chars is None else func.substr(Document.body, 1, chars)
    statement = (
        select(
            Query.external_id.label("query"),
            Document.external_id.label("document"),
            Document.title,
            body.label("body"),
        )
        .select_from(AutoJudgment)
        .join(Query, Query.id == AutoJudgment.query_id)
        .join(Document, Document.id == AutoJudgment.document_id)
        .where(AutoJudgment.rater_id == rater_id)
        .order_by(Query.external_id, Document.external_id)
        .execution_options(yield_per=1000)
    )
    for query, document, title, body in session.execute(statement):
        yield query, document, "\n".join(text for text in (title, body) if text)


def forget_grades(session: Session, rater_id: int) -> int:
    """Delete every answer of an automatic judge, its probes' too (to judge again from
    nothing)."""
    if not is_automatic(session, rater_id):
        raise StoreError("only an automatic judge's grades are forgotten here")
    session.execute(delete(AutoProbe).where(AutoProbe.rater_id == rater_id))
    result = session.execute(delete(AutoJudgment).where(AutoJudgment.rater_id == rater_id))
    return int(getattr(result, "rowcount", 0) or 0)


def auto_grades_frame(
    session: Session, rater_id: int, *, failures: bool = False, usage: bool = False
) -> pd.DataFrame:
    """The judge's grades: ``query_id, doc_id, grade`` (external ids, grade a float), in
    order of query and document; with ``failures``, its failed pairs too (grade NaN) and a
    ``failure`` column; with ``usage``, ``prompt_tokens, completion_tokens, duration_ms``."""
    import numpy as np

    columns: list[Any] = [Query.external_id.label("query_id"), Document.external_id.label("doc_id")]
    columns.append(AutoJudgment.grade)
    if failures:
        columns.append(AutoJudgment.failure)
    if usage:
        columns += [
            AutoJudgment.prompt_tokens,
            AutoJudgment.completion_tokens,
            AutoJudgment.duration_ms,
        ]
    statement = (
        select(*columns)
        .join(Query, Query.id == AutoJudgment.query_id)
        .join(Document, Document.id == AutoJudgment.document_id)
        .where(AutoJudgment.rater_id == rater_id)
        .order_by(Query.external_id, Document.external_id)
    )
    if not failures:
        statement = statement.where(AutoJudgment.grade.is_not(None))
    from judge_app.store.reads import read_frame

    frame = read_frame(session, statement)
    frame["grade"] = frame["grade"].astype(np.float64)
    return frame
