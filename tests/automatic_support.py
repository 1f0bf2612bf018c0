"""An automatic judge for tests: grades written straight into the store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sqlalchemy import select

from judge_app.store import automatic, open_database
from judge_app.store.models import Judgment, Result


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
