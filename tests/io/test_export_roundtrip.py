"""Exports (DESIGN section 7): a judgments CSV imports back exactly, its text cells are inert in
a spreadsheet, and aggregated qrels hold the grades each method should give."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from judge_app.commands.export import ExportOptions, export
from judge_app.commands.importing import ImportOptions, import_files
from judge_app.errors import UsageError
from judge_app.io.errors import ExportError
from judge_app.io.exports import Judgments, format_grade, write_judgments_csv, write_qrels
from judge_app.metrics.codes import Graded
from judge_app.store import bulk, judgments, reads
from judge_app.store.database import Database, open_database

RISKY = ("=", "+", "-", "@", "\t", "\r")
TEXT_COLUMNS = ("query_id", "query_text", "doc_id", "doc_title", "rater", "note")


@pytest.fixture
def db(tmp_path: Path):
    database = open_database(tmp_path / "first.sqlite")
    yield database
    database.close()


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _populate(db: Database, folder: Path) -> None:
    """Queries, documents and judgments whose ids, texts and notes a spreadsheet would run."""
    queries = [
        {"query_id": "=SUM(A1:A9)", "text": '=HYPERLINK("http://x")'},
        {"query_id": "+q", "text": "\ttab first"},
        {"query_id": "-1", "text": "'quoted text"},
        {"query_id": "@q", "text": "plain, with comma\nand a line break"},
        {"query_id": "'q", "text": "''two quotes"},
    ]
    documents = [
        {"doc_id": "=d", "title": "+title"},
        {"doc_id": 'd, "quoted"', "title": "-title"},
        {"doc_id": "'=d", "title": "'=not restored twice"},
        {"doc_id": "d plain", "title": None},
        {"doc_id": "d\u00e9\u4e2d", "title": "title\r\non two lines"},
    ]
    raters = ["=alice", "bob", "@carol"]
    import_files(
        db,
        ImportOptions(
            queries=_write_jsonl(folder / "queries.jsonl", queries),
            documents=_write_jsonl(folder / "documents.jsonl", documents),
        ),
    )
    notes = [
        "=1+1", "+cmd", "-2", "@SUM(1)", "'already quoted", "\tstarts with a tab",
        "'=both", "a note, with \"quotes\"\nand two\nline breaks", None, "\rcarriage return first",
        "windows\r\nline break", "a bare\rcarriage return", " spaces around ",
    ]  # fmt: skip
    with db.transaction() as session:
        queries.append({"query_id": "q plain"})  # created by its id alone: no text
        query_ids = bulk.query_ids(session, [q["query_id"] for q in queries])
        doc_ids = bulk.document_ids(session, [d["doc_id"] for d in documents], create=False)
        rater_ids = bulk.rater_ids(session, raters)
        position = 0
        for q_index, query in enumerate(queries):
            for d_index, document in enumerate(documents):
                for r_index, rater in enumerate(raters):
                    if (q_index + d_index + r_index) % 3 == 0:
                        continue
                    key = (
                        rater_ids[rater],
                        query_ids[query["query_id"]],
                        doc_ids[document["doc_id"]],
                    )
                    grade = (q_index * 7 + d_index * 3 + r_index) % 6
                    judgments.set_grade(session, *key, grade, duration_ms=100 * position or None)
                    note = notes[position % len(notes)]
                    if note is not None:
                        judgments.set_note(session, *key, note)
                    position += 1
        # a skipped judgment with a reason, and one without
        judgments.skip(
            session, rater_ids["bob"], query_ids["=SUM(A1:A9)"], doc_ids["=d"], reason="-can't tell"
        )
        judgments.skip(session, rater_ids["=alice"], query_ids["q plain"], doc_ids["d plain"])


def _judgments(db: Database) -> pd.DataFrame:
    with db.reading() as session:
        return reads.judgments_frame(session)


def _export(db: Database, path: Path) -> str:
    """Export ``db``'s judgments to ``path`` as ``judge-app export --judgments`` does."""
    return str(export(db.describe(), ExportOptions("judgments", path)))


