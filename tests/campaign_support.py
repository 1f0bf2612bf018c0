"""A generated campaign for the evaluation tests: holes in the judgments, two runs, three
raters and a lead's adjudicated grades; a small one with planted disagreements for
``assign --where-disputed`` (both built with ``judge-app import``); and the demo."""

from __future__ import annotations

from contextlib import redirect_stdout
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import insert

from judge_app.cli import main as cli
from judge_app.store import judgments as store
from judge_app.store import open_database
from judge_app.store.gold_items import set_gold
from judge_app.store.models import Judgment
from judge_app.store.people import named_rater
from judge_app.store.rater_queue import (
    PoolSettings,
    pool_settings,
    query_items,
    rater_queue,
    set_pool_settings,
)
from judge_app.store.repeats import schedule_repeats
from judge_app.store.settings import QualitySettings, set_quality_settings


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo database, built once for a test module that only reads it."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(path)]) == 0
    return path


def import_frames(path: Path, folder: Path, **frames: pd.DataFrame) -> None:
    """Write the frames as CSV files and import them with ``judge-app import`` (a run
    ``run_NAME`` each on its own, as the command takes one run at a time)."""
    args, runs = ["import", str(path)], []
    for name, frame in frames.items():
        file = folder / f"{name}.csv"
        frame.to_csv(file, index=False)
        if name.startswith("run_"):
            runs.append(["import", str(path), "--run", str(file), "--run-name", name[4:]])
        else:
            args += [f"--{name}", str(file)]
    with redirect_stdout(StringIO()):
        for command in [args, *runs]:
            assert cli(command) == 0


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """30 queries; runs ``alpha`` and ``beta`` of 15 results from a pool of 25 documents per
    query; raters ana, ben, chloe each grade a random part of the pool (so some top-k results
    stay unjudged and two queries are not judged at all); a lead adjudicated some grades."""
    folder = tmp_path_factory.mktemp("generated")
    rng = np.random.default_rng(7)
    queries = [f"g{q:02d}" for q in range(30)]
    pool = {q: [f"{q}-d{d:02d}" for d in range(25)] for q in queries}
    runs = {
        name: pd.DataFrame(
            [
                (q, doc, rank + 1)
                for q in queries[: 28 if name == "alpha" else 30]
                for rank, doc in enumerate(rng.permutation(pool[q])[:15])
            ],
            columns=["query_id", "doc_id", "rank"],
        )
        for name in ("alpha", "beta")
    }
    rows = []
    for q in queries[:28]:
        truth = rng.integers(0, 6, size=25)
        for rater, share in (("ana", 0.9), ("ben", 0.7), ("chloe", 0.5)):
            for doc, grade in zip(pool[q], truth):
                if rng.random() < share:
                    noisy = int(np.clip(grade + rng.integers(-1, 2), 0, 5))
                    rows.append((q, doc, rater, noisy))
        for doc in pool[q][:3]:
            rows.append((q, doc, "adjudicated", int(rng.integers(0, 6))))
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    path = folder / "generated.sqlite"
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": queries, "text": [f"query {q}" for q in queries]}),
        run_alpha=runs["alpha"],
        run_beta=runs["beta"],
        judgments=judgments,
    )
    return path


