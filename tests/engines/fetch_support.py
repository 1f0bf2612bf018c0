"""What the tests of ``judge-app fetch`` share: a small campaign's database, a clock that
moves only when the fetch waits, and the run read back with sqlite3 alone."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

from judge_app.commands.fetch import FetchOptions, FetchSummary, fetch
from judge_app.commands.importing import ImportOptions, import_files
from judge_app.engines.template import RequestTemplate

QUERIES = {"q1": "pizza dough", "q2": "tomato sauce", "q3": "bread"}
ELASTIC_TEMPLATE = """{
  "query": {"match": {"body": "{query}"}},
  "size": {depth},
  "highlight": {"fields": {"body": {}}}
}"""
SOLR_TEMPLATE = """{
  "params": {"q": "{query}", "fl": "*,score", "rows": {depth}, "hl": "true", "hl.fl": "body"}
}"""


def campaign(folder: Path, queries: dict[str, str] = QUERIES) -> Path:
    """A database with ``queries`` (id: text) and nothing else."""
    path = folder / "campaign.sqlite"
    file = folder / "queries.csv"
    with file.open("w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows([("query_id", "text"), *queries.items()])
    import_files(str(path), ImportOptions(queries=file))
    return path


class FakeTime:
    """A clock that moves only when the fetch waits: ``waits`` are the pauses asked for."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        self.now += seconds
        return False


def fetched(path: Path, server, time: FakeTime | None = None, **changes) -> FetchSummary:
    """``fetch`` from the test ``server`` into ``path``, its template the tests', waiting
    on ``time`` (a new FakeTime unless given)."""
    time = time or FakeTime()
    template = SOLR_TEMPLATE if server.kind == "solr" else ELASTIC_TEMPLATE
    values = {
        "engine": server.kind,
        "url": server.url,
        "template": RequestTemplate(template, "search.json"),
        "run_name": "live",
        "depth": 3,
        "backoff": 0.5,
        "timeout": 5.0,
    } | changes
    return fetch(str(path), FetchOptions(**values), clock=time.clock, wait=time.wait)


def stored_results(path: Path) -> list[tuple]:
    """(run, query, document, rank, score) of every result, in order."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT run.name, query.external_id, document.external_id, rank, score FROM result "
            "JOIN run ON run.id = run_id JOIN query ON query.id = query_id "
            "JOIN document ON document.id = document_id ORDER BY run.id, query.external_id, rank"
        ).fetchall()


def stored(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql).fetchall()


def database_bytes(path: Path) -> bytes:
    """Everything in the database file and its journal, as bytes."""
    return b"".join(
        file.read_bytes() for file in path.parent.glob(path.name + "*") if file.is_file()
    )
