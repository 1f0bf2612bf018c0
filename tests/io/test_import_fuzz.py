"""Fuzzing the importers: any file either imports or is refused with ImportFileError, and a
refused file changes nothing; generated judgment files import exactly or name the first bad
line."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshots import snapshot

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.io.errors import ImportFileError
from judge_app.names import name_key
from judge_app.store import reads
from judge_app.store.database import Database, open_database

INERT_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "'")
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- a template database holding a little of everything, copied for each example ------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("template")
    files = {
        "queries.csv": "query_id,text\nq1,first\nq2,second\n",
        "documents.csv": "doc_id,title\nd1,One\nd2,Two\n",
        "run.csv": "query_id,doc_id,rank,score\nq1,d1,1,2.0\nq1,d2,2,1.0\n",
        "judgments.csv": "query_id,doc_id,rater,grade\nq1,d1,fuzz,3\nq2,d2,other,1\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    with open_database(folder / "template.sqlite") as db:
        import_files(
            db,
            ImportOptions(
                queries=folder / "queries.csv",
                documents=folder / "documents.csv",
                run=folder / "run.csv",
                judgments=folder / "judgments.csv",
            ),
        )
    return folder / "template.sqlite"


@contextmanager
def _fresh_database(template: Path | None = None) -> Iterator[tuple[Database, Path]]:
    """A new database in a new folder: a copy of ``template``, or empty."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "db.sqlite"
        if template is not None:
            shutil.copyfile(template, path)
        db = open_database(path)
        try:
            yield db, Path(folder)
        finally:
            db.close()


# --- (a) arbitrary bytes ----------------------------------------------------------------------

HEADERS = {
    "queries": ["query_id,text", "query_id\ttext\tdescription", '{"query_id": '],
    "documents": ["doc_id,title,url,body", "docno\ttitle", '{"doc_id": '],
    "run": [
        "query_id,doc_id,rank,score",
        "qid\tdocno\trank",
        '{"query_id": "q1", "doc_id": ',
        "q1 Q0 ",
    ],
    "judgments": [
        "query_id,doc_id,rater,grade,skipped,note,judged_at,duration_ms",
        "qid\tdocno\trater\trelevance",
        '{"query_id": "q1", "doc_id": "d1", "rater": "r", "grade": ',
        "q1 0 ",
    ],
}
# characters that matter to the parsers, to build text that gets past the first line
SYMBOLS = list("q1d2 ,\t\n\r\"'=+-@#{}[]:.e\\0Q5x") + [
    "\x00",
    "\xe9",
    "\u2028",
    "\ufeff",
    "null",
    "true",
]
# cells of nearly right rows
TOKENS = ["q1", "q2", "d1", "d9", "0", "1", "2", "3", "5", "1.5", "-1", "7", "", " ", "r", "fuzz", "Q0",
          "tag", '"a,b"', '"x\ny"', "'=1", "true", "2020-01-01T00:00:00Z", "1e30", "é"]  # fmt: skip


# (header, separator, cells a row, extension) of files of each kind
LAYOUTS = {
    "queries": [("query_id,text", ",", 2, ".csv"), ("query_id\ttext\tdescription", "\t", 3, ".tsv")],
    "documents": [("doc_id,title,url,body", ",", 4, ".csv"), ("docno\ttitle", "\t", 2, ".tsv")],
    "run": [
        ("query_id,doc_id,rank,score", ",", 4, ".csv"), ("qid\tdocno\trank", "\t", 3, ".tsv"),
        ("", " ", 6, ".txt"),
    ],
    "judgments": [
        ("query_id,doc_id,rater,grade,skipped,note,judged_at,duration_ms", ",", 8, ".csv"),
        ("qid\tdocno\trater\trelevance", "\t", 4, ".tsv"), ("", " ", 4, ".txt"),
    ],
}  # fmt: skip


