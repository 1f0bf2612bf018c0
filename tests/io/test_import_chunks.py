"""Imports read their files a chunk at a time (issue 7: bounded memory): problems, repeated keys,
--strict and TREC ranks come out across chunk borders exactly as from one chunk, and an import
gives the same database and the same problems whatever the chunk size."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshots import snapshot

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.io import records, text
from judge_app.io.errors import ImportFileError
from judge_app.io.readers import FileReader, read_judgments
from judge_app.store import reads
from judge_app.store.database import Database, open_database

HEADER = "query_id,doc_id,rater,grade,note\n"


@pytest.fixture
def three_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of three records, so that small files cross chunk borders."""
    monkeypatch.setattr(records, "CHUNK_ROWS", 3)


def _write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _problems(db: Database, **files: object) -> tuple[list[tuple], int]:
    """The problems (line, column, reason) of a refused import, which changed nothing."""
    before = snapshot(db)
    with pytest.raises(ImportFileError) as refused:
        import_files(db, ImportOptions(**files))
    assert snapshot(db) == before
    error = refused.value
    return [(p.line, p.column, p.reason) for p in error.problems], error.total


# --- across chunk borders ---------------------------------------------------------------------


def test_problems_across_chunk_borders_name_their_lines(db: Database, tmp_path: Path, three_rows):
    path = _write(
        tmp_path / "j.csv",
        HEADER
        + "q1,d1,ann,1,\n"  # 2    chunk 1
        + "q1,d2,ann,2,\n"  # 3
        + 'q1,d3,ann,3,"a note\non two lines"\n'  # 4-5
        + "\n"  # 6: blank, skipped
        + 'q2,d1,ann,9,"and\none more"\n'  # 7-8  chunk 2
        + "q2,d2,ann,x,\n"  # 9
        + "q1,d2,ann,4,\n"  # 10: repeats line 3
        + ",d3,ann,1,\n"  # 11   chunk 3
        + "q1,d3,ann,0,\n",  # 12: repeats line 4
    )
    found, total = _problems(db, judgments=path)
    assert found == [
        (7, "grade", "grade 9 is outside 0–5"),
        (9, "grade", "'x' is not a grade (a whole number 0–5)"),
        (11, "query_id", "empty query id"),
        (10, None, "duplicate judgment (query_id q1, doc_id d2, rater ann); first on line 3"),
        (12, None, "duplicate judgment (query_id q1, doc_id d3, rater ann); first on line 4"),
    ]
    assert total == 5


def test_a_multiline_field_across_a_chunk_border_keeps_lines(
    db: Database, tmp_path: Path, three_rows
):
    path = _write(
        tmp_path / "q.csv",
        "query_id,text\n"
        "q1,one\n"  # 2
        "q2,two\n"  # 3
        'q3,"three\nlines\nlong"\n'  # 4-6: the last record of chunk 1
        '"q4\n",four\n'  # 7-8: the first of chunk 2
        "q1,again\n"  # 9
        "  ,no id\n",  # 10
    )
    found, total = _problems(db, queries=path)
    assert found == [
        (10, "query_id", "empty query id"),
        (9, None, "duplicate query (query_id q1); first on line 2"),
    ]
    assert total == 2


