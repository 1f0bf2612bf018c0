"""``judge-app import --from`` and ``judge-app export --to … --format``: other tools' files
from the command line, the format recognised or named."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from judge_app.cli import main

FORMATS = Path(__file__).parents[1] / "io" / "formats"


def test_import_a_quepid_book_then_export_ratings_quepid_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    db = tmp_path / "db.sqlite"
    assert main(["import", str(db), "--from", str(FORMATS / "quepid_book.json")]) == 0
    assert "9 judgments added" in capsys.readouterr().out
    out = tmp_path / "ratings.csv"
    assert (
        main(
            [
                "export",
                str(db),
                "--to",
                str(out),
                "--format",
                "quepid-csv",
                "--aggregate",
                "majority",
            ]
        )
        == 0
    )
    assert "ratings.csv: 5 ratings; not written:" in capsys.readouterr().out
    with out.open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["query", "docid", "rating"]  # the header Quepid's importer checks
    assert ["phone cord", "33425", "2"] in rows


def test_a_named_format_is_read_as_that_format(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "letor.data"
    path.write_text("1 qid:7 # d3 a query\n")
    args = [
        "import",
        str(tmp_path / "db.sqlite"),
        "--from",
        str(path),
        "--format",
        "ranklib",
        "--rater",
        "x",
    ]
    assert main(args) == 0
    assert "1 judgments added" in capsys.readouterr().out


def test_an_unrecognised_file_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    assert main(["import", str(tmp_path / "db.sqlite"), "--from", str(path)]) == 1
    assert (
        "notes.txt: of no format judge_app recognises: name it with --format"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "db.sqlite").exists()


def test_export_to_needs_a_format(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "db.sqlite"
    assert main(["init", str(db)]) == 0
    assert main(["export", str(db), "--to", str(tmp_path / "x.json")]) != 0
    assert "--to needs --format" in capsys.readouterr().err


def test_an_unknown_format_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["import", str(tmp_path / "db.sqlite"), "--from", "x", "--format", "trec"])