def test_judgments_csv_round_trip_is_exact(db: Database, tmp_path: Path) -> None:
    _populate(db, tmp_path)
    original = _judgments(db)
    assert original["skipped"].sum() == 2 and original["grade"].isna().sum() == 2
    assert original["duration_ms"].notna().any() and original["duration_ms"].isna().any()
    assert (
        original["note"].str.startswith(("=", "+", "-", "@", "'", "\t", "\r"), na=False).sum() >= 6
    )
    path = tmp_path / "export.csv"
    assert _export(db, path) == f"{path}: {len(original)} judgments"

    with open_database(tmp_path / "second.sqlite") as second:
        summary = import_files(second, ImportOptions(judgments=path))
        assert f"{len(original)} judgments added, 0 changed, 0 unchanged" in str(summary)
        copy = _judgments(second)
        pd.testing.assert_frame_equal(copy, original)
        # importing the export again changes nothing
        summary = import_files(second, ImportOptions(judgments=path))
        assert f"0 judgments added, 0 changed, {len(original)} unchanged" in str(summary)
        pd.testing.assert_frame_equal(_judgments(second), original)

    # and importing it into the database it came from changes nothing either
    summary = import_files(db, ImportOptions(judgments=path))
    assert f"0 judgments added, 0 changed, {len(original)} unchanged" in str(summary)


def test_exported_cells_are_inert(db: Database, tmp_path: Path) -> None:
    _populate(db, tmp_path)
    original = _judgments(db)
    path = tmp_path / "export.csv"
    _export(db, path)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(original)
    checked = 0
    for row, (_, source) in zip(rows, original.iterrows()):
        for name in TEXT_COLUMNS:
            cell, value = row[name], source[name]
            if value is None or (not isinstance(value, str) and pd.isna(value)):
                assert cell == ""
                continue
            # no cell starts a formula, and a leading quote is doubled so it survives
            assert not cell.startswith(RISKY)
            if value.startswith(RISKY + ("'",)):
                assert cell == "'" + value
                checked += 1
            else:
                assert cell == value
    assert checked > 20
    first = next(row for row in rows if row["query_id"] == "'=SUM(A1:A9)")
    assert first["query_text"] == '\'=HYPERLINK("http://x")'
    assert any(
        row["doc_id"] == "''=d" and row["doc_title"] == "''=not restored twice" for row in rows
    )
    assert any(row["rater"] == "'=alice" for row in rows) and any(
        row["rater"] == "'@carol" for row in rows
    )
    skipped = [row for row in rows if row["skipped"] == "true"]
    assert len(skipped) == 2 and all(row["grade"] == "" for row in skipped)
    assert {row["skipped"] for row in rows} == {"true", "false"}
    assert all(row["judged_at"].endswith("Z") and "T" in row["judged_at"] for row in rows)


def test_export_columns_and_values(db: Database, tmp_path: Path) -> None:
    with db.transaction() as session:
        key = (
            bulk.rater_ids(session, ["r"])["r"],
            bulk.query_ids(session, ["q"])["q"],
            bulk.document_ids(session, ["d"])["d"],
        )
        judgments.set_grade(session, *key, 4, duration_ms=1234)
    frame = _judgments(db)
    path = tmp_path / "export.csv"
    _export(db, path)
    assert path.read_bytes().count(b"\r\n") == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    assert (
        lines[0]
        == "query_id,query_text,doc_id,doc_title,rater,grade,skipped,note,judged_at,duration_ms"
    )
    at = frame["judged_at"].iloc[0].strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert lines[1:] == [f"q,,d,,r,4,false,,{at},1234"]