@pytest.mark.parametrize(
    ("name", "kind", "content", "options", "expected"),
    [
        pytest.param(
            "d.jsonl", "documents",
            '{"doc_id": "a"}\n{"doc_id": "b"}\n\n{"doc_id": "c"}\n{"doc_id": "d"}\n{"doc_id": "a"}\n',
            {}, [(6, None, "duplicate document (doc_id a); first on line 1")], id="documents",
        ),
        pytest.param(
            "r.tsv", "run",
            "qid\tdocno\trank\nq\ta\t1\nq\tb\t2\nq\tc\t3\nq\td\t4\nq\ta\t5\nq\te\t2\n",
            {}, [
                (7, None, "duplicate result (query_id q, rank 2); first on line 3"),
                (6, None, "duplicate result (query_id q, doc_id a); first on line 2"),
            ], id="results",
        ),
        pytest.param(
            "q.qrels", "judgments",
            "# qrels\nq 0 a 1\nq 0 b 1\nq 0 c 1\nq 0 d 1\nq 0 b 2\n",
            {"rater": "ann"}, [(6, None, "duplicate judgment (query_id q, doc_id b); first on line 3")],
            id="qrels",
        ),
        pytest.param(
            "run.txt", "run",
            "q Q0 a 1 3 t\nq Q0 b 2 2 t\n# a comment\nq Q0 c 3 1 t\nr Q0 a 1 1 t\nq Q0 a 9 0 t\n",
            {}, [(6, None, "duplicate result (query_id q, doc_id a); first on line 1")],
            id="trec-run",
        ),
    ],
)  # fmt: skip
def test_repeated_keys_are_found_across_chunks(
    db: Database, tmp_path: Path, three_rows, name, kind, content, options, expected
) -> None:
    found, total = _problems(db, **{kind: _write(tmp_path / name, content)}, **options)
    assert found == expected and total == len(expected)


def test_strict_names_unknown_ids_in_every_chunk(db: Database, tmp_path: Path, three_rows):
    import_files(
        db, ImportOptions(queries=_write(tmp_path / "q.csv", "query_id,text\nq1,one\nq2,two\n"))
    )
    path = _write(
        tmp_path / "j.csv",
        HEADER + "q1,d1,ann,1,\nq2,d1,ann,1,\nq9,d1,ann,1,\nq1,d2,ann,1,\nq9,d2,ann,2,\n",
    )
    documents = _write(tmp_path / "d.csv", "doc_id\nd1\n")
    found, total = _problems(db, judgments=path, documents=documents, strict=True)
    assert found == [
        (4, "query_id", "unknown query 'q9' (--strict)"),
        (5, "doc_id", "unknown document 'd2' (--strict)"),
        (6, "doc_id", "unknown document 'd2' (--strict)"),
        (6, "query_id", "unknown query 'q9' (--strict)"),
    ]
    assert total == 4


def test_more_than_20_problems_over_many_chunks(db: Database, tmp_path: Path, three_rows):
    rows = "".join(f"q{i},d,ann,{7 + i % 3},\n" for i in range(40))
    found, total = _problems(db, judgments=_write(tmp_path / "j.csv", HEADER + rows))
    assert [line for line, _, _ in found] == list(range(2, 22)) and total == 40


def test_a_structural_problem_in_a_later_chunk_is_the_only_one(
    db: Database, tmp_path: Path, three_rows
):
    rows = "q1,d1,ann,9,\n" * 2 + "q1,d2,ann,1,\n" * 3 + "q1,d3,ann,1,x,y\n"
    found, total = _problems(db, judgments=_write(tmp_path / "j.csv", HEADER + rows))
    assert found == [(7, None, "expected 5 fields, found 6")] and total == 1


def test_a_json_lines_key_first_seen_in_a_later_chunk(db: Database, tmp_path: Path, three_rows):
    lines = [
        '{"query_id": "q1", "text": "one"}',
        '{"query_id": "q2", "text": "two"}',
        '{"query_id": "q3", "text": "three"}',
        '{"query_id": "q4", "text": "four", "description": "the fourth"}',
    ]
    import_files(db, ImportOptions(queries=_write(tmp_path / "q.jsonl", "\n".join(lines) + "\n")))
    with db.reading() as session:
        frame = reads.queries_frame(session)
    assert frame["description"].isna().tolist() == [True, True, True, False]
    queries = _write(tmp_path / "three.jsonl", "\n".join(lines[:3]) + "\n")
    documents = _write(tmp_path / "d.jsonl", '{"id": "x"}\n' * 4)
    found, _ = _problems(db, queries=queries, documents=documents)
    assert found == [(None, "doc_id", "missing column 'doc_id' (the header has: id)")]


