"""Input files (DESIGN section 7): every malformed file is refused with the file, line, column
and reason of its problems, and the database is left as it was; good files of every format
import as they should."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from snapshots import rows, snapshot

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.io.errors import MAX_PROBLEMS, ImportFileError
from judge_app.io.readers import FileReader
from judge_app.store import reads
from judge_app.store.database import Database, open_database
from judge_app.store.rater_queue import all_rater_names

JUDGMENTS_HEADER = "query_id,doc_id,rater,grade\n"
GOOD_ROW = "q1,d1,alice,2\n"


@pytest.fixture
def db(tmp_path: Path):
    database = open_database(tmp_path / "db.sqlite")
    yield database
    database.close()


@pytest.fixture
def seeded(db: Database, tmp_path: Path) -> Database:
    """A database already holding queries, documents, a run and judgments."""
    base = tmp_path / "seed"
    base.mkdir()
    import_files(
        db,
        ImportOptions(
            queries=_write(
                base / "queries.csv", "query_id,text\nq1,first query\nq2,second query\n"
            ),
            documents=_write(base / "docs.csv", "doc_id,title\nd1,One\nd2,Two\n"),
            run=_write(base / "run.csv", "query_id,doc_id,rank\nq1,d1,1\nq1,d2,2\n"),
            judgments=_write(
                base / "judgments.csv", JUDGMENTS_HEADER + "q1,d1,alice,3\nq2,d2,bob,0\n"
            ),
        ),
    )
    return db


def _write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def _counts(db: Database) -> dict[str, int]:
    with db.reading() as session:
        return reads.table_counts(session)


def _refused(db: Database, **files: object) -> ImportFileError:
    """Import ``files``, expecting ImportFileError and no change at all to the database."""
    before = snapshot(db)
    with pytest.raises(ImportFileError) as info:
        import_files(db, ImportOptions(**files))
    assert snapshot(db) == before
    return info.value


# --- one malformed file at a time ---------------------------------------------------------

# (name, kind, file content, import options, line, column, words the reason must contain)
MALFORMED = [
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q1,d2,alice,7\n", {},
        3, "grade", ["grade 7", "outside 0–5"], id="grade-7",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q1,d2,alice,2.5\n", {},
        3, "grade", ["2.5", "not a whole number"], id="grade-2.5",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q1,d2,alice,high\n", {},
        3, "grade", ["'high'", "not a grade"], id="grade-high",
    ),
    pytest.param(
        "j.qrels", "judgments", "q1 0 d1 1\nq1 0 d2 -1\n", {"rater": "alice"},
        2, "grade", ["-1", "trec_eval"], id="qrels-grade-minus-1",
    ),
    pytest.param(
        "j.csv", "judgments", "query_id,doc_id,rater\nq1,d1,alice\n", {},
        None, "grade", ["missing column 'grade'", "query_id, doc_id, rater"], id="missing-column",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + " ,d2,alice,1\n", {},
        3, "query_id", ["empty query id"], id="empty-query-id",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q1,,alice,1\n", {},
        3, "doc_id", ["empty document id"], id="empty-doc-id",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q1,d2,alice,\n", {},
        3, "grade", ["missing grade"], id="missing-grade",
    ),
    pytest.param(
        "j.csv", "judgments",
        "query_id,doc_id,rater,grade,skipped\nq1,d1,alice,2,false\nq1,d2,alice,3,true\n", {},
        3, "grade", ["skipped judgment has no grade"], id="skipped-with-grade",
    ),
    pytest.param(
        "j.csv", "judgments", "query_id,doc_id,rater,grade,duration_ms\nq1,d1,alice,2,1e30\n", {},
        2, "duration_ms", ["too large"], id="huge-duration",
    ),
    pytest.param(
        "r.csv", "run", "query_id,doc_id,rank\nq1,d1,1\nq1,d2,2\nq1,d3,1\n", {},
        4, None, ["duplicate result", "query_id q1, rank 1", "first on line 2"],
        id="duplicate-rank",
    ),
    pytest.param(
        "r.csv", "run", "query_id,doc_id,rank\nq1,d1,1\nq2,d1,1\nq1,d1,3\n", {},
        4, None, ["duplicate result", "query_id q1, doc_id d1", "first on line 2"],
        id="duplicate-query-doc",
    ),
    pytest.param(
        "r.csv", "run", "query_id,doc_id,rank\nq1,d1,1\nq1,d2,1e30\n", {},
        3, "rank", ["too large"], id="huge-rank",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + "q2,d1,alice,1\n q1 ,d1,alice,3\n", {},
        4, None, ["duplicate judgment", "rater alice", "first on line 2"], id="duplicate-judgment",
    ),
    pytest.param(
        "j.csv", "judgments", (JUDGMENTS_HEADER + GOOD_ROW).encode() + "q2,d\xe9,alice,1\n".encode("latin-1"),
        {}, 3, None, ["not UTF-8", "0xe9"], id="latin-1",
    ),
    pytest.param(
        "j.csv", "judgments", (JUDGMENTS_HEADER + GOOD_ROW + GOOD_ROW).encode() + b"q\x00,d1,alice,1\n",
        {}, 4, "query_id", ["NUL character"], id="nul-byte",
    ),
    pytest.param("j.csv", "judgments", b"", {}, None, None, ["empty"], id="empty"),
    pytest.param("j.csv", "judgments", " \n\t\n  \r\n", {}, None, None, ["empty"], id="whitespace"),
    pytest.param(
        "run.txt", "run", "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0\n", {},
        2, None, ["expected 6 fields, found 5"], id="trec-run-fields",
    ),
    pytest.param(
        "j.jsonl", "judgments",
        '{"query_id": "q1", "doc_id": "d1", "rater": "alice", "grade": 1}\n\n{"query_id": "q2",\n',
        {}, 3, None, ["not JSON"], id="jsonl-not-json",
    ),
    pytest.param(
        "j.jsonl", "judgments", '{"query_id": "q1", "doc_id": "d1", "rater": "a", "grade": 1}\n[1, 2]\n',
        {}, 2, None, ["not a JSON object"], id="jsonl-not-object",
    ),
    pytest.param(
        "j.jsonl", "judgments",
        '{"query_id": "q1", "doc_id": "d1", "rater": "a", "grade": 1}\n{"q": ' + "[" * 50_000 + "]" * 50_000 + "}\n",
        {}, 2, None, ["not JSON"], id="jsonl-nested-too-deeply",
    ),
    pytest.param(
        "j.jsonl", "judgments", '{"query_id": "q1", "doc_id": "d1", "rater": "a", "grade": ' + "1" * 5000 + "}\n",
        {}, 1, None, ["not JSON"], id="jsonl-huge-integer",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + "q1,d1,alice,2,3\n" + GOOD_ROW, {},
        2, None, ["expected 4 fields, found 5"], id="csv-first-row-extra-field",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + "q1,d1,alice,2,\n", {},
        2, None, ["expected 4 fields, found 5"], id="csv-trailing-delimiter",
    ),
    pytest.param(
        "j.csv", "judgments", "query_id,doc_id,rater,grade,note\n" 'q1,d1,alice,2,"two\nlines"\nq2,d1,alice,1,x,y\n',
        {}, 4, None, ["expected 5 fields, found 6"], id="csv-extra-field-after-multiline",
    ),
    pytest.param(
        "j.csv", "judgments", JUDGMENTS_HEADER + GOOD_ROW + 'q2,"d1,alice,1\nq3,d1,alice,1\n', {},
        3, None, ["never closed"], id="csv-unclosed-quote",
    ),
    pytest.param(
        "j.tsv", "judgments", "query_id\tdoc_id\trater\tgrade\nq1\td1\talice\t1\nq1\td2\talice\t9\n", {},
        3, "grade", ["grade 9"], id="tsv-grade-9",
    ),
    pytest.param(
        "j.qrels", "judgments", "q1 0 d1 1\n", {}, None, None, ["no rater"], id="qrels-without-rater",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "content", "options", "line", "column", "words"), MALFORMED
)
def test_malformed_file_is_refused_with_line_column_and_reason(
    seeded: Database, tmp_path: Path, name, kind, content, options, line, column, words
) -> None:
    path = _write(tmp_path / name, content)
    error = _refused(seeded, **{kind: path}, **options)
    first = error.problems[0]
    assert first.file == str(path)
    assert first.line == line
    assert first.column == column
    for word in words:
        assert word in first.reason
    assert str(path) in str(error)
    assert first.reason in str(error)


@pytest.mark.parametrize(
    ("name", "kind", "content", "options", "line", "column", "words"), MALFORMED
)
def test_malformed_file_writes_nothing_to_an_empty_database(
    db: Database, tmp_path: Path, name, kind, content, options, line, column, words
) -> None:
    path = _write(tmp_path / name, content)
    _refused(db, **{kind: path}, **options)
    assert set(_counts(db).values()) == {0}


def test_a_10_mb_header_is_cut_in_every_message(db: Database, tmp_path: Path) -> None:
    header = "x" * 10_000_000 + ",query_id"
    error = _refused(db, judgments=_write(tmp_path / "j.csv", header + "\na,q1\n"))
    assert [p.column for p in error.problems] == ["doc_id", "grade", "rater"]
    message = str(error)
    assert len(message) < 1_000
    assert message.count("… (10,000,010 characters)") == 3
    assert (
        f"{tmp_path / 'j.csv'}, column grade: missing column 'grade' (the header has: xxx"
        in message
    )


def test_a_long_cell_is_cut_where_the_reason_quotes_it(db: Database, tmp_path: Path) -> None:
    cell = "9" * 100 + "x"
    error = _refused(
        db, judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + f"q1,d1,a,{cell}\n")
    )
    reason = error.problems[0].reason
    assert reason == f"'{'9' * 70}…' (101 characters) is not a grade (a whole number 0–5)"


def test_every_message_line_is_bounded() -> None:
    from judge_app.errors import JudgeAppError

    error = JudgeAppError(f"first line\nunknown rater {'y' * 3_000_000}\nlast line")
    lines = str(error).splitlines()
    assert lines[0] == "first line" and lines[2] == "last line"
    assert len(lines[1]) < 600 and lines[1].endswith("… (3,000,014 characters)")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_db(request: pytest.FixtureRequest, tmp_path: Path):
    """A new database on SQLite, and on the PostgreSQL server when there is one."""
    where = (
        tmp_path / "db.sqlite" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    )
    database = open_database(where)
    yield database
    database.close()


# (file name, content, import options, line, column) of files with a NUL character in a cell
NUL_FILES = [
    pytest.param(
        "j.jsonl",
        '{"query_id": "q1", "doc_id": "d1", "rater": "a", "grade": 1}\n'
        '{"query_id": "q\\u00002", "doc_id": "d1", "rater": "a", "grade": 1}\n',
        {}, 2, "query_id", id="jsonl-query-id",
    ),
    pytest.param(
        "j.jsonl",
        '{"query_id": "q1", "doc_id": "d1", "rater": "a", "grade": 1, "note": "a\\u0000b"}\n',
        {}, 1, "note", id="jsonl-note",
    ),
    pytest.param(
        "j.jsonl",
        '{"query_id": "q1", "doc_id": "d1", "judge": "\\u0000", "grade": 1}\n',
        {}, 1, "judge", id="jsonl-rater",
    ),
    pytest.param(
        "j.csv", JUDGMENTS_HEADER.replace("grade", "grade,note") + 'q1,d1,a,1,"x\ny\x00"\n',
        {}, 2, "note", id="csv-multiline-note",
    ),
    pytest.param(
        "j.tsv", "qid\tdocno\trelevance\nq1\td\x001\t1\n", {"rater": "a"}, 2, "docno",
        id="tsv-doc-id",
    ),
    pytest.param("j.qrels", "q1 0 d1 1\n\nq\x002 0 d1 1\n", {"rater": "a"}, 3, "query_id",
                 id="qrels-query-id"),
    pytest.param("r.run", "q1 Q0 d1 1 2.0 t\x00ag\n", {}, 1, "tag", id="run-tag"),
    pytest.param("q.csv", "query_id,text\nq1,te\x00xt\n", {}, 2, "text", id="query-text"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "options", "line", "column"), NUL_FILES)
def test_a_nul_character_is_refused_where_it_is_on_every_database(
    any_db: Database, tmp_path: Path, name, content, options, line, column
) -> None:
    path = _write(tmp_path / name, content)
    kind = {"j": "judgments", "r": "run", "q": "queries"}[name[0]]
    error = _refused(any_db, **{kind: path}, **options)
    assert [(p.file, p.line, p.column) for p in error.problems] == [(str(path), line, column)]
    assert "NUL character" in error.problems[0].reason
    assert set(_counts(any_db).values()) == {0}


UTF16 = {
    "utf-16-le-bom": b"\xff\xfe" + (JUDGMENTS_HEADER + GOOD_ROW).encode("utf-16-le"),
    "utf-16-be-bom": b"\xfe\xff" + (JUDGMENTS_HEADER + GOOD_ROW).encode("utf-16-be"),
    "utf-16-le": (JUDGMENTS_HEADER + GOOD_ROW).encode("utf-16-le"),
    "utf-16-be": (JUDGMENTS_HEADER + GOOD_ROW).encode("utf-16-be"),
}


@pytest.mark.parametrize("name", ["j.csv", "j.tsv", "j.jsonl", "j.qrels"])
@pytest.mark.parametrize("encoding", list(UTF16))
def test_utf16_is_named_with_what_to_do(db: Database, tmp_path: Path, name, encoding) -> None:
    path = _write(tmp_path / name, UTF16[encoding])
    error = _refused(db, judgments=path, rater="alice")
    assert [(p.file, p.line, p.column, p.reason) for p in error.problems] == [
        (str(path), None, None, "UTF-16: save as UTF-8")
    ]


def test_file_not_found(db: Database, tmp_path: Path) -> None:
    path = tmp_path / "missing.csv"
    error = _refused(db, judgments=path)
    assert [(p.file, p.line, p.column, p.reason) for p in error.problems] == [
        (str(path), None, None, "file not found")
    ]
    assert not path.exists()


def test_a_folder_is_not_a_file(db: Database, tmp_path: Path) -> None:
    error = _refused(db, queries=tmp_path)
    assert "folder" in error.problems[0].reason


def test_every_bad_cell_of_a_row_is_reported_in_line_order(db: Database, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "j.csv",
        JUDGMENTS_HEADER + ",d2,alice,1\nq1,d1,alice,\nq1,d3,,9\nq1,d1,alice,2\n",
    )
    error = _refused(db, judgments=path)
    found = [(p.line, p.column) for p in error.problems]
    assert found == [(2, "query_id"), (3, "grade"), (4, "grade"), (4, "rater"), (5, None)]
    assert "missing grade" in error.problems[1].reason
    assert "first on line 3" in error.problems[4].reason
    assert error.total == 5


def test_unknown_query_and_document_under_strict(seeded: Database, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "j.csv", JUDGMENTS_HEADER + "q1,d1,carol,1\nq9,d1,carol,2\nq1,d7,carol,3\n"
    )
    error = _refused(seeded, judgments=path, strict=True)
    found = [(p.file, p.line, p.column) for p in error.problems]
    assert found == [(str(path), 3, "query_id"), (str(path), 4, "doc_id")]
    assert "unknown query 'q9'" in error.problems[0].reason
    assert "unknown document 'd7'" in error.problems[1].reason


def test_strict_accepts_queries_and_documents_given_in_the_same_import(
    db: Database, tmp_path: Path
) -> None:
    import_files(
        db,
        ImportOptions(
            queries=_write(tmp_path / "q.csv", "query_id,text\nq1,hello\n"),
            documents=_write(tmp_path / "d.csv", "doc_id\nd1\n"),
            judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + GOOD_ROW),
            strict=True,
        ),
    )
    assert _counts(db)["judgments"] == 1


def test_unknown_query_and_document_are_created_without_strict(
    seeded: Database, tmp_path: Path
) -> None:
    path = _write(tmp_path / "j.csv", JUDGMENTS_HEADER + "q9,d7,carol,2\n")
    import_files(seeded, ImportOptions(judgments=path))
    with seeded.reading() as session:
        queries = reads.queries_frame(session).set_index("query_id")
        documents = reads.documents_frame(session).set_index("doc_id")
        judgments = reads.judgments_frame(session)
    assert pd.isna(queries.loc["q9", "text"]) and pd.isna(queries.loc["q9", "description"])
    assert queries.loc["q1", "text"] == "first query"
    assert documents.loc["d7"].isna().all()
    row = judgments[(judgments["query_id"] == "q9") & (judgments["rater"] == "carol")]
    assert row[["doc_id", "grade"]].values.tolist() == [["d7", 2]]


def test_unknown_run_query_under_strict(seeded: Database, tmp_path: Path) -> None:
    path = _write(tmp_path / "run.txt", "q1 Q0 d1 1 3.0 bm25\nq3 Q0 d2 2 2.0 bm25\n")
    error = _refused(seeded, run=path, strict=True)
    assert [(p.line, p.column) for p in error.problems] == [(2, "query_id")]


def test_multiline_quoted_fields_shift_line_numbers(db: Database, tmp_path: Path) -> None:
    text = (
        "query_id,doc_id,rater,grade,note\n"  # 1
        'q1,d1,alice,2,"a note\non three\nlines"\n'  # 2-4
        "\n"  # 5: blank, skipped
        ",,,,\n"  # 6: a record of empty cells
        "   \n"  # 7: spaces only, skipped
        'q2,d1,alice,1,"x\n\ny"\n'  # 8-10
        "q3,d1,alice,6,z\n"  # 11
        '"q4\n",d1,alice,"\n9"\n'  # 12-13: the bad grade is on line 13, its record starts on 12
    )
    error = _refused(db, judgments=_write(tmp_path / "j.csv", text))
    found = [(p.line, p.column) for p in error.problems]
    assert found == [
        (6, "doc_id"), (6, "grade"), (6, "query_id"), (6, "rater"), (11, "grade"), (12, "grade")
    ]  # fmt: skip


def test_multiline_field_in_tsv_and_windows_line_ends(db: Database, tmp_path: Path) -> None:
    text = 'query_id\ttext\r\nq1\t"two\r\nlines"\r\n  \r\n\t"no id"\r\n'
    error = _refused(db, queries=_write(tmp_path / "q.tsv", text))
    assert [(p.line, p.column, p.reason) for p in error.problems] == [
        (5, "query_id", "empty query id")
    ]


def test_windows_line_ends_are_read_and_quoted_line_breaks_kept(
    db: Database, tmp_path: Path
) -> None:
    text = 'query_id,text\r\nq1,"two\r\nlines"\r\n\r\nq2,"a bare\rreturn"\r\nq3,plain\r\n'
    import_files(db, ImportOptions(queries=_write(tmp_path / "q.csv", text)))
    with db.reading() as session:
        texts = reads.queries_frame(session)["text"].tolist()
    assert texts == ["two\r\nlines", "a bare\rreturn", "plain"]


def test_jsonl_line_numbers_count_blank_lines(db: Database, tmp_path: Path) -> None:
    rows = [{"query_id": "q1", "text": "a"}, {"query_id": "", "text": "b"}]
    text = "\n" + json.dumps(rows[0]) + "\n\n  \n" + json.dumps(rows[1]) + "\n"
    error = _refused(db, queries=_write(tmp_path / "q.jsonl", text))
    assert [(p.line, p.column) for p in error.problems] == [(5, "query_id")]


def test_trec_line_numbers_count_only_line_feeds(db: Database, tmp_path: Path) -> None:
    # a form feed or other Unicode line break inside a line does not start a new line
    text = "# comment\nq1 0 d1 1\x0c\nq1 0 d2\u2028 9\n"
    error = _refused(db, judgments=_write(tmp_path / "j.qrels", text), rater="alice")
    assert [(p.line, p.column) for p in error.problems] == [(3, "grade")]


def test_more_than_20_problems(db: Database, tmp_path: Path) -> None:
    bad = "".join(f"q{i},d1,alice,{7 + i}\n" for i in range(25))
    missing = "".join(f"q{i},d2,alice,\n" for i in range(10))
    error = _refused(db, judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + bad + missing))
    assert len(error.problems) == MAX_PROBLEMS == 20
    assert error.total == 35
    assert [p.line for p in error.problems] == list(range(2, 22))
    assert str(error).splitlines()[-1] == "… and 15 more problems"
    assert len(str(error).splitlines()) == 21


def test_exactly_20_problems_has_no_more_line(db: Database, tmp_path: Path) -> None:
    bad = "".join(f"q{i},d1,alice,x\n" for i in range(20))
    error = _refused(db, judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + bad))
    assert error.total == 20 and len(error.problems) == 20
    assert "more problems" not in str(error)


def test_more_than_20_duplicates_and_trec_lines(db: Database, tmp_path: Path) -> None:
    rows = "".join("q1,d1,alice,1\n" for _ in range(30))
    error = _refused(db, judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + rows))
    assert error.total == 29 and len(error.problems) == 20
    assert str(error).endswith("… and 9 more problems")
    trec = "".join("q1 0 d1\n" for _ in range(25))
    error = _refused(db, judgments=_write(tmp_path / "j.qrels", trec), rater="alice")
    assert len(error.problems) == 20 and [p.line for p in error.problems] == list(range(1, 21))


def test_problems_of_two_files_are_all_reported_and_nothing_is_written(
    db: Database, tmp_path: Path
) -> None:
    queries = _write(tmp_path / "q.csv", "query_id,text\nq1,good\nq2,fine\n")
    documents = _write(tmp_path / "d.jsonl", '{"doc_id": "d1"}\n{"doc_id": " "}\n')
    judgments = _write(tmp_path / "j.csv", JUDGMENTS_HEADER + GOOD_ROW + "q2,d1,alice,11\n")
    error = _refused(db, queries=queries, documents=documents, judgments=judgments)
    assert [(p.file, p.line, p.column) for p in error.problems] == [
        (str(documents), 2, "doc_id"),
        (str(judgments), 3, "grade"),
    ]
    assert error.total == 2
    assert set(_counts(db).values()) == {0}


def test_good_queries_file_is_not_imported_when_the_judgments_file_is_bad(
    seeded: Database, tmp_path: Path
) -> None:
    queries = _write(tmp_path / "q.csv", "query_id,text\nq1,changed text\nq5,new\n")
    judgments = _write(tmp_path / "j.csv", JUDGMENTS_HEADER + "q5,d1,alice,high\n")
    error = _refused(seeded, queries=queries, judgments=judgments)
    assert [p.file for p in error.problems] == [str(judgments)]
    with seeded.reading() as session:
        texts = reads.queries_frame(session).set_index("query_id")["text"].to_dict()
    assert texts == {"q1": "first query", "q2": "second query"}


def test_problem_totals_add_up_across_files(db: Database, tmp_path: Path) -> None:
    ranks = "q,d,0\n" + "".join(f"q,d{i},x\n" for i in range(24))
    first = _write(tmp_path / "r.csv", "query_id,doc_id,rank\n" + ranks)
    second = _write(
        tmp_path / "j.csv", JUDGMENTS_HEADER + "".join(f"q{i},d,r,9\n" for i in range(5))
    )
    error = _refused(db, run=first, judgments=second)
    assert len(error.problems) == 20
    assert all(p.file == str(first) and p.column == "rank" for p in error.problems)
    # 25 bad ranks and 5 bad grades; the bad ranks are not also "duplicate ranks"
    assert error.total == 25 + 5
    assert str(error).endswith("… and 10 more problems")


def test_unreadable_keys_are_not_reported_as_duplicates(db: Database, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "r.csv", "query_id,doc_id,rank\nq1,,1\nq1, ,2\nq1,d1,x\nq1,d2,y\nq1,d3,1\n"
    )
    error = _refused(db, run=path)
    assert [(p.line, p.column) for p in error.problems] == [
        (2, "doc_id"), (3, "doc_id"), (4, "rank"), (5, "rank"), (6, None)
    ]  # fmt: skip
    assert "duplicate result (query_id q1, rank 1); first on line 2" in error.problems[-1].reason


# --- good files -----------------------------------------------------------------------------


def _write_table(path: Path, rows: list[dict[str, object]]) -> Path:
    """Rows as CSV, TSV or JSON Lines by the path's extension."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return path
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle, list(rows[0]), delimiter="\t" if path.suffix == ".tsv" else ",",
            lineterminator="\n",
        )  # fmt: skip
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize("extension", [".csv", ".tsv", ".jsonl"])
def test_every_kind_of_file_in_every_format(db: Database, tmp_path: Path, extension: str) -> None:
    queries = [
        {"qid": "q1", "text": 'café, "quoted"', "description": "first"},
        {"qid": "q2", "text": "second\nline", "description": ""},
    ]
    documents = [
        {"docno": "d1", "title": "Über", "url": "http://x/1", "body": "body 1"},
        {"docno": "d2", "title": "", "url": "", "body": "b"},
    ]
    results = [
        {"query_id": "q1", "doc_id": "d2", "rank": 1, "score": 2.5},
        {"query_id": "q1", "doc_id": "d1", "rank": 2, "score": 1.25},
        {"query_id": "q2", "doc_id": "d1", "rank": 1, "score": ""},
    ]
    judgments = [
        {"topic": "q1", "doc_id": "d1", "assessor": "alice", "relevance": 3, "note": "ok"},
        {"topic": "q1", "doc_id": "d2", "assessor": "bob", "relevance": "0", "note": ""},
        {"topic": "q2", "doc_id": "d1", "assessor": "alice", "relevance": "2.0", "note": "=1+1"},
    ]
    summary = import_files(
        db,
        ImportOptions(
            queries=_write_table(tmp_path / f"queries{extension}", queries),
            documents=_write_table(tmp_path / f"docs{extension}", documents),
            run=_write_table(tmp_path / f"bm25{extension}", results),
            judgments=_write_table(tmp_path / f"judgments{extension}", judgments),
        ),
    )
    assert "run 'bm25', 3 results for 2 queries" in str(summary)
    assert "3 judgments added, 0 changed, 0 unchanged" in str(summary)
    with db.reading() as session:
        got_queries = rows(reads.queries_frame(session))
        got_documents = rows(reads.documents_frame(session))
        got_results = reads.results_frame(session)
        got_judgments = reads.judgments_frame(session)
    assert got_queries == [
        {"query_id": "q1", "text": 'café, "quoted"', "description": "first"},
        {"query_id": "q2", "text": "second\nline", "description": None},
    ]
    assert got_documents == [
        {"doc_id": "d1", "title": "Über", "url": "http://x/1", "body": "body 1"},
        {"doc_id": "d2", "title": None, "url": None, "body": "b"},
    ]
    assert got_results[["run", "query_id", "doc_id", "rank"]].values.tolist() == [
        ["bm25", "q1", "d2", 1], ["bm25", "q1", "d1", 2], ["bm25", "q2", "d1", 1]
    ]  # fmt: skip
    assert got_results["score"].tolist()[:2] == [2.5, 1.25]
    assert pd.isna(got_results["score"].iloc[2])
    columns = ["query_id", "doc_id", "rater", "grade", "skipped", "note"]
    assert [[row[name] for name in columns] for row in rows(got_judgments)] == [
        ["q1", "d1", "alice", 3, False, "ok"],
        ["q1", "d2", "bob", 0, False, None],
        ["q2", "d1", "alice", 2, False, "=1+1"],
    ]  # fmt: skip
    assert got_judgments["query_text"].tolist() == [
        'café, "quoted"',
        'café, "quoted"',
        "second\nline",
    ]