def test_a_single_quote_alone_round_trips(tmp_path: Path) -> None:
    at = "2024-01-02 03:04:05.123456"
    judgments = Judgments(
        query_ids={0: "'", 1: "''", 2: "'x"}, query_texts=dict.fromkeys(range(3)),
        doc_ids={0: "d"}, doc_titles={0: None}, raters={0: "r"},
        chunks=[[(0, 0, 0, 1, False, "'", at, None), (1, 0, 0, 2, False, "=", at, 5),
                 (2, 0, 0, 3, False, "'\t", at, None)]],
    )  # fmt: skip
    path = tmp_path / "export.csv"
    assert write_judgments_csv(judgments, path) == 3
    with open_database(tmp_path / "db.sqlite") as db:
        import_files(db, ImportOptions(judgments=path))
        copy = _judgments(db)
    assert copy["query_id"].tolist() == ["'", "''", "'x"]
    assert copy["note"].tolist() == ["'", "=", "'\t"]
    assert copy["judged_at"].tolist() == [pd.Timestamp(at)] * 3
    assert copy["duration_ms"].isna().tolist() == [True, False, True]
    assert copy["duration_ms"].iloc[1] == 5


def test_a_write_cut_short_keeps_the_old_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    def chunks() -> Iterator[list[tuple]]:
        yield [(0, 0, 0, 1, False, None, "2024-01-02 03:04:05.123456", None)]
        raise sqlite3.OperationalError("disk I/O error")  # a read failing half-way

    judgments = Judgments({0: "q"}, {0: None}, {0: "d"}, {0: None}, {0: "r"}, chunks())
    path = tmp_path / "out.csv"
    path.write_text("old\n", encoding="utf-8")
    with pytest.raises(sqlite3.OperationalError):
        write_judgments_csv(judgments, path)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert list(tmp_path.iterdir()) == [path]


# --- aggregated qrels -----------------------------------------------------------------------

# grades by (query, doc) and rater; None is a skipped judgment
EXAMPLE = {
    ("q1", "d1"): {"alice": 1, "bob": 2, "carol": 2},
    ("q1", "d2"): {"alice": 0, "bob": 3},
    ("q1", "d3"): {"alice": None, "bob": 4, "carol": 1},
    ("q10", "d1"): {"carol": 5},
    ("q2", "d9"): {"alice": 3, "bob": 3, "carol": 0, "dave": 0, "erin": 5},
    ("q3", "d1"): {"alice": None},
}