# --- TREC runs ranked across chunks -----------------------------------------------------------


def _trec_eval_order(run: pd.DataFrame) -> dict[tuple[str, str], int]:
    """Ranks as trec_eval orders a whole run: score descending, ties by document id descending."""
    ordered = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    ranks = ordered.groupby("query_id", sort=False).cumcount() + 1
    return dict(zip(zip(ordered["query_id"], ordered["doc_id"]), ranks))


def test_a_trec_run_spanning_chunks_is_ranked_as_the_whole_file(
    db: Database, tmp_path: Path, three_rows
):
    documents = ["d10", "d9", "D9", "dé", "d\u4e2d", "a", "Z", "d1", "d2"]
    rows = [
        (query, document, score)
        for query in ("q2", "q1", "q10")
        for document, score in zip(documents, [2.0, 1.0, 1.0, 1.0, 0.5, 1.0, 2.0, -1.0, 1e0])
    ]
    rows = rows[::2] + rows[1::2]  # each query's rows in several chunks, apart
    path = _write(
        tmp_path / "run.txt",
        "".join(f"{q} Q0 {d} 999 {s} sys\n" for q, d, s in rows),
    )
    import_files(db, ImportOptions(run=path))
    with db.reading() as session:
        stored = reads.results_frame(session)
    expected = _trec_eval_order(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    got = dict(zip(zip(stored["query_id"], stored["doc_id"]), stored["rank"]))
    assert got == expected and set(stored["run"]) == {"sys"}


def test_several_tags_found_in_a_later_chunk_need_a_name(db: Database, tmp_path: Path, three_rows):
    rows = "".join(f"q Q0 d{i} 1 {i} first\n" for i in range(5)) + "q Q0 e 1 1 second\n"
    found, _ = _problems(db, run=_write(tmp_path / "run.txt", rows + "q Q0 f 1 x second\n"))
    assert found == [
        (None, "tag", "several run tags (first, second): name the run"),
        (7, "score", "score 'x' is not a number"),
    ]


# --- memory: chunks sized by rows and bytes ---------------------------------------------------


def test_chunks_hold_fewer_rows_when_lines_are_long(tmp_path: Path, monkeypatch):
    short = _write(tmp_path / "j.csv", HEADER + "q,d,r,1,\n" * 10)
    assert records.open_records(short).chunk_rows == records.CHUNK_ROWS
    monkeypatch.setattr(records, "CHUNK_BYTES", 10_000)
    rows = "".join(f"d{i},{'x' * 2_000}\n" for i in range(20))
    reader = FileReader(_write(tmp_path / "d.csv", "doc_id,body\n" + rows), "documents")
    sizes = [len(chunk.frame) for chunk in reader.chunks()]
    assert max(sizes) <= 5 and sum(sizes) == 20


def test_progress_is_reported_every_chunk_up_to_the_file_s_lines(
    db: Database, tmp_path: Path, three_rows
):
    path = _write(tmp_path / "j.csv", HEADER + "".join(f"q,d{i},ann,1,\n" for i in range(10)))
    seen: list[tuple[str, int, int]] = []
    import_files(db, ImportOptions(judgments=path), progress=lambda *report: seen.append(report))
    assert seen == [("judgments", done, 11) for done in (4, 7, 10, 11, 11)]


# --- the file's text, checked a block at a time -----------------------------------------------


def test_text_is_checked_a_block_at_a_time(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(text, "BLOCK_BYTES", 8)
    good = "a,b\n" + "é" * 30 + ",x\n\n" + "y" * 50
    assert text.check_text_file(_write(tmp_path / "good.csv", "\ufeff" + good)) == (4, False)
    latin = (good + "\n").encode() + "zz,\xe9t\xe9\n".encode("latin-1")
    with pytest.raises(ImportFileError, match=r"line 5: not UTF-8: byte 0xe9 at character 4"):
        text.check_text_file(_write(tmp_path / "latin.csv", latin))
    # a NUL character is refused in its cell, where its column is known: here only noticed
    assert text.check_text_file(_write(tmp_path / "nul.csv", good + "\nok\n\x00\n")) == (6, True)
    escaped = _write(tmp_path / "nul.jsonl", '{"a": 1}\n{"b": "x\\u0000"}\n')
    assert text.check_text_file(escaped) == (2, True)
    with pytest.raises(ImportFileError, match="file is empty"):
        text.check_text_file(_write(tmp_path / "blank.csv", "\ufeff" + " \n\t\n" * 9))


def test_a_refused_import_into_a_new_file_leaves_no_file(tmp_path: Path):
    bad = _write(tmp_path / "j.csv", HEADER + "q,d,ann,9,\n")
    new = tmp_path / "new.sqlite"
    with pytest.raises(ImportFileError):
        import_files(str(new), ImportOptions(judgments=bad))
    assert list(tmp_path.iterdir()) == [bad]
    kept = tmp_path / "kept.sqlite"
    open_database(kept).close()
    with pytest.raises(ImportFileError):
        import_files(str(kept), ImportOptions(judgments=bad))
    assert kept.exists()


# --- any chunk size: the same database, the same problems --------------------------------------

IDS = st.sampled_from(["q1", "q2", " q1", "q3", "", "Q1"])
DOCS = st.sampled_from(["d1", "d2", "D1", "dé", "d10", "d9"])
CELLS = {
    "judgments": st.tuples(
        IDS, DOCS, st.sampled_from(["ann", "bob", " ann"]),
        st.sampled_from(["0", "1", "2", "5", "3.0", "7", "", "x"]),
        st.sampled_from(["", "a note", "two\nlines", "=1", '"q"', "'=x"]),
    ),
    "queries": st.tuples(IDS, st.sampled_from(["text", "", "two\nlines", "t,comma"])),
    "run": st.tuples(
        IDS, DOCS, st.sampled_from(["1", "2", "3", "0", "x"]), st.sampled_from(["1.5", "", "n"])
    ),
    "trec": st.tuples(IDS.filter(bool), DOCS, st.sampled_from(["1", "2", "0.5", "-1", "x"])),
}  # fmt: skip
HEADERS = {
    "judgments": ["query_id", "doc_id", "rater", "grade", "note"],
    "queries": ["query_id", "text"],
    "run": ["query_id", "doc_id", "rank", "score"],
}
CHUNKY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _file(kind: str, rows: list[tuple], blank_after: set[int]) -> str:
    """The rows as CSV (a TREC run for ``trec``), with blank lines after some of them."""
    out = io.StringIO()
    if kind == "trec":
        for i, (query, document, score) in enumerate(rows):
            out.write(f"{query} Q0 {document} 0 {score} sys\n" + "\n" * (i in blank_after))
        return out.getvalue()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADERS[kind])
    for i, row in enumerate(rows):
        writer.writerow(row)
        out.write("\n" * (i in blank_after))
    return out.getvalue()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database already holding a query, a document and judgments some files change."""
    folder = tmp_path_factory.mktemp("chunks")
    with open_database(folder / "template.sqlite") as db:
        import_files(
            db,
            ImportOptions(
                queries=_write(folder / "q.csv", "query_id,text\nq1,first\n"),
                judgments=_write(folder / "j.csv", HEADER + "q1,d1,ann,2,\nq2,dé,bob,0,kept\n"),
            ),
        )
    return folder / "template.sqlite"


@contextmanager
def _copy(template: Path) -> Iterator[Database]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "db.sqlite"
        shutil.copyfile(template, path)
        with open_database(path) as db:
            yield db


def _outcome(template: Path, chunk_rows: int, files: dict, options: dict) -> tuple:
    """What an import with chunks of ``chunk_rows`` says, and the database after it (but the
    times of its changes)."""
    with pytest.MonkeyPatch.context() as patch, _copy(template) as db:
        patch.setattr(records, "CHUNK_ROWS", chunk_rows)
        try:
            said: object = str(import_files(db, ImportOptions(**files, **options)))
        except ImportFileError as error:
            said = (str(error), error.total)
        counts, *tables = snapshot(db)
        timeless = [[_without(row, "judged_at", "at") for row in table] for table in tables]
        return said, counts, timeless


def _without(row: dict, *names: str) -> dict:
    return {name: value for name, value in row.items() if name not in names}


@CHUNKY
@given(
    data=st.data(),
    kinds=st.sets(st.sampled_from(["judgments", "queries", "run", "trec"]), min_size=1),
    small=st.integers(1, 4),
    strict=st.booleans(),
)
def test_any_chunk_size_gives_the_same_import(template: Path, data, kinds, small, strict):
    if {"run", "trec"} <= kinds:
        kinds.discard("trec")
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for kind in sorted(kinds):
            rows = data.draw(st.lists(CELLS[kind], min_size=kind != "run", max_size=12), kind)
            blanks = data.draw(st.sets(st.integers(0, 11), max_size=3), f"{kind} blank lines")
            name = "run.txt" if kind == "trec" else f"{kind}.csv"
            path = _write(Path(folder) / name, _file(kind, rows, blanks))
            files["run" if kind == "trec" else kind] = path
        options = {"strict": strict}
        outcome = _outcome(template, small, files, options)
        assert outcome == _outcome(template, 1000, files, options)
        if set(files) == {"judgments"} and not strict:  # the whole-file reader agrees
            try:
                read_judgments(files["judgments"])
            except ImportFileError as error:
                assert outcome[0] == (str(error), error.total)
            else:
                assert isinstance(outcome[0], str)


@pytest.mark.postgres
def test_chunked_imports_on_postgresql_match_sqlite(
    pg_url, pg_owner_url, db: Database, tmp_path: Path, three_rows
):
    """COPY into the staging tables, ranks in code point order (not the server's collation),
    repeats with their lines, judgments changed with their history: as on SQLite."""
    documents = ["d10", "d9", "D9", "dé", "d\u4e2d", "a", "Z", "B", "b"]
    run = _write(
        tmp_path / "run.txt",
        "".join(f"q{i % 2} Q0 {d} 0 {1 + i % 3} sys\n" for i, d in enumerate(documents * 2)),
    )
    first = _write(tmp_path / "j1.csv", HEADER + "".join(f"q1,{d},ann,1,\n" for d in documents))
    again = _write(tmp_path / "j2.csv", HEADER + "".join(f"q1,{d},ann,2,x\n" for d in documents))
    repeated = _write(tmp_path / "j3.csv", HEADER + "q,a,ann,1,\n" * 5 + "q,b,ann,9,\n")
    with open_database(pg_owner_url) as owner, owner.engine.begin() as connection:
        # ids compared as a server in en_US compares (the owner's change: a lead makes none)
        connection.exec_driver_sql(
            'ALTER TABLE document ALTER COLUMN external_id TYPE VARCHAR(255) COLLATE "en-x-icu"'
        )
    postgres = open_database(pg_url)
    try:
        for database in (db, postgres):
            import_files(database, ImportOptions(run=run, judgments=first))
            summary = import_files(database, ImportOptions(judgments=again))
            assert str(summary).endswith("0 judgments added, 9 changed, 0 unchanged")
        outcomes = []
        for database in (db, postgres):
            counts, *tables = snapshot(database)  # each table sorted here, not by the server
            tables = [
                sorted(map(str, (_without(r, "judged_at", "at", "login") for r in t)))
                for t in tables
            ]
            outcomes.append((counts, tables, _problems(database, judgments=repeated)))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0][2][1] == 5  # four repeats and a bad grade
    finally:
        postgres.close()