@pytest.mark.parametrize("extension", [".csv", ".tsv"])
def test_utf8_with_bom(db: Database, tmp_path: Path, extension: str) -> None:
    sep = "," if extension == ".csv" else "\t"
    text = f"query_id{sep}text\nq1{sep}naïve\n"
    path = _write(tmp_path / f"q{extension}", b"\xef\xbb\xbf" + text.encode("utf-8"))
    import_files(db, ImportOptions(queries=path))
    with db.reading() as session:
        assert reads.queries_frame(session)["text"].tolist() == ["naïve"]


def test_jsonl_with_bom_and_typed_values(db: Database, tmp_path: Path) -> None:
    lines = [
        {"query_id": 1, "doc_id": "d1", "rater": "alice", "grade": 2, "skipped": False, "note": None},
        {"query_id": "2", "doc_id": "d1", "rater": "alice", "grade": None, "skipped": True, "duration_ms": 1500},
    ]  # fmt: skip
    text = "".join(json.dumps(line) + "\r\n" for line in lines)
    import_files(
        db, ImportOptions(judgments=_write(tmp_path / "j.jsonl", b"\xef\xbb\xbf" + text.encode()))
    )
    with db.reading() as session:
        frame = reads.judgments_frame(session)
    assert frame["query_id"].tolist() == ["1", "2"]
    assert frame["grade"].tolist()[0] == 2 and pd.isna(frame["grade"].iloc[1])
    assert frame["skipped"].tolist() == [False, True]
    assert pd.isna(frame["duration_ms"].iloc[0]) and frame["duration_ms"].iloc[1] == 1500