EXPECTED = {
    "mean": ["q1 0 d1 1.666667", "q1 0 d2 1.5", "q1 0 d3 2.5", "q10 0 d1 5", "q2 0 d9 2.2"],
    "median": ["q1 0 d1 2", "q1 0 d2 1.5", "q1 0 d3 2.5", "q10 0 d1 5", "q2 0 d9 3"],
    "majority": ["q1 0 d1 2", "q1 0 d2 0", "q1 0 d3 1", "q10 0 d1 5", "q2 0 d9 0"],
    "max": ["q1 0 d1 2", "q1 0 d2 3", "q1 0 d3 4", "q10 0 d1 5", "q2 0 d9 5"],
    "min": ["q1 0 d1 1", "q1 0 d2 0", "q1 0 d3 1", "q10 0 d1 5", "q2 0 d9 0"],
    "rater:alice": ["q1 0 d1 1", "q1 0 d2 0", "q2 0 d9 3"],
    "rater:carol": ["q1 0 d1 2", "q1 0 d3 1", "q10 0 d1 5", "q2 0 d9 0"],
}


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A database of EXAMPLE, imported from a judgments file."""
    lines = ["query_id,doc_id,rater,grade,skipped"]
    for (query, doc), grades in EXAMPLE.items():
        for rater, grade in grades.items():
            lines.append(f"{query},{doc},{rater},{'' if grade is None else grade},{grade is None}")
    path = tmp_path / "example.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open_database(tmp_path / "example.sqlite") as db:
        import_files(db, ImportOptions(judgments=path))
    return tmp_path / "example.sqlite"


@pytest.mark.parametrize("method", list(EXPECTED))
def test_aggregated_qrels(example: Path, tmp_path: Path, method: str) -> None:
    path = tmp_path / f"{method.replace(':', '-')}.qrels"
    said = str(export(str(example), ExportOptions("qrels", path, aggregate=method)))
    assert said == f"{path}: {len(EXPECTED[method])} graded pairs ({method})"
    assert path.read_text(encoding="utf-8").splitlines() == EXPECTED[method]
    assert path.read_bytes().count(b"\r") == 0
    with open_database(example) as db:  # the evaluation combines them as the export does
        grades = Graded.from_frame(_judgments(db)).aggregated(method)
    assert [f"{q} 0 {d} {format_grade(g)}" for q, d, g in grades.values] == EXPECTED[method]


def test_qrels_of_a_rater_without_grades_are_refused(example: Path, tmp_path: Path) -> None:
    path = tmp_path / "nobody.qrels"
    with pytest.raises(UsageError, match="has no rater 'nobody'"):
        export(str(example), ExportOptions("qrels", path, aggregate="rater:nobody"))
    assert not path.exists()


def test_qrels_are_read_back_by_our_reader(example: Path, tmp_path: Path) -> None:
    path = tmp_path / "max.qrels"
    export(str(example), ExportOptions("qrels", path, aggregate="max"))
    with open_database(tmp_path / "again.sqlite") as db:
        import_files(db, ImportOptions(judgments=path, rater="max"))
        frame = _judgments(db)
    assert frame[["query_id", "doc_id", "grade"]].values.tolist() == [
        ["q1", "d1", 2], ["q1", "d2", 3], ["q1", "d3", 4], ["q10", "d1", 5], ["q2", "d9", 5]
    ]  # fmt: skip


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
@pytest.mark.parametrize("spaced", ["a b", "tab\there", "new\nline", " lead"])
def test_qrels_refuse_ids_with_spaces(tmp_path: Path, column: str, spaced: str) -> None:
    ids = {"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"]}
    ids[column][1] = spaced
    path = tmp_path / "out.qrels"
    with pytest.raises(ExportError) as info:
        write_qrels(ids["query_id"], ids["doc_id"], ["1", "2"], path)
    assert column in str(info.value) and repr(spaced) in str(info.value)
    assert not path.exists()


@pytest.mark.parametrize(
    ("grade", "text"),
    [(3.0, "3"), (0.0, "0"), (2.5, "2.5"), (1 / 3, "0.333333"), (2 / 3, "0.666667"),
     (1.0000001, "1"), (4.9999999, "5"), (1.25, "1.25")],
)  # fmt: skip
def test_format_grade(grade: float, text: str) -> None:
    assert format_grade(grade) == text


def test_the_history_export_has_every_change_with_its_states_and_login(
    db: Database, tmp_path: Path
) -> None:
    with db.transaction() as session:
        rater = bulk.rater_ids(session, ["=r"])["=r"]
        query, document = (
            bulk.query_ids(session, ["q"])["q"],
            bulk.document_ids(session, ["d"])["d"],
        )
        judgments.set_grade(session, rater, query, document, 4)
        judgments.set_note(session, rater, query, document, "@see")
        judgments.skip(session, rater, query, document)
        judgments.undo(session, rater)
        judgments.clear(session, rater, query, document)
    with db.reading() as session:
        times = [at.strftime("%Y-%m-%dT%H:%M:%S.%fZ") for at in reads.history_frame(session)["at"]]
    path = tmp_path / "history.csv"
    said = str(export(db.describe(), ExportOptions("history", path)))
    assert said == f"{path}: 5 changes of judgments"
    assert path.read_bytes().count(b"\r\n") == 6
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [
        "event,rater,query_id,doc_id,action,old_grade,old_skipped,old_note,new_grade,"
        "new_skipped,new_note,at,reverts,login",
        f"1,'=r,q,d,set,,,,4,false,,{times[0]},,",
        f"2,'=r,q,d,note,4,false,,4,false,'@see,{times[1]},,",
        f"3,'=r,q,d,skip,4,false,'@see,,true,'@see,{times[2]},,",
        f"4,'=r,q,d,undo,,true,'@see,4,false,'@see,{times[3]},3,",
        f"5,'=r,q,d,clear,4,false,'@see,,,,{times[4]},,",
    ]
