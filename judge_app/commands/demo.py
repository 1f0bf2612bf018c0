"""The demo campaign of ``resources/demo/`` (``judge-app demo``, the start page's "Open the
demo", the first start): 16 queries, 161 documents, two runs and three raters' judgments,
every query assigned to the three, with two days of rater-quality history, what a lead would
find after two days of judging, so that the raters page has something to show. Seeded: every
demo is the same.

- each judgment gets a time (ana careful, ben quicker, chloe often under two seconds) and a
  moment over two days, in the order of the rater's queue;
- a tenth of each rater's graded pairs came back as hidden repeats, answered (ben answers
  his loosely);
- twelve pairs are gold, with the grade most raters gave them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.commands.info import info
from judge_app.store.bulk import rater_ids
from judge_app.store.database import Database, opened
from judge_app.store.gold_items import set_gold_items
from judge_app.store.judgments import judgment_rows, set_judgment_times
from judge_app.store.people import all_query_ids, assign_queries, find_rater
from judge_app.store.repeats import add_answered_repeats, any_repeats
from judge_app.store.settings import scale

if TYPE_CHECKING:
    from sqlalchemy import Row
    from sqlalchemy.orm import Session

DEMO_RUNS = ("runs/bm25.txt", "runs/neural.csv")
DEMO_RATERS = ("ana", "ben", "chloe")
START = datetime(2026, 11, 2, 9, 0)
SECONDS = {"ana": (14.0, 0.0), "ben": (9.0, 0.04), "chloe": (6.0, 0.3)}
"""Per rater: median seconds of a judgment, and the share made in under two seconds."""
REPEAT_SHARE, GOLD_ITEMS = 0.1, 12


def build_demo(database: Database | str) -> str:
    """Fill ``database`` (an open one, or a path or URL) with the demo campaign; what it then
    holds, with the scale."""
    demo = resources.files("judge_app.resources") / "demo"
    with resources.as_file(demo) as folder, opened(database, create=True) as found:
        import_files(
            found,
            ImportOptions(
                queries=folder / "queries.csv",
                documents=folder / "documents.jsonl",
                judgments=folder / "judgments.csv",
            ),
        )
        for run in DEMO_RUNS:
            import_files(found, ImportOptions(run=folder / run))
        with found.transaction() as session:
            _plant_quality_history(session)
            query_ids = all_query_ids(session)
            for name in DEMO_RATERS:
                rater = find_rater(session, name)
                if rater is not None:
                    assign_queries(session, rater.id, query_ids)
            labels = scale(session)
        overview = info(found)
    return overview + "\n\nScale: " + ", ".join(f"{label.grade} {label.label}" for label in labels)


def demo_database(folder: Path) -> Path:
    """The demo database in the user's data ``folder``, built the first time it is needed
    (under another name until it is whole, so a build cut short never passes for it)."""
    path = folder / "demo.sqlite"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / "demo.sqlite.part"
        for leftover in (partial, *(Path(f"{partial}{end}") for end in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
        build_demo(str(partial))
        partial.replace(path)
    return path


def _plant_quality_history(session: Session) -> None:
    """Give the demo's judgments times and moments, answered repeats and gold items (once: a
    demo made again keeps the history it has)."""
    if any_repeats(session):
        return
    rng = np.random.default_rng(2026)
    raters = rater_ids(session, SECONDS, create=False)
    judged = judgment_rows(session)
    times: list[dict[str, object]] = []
    repeats: list[dict[str, object]] = []
    for name, (median, fast) in SECONDS.items():
        own = [row for row in judged if row.rater_id == raters.get(name)]
        times += _times(own, rng, median, fast)
        repeats += _repeats(own, rng, median, loose=name == "ben")
    set_judgment_times(session, times)
    add_answered_repeats(session, repeats)
    set_gold_items(session, _gold_items(judged, rng))


def _times(
    own: Sequence[Row], rng: np.random.Generator, median: float, fast: float
) -> list[dict[str, object]]:
    """A rater's judgments' times (around ``median`` seconds, a ``fast`` share under two)
    and moments, half on the first day and half on the second, in the order given."""
    seconds = rng.lognormal(np.log(median), 0.5, size=len(own))
    quick = rng.random(len(own)) < fast
    seconds[quick] = rng.uniform(0.4, 1.9, size=int(quick.sum()))
    moment, times = START, []
    for index, (row, taken) in enumerate(zip(own, seconds)):
        if index == len(own) // 2:
            moment = START + timedelta(days=1)
        moment += timedelta(seconds=float(taken) + 3)
        times.append({"id": row.id, "duration_ms": int(taken * 1000), "judged_at": moment})
    return times


def _repeats(
    own: Sequence[Row], rng: np.random.Generator, median: float, loose: bool
) -> list[dict[str, object]]:
    """A tenth of a rater's graded pairs, repeated on the second day and answered: the same
    grade, or (``loose``, mostly) two or three grades away."""
    graded = [row for row in own if row.grade is not None]
    repeats = []
    for pick in rng.choice(len(graded), size=int(REPEAT_SHARE * len(graded)), replace=False):
        row = graded[pick]
        away = loose and rng.random() < 0.8
        again = int(np.clip(row.grade + (rng.choice([-3, -2, 2, 3]) if away else 0), 0, 5))
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
    return repeats


def _gold_items(judged: Sequence[Row], rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """GOLD_ITEMS of the pairs all three raters graded, each with their median grade."""
    pairs: dict[tuple[int, int], list[int]] = {}
    for row in judged:
        if row.grade is not None:
            pairs.setdefault((row.query_id, row.document_id), []).append(row.grade)
    shared = sorted(pair for pair, grades in pairs.items() if len(grades) == 3)
    chosen = rng.choice(len(shared), size=min(GOLD_ITEMS, len(shared)), replace=False)
    return [(*shared[index], int(np.median(pairs[shared[index]]))) for index in chosen]