def test_trec_run_is_ordered_as_trec_eval_orders_it(db: Database, tmp_path: Path) -> None:
    # the rank column is nonsense on purpose: only score, then document id, decide
    path = _write(
        tmp_path / "run.txt",
        "# a comment line\n"
        "q1 Q0 dA 1 1.0 myrun\n"
        "q1 Q0 dC 9 2.0 myrun\n"
        "q1 Q0 dB 1 1.0 myrun\n"
        "\n"
        "q1 Q0 d9 5 1 myrun\n"
        "q1 Q0 d10 5 1e0 myrun\n"
        "q2 Q0 dB 3 -0.5 myrun\n"
        "q2 Q0 dA 2 -0.5 myrun\n"
        "q2 Q0 dZ 1 -1.5 myrun\n"
        "q1 Q0 dD 7 1.00 myrun\n",
    )
    import_files(db, ImportOptions(run=path))
    with db.reading() as session:
        frame = reads.results_frame(session)
    assert set(frame["run"]) == {"myrun"}
    ranks = {(q, d): r for q, d, r in frame[["query_id", "doc_id", "rank"]].itertuples(index=False)}
    # q1: dC (2.0), then the 1.0 ties by doc id descending: dD > dB > dA > d9 > d10
    assert ranks == {
        ("q1", "dC"): 1, ("q1", "dD"): 2, ("q1", "dB"): 3, ("q1", "dA"): 4, ("q1", "d9"): 5,
        ("q1", "d10"): 6, ("q2", "dB"): 1, ("q2", "dA"): 2, ("q2", "dZ"): 3,
    }  # fmt: skip
    # rows are read in file order, each with the line it came from
    reader = FileReader(path, "results")
    (chunk,) = reader.chunks()
    assert chunk.frame["doc_id"].tolist() == ["dA", "dC", "dB", "d9", "d10", "dB", "dA", "dZ", "dD"]
    lines = reader.records.lines(range(9))
    assert [lines[row] for row in range(9)] == [2, 3, 4, 6, 7, 8, 9, 10, 11]


