"""Judgments imported into a database that already holds some: every row of a valid file added,
changed (with an ``import`` event, in file order) or left unchanged exactly as a plain Python
reference merges them; keys repeated within the file refuse it with their lines and change
nothing; at any chunk size, on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from snapshots import rows as frame_rows
from snapshots import snapshot

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.io import records
from judge_app.io.errors import ImportFileError
from judge_app.store import reads
from judge_app.store.database import Database, open_database

HEADER = ["query_id", "doc_id", "rater", "grade", "skipped", "note"]
# (query, document, rater) -> (grade, skipped, note) stored before each import
STORED = {
    ("q1", "d1", "ann"): (2, False, None),
    ("q1", "d2", "ann"): (0, False, "kept"),
    ("q2", "d1", "bob"): (None, True, None),
    ("q2", "d3", "ann"): (5, False, "five"),
}
MERGE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STATES = st.one_of(
    st.tuples(st.integers(0, 5), st.just(False)), st.tuples(st.none(), st.just(True))
)
ROW = st.tuples(
    st.sampled_from(["q1", "q2", "q3"]),
    st.sampled_from(["d1", "d2", "d3", "new doc"]),
    st.sampled_from(["ann", "bob", "cy"]),
    STATES,
    st.sampled_from([None, "kept", "five", "a new note"]),
)


def _csv(rows: list[tuple]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for query, document, rater, (grade, skipped), note in rows:
        cells = [query, document, rater, "" if grade is None else grade, skipped, note or ""]
        writer.writerow(cells)
    return out.getvalue()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("merge")
    rows = [(*key, (grade, skipped), note) for key, (grade, skipped, note) in STORED.items()]
    path = folder / "stored.csv"
    path.write_text(_csv(rows), encoding="utf-8")
    with open_database(folder / "template.sqlite") as db:
        import_files(db, ImportOptions(judgments=path))
    return folder / "template.sqlite"


@contextmanager
def _copy(template: Path) -> Iterator[tuple[Database, Path]]:
    with tempfile.TemporaryDirectory() as folder:
        shutil.copyfile(template, Path(folder) / "db.sqlite")
        with open_database(Path(folder) / "db.sqlite") as db:
            yield db, Path(folder)


def _reference(path: Path, rows: list[tuple]) -> tuple[object, dict, list]:
    """What the import says, the judgments after it and the events it adds, merged in Python:
    a key repeated in the file refuses it (each repeat named with its line and the first)."""
    first: dict[tuple, int] = {}
    repeats = []
    for line, (query, document, rater, _, _) in enumerate(rows, start=2):
        seen = first.setdefault((query, document, rater), line)
        if seen != line:
            label = f"query_id {query}, doc_id {document}, rater {rater}"
            repeats.append(
                f"{path} line {line}: duplicate judgment ({label}); first on line {seen}"
            )
    if repeats:
        return "\n".join(repeats), dict(STORED), []
    stored, events = dict(STORED), []
    added = changed = 0
    for query, document, rater, (grade, skipped), note in rows:
        key, new = (query, document, rater), (grade, skipped, note)
        old = stored.get(key)
        if old is None:
            added += 1
        elif old != new:
            changed += 1
            events.append((rater, query, document, "import", *old, *new))
        stored[key] = new
    unchanged = len(rows) - added - changed
    said = f"{path}: {added} judgments added, {changed} changed, {unchanged} unchanged"
    return said, stored, events


def _outcome(db: Database, path: Path) -> tuple[object, dict, list]:
    """What the import said, the judgments after it and its events, as ``_reference`` gives."""
    before = snapshot(db)
    try:
        said: object = str(import_files(db, ImportOptions(judgments=path)))
    except ImportFileError as error:
        said = str(error)
        assert snapshot(db) == before
    with db.reading() as session:
        judgments = frame_rows(reads.judgments_frame(session))
        history = frame_rows(reads.history_frame(session))
    stored = {
        (row["query_id"], row["doc_id"], row["rater"]): (row["grade"], row["skipped"], row["note"])
        for row in judgments
    }
    fields = ["rater", "query_id", "doc_id", "action", "old_grade", "old_skipped", "old_note",
              "new_grade", "new_skipped", "new_note"]  # fmt: skip
    events = [tuple(row[name] for name in fields) for row in history]
    assert all(row["reverts"] is None for row in history)
    return said, stored, events


@MERGE
@given(rows=st.lists(ROW, min_size=1, max_size=14), chunk_rows=st.sampled_from([1, 2, 5, 1000]))
@example(  # a stored skip without a note, imported again: unchanged (pandas 3's fillna("\x00"))
    rows=[("q1", "d1", "ann", (None, True), None), ("q2", "d1", "bob", (None, True), None)],
    chunk_rows=1,
)
def test_an_import_merges_as_the_reference(template: Path, rows: list[tuple], chunk_rows: int):
    with _copy(template) as (db, folder), pytest.MonkeyPatch.context() as patch:
        patch.setattr(records, "CHUNK_ROWS", chunk_rows)
        path = folder / "judgments.csv"
        path.write_text(_csv(rows), encoding="utf-8")
        assert _outcome(db, path) == _reference(path, rows)


def test_a_repeat_of_a_stored_key_within_the_file_is_refused(template: Path):
    rows = [
        ("q1", "d1", "ann", (3, False), None),  # changes a stored judgment
        ("q3", "d1", "cy", (1, False), None),  # adds one
        ("q1", "d1", "ann", (4, False), None),  # repeats line 2
        ("q3", "d1", "cy", (1, False), None),  # repeats line 3
    ]
    with _copy(template) as (db, folder):
        path = folder / "judgments.csv"
        path.write_text(_csv(rows), encoding="utf-8")
        said, stored, events = _outcome(db, path)
    assert said == (
        f"{path} line 4: duplicate judgment (query_id q1, doc_id d1, rater ann); first on line 2\n"
        f"{path} line 5: duplicate judgment (query_id q3, doc_id d1, rater cy); first on line 3"
    )
    assert (stored, events) == (STORED, [])


@pytest.mark.postgres
def test_merges_on_postgresql_as_the_reference(pg_url: str, tmp_path: Path):
    rows = [
        ("q1", "d1", "ann", (3, False), "a new note"),  # changed
        ("q1", "d2", "ann", (0, False), "kept"),  # unchanged
        ("q2", "d1", "bob", (4, False), None),  # a skipped one graded
        ("q3", "new doc", "cy", (None, True), None),  # added, skipped
        ("q2", "d3", "ann", (None, True), "five"),  # a grade skipped
    ]
    stored = tmp_path / "stored.csv"
    stored.write_text(_csv([(*k, (g, s), n) for k, (g, s, n) in STORED.items()]), "utf-8")
    path = tmp_path / "judgments.csv"
    path.write_text(_csv(rows), encoding="utf-8")
    repeated = tmp_path / "repeated.csv"
    repeated.write_text(_csv(rows + rows[:2]), encoding="utf-8")
    with open_database(pg_url) as db:
        import_files(db, ImportOptions(judgments=stored))
        assert _outcome(db, repeated) == _reference(repeated, rows + rows[:2])
        assert _outcome(db, path) == _reference(path, rows)
