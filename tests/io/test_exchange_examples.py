"""Other tools' files as their documentation and source show them (tests/io/formats/README.md
says where each comes from): what is read, what is said not to be kept, and a bad value named
by its file, line and item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from exchange_support import FORMATS, judgments_of

from judge_app.commands.importing import ImportOptions, import_files
from judge_app.errors import UsageError
from judge_app.io.errors import ImportFileError
from judge_app.io.exchange.format_names import FORMAT_NAMES
from judge_app.io.exchange.formats import FORMATS as ALL
from judge_app.io.exchange.formats import recognised
from judge_app.store.database import open_database


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("quepid_ratings.csv", "quepid-csv"),
        ("quepid_book.json", "quepid-book"),
        ("rre_ratings.json", "rre"),
        ("ranklib.txt", "ranklib"),
        ("beir", "beir"),
        ("label_studio_tasks.json", "label-studio"),
        ("opensearch_judgments.json", "opensearch"),
    ],
)
def test_each_example_is_recognised_by_its_shape(path: str, name: str) -> None:
    assert recognised(FORMATS / path).name == name


def test_the_command_line_lists_every_format() -> None:
    assert sorted(FORMAT_NAMES) == sorted(ALL)


def test_a_file_of_no_known_shape_is_refused_saying_what_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(ImportFileError) as raised:
        recognised(path)
    message = str(raised.value)
    assert "notes.txt" in message and "query,docid,rating" in message and "--format" in message


def test_quepid_book(tmp_path: Path) -> None:
    summary = str(
        import_files(tmp_path / "db.sqlite", ImportOptions(source=FORMATS / "quepid_book.json"))
    )
    assert "9 judgments added" in summary
    assert (
        "not kept: book scorer (1), book selection_strategy (1), query_doc_pair position (5)"
        in summary
    )
    assert "document field brand (5)" in summary and "document field thumb (5)" in summary
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert set(found["rater"]) == {"dtaivpp@gmail.com", "epugh@opensourceconnections.com"}
    assert set(found["query_id"]) == {"projector screen", "phone cord"}  # new queries: id = text
    unrateable = found[found["skipped"]]
    assert len(unrateable) == 1 and unrateable["grade"].isna().all()
    assert unrateable.iloc[0]["doc_id"] == "33425"
    assert found["grade"].dropna().tolist() == [2, 3, 3, 3, 3, 3, 3, 3]


def test_quepid_book_judge_later_and_explanation(tmp_path: Path) -> None:
    book = json.loads((FORMATS / "quepid_book.json").read_text())
    first = book["query_doc_pairs"][0]["judgements"]
    first[0]["explanation"] = "a screen, as asked"
    first.append(
        {"rating": None, "unrateable": False, "judge_later": True, "user_email": "c@x.org"}
    )
    path = tmp_path / "book.json"
    path.write_text(json.dumps(book))
    summary = str(import_files(tmp_path / "db.sqlite", ImportOptions(source=path)))
    assert "judge_later placeholders (no rating yet) (1)" in summary
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert "a screen, as asked" in set(found["note"])
    assert "c@x.org" not in set(found["rater"])


def test_a_bad_rating_in_a_book_written_on_one_line_is_named_by_its_item(tmp_path: Path) -> None:
    book = json.loads((FORMATS / "quepid_book.json").read_text())
    book["query_doc_pairs"][2]["judgements"][1]["rating"] = 7
    path = tmp_path / "book.json"
    path.write_text(json.dumps(book, separators=(",", ":")))
    with pytest.raises(ImportFileError) as raised:
        import_files(tmp_path / "db.sqlite", ImportOptions(source=path))
    assert str(raised.value).startswith(
        f"{path} line 1 (query_doc_pairs[2].judgements[1]), column rating: grade 7 is outside 0–5"
    )
    assert not (tmp_path / "db.sqlite").exists()  # nothing written: the new file removed


def test_a_bad_rating_in_an_indented_book_is_named_by_its_line(tmp_path: Path) -> None:
    book = json.loads((FORMATS / "quepid_book.json").read_text())
    book["query_doc_pairs"][1]["judgements"][0]["rating"] = 7
    path = tmp_path / "book.json"
    text = json.dumps(book, indent=2)
    path.write_text(text)
    with pytest.raises(ImportFileError) as raised:
        import_files(tmp_path / "db.sqlite", ImportOptions(source=path))
    lines = text.splitlines()
    line = next(n for n, row in enumerate(lines, 1) if row.strip() == '"rating": 7,') - 1  # its "{"
    assert f"book.json line {line} (query_doc_pairs[1].judgements[0]), column rating" in str(
        raised.value
    )


def test_quepid_detail_scale_needs_a_grade_map(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("query,docid,rating\nstar trek,1370,10\nstar trek,9755,1\n")
    with pytest.raises(ImportFileError) as raised:
        import_files(tmp_path / "db.sqlite", ImportOptions(source=path, rater="lead"))
    assert "ratings.csv line 2, column rating: grade 10 is outside 0–5 (a grade map" in str(
        raised.value
    )
    detail = ",".join(f"{n}={(n - 1) * 5 // 9}" for n in range(1, 11))
    options = ImportOptions(source=path, rater="lead", grade_map=detail)
    import_files(tmp_path / "db.sqlite", options)
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert found["grade"].tolist() == [5, 0]
    partial = ImportOptions(source=path, rater="lead", grade_map="10=5")
    with pytest.raises(ImportFileError) as raised:
        import_files(tmp_path / "db.sqlite", partial)
    assert "line 3, column rating: grade '1' is not in the grade map (10=5)" in str(raised.value)


def test_a_grade_map_must_map_to_our_grades() -> None:
    with pytest.raises(UsageError, match="not a grade 0–5"):
        ImportOptions(source=Path("x.csv"), grade_map="1=6").checked()
    with pytest.raises(UsageError, match="for the file given with --from"):
        ImportOptions(judgments=Path("x.csv"), grade_map="1=1").checked()


def test_quepid_ratings_csv(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with pytest.raises(ImportFileError, match="this format names no rater"):
        import_files(db, ImportOptions(source=FORMATS / "quepid_ratings.csv"))
    summary = str(
        import_files(db, ImportOptions(source=FORMATS / "quepid_ratings.csv", rater="lead"))
    )
    assert "quepid_ratings.csv: 3 queries" in summary and "2 judgments added" in summary
    with open_database(db) as database:
        found = judgments_of(database, tmp_path)
        assert found[["query_id", "doc_id", "grade"]].values.tolist() == [
            ["star trek", "1370", 3],
            ["star trek", "9755", 0],
        ]
        from judge_app.store.query_texts import query_ids_of_texts

        with database.reading() as session:
            known = query_ids_of_texts(session, ["=cmd", "I like, commas!"])
        assert known == {"=cmd": "=cmd", "I like, commas!": "I like, commas!"}


def test_a_query_text_takes_the_id_of_the_query_with_that_text(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    queries = tmp_path / "queries.csv"
    queries.write_text("query_id,text\nq7,star trek\n")
    import_files(db, ImportOptions(queries=queries))
    import_files(db, ImportOptions(source=FORMATS / "quepid_ratings.csv", rater="lead"))
    found = judgments_of(open_database(db), tmp_path)
    assert set(found["query_id"]) == {"q7"}


def test_a_query_text_that_is_another_querys_id_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    queries = tmp_path / "queries.csv"
    queries.write_text("query_id,text\nstar trek,Star Trek: the original series\n")
    import_files(db, ImportOptions(queries=queries))
    with pytest.raises(ImportFileError) as raised:
        import_files(db, ImportOptions(source=FORMATS / "quepid_ratings.csv", rater="lead"))
    assert "line 3, column query: 'star trek' is no query's text, and the id of the query" in str(
        raised.value
    )


def test_rre_ratings(tmp_path: Path) -> None:
    summary = str(
        import_files(
            tmp_path / "db.sqlite", ImportOptions(source=FORMATS / "rre_ratings.json", rater="rre")
        )
    )
    assert "9 judgments added" in summary
    assert "query templates (6)" in summary and "ratings index (1)" in summary
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    pairs = set(zip(found["query_id"], found["doc_id"], found["grade"]))
    assert ("Fender bass", "2", 3) in pairs and ("Jazz Bass", "1", 3) in pairs
    assert len(pairs) == 9  # a group's documents judged for each of its three queries


def test_rre_gains_grouped_by_grade(tmp_path: Path) -> None:
    path = tmp_path / "ratings.json"
    path.write_text(json.dumps({"queries": [
        {"placeholders": {"$query": "bass"}, "relevant_documents": {"3": ["a", "b"], "1": ["c"]}}
    ]}))  # fmt: skip
    import_files(tmp_path / "db.sqlite", ImportOptions(source=path, rater="rre"))
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert list(zip(found["doc_id"], found["grade"])) == [("a", 3), ("b", 3), ("c", 1)]


def test_ranklib_and_letor_lines(tmp_path: Path) -> None:
    summary = str(
        import_files(
            tmp_path / "db.sqlite", ImportOptions(source=FORMATS / "ranklib.txt", rater="ltr")
        )
    )
    assert "not kept: LETOR comment fields after the docid (1), lines of features (1)" in summary
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert list(zip(found["query_id"], found["doc_id"], found["grade"])) == [
        ("1", "1370", 3),
        ("10032", "GX029-35-5894638", 2),
        ("2", "9755", 0),
    ]
    assert found["query_text"].tolist()[0] == "star trek"


def test_a_letor_line_without_a_docid_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text("2 qid:1 1:0.5 2:0.1\n")
    with pytest.raises(ImportFileError, match=r"train.txt line 1, column docid: no document id"):
        import_files(
            tmp_path / "db.sqlite", ImportOptions(source=path, format="ranklib", rater="x")
        )


def test_beir_folder(tmp_path: Path) -> None:
    summary = str(
        import_files(tmp_path / "db.sqlite", ImportOptions(source=FORMATS / "beir", rater="beir"))
    )
    assert "queries.jsonl: 2 queries" in summary and "corpus.jsonl: 2 documents" in summary
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert list(zip(found["query_id"], found["doc_id"], found["grade"])) == [
        ("q1", "doc1", 1),
        ("q2", "doc2", 1),
    ]
    assert found["query_text"].tolist() == [
        "Who developed the mass-energy equivalence formula?",
        "Which beer is brewed with a large proportion of wheat?",
    ]


def test_a_bad_beir_score_is_named_by_its_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    shutil.copytree(FORMATS / "beir", folder)
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tdoc1\t1\nq2\tdoc2\t-1\n"
    )
    with pytest.raises(
        ImportFileError, match=r"qrels/test.tsv line 3, column score: grade -1 is outside 0–5"
    ):
        import_files(tmp_path / "db.sqlite", ImportOptions(source=folder, rater="beir"))


def test_label_studio_annotations(tmp_path: Path) -> None:
    summary = str(
        import_files(
            tmp_path / "db.sqlite", ImportOptions(source=FORMATS / "label_studio_tasks.json")
        )
    )
    assert (
        "2 judgments added" in summary and "predictions (a model's, not a rater's) (1)" in summary
    )
    found = judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)
    assert found["rater"].tolist() == ["10", "ana@example.com"]
    graded, cancelled = found.iloc[0], found.iloc[1]
    assert (graded["grade"], graded["note"], graded["duration_ms"]) == (
        3,
        "exactly what was asked",
        4288,
    )
    assert graded["query_id"] == "wheat beer" and graded["doc_id"] == "doc2"
    assert cancelled["skipped"] and cancelled["duration_ms"] == 12500


def test_label_studio_choices_of_words_need_a_grade_map(tmp_path: Path) -> None:
    tasks = json.loads((FORMATS / "label_studio_tasks.json").read_text())
    tasks[0]["annotations"][0]["result"][0]["value"]["choices"] = ["Relevant"]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks, indent=2))
    with pytest.raises(ImportFileError, match=r"'Relevant' is not a grade"):
        import_files(tmp_path / "db.sqlite", ImportOptions(source=path))
    import_files(
        tmp_path / "db.sqlite", ImportOptions(source=path, grade_map="Relevant=3,Irrelevant=0")
    )
    assert judgments_of(open_database(tmp_path / "db.sqlite"), tmp_path)["grade"].iloc[0] == 3


def test_opensearch_judgments_repeat_queries_and_need_a_grade_map(tmp_path: Path) -> None:
    path, db = FORMATS / "opensearch_judgments.json", tmp_path / "db.sqlite"
    with pytest.raises(ImportFileError) as raised:
        import_files(db, ImportOptions(source=path, rater="srw"))
    assert (
        "line 13 (judgmentRatings[0].ratings[1]), column rating: grade 0.9 is not a whole number"
        in str(raised.value)
    )
    fractions = "0=0,0.4=1,0.6=2,0.7=3,0.9=4,1=5"
    with pytest.raises(ImportFileError) as raised:
        import_files(db, ImportOptions(source=path, rater="srw", grade_map=fractions))
    assert "line 54 (judgmentRatings[1].ratings[0]): duplicate judgment" in str(raised.value)
    assert "first on line 9 (judgmentRatings[0].ratings[0])" in str(raised.value)
    distinct = json.loads(path.read_text())
    distinct["judgmentRatings"] = [distinct["judgmentRatings"][i] for i in (0, 2, 4, 5)]
    single = tmp_path / "srw.json"
    single.write_text(json.dumps(distinct))
    summary = str(import_files(db, ImportOptions(source=single, rater="srw", grade_map=fractions)))
    assert "40 judgments added" in summary
    assert (
        "not kept: judgment list description (1), judgment list name (1), judgment list type (1)"
        in summary
    )