def test_trec_run_ranks_in_the_database(db: Database, tmp_path: Path) -> None:
    path = _write(tmp_path / "r.trec", "q1 Q0 a 1 5 t\nq1 Q0 b 2 5 t\nq1 Q0 c 3 7 t\n")
    import_files(db, ImportOptions(run=path))
    with db.reading() as session:
        frame = reads.results_frame(session)
    assert frame[["run", "doc_id", "rank", "score"]].values.tolist() == [
        ["t", "c", 1, 7.0], ["t", "b", 2, 5.0], ["t", "a", 3, 5.0]
    ]  # fmt: skip


def test_run_name_from_option_tag_or_file_name(tmp_path: Path) -> None:
    trec = _write(tmp_path / "system-a.txt", "q1 Q0 d1 1 1.0 tagged\n")
    csv_run = _write(tmp_path / "system-b.csv", "query_id,doc_id,rank\nq1,d1,1\n")

    def name(path: Path, run_name: str | None = None) -> str:
        reader = FileReader(path, "results", run_name=run_name)
        list(reader.chunks())  # the tag is known once read
        return reader.run_name

    assert name(trec) == "tagged"
    assert name(trec, "named") == "named"
    assert name(csv_run) == "system-b"
    assert name(csv_run, "named") == "named"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bm25.run", "# no results\n\n# none at all\n"),
        ("bm25.csv", "query_id,doc_id,rank\n"),
        ("bm25.tsv", "query_id\tdoc_id\trank\n\n  \n"),
    ],
)
def test_a_run_without_results_is_refused_and_the_run_kept(
    seeded: Database, tmp_path: Path, name: str, content: str
) -> None:
    path = _write(tmp_path / name, content)
    error = _refused(seeded, run=path, run_name="run")  # the run the seed imported
    assert [(p.file, p.line, p.column, p.reason) for p in error.problems] == [
        (str(path), None, None, "has no results: nothing was imported")
    ]