PLANTED: dict[str, dict[str, dict[str, int | None]]] = {
    # query: document: rater: grade (None: skipped); a query listed empty has no judgment
    "q01": {"d1": {"ana": 0, "ben": 3}, "d2": {"ana": 2, "ben": 2}},  # 3 apart
    "q02": {"d1": {"ana": 2, "ben": 3}, "d2": {"ana": 3, "ben": 2}, "d3": {"ana": 1, "ben": 1}},
    "q03": {"d1": {"ana": 1, "ben": 4}, "d2": {"ana": 3, "ben": 1}},  # both decided
    "q04": {"d1": {"ana": 5, "ben": 3}, "d2": {"ana": 1, "ben": 3, "chloe": 2}},  # d1 decided
    "q05": {"d1": {"ana": 3, "ben": 3, "chloe": 3, "fay": 3}, "d2": {"ana": 1, "ben": 1}},
    "q06": {"d1": {"ana": 0, "chloe": 2}, "d2": {"ana": 5, "chloe": 5}},  # just 2 apart
    "q07": {"d1": {"ana": 4}},  # one rater
    "q08": {"d1": {"ana": 0, "ben": 5}, "d2": {"chloe": None}},  # chloe skipped d2
    "q09": {},
    "q10": {"d1": {"ana": 2, "ben": 3}, "d2": {"ana": 5, "ben": 5}, "d3": {"ana": 0, "ben": 0}},
}
"""A campaign with its disagreements planted: q01, q04, q06 and q08 have a document graded two
or more apart that no lead decided; q02 and q10 differ by one grade at most (q02's ordinal
alpha is 0.583, q10's 0.949); a lead decided q03's two differing documents (its alpha is
-0.417) and one of q04's; q05 agrees, q07 has one rater and q09 none."""
DECIDED = {("q03", "d1"): 3, ("q03", "d2"): 2, ("q04", "d1"): 4}
QUEUES = {"chloe": ["q04", "q05", "q06", "q08"], "eve": ["q01", "q08"]}
"""The queues: eve has judged nothing; fay has no queue (so every query) and graded q05."""


def planted_campaign(path: Path, folder: Path) -> Path:
    """``PLANTED`` imported into the SQLite file ``path`` (documents named ``q01-d1``…), with
    the lead's ``DECIDED`` grades and the ``QUEUES``."""
    from judge_app.store import open_database
    from judge_app.store.bulk import query_ids
    from judge_app.store.people import assign_queries, named_rater

    rows = [
        (query, f"{query}-{doc}", rater, "" if grade is None else str(grade), grade is None)
        for query, docs in PLANTED.items()
        for doc, grades in docs.items()
        for rater, grade in grades.items()
    ]
    rows += [
        (query, f"{query}-{doc}", "adjudicated", str(grade), False)
        for (query, doc), grade in DECIDED.items()
    ]
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": list(PLANTED), "text": [f"query {q}" for q in PLANTED]}),
        judgments=pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade", "skipped"]),
    )
    with open_database(path) as database, database.transaction() as session:
        ids = query_ids(session, PLANTED, create=False)
        for name, queries in QUEUES.items():
            rater = named_rater(session, name)
            assert rater is not None
            assign_queries(session, rater.id, [ids[query] for query in queries])
    return path


def judged_by_machine(path: Path, folder: Path, queries: int = 120, labelled: int = 30) -> Path:
    """A campaign of ``tests/ppi_simulation.py``'s population in the SQLite file ``path``:
    three runs, rater ``ana`` grading ``labelled`` queries completely (a random sample), and
    the lenient automatic judge ``lenient`` grading every pooled pair."""
    import ppi_simulation
    from sqlalchemy import select

    from judge_app.store import automatic, open_database
    from judge_app.store.models import Document, Query

    generator = np.random.default_rng(3)
    drawn = ppi_simulation.campaign(generator, queries)
    chosen = generator.choice(drawn.humans["query_id"].unique(), labelled, replace=False)
    humans = drawn.humans[drawn.humans["query_id"].isin(chosen)].assign(rater="ana")
    texts = pd.DataFrame({"query_id": drawn.humans["query_id"].unique()})
    texts["text"] = "query " + texts["query_id"]
    import_frames(
        path,
        folder,
        queries=texts,
        judgments=humans[["query_id", "doc_id", "rater", "grade"]].astype({"grade": int}),
        **{f"run_{name}": run for name, run in drawn.runs.items()},
    )
    with open_database(path) as database, database.transaction() as session:
        judge = automatic.add_judge(session, "lenient", method="llm", model="simulated")
        query = {name: id_ for name, id_ in session.execute(select(Query.external_id, Query.id))}
        document = {
            name: id_ for name, id_ in session.execute(select(Document.external_id, Document.id))
        }
        grades = drawn.judge.assign(
            query=drawn.judge["query_id"].map(query), document=drawn.judge["doc_id"].map(document)
        )
        automatic.write_grades(
            session,
            judge.rater_id,
            [
                automatic.AutoGrade(int(q), int(d), float(g))
                for q, d, g in grades[["query", "document", "grade"]].itertuples(index=False)
            ],
        )
    return path


PLANTED_RATERS = ("ana", "ben", "chloe", "dan")


PLANTED_START = datetime(2026, 11, 20, 9, 0)


