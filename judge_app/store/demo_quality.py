"""The demo campaign's rater-quality history: what a lead would find after two days of
judging, so that the raters page has something to show. Seeded: every demo is the same.

- each judgment gets a time (ana careful, ben quicker, chloe often under two seconds) and a
  moment over two days, in the order of the rater's queue;
- a tenth of each rater's graded pairs came back as hidden repeats, answered (ben answers
  his loosely);
- twelve pairs are gold, with the grade most raters gave them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from judge_app.store.models import GoldItem, Judgment, Rater, RepeatJudgment

START = datetime(2026, 11, 2, 9, 0)
SECONDS = {"ana": (14.0, 0.0), "ben": (9.0, 0.04), "chloe": (6.0, 0.3)}
"""Per rater: median seconds of a judgment, and the share made in under two seconds."""
REPEAT_SHARE, GOLD_ITEMS = 0.1, 12


def plant_quality_history(session: Session) -> None:
    """Give the demo's judgments times and moments, answered repeats and gold items (once: a
    demo made again keeps the history it has)."""
    if session.scalar(select(RepeatJudgment.rater_id).limit(1)) is not None:
        return
    rng = np.random.default_rng(2026)
    raters = {name: rater_id for name, rater_id in session.execute(select(Rater.name, Rater.id))}
    judged = session.execute(
        select(Judgment.id, Judgment.rater_id, Judgment.query_id, Judgment.document_id,
               Judgment.grade)
        .order_by(Judgment.rater_id, Judgment.query_id, Judgment.document_id)
    ).all()  # fmt: skip
    changes, repeats = [], []
    for name, (median, fast) in SECONDS.items():
        own = [row for row in judged if row.rater_id == raters.get(name)]
        seconds = rng.lognormal(np.log(median), 0.5, size=len(own))
        quick = rng.random(len(own)) < fast
        seconds[quick] = rng.uniform(0.4, 1.9, size=int(quick.sum()))
        moment = START
        for index, (row, taken) in enumerate(zip(own, seconds)):
            if index == len(own) // 2:
                moment = START + timedelta(days=1)
            moment += timedelta(seconds=float(taken) + 3)
            changes.append({"id": row.id, "duration_ms": int(taken * 1000), "judged_at": moment})
        graded = [row for row in own if row.grade is not None]
        for pick in rng.choice(len(graded), size=int(REPEAT_SHARE * len(graded)), replace=False):
            row = graded[pick]
            loose = name == "ben" and rng.random() < 0.8
            again = int(np.clip(row.grade + (rng.choice([-3, -2, 2, 3]) if loose else 0), 0, 5))
            repeats.append(
                {
                    "rater_id": row.rater_id,
                    "query_id": row.query_id,
                    "document_id": row.document_id,
                    "scheduled_at": START + timedelta(days=1),
                    "first_grade": row.grade,
                    "grade": again,
                    "skipped": False,
                    "judged_at": START + timedelta(days=1, hours=6),
                    "duration_ms": int(rng.lognormal(np.log(median), 0.5) * 1000),
                }
            )
    session.execute(update(Judgment), changes)
    if repeats:
        session.execute(insert(RepeatJudgment), repeats)
    pairs: dict[tuple[int, int], list[int]] = {}
    for row in judged:
        if row.grade is not None:
            pairs.setdefault((row.query_id, row.document_id), []).append(row.grade)
    shared = sorted(pair for pair, grades in pairs.items() if len(grades) == 3)
    for index in rng.choice(len(shared), size=min(GOLD_ITEMS, len(shared)), replace=False):
        query_id, document_id = shared[index]
        grade = int(np.median(pairs[shared[index]]))
        session.add(GoldItem(query_id=query_id, document_id=document_id, grade=grade))