@pytest.mark.parametrize(
    ("kind", "name", "content", "noun"),
    [
        ("judgments", "j.csv", JUDGMENTS_HEADER + "\n", "judgments"),
        ("judgments", "j.qrels", "# graded later\n", "judgments"),
        ("queries", "q.tsv", "query_id\ttext\n", "queries"),
        ("documents", "d.csv", "doc_id,title\n", "documents"),
    ],
)
def test_a_file_of_nothing_to_add_says_so_and_changes_nothing(
    seeded: Database, tmp_path: Path, kind: str, name: str, content: str, noun: str
) -> None:
    before = snapshot(seeded)
    path = _write(tmp_path / name, content)
    summary = import_files(seeded, ImportOptions(**{kind: path}, rater="alice"))
    assert str(summary) == f"{path}: no {noun} in the file: nothing imported"
    assert snapshot(seeded) == before


def test_trec_run_with_two_tags_needs_a_name(db: Database, tmp_path: Path) -> None:
    path = _write(tmp_path / "run.txt", "q1 Q0 d1 1 1.0 tagA\nq1 Q0 d2 2 0.5 tagB\n")
    error = _refused(db, run=path)
    assert len(error.problems) == 1
    problem = error.problems[0]
    assert (problem.file, problem.line, problem.column) == (str(path), None, "tag")
    assert (
        "several run tags" in problem.reason
        and "tagA" in problem.reason
        and "tagB" in problem.reason
    )
    import_files(db, ImportOptions(run=path, run_name="merged"))
    with db.reading() as session:
        assert set(reads.results_frame(session)["run"]) == {"merged"}


