"""Several automatic judges combined into one (``judge-app ensemble``, the Automatic judges
page's Combine judges…): on each pair every member graded, the ensemble's grade is the members'
mean, their median or the grade most of them gave (``automatic_judges.combine``), as UMBRELA's
ensembles of prompts and models do. The ensemble is an automatic judge like any: its grades are
written in ``auto_judgment`` (never ``judgment``), calibration compares it with the humans, and
``eval --judge`` uses it. A pair some member failed to grade is written as a failure naming
that member. Run again, it is combined afresh from its members' grades."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judge_app.automatic_judges.combine import COMBINE
from judge_app.errors import UsageError, quoted, typed
from judge_app.evaluation.judge_quality import JudgeQuality, whole_grades
from judge_app.names import normal_id
from judge_app.store import automatic
from judge_app.store.automatic import AutoGrade
from judge_app.store.database import Database, opened
from judge_app.writers.corrected import quality_warning

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True)
class EnsembleOptions:
    """The automatic ``judges`` combined (two or more, each once), how (``combine``, a key of
    ``COMBINE``) and the ensemble's ``name`` (None: ``combine`` of the members' names)."""

    judges: tuple[str, ...]
    combine: str = "mean"
    name: str | None = None

    def checked(self) -> EnsembleOptions:
        """These options, or a usage error naming the first that is wrong."""
        names = [normal_id(judge) for judge in self.judges]
        if len(names) < 2 or len(set(names)) != len(names) or not all(names):
            raise UsageError("needs two or more automatic judges, each once", "judges")
        if self.combine not in COMBINE:
            raise UsageError(f"must be one of {', '.join(COMBINE)}", "combine")
        if self.name is not None and not normal_id(self.name):
            raise UsageError("needs a name", "name")
        return self

    @property
    def model(self) -> str:
        """What the ensemble is, as its judge row names it: ``mean of a, b``."""
        return f"{self.combine} of {', '.join(normal_id(judge) for judge in self.judges)}"

    @property
    def judge_name(self) -> str:
        return normal_id(self.name or self.model)


@dataclass(frozen=True)
class EnsembleSummary:
    """What combining did: the ensemble's ``judge`` name, its ``graded`` pairs and the
    ``failed`` (some member gave no grade), and its agreement with the humans."""

    judge: str
    model: str
    graded: int
    failed: int
    agreement: JudgeQuality | None

    def sentence(self) -> str:
        """The run as the command line and the window say it."""
        text = (
            f"judge {typed(self.judge)} ({self.model}): {self.graded:,} pairs graded, "
            f"{self.failed:,} left without a grade (a member gave none)"
        )
        warning = None if self.agreement is None else quality_warning(self.agreement)
        return text + (f"\n{warning}" if warning else "")


def ensemble(database: Database | str, options: EnsembleOptions) -> EnsembleSummary:
    """Combine the members' grades of ``database`` (an open one, or a path or URL) into the
    ensemble's, written in one transaction (its earlier grades replaced)."""
    options = options.checked()
    with opened(database) as found:
        return _combined_into(found, options)


def _combined_into(database: Database, options: EnsembleOptions) -> EnsembleSummary:
    """``ensemble`` on the open ``database``."""
    from judge_app.commands.autojudge import agreement

    source = database.describe()

    def write(session: Session) -> tuple[str, int, int]:
        members = [automatic.judge(session, name, source) for name in options.judges]
        for member in members:
            if member.method == "ensemble":
                raise UsageError(
                    f"{quoted(member.name)} is itself an ensemble: combine its members instead"
                )
        frames = [automatic.answers_frame(session, member.rater_id) for member in members]
        judge = automatic.add_judge(
            session, options.judge_name, method="ensemble", model=options.model,
            details={"members": [m.name for m in members], "combine": options.combine},
        )  # fmt: skip
        grades = combined(frames, [m.name for m in members], options.combine)
        automatic.forget_grades(session, judge.rater_id)
        rows = [
            AutoGrade(int(query), int(document), None if np.isnan(grade) else float(grade), why)
            for query, document, grade, why in grades.itertuples(index=False)
        ]
        automatic.write_grades(session, judge.rater_id, rows)
        failed = int(grades["grade"].isna().sum())
        return judge.name, len(grades) - failed, failed

    name, graded, failed = database.write(write)
    return EnsembleSummary(name, options.model, graded, failed, agreement(database, name))


def combined(frames: list[pd.DataFrame], names: list[str], combine: str) -> pd.DataFrame:
    """The ensemble's ``query_id, document_id, grade, failure`` from its members' answers
    (``query_id, document_id, grade`` each, grade NaN where it failed): on the pairs every
    member answered, the members' grades combined, or NaN and the first member that failed."""
    keys = ["query_id", "document_id"]
    both = frames[0][[*keys, "grade"]].rename(columns={"grade": 0})
    for index, frame in enumerate(frames[1:], start=1):
        both = both.merge(frame[[*keys, "grade"]].rename(columns={"grade": index}), on=keys)
    grades = both[list(range(len(frames)))].to_numpy(dtype=np.float64)
    missing = np.isnan(grades)
    failed = missing.any(axis=1)
    result = np.full(len(both), np.nan)
    whole = grades[~failed]
    if combine == "mean":
        result[~failed] = whole.mean(axis=1)
    elif combine == "median":
        result[~failed] = np.median(whole, axis=1)
    else:
        counts = np.stack([(whole_grades(whole) == g).sum(axis=1) for g in range(6)], axis=1)
        result[~failed] = counts.argmax(axis=1)  # the first (lowest) of the most given
    first = missing.argmax(axis=1)
    failure = [f"the judge {quoted(names[i])} gave no grade" if bad else None
               for i, bad in zip(first, failed)]  # fmt: skip
    return both[keys].assign(grade=result, failure=failure).reset_index(drop=True)