PLANTED_QUERIES, PLANTED_DOCS = 12, 20
"""The planted campaign's size: queries, and documents each."""


def plant_raters(folder: Path) -> tuple[Path, dict]:
    """The campaign: one run of 20 documents for each of 12 queries, every pair graded by
    the four raters from a hidden truth; ana grades it exactly, ben too but often in under
    a second, chloe and dan near it (dan two grades up). 30 pairs are gold (the truth); a
    tenth of each rater's grades come back as repeats, which chloe answers at random."""
    rng = np.random.default_rng(18)
    queries = [f"q{q:02d}" for q in range(PLANTED_QUERIES)]
    run = pd.DataFrame(
        [(q, f"{q}-d{d:02d}", d + 1) for q in queries for d in range(PLANTED_DOCS)],
        columns=["query_id", "doc_id", "rank"],
    )
    path = folder / "planted.sqlite"
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": queries, "text": [f"query {q}" for q in queries]}),
        run_main=run,
    )
    truth = rng.integers(0, 6, size=len(run))
    planted: dict = {"judgments": [], "truth": truth}
    with open_database(path) as database:
        with database.transaction() as session:
            set_quality_settings(session, QualitySettings(min_seconds=2, repeat_share=0.1))
            set_pool_settings(session, PoolSettings(depth=PLANTED_DOCS))
            ids = {name: named_rater(session, name).id for name in PLANTED_RATERS}
        with database.reading() as session:
            pool = pool_settings(session)
            pairs = [
                (query.id, item.document_id, query.external_id, item.external_id)
                for query in rater_queue(session, ids["ana"])
                for item in query_items(session, ids["ana"], query.id, pool)
            ]
        rows = []
        for rater in PLANTED_RATERS:
            noise = {
                "ana": np.zeros(len(pairs), dtype=int),
                "ben": np.zeros(len(pairs), dtype=int),
                "chloe": rng.integers(-1, 2, size=len(pairs)),
                "dan": np.full(len(pairs), 2),
            }[rater]
            grades = np.clip(truth + noise, 0, 5)
            durations = rng.integers(4000, 30000, size=len(pairs))
            if rater == "ben":
                durations[rng.random(len(pairs)) < 0.4] = rng.integers(200, 1500)
            for index, (query_id, doc_id, query, doc) in enumerate(pairs):
                at = PLANTED_START + timedelta(days=index // 120, seconds=30 * index)
                rows.append(
                    {
                        "rater_id": ids[rater],
                        "query_id": query_id,
                        "document_id": doc_id,
                        "grade": int(grades[index]),
                        "skipped": False,
                        "judged_at": at,
                        "duration_ms": int(durations[index]),
                    }
                )
                planted["judgments"].append(
                    (rater, query, doc, int(grades[index]), int(durations[index]), at)
                )
        gold = rng.choice(len(pairs), size=30, replace=False)
        with database.transaction() as session:
            session.execute(insert(Judgment), rows)
            for index in gold:
                set_gold(session, pairs[index][0], pairs[index][1], int(truth[index]))
            for rater in PLANTED_RATERS:
                schedule_repeats(session, ids[rater], 0.1, judged_before=datetime(2100, 1, 1))
        planted["gold"] = {(pairs[i][2], pairs[i][3]): int(truth[i]) for i in gold}
        # each rater judges their repeats as the judging screen would: through the store
        repeats = {}
        for rater in PLANTED_RATERS:
            with database.reading() as session:
                shown = [
                    (query.id, item.document_id, query.external_id, item.external_id)
                    for query in rater_queue(session, ids[rater])
                    for item in query_items(session, ids[rater], query.id, pool)
                    if not item.judged
                ]
            first = {(q, d): g for r, q, d, g, _, _ in planted["judgments"] if r == rater}
            answers = []
            for query_id, doc_id, query, doc in shown:
                again = first[(query, doc)] if rater != "chloe" else int(rng.integers(0, 6))
                answers.append((first[(query, doc)], again))
                database.write(
                    lambda s, q=query_id, d=doc_id, g=again: store.set_grade(
                        s, ids[rater], q, d, g, duration_ms=6000
                    )
                )
            repeats[rater] = answers
        planted["repeats"] = repeats
    return path, planted