def test_qrels_with_rater(db: Database, tmp_path: Path) -> None:
    path = _write(tmp_path / "qrels.txt", "q1 0 d1 2\n# comment\nq1 0 d2 0\nq2 iter d1 5\n")
    summary = import_files(db, ImportOptions(judgments=path, rater="alice"))
    assert "3 judgments added" in str(summary)
    with db.reading() as session:
        frame = reads.judgments_frame(session)
    assert frame[["query_id", "doc_id", "rater", "grade", "skipped"]].values.tolist() == [
        ["q1", "d1", "alice", 2, False], ["q1", "d2", "alice", 0, False], ["q2", "d1", "alice", 5, False]
    ]  # fmt: skip
    assert frame["note"].isna().all()
    reader = FileReader(path, "judgments", rater="alice")
    (chunk,) = reader.chunks()
    assert len(chunk.frame) == 3 and reader.records.lines([0, 1, 2]) == {0: 1, 1: 3, 2: 4}


def test_rater_option_names_the_rater_of_a_csv_without_rater_column(
    db: Database, tmp_path: Path
) -> None:
    path = _write(tmp_path / "j.csv", "query_id,doc_id,grade\nq1,d1,1\n")
    _refused(db, judgments=path)
    import_files(db, ImportOptions(judgments=path, rater="bob"))
    with db.reading() as session:
        assert reads.judgments_frame(session)["rater"].tolist() == ["bob"]