def _nearly_right(kind: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """Files of the right layout whose cells are drawn from TOKENS: some import, most do not."""

    def build(layout: tuple[str, str, int, str]) -> st.SearchStrategy[tuple[str, bytes]]:
        header, separator, cells, extension = layout
        row = st.lists(st.sampled_from(TOKENS), min_size=cells, max_size=cells).map(separator.join)
        rows = st.lists(row, min_size=1, max_size=6)
        text = rows.map(lambda lines: (header + "\n" if header else "") + "\n".join(lines) + "\n")
        return st.tuples(st.just(extension), text.map(lambda value: value.encode("utf-8")))

    return st.sampled_from(LAYOUTS[kind]).flatmap(build)


def _fuzz_file(kind: str) -> st.SearchStrategy[tuple[str, bytes]]:
    extensions = st.sampled_from([".csv", ".tsv", ".jsonl", ".txt"])
    return st.one_of(_nearly_right(kind), st.tuples(extensions, _fuzz_bytes(kind)))


def _fuzz_bytes(kind: str) -> st.SearchStrategy[bytes]:
    symbols = st.lists(st.sampled_from(SYMBOLS), max_size=80).map("".join)
    return st.one_of(
        st.binary(max_size=300),
        st.builds(
            lambda header, rest: (header + "\n").encode() + rest,
            st.sampled_from(HEADERS[kind]),
            st.one_of(st.binary(max_size=200), symbols.map(lambda text: text.encode("utf-8"))),
        ),
        st.builds(
            lambda header, rest: (header + rest).encode("utf-8"),
            st.sampled_from(HEADERS[kind]),
            symbols,
        ),
        st.text(max_size=120).map(lambda text: text.encode("utf-8")),
    )


@pytest.mark.parametrize("kind", ["queries", "documents", "run", "judgments"])
@FUZZ
@given(data=st.data())
def test_random_bytes_import_or_are_refused_without_change(
    template: Path, kind: str, data: st.DataObject
) -> None:
    extension, content = data.draw(_fuzz_file(kind), "file")
    options: dict[str, object] = {"strict": data.draw(st.booleans(), "strict")}
    if kind == "judgments":
        options["rater"] = data.draw(st.sampled_from([None, "fuzz"]), "rater")
    if kind == "run":
        options["run_name"] = data.draw(st.sampled_from([None, "fuzzrun"]), "run_name")
    with _fresh_database(template) as (db, folder):
        path = folder / f"input{extension}"
        path.write_bytes(content)
        before = snapshot(db)
        try:
            import_files(db, ImportOptions(**{kind: path}, **options))
        except ImportFileError as error:
            assert error.problems, "an ImportFileError lists at least one problem"
            assert len(error.problems) in range(1, 21) and error.total >= len(error.problems)
            for problem in error.problems:
                assert problem.file == str(path)
                # a bare \r ends a line of a CSV file too
                lines = content.count(b"\n") + content.count(b"\r") + 1
                assert problem.line is None or 1 <= problem.line <= lines
                assert problem.reason
            assert snapshot(db) == before
        else:
            after = snapshot(db)
            # an import never removes a query, document, rater or judgment
            for name in ("queries", "documents", "raters", "judgments", "judgment events"):
                assert after[0][name] >= before[0][name]


# --- (b) generated judgment rows ----------------------------------------------------------------

ID_ALPHABET = st.one_of(
    st.sampled_from(list("aAqd19 ,;\"'=+-@\t\n#é中\u00a0\u2028\x00\u0301") + ["\U0001f600"]),
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
)
ANY_IDS = st.text(ID_ALPHABET, min_size=0, max_size=8)
# ids that stay non-empty once trimmed, with risky starts and surrounding spaces now and then
GOOD_IDS = st.builds(
    lambda before, core, after: before + core + after,
    st.sampled_from(["", "", "", " ", "'", "=", "'=", "''", "\t "]),
    st.text(ID_ALPHABET, min_size=1, max_size=6).filter(lambda text: text.strip()),
    st.sampled_from(["", "", "", " ", "\n"]),
)
VALID_GRADES = st.integers(0, 5).map(str)
INVALID_GRADES = st.sampled_from(
    ["", " ", "6", "7", "-1", "2.5", "high", "1e9", "NaN", "inf", "-", "3 4", "'3", "x1", "10"]
)
NOTES = st.one_of(st.none(), st.text(ID_ALPHABET, max_size=10))


def _restore(cell: str) -> str:
    """What the importer makes of a cell: a ``'`` protecting a risky first character is dropped."""
    return cell[1:] if cell.startswith("'") and cell[1:2] in INERT_PREFIXES else cell


def _expected_id(cell: str) -> str | None:
    value = unicodedata.normalize("NFC", _restore(cell).strip())
    return value if 0 < len(value) <= 255 and "\x00" not in value else None


def _similar_rater_lines(raters: list[str | None], lines: list[int]) -> list[int]:
    """The first line of each rater name that differs from an earlier name only by case or
    spaces (the earlier one is kept)."""
    first: dict[str, str] = {}
    seen: set[str] = set()
    found = []
    for rater, line in zip(raters, lines):
        if rater is not None and rater not in seen:
            seen.add(rater)
            if first.setdefault(name_key(rater), rater) != rater:
                found.append(line)
    return found


def _expected_note(cell: str | None) -> str | None:
    if cell is None:
        return None
    value = _restore(cell)
    return value if value.strip() else None


GOOD_ROWS = st.lists(
    st.tuples(GOOD_IDS, GOOD_IDS, GOOD_IDS, VALID_GRADES, NOTES), min_size=1, max_size=12
)
ANY_ROWS = st.lists(
    st.tuples(
        st.one_of(GOOD_IDS, ANY_IDS),
        st.one_of(GOOD_IDS, ANY_IDS),
        st.one_of(GOOD_IDS, ANY_IDS),
        st.one_of(VALID_GRADES, VALID_GRADES, INVALID_GRADES),
        NOTES,
    ),
    min_size=1,
    max_size=12,
)
ROWS = st.one_of(GOOD_ROWS, ANY_ROWS)


def _csv_with_lines(rows: list[tuple]) -> tuple[str, list[int]]:
    """The rows as CSV text after a header, and the line each row starts on."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["query_id", "doc_id", "rater", "grade", "note"])
    lines = []
    for row in rows:
        lines.append(buffer.getvalue().count("\n") + 1)
        writer.writerow([cell if cell is not None else "" for cell in row])
    return buffer.getvalue(), lines


@settings(FUZZ, max_examples=50)
@given(rows=ROWS)
def test_generated_judgment_rows(rows: list[tuple]) -> None:
    text, lines = _csv_with_lines(rows)
    expected = []
    first_bad = None
    for row, line in zip(rows, lines):
        query, doc, rater = (_expected_id(cell) for cell in row[:3])
        grade = int(row[3]) if row[3] in {"0", "1", "2", "3", "4", "5"} else None
        if None in (query, doc, rater, grade) or "\x00" in (row[4] or ""):
            first_bad = first_bad or line
        expected.append((query, doc, rater, grade, _expected_note(row[4]), line))
    similar = _similar_rater_lines([e[2] for e in expected], lines)
    first_bad = min([line for line in [first_bad, *similar] if line], default=None)
    keys = [row[:3] for row in expected]
    first_repeat = next((e[5] for i, e in enumerate(expected) if e[:3] in keys[:i]), None)

    with _fresh_database() as (db, folder):
        path = folder / "judgments.csv"
        path.write_text(text, encoding="utf-8")
        if first_bad is None and first_repeat is None:
            summary = import_files(db, ImportOptions(judgments=path))
            assert f"{len(rows)} judgments added, 0 changed, 0 unchanged" in str(summary)
            with db.reading() as session:
                frame = reads.judgments_frame(session)
            got = sorted(
                zip(frame["query_id"], frame["doc_id"], frame["rater"], frame["grade"].astype(int),
                    [None if pd.isna(note) else note for note in frame["note"]])
            )  # fmt: skip
            assert got == sorted(e[:5] for e in expected)
            assert not frame["skipped"].any()
            # and a second import of the same file changes nothing
            summary = import_files(db, ImportOptions(judgments=path))
            assert f"0 judgments added, 0 changed, {len(rows)} unchanged" in str(summary)
            return
        with pytest.raises(ImportFileError) as info:
            import_files(db, ImportOptions(judgments=path))
        first = info.value.problems[0]
        assert first.file == str(path)
        if first_bad is not None:
            assert first.line == first_bad
            assert first.column in {"query_id", "doc_id", "rater", "grade", "note"}
        else:
            assert first.line == first_repeat
            assert first.column is None and "duplicate judgment" in first.reason
        with db.reading() as session:
            assert set(reads.table_counts(session).values()) == {0}


@FUZZ
@given(
    rows=st.lists(
        st.tuples(st.one_of(GOOD_IDS, ANY_IDS), GOOD_IDS, VALID_GRADES), min_size=1, max_size=8
    )
)
def test_generated_qrels_like_tsv_rows_with_a_given_rater(rows: list[tuple]) -> None:
    """A TSV without a rater column, the rater given as an option: same rules, tab-separated."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\r\n")
    writer.writerow(["qid", "docno", "relevance"])
    lines = []
    for row in rows:
        lines.append(buffer.getvalue().count("\n") + 1)
        writer.writerow(row)
    expected = [(_expected_id(q), _expected_id(d), int(g)) for q, d, g in rows]
    bad = [line for line, e in zip(lines, expected) if None in e[:2]]
    keys = [e[:2] for e in expected]
    repeats = [line for i, (line, key) in enumerate(zip(lines, keys)) if key in keys[:i]]
    with _fresh_database() as (db, folder):
        path = folder / "judgments.tsv"
        path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
        if not bad and not repeats:
            import_files(db, ImportOptions(judgments=path, rater="solo"))
            with db.reading() as session:
                frame = reads.judgments_frame(session)
            assert sorted(
                zip(frame["query_id"], frame["doc_id"], frame["grade"].astype(int))
            ) == sorted(expected)
            assert set(frame["rater"]) == {"solo"}
        else:
            with pytest.raises(ImportFileError) as info:
                import_files(db, ImportOptions(judgments=path, rater="solo"))
            assert info.value.problems[0].line == (bad[0] if bad else repeats[0])
            with db.reading() as session:
                assert set(reads.table_counts(session).values()) == {0}
