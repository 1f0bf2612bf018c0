"""Other tools' formats both ways: exported then imported, the judgments are the same (every
rater's grade, skip and note where the format holds them; the raters' combined grade where
it holds one per pair); BEIR's export read by ir_datasets' BEIR loader."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from exchange_support import judgments_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.commands.export import ExportOptions, export
from judge_app.commands.importing import ImportOptions, import_files
from judge_app.errors import UsageError
from judge_app.io.errors import ExportError
from judge_app.store.database import open_database

RATERS = ["ana", "ben", "chloe"]
NOTES = st.none() | st.text(
    st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=12
).filter(str.strip)
PER_RATER = ["quepid-book", "label-studio"]  # every rater's judgment, skips and notes
COMBINED = ["quepid-csv", "rre", "ranklib", "opensearch", "beir"]  # one grade per pair


@st.composite
def campaigns(draw: st.DrawFn, raters: list[str]) -> list[dict[str, object]]:
    """Judgments of up to 4 queries × 4 documents by ``raters``."""
    rows = []
    for query in range(draw(st.integers(1, 4))):
        for doc in draw(st.sets(st.integers(0, 3), min_size=1)):
            for rater in draw(st.sets(st.sampled_from(raters), min_size=1)):
                skipped = len(raters) > 1 and draw(st.booleans()) and draw(st.booleans())
                rows.append({
                    "query_id": f"q{query}", "doc_id": f"d{doc}", "rater": rater,
                    "grade": "" if skipped else draw(st.integers(0, 5)),
                    "skipped": skipped, "note": draw(NOTES) if len(raters) > 1 else None,
                })  # fmt: skip
    return rows


def _campaign(folder: Path, rows: list[dict[str, object]]) -> tuple[Path, Path, Path]:
    """A database of ``rows`` with query texts (one of them starting like a formula) and
    document titles; its queries file, for a second database."""
    folder.mkdir(parents=True, exist_ok=True)
    queries = folder / "queries.csv"
    ids = sorted({str(row["query_id"]) for row in rows})
    pd.DataFrame({"query_id": ids, "text": [f"=text of {i}" if i == "q0" else f"text of {i}" for i in ids],
                  "description": "what is wanted"}).to_csv(queries, index=False)  # fmt: skip
    documents = folder / "documents.csv"
    docs = sorted({str(row["doc_id"]) for row in rows})
    pd.DataFrame({"doc_id": docs, "title": [f"Title {d}" for d in docs]}).to_csv(
        documents, index=False
    )
    judgments = folder / "judgments.csv"
    pd.DataFrame(rows).to_csv(judgments, index=False)
    db = folder / "first.sqlite"
    import_files(db, ImportOptions(queries=queries, documents=documents, judgments=judgments))
    return db, queries, documents


def _round_trip(
    tmp: Path, rows: list[dict[str, object]], name: str, rater: str | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    db, queries, _ = _campaign(tmp, rows)
    out = tmp / f"out.{name}"
    export(db, ExportOptions("format", out, format=name, aggregate="majority"))
    second = tmp / "second.sqlite"
    import_files(second, ImportOptions(queries=queries))  # the texts an id is found by
    import_files(second, ImportOptions(source=out, rater=rater))  # the format by its shape
    with open_database(db) as first, open_database(second) as again:
        return judgments_of(first, tmp), judgments_of(again, tmp)


@pytest.mark.parametrize("name", PER_RATER)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=campaigns(RATERS))
def test_every_raters_judgments_come_back(
    tmp_path_factory: pytest.TempPathFactory, name: str, rows: list
) -> None:
    before, after = _round_trip(tmp_path_factory.mktemp(name), rows, name, None)
    columns = ["query_id", "doc_id", "rater", "grade", "skipped", "note"]
    pd.testing.assert_frame_equal(before[columns], after[columns])
    if name == "label-studio":  # Label Studio holds the time and duration too
        pd.testing.assert_frame_equal(before[["judged_at"]], after[["judged_at"]])


@pytest.mark.parametrize("name", COMBINED)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=campaigns(["ana"]))
def test_one_raters_grades_come_back(
    tmp_path_factory: pytest.TempPathFactory, name: str, rows: list
) -> None:
    before, after = _round_trip(tmp_path_factory.mktemp(name), rows, name, "ana")
    columns = ["query_id", "doc_id", "rater", "grade", "skipped"]
    pd.testing.assert_frame_equal(before[columns], after[columns])


def _rows() -> list[dict[str, object]]:
    return [
        {
            "query_id": "q0",
            "doc_id": "d0",
            "rater": "ana",
            "grade": 2,
            "skipped": False,
            "note": "close",
        },
        {
            "query_id": "q0",
            "doc_id": "d0",
            "rater": "ben",
            "grade": 3,
            "skipped": False,
            "note": None,
        },
        {
            "query_id": "q0",
            "doc_id": "d1",
            "rater": "ana",
            "grade": "",
            "skipped": True,
            "note": None,
        },
        {
            "query_id": "q1",
            "doc_id": "d1",
            "rater": "ben",
            "grade": 5,
            "skipped": False,
            "note": None,
        },
    ]


def test_the_export_says_what_the_format_cannot_hold(tmp_path: Path) -> None:
    db, _, _ = _campaign(tmp_path, _rows())
    text = str(
        export(
            db, ExportOptions("format", tmp_path / "r.csv", format="quepid-csv", aggregate="max")
        )
    )
    assert text == (
        f"{tmp_path / 'r.csv'}: 2 ratings; not written: notes (1), rater names (2), "
        "raters' own grades (combined by max) (4), skipped judgments (1)"
    )
    with (tmp_path / "r.csv").open(newline="") as handle:
        assert list(csv.reader(handle)) == [
            ["query", "docid", "rating"],
            ["'=text of q0", "d0", "3"],
            ["text of q1", "d1", "5"],
        ]


def test_whole_grades_only_where_the_format_holds_no_other(tmp_path: Path) -> None:
    db, _, _ = _campaign(tmp_path, _rows())
    with pytest.raises(
        ExportError,
        match="RRE's ratings holds whole grades only.*2.5: export with --aggregate majority",
    ):
        export(db, ExportOptions("format", tmp_path / "r.json", format="rre"))
    assert not (tmp_path / "r.json").exists()
    export(db, ExportOptions("format", tmp_path / "s.json", format="opensearch"))  # floats
    ratings = json.loads((tmp_path / "s.json").read_text())["judgmentRatings"]
    assert ratings[0] == {"query": "=text of q0", "ratings": [{"docId": "d0", "rating": "2.5"}]}


def test_export_needs_a_format_with_to(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--to needs --format"):
        ExportOptions("format", tmp_path / "x.json").checked()


def test_beir_export_needs_a_new_or_empty_folder(tmp_path: Path) -> None:
    db, _, _ = _campaign(tmp_path, _rows())
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(ExportError, match="needs a new or empty folder"):
        export(db, ExportOptions("format", tmp_path / "full", format="beir", aggregate="max"))
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    assert not list(tmp_path.glob(".*.part"))


def test_beir_export_reads_in_ir_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ir_datasets' own BEIR classes (the beir package itself needs torch) read the folder."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))
    from ir_datasets.datasets.beir import BeirDocs, BeirQrels, BeirQueries, BeirTitleDoc
    from ir_datasets.formats import GenericQuery
    from ir_datasets.util.download import LocalDownload as File

    db, _, _ = _campaign(tmp_path, _rows())
    folder = tmp_path / "beir"
    export(db, ExportOptions("format", folder, format="beir", aggregate="max"))
    docs = BeirDocs("judge_app", File(folder / "corpus.jsonl"), BeirTitleDoc)
    assert [(d.doc_id, d.title) for d in docs._docs_iter()] == [
        ("d0", "Title d0"),
        ("d1", "Title d1"),
    ]
    queries = BeirQueries("judge_app", File(folder / "queries.jsonl"), GenericQuery)
    assert [tuple(q) for q in queries.queries_iter()] == [
        ("q0", "=text of q0"),
        ("q1", "text of q1"),
    ]
    qrels = BeirQrels(File(folder / "qrels" / "test.tsv"), {})
    assert [(q.query_id, q.doc_id, q.relevance) for q in qrels.qrels_iter()] == [
        ("q0", "d0", 3),
        ("q1", "d1", 5),
    ]