def test_reimport_of_the_same_judgments_is_idempotent(db: Database, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "j.csv",
        "query_id,doc_id,rater,grade,skipped,note\n"
        "q1,d1,alice,2,,a note\nq1,d2,alice,,true,cannot tell\nq2,d1,bob,0,false,\n",
    )
    first = import_files(db, ImportOptions(judgments=path))
    assert f"{path}: 3 judgments added, 0 changed, 0 unchanged" in str(first)
    before = snapshot(db)
    assert before[0]["judgments"] == 3
    assert before[0]["judgment events"] == 0  # a judgment an import adds enters as it is
    second = import_files(db, ImportOptions(judgments=path))
    assert str(second) == f"{path}: 0 judgments added, 0 changed, 3 unchanged"
    assert snapshot(db) == before


def test_changing_one_grade_updates_it_and_appends_one_event(db: Database, tmp_path: Path) -> None:
    rows = "q1,d1,alice,2\nq1,d2,alice,3\nq2,d1,bob,0\n"
    import_files(db, ImportOptions(judgments=_write(tmp_path / "j1.csv", JUDGMENTS_HEADER + rows)))
    events_before = _counts(db)["judgment events"]
    changed = _write(
        tmp_path / "j2.csv", JUDGMENTS_HEADER + rows.replace("q1,d2,alice,3", "q1,d2,alice,1")
    )
    summary = import_files(db, ImportOptions(judgments=changed))
    assert str(summary) == f"{changed}: 0 judgments added, 1 changed, 2 unchanged"
    assert _counts(db)["judgment events"] == events_before + 1
    with db.reading() as session:
        history = reads.history_frame(session)
        judgments = reads.judgments_frame(session)
    last = history.iloc[-1]
    assert (last["rater"], last["query_id"], last["doc_id"], last["action"]) == (
        "alice",
        "q1",
        "d2",
        "import",
    )
    assert (last["old_grade"], last["new_grade"]) == (3, 1)
    assert (bool(last["old_skipped"]), bool(last["new_skipped"])) == (False, False)
    assert judgments["grade"].tolist() == [2, 1, 0]


