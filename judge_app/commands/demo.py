"""The demo campaign of ``resources/demo/``: 16 queries, 161 documents, two runs and three
raters' judgments, every query assigned to the three, with two days of rater-quality history
(``store.demo_quality``) (``judge-app demo``, the start page's "Open the demo", the first
start)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from judge_app.commands.info import describe_database
from judge_app.store import open_database
from judge_app.store.demo_quality import plant_quality_history
from judge_app.store.imports import import_files
from judge_app.store.people import all_query_ids, assign_queries, find_rater
from judge_app.store.settings import scale

DEMO_RUNS = ("runs/bm25.txt", "runs/neural.csv")
DEMO_RATERS = ("ana", "ben", "chloe")


def build_demo(db: str) -> str:
    """Fill the database ``db`` with the demo campaign; what it then holds, with the scale."""
    demo = resources.files("judge_app.resources") / "demo"
    with resources.as_file(demo) as folder, open_database(db) as database:
        import_files(
            database,
            queries=folder / "queries.csv",
            documents=folder / "documents.jsonl",
            judgments=folder / "judgments.csv",
        )
        for run in DEMO_RUNS:
            import_files(database, run=folder / run)
        with database.transaction() as session:
            plant_quality_history(session)
            query_ids = all_query_ids(session)
            for name in DEMO_RATERS:
                rater = find_rater(session, name)
                if rater is not None:
                    assign_queries(session, rater.id, query_ids)
            labels = scale(session)
        overview = describe_database(database)
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