def test_reimporting_a_run_replaces_its_results(db: Database, tmp_path: Path) -> None:
    first = _write(
        tmp_path / "bm25.csv", "query_id,doc_id,rank,score\nq1,d1,1,3\nq1,d2,2,2\nq2,d3,1,1\n"
    )
    other = _write(tmp_path / "other.csv", "query_id,doc_id,rank\nq1,d1,1\n")
    import_files(db, ImportOptions(run=first))
    import_files(db, ImportOptions(run=other))
    second = _write(tmp_path / "run2.csv", "query_id,doc_id,rank,score\nq1,d2,1,9\nq3,d1,1,8\n")
    import_files(db, ImportOptions(run=second, run_name="bm25"))
    counts = _counts(db)
    assert counts["runs"] == 2 and counts["results"] == 3
    with db.reading() as session:
        frame = reads.results_frame(session, ["bm25"])
        untouched = reads.results_frame(session, ["other"])
    assert frame[["query_id", "doc_id", "rank", "score"]].values.tolist() == [
        ["q1", "d2", 1, 9.0], ["q3", "d1", 1, 8.0]
    ]  # fmt: skip
    assert untouched[["query_id", "doc_id", "rank"]].values.tolist() == [["q1", "d1", 1]]


def test_ids_and_rater_names_are_read_in_unicode_nfc(db: Database, tmp_path: Path) -> None:
    nfd, nfc = "cafe\u0301", "caf\u00e9"
    import_files(
        db,
        ImportOptions(
            queries=_write(tmp_path / "q.jsonl", f'{{"query_id": "{nfd}", "text": "t"}}\n'),
            judgments=_write(tmp_path / "j.csv", JUDGMENTS_HEADER + f"{nfc},d1,{nfd},1\n"),
        ),
    )
    import_files(
        db, ImportOptions(judgments=_write(tmp_path / "j.qrels", f"{nfd} 0 d2 2\n"), rater=nfc)
    )
    with db.reading() as session:
        judgments = reads.judgments_frame(session)
        counts = reads.table_counts(session)
    assert (counts["queries"], counts["raters"]) == (1, 1)
    assert set(judgments["query_id"]) == set(judgments["rater"]) == {nfc}


def test_a_file_in_two_normal_forms_repeats_its_key(db: Database, tmp_path: Path) -> None:
    path = _write(tmp_path / "j.csv", JUDGMENTS_HEADER + "cafe\u0301,d1,a,1\ncaf\u00e9,d1,a,2\n")
    error = _refused(db, judgments=path)
    assert [(p.line, p.column) for p in error.problems] == [(3, None)]
    assert "duplicate judgment" in error.problems[0].reason


@pytest.mark.parametrize(
    ("name", "content", "options", "line", "column", "reason"),
    [
        ("j.csv", JUDGMENTS_HEADER + "q1,d1,bob,1\nq1,d2,Al ice,1\n", {}, 3, "rater",
         "rater 'Al ice' differs from the rater 'alice' only by case or spaces: use 'alice'"),
        ("j.tsv", "qid\tdocno\tjudge\tgrade\nq1\td1\tcarol\t1\nq1\td2\tCar ol\t2\n", {}, 3, "judge",
         "rater 'Car ol' differs from the rater 'carol' only by case or spaces: use 'carol'"),
        ("j.qrels", "# by the lead\nq1 0 d1 1\n", {"rater": "  B ob "}, 2, "rater",
         "rater 'B ob' differs from the rater 'bob' only by case or spaces: use 'bob'"),
    ],
)  # fmt: skip
def test_a_rater_only_spaces_away_from_another_is_refused(
    seeded: Database, tmp_path: Path, name, content, options, line, column, reason
) -> None:
    path = _write(tmp_path / name, content)
    error = _refused(seeded, judgments=path, **options)
    assert [(p.file, p.line, p.column, p.reason) for p in error.problems] == [
        (str(path), line, column, reason)
    ]


def test_a_rater_name_is_the_rater_however_cased_or_spaced(
    seeded: Database, tmp_path: Path
) -> None:
    """ "  Ben  " is the rater "ben": an import maps such names to the rater, the database's
    or the first the file gives, and "Adjudicated" to the lead's role."""
    csv = JUDGMENTS_HEADER + "q1,d2,  ALICE  ,4\nq2,d1,Dan,1\nq2,d2,DAN ,2\nq1,d2,Adjudicated,5\n"
    import_files(seeded, ImportOptions(judgments=_write(tmp_path / "j.csv", csv)))
    import_files(
        seeded, ImportOptions(judgments=_write(tmp_path / "j.qrels", "q1 0 d2 1\n"), rater=" Bob ")
    )
    with seeded.reading() as session:
        frame = reads.judgments_frame(session)
        names = all_rater_names(session)
    assert names == ["Dan", "adjudicated", "alice", "bob"]
    graded = frame.set_index(["query_id", "doc_id", "rater"])["grade"].to_dict()
    assert graded == {
        ("q1", "d1", "alice"): 3, ("q1", "d2", "alice"): 4, ("q2", "d2", "bob"): 0,
        ("q1", "d2", "bob"): 1, ("q2", "d1", "Dan"): 1, ("q2", "d2", "Dan"): 2,
        ("q1", "d2", "adjudicated"): 5,
    }  # fmt: skip


def test_ids_are_stripped_and_header_names_are_case_insensitive(
    db: Database, tmp_path: Path
) -> None:
    path = _write(tmp_path / "j.csv", " Query_ID , DocNo ,Rater,GRADE\n  q1 ,\td1 , alice ,  4 \n")
    import_files(db, ImportOptions(judgments=path))
    with db.reading() as session:
        frame = reads.judgments_frame(session)
    assert frame[["query_id", "doc_id", "rater", "grade"]].values.tolist() == [
        ["q1", "d1", "alice", 4]
    ]
