"""Gold items through ``judge-app gold`` and its use case: a good file marks exactly its rows;
every bad row is refused with its file, line and reason and changes nothing; an export
imports back to the same items; and gold grades are no rater's judgment (the evaluation and
the agreement return the same, no rater appears)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DEMO

from judge_app.cli import main
from judge_app.commands import agree
from judge_app.commands.evaluate import evaluate
from judge_app.commands.gold import GoldOptions, gold
from judge_app.errors import JudgeAppError
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest, SignificanceOptions
from judge_app.store import open_database
from judge_app.store.gold_items import gold_frame
from judge_app.store.rater_queue import PoolSettings, all_rater_names, set_pool_settings
from judge_app.writers.agreement import as_text as agreement_text
from judge_app.writers.evaluation import as_text

# run A ranks d1, d2, d3 for q1 and d4, d5 for q2; run B ranks d2 first and d6 fourth for q1.
# With a pool depth of 3, (q1, d6) is retrieved but outside the pool; d7 is known, retrieved
# for no query.
RUNS = {
    "A": [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 3), ("q2", "d4", 1), ("q2", "d5", 2)],
    "B": [("q1", "d2", 1), ("q1", "d5", 2), ("q1", "d4", 3), ("q1", "d6", 4)],
}
RETRIEVED = sorted({(query, doc) for rows in RUNS.values() for query, doc, _rank in rows})


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def write_rows(path: Path, rows: list[tuple], header=("query_id", "doc_id", "grade")) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


def build_campaign(folder: Path, runs: dict[str, list[tuple]], documents: list[str]) -> Path:
    """A database with the queries of ``runs``, ``documents`` (titled "Title of …") and the
    runs, pooled to depth 3."""
    db = folder / "gold.sqlite"
    queries = sorted({query for rows in runs.values() for query, _doc, _rank in rows})
    write_rows(folder / "queries.csv", [(q, f"text of {q}") for q in queries], ("query_id", "text"))
    titled = [(doc, f"Title of {doc}") for doc in documents]
    write_rows(folder / "documents.csv", titled, ("doc_id", "title"))
    args = ["import", db, "--queries", folder / "queries.csv"]
    args += ["--documents", folder / "documents.csv"]
    assert main([str(arg) for arg in args]) == 0
    for name, rows in runs.items():
        run = write_rows(folder / f"{name}.csv", rows, ("query_id", "doc_id", "rank"))
        assert main([str(arg) for arg in ["import", db, "--run", run, "--run-name", name]]) == 0
    with open_database(db) as database, database.transaction() as session:
        set_pool_settings(session, PoolSettings(depth=3))
    return db


@pytest.fixture
def campaign(tmp_path, capsys) -> Path:
    db = build_campaign(tmp_path, RUNS, [f"d{n}" for n in range(1, 8)])
    capsys.readouterr()
    return db


def stored(db: Path) -> pd.DataFrame:
    with open_database(db) as database, database.reading() as session:
        return gold_frame(session)


def cleared(db: Path) -> None:
    """Every gold item unmarked."""
    frame = stored(db)
    if len(frame):
        with open_database(db) as database:
            gold(database, GoldOptions(remove=tuple(zip(frame["query_id"], frame["doc_id"]))))


def items(db: Path) -> set[tuple[str, str, int]]:
    frame = stored(db)
    return set(zip(frame["query_id"], frame["doc_id"], frame["grade"].astype(int)))


# importing ------------------------------------------------------------------------------------


def test_a_good_file_marks_its_rows_and_says_what_changed(campaign, tmp_path, capsys):
    first = write(tmp_path / "gold.csv", "query_id,doc_id,grade\nq1,d1,3\nq1,d2,0\nq2,d4,5\n")
    code, out, err = run_cli(capsys, "gold", campaign, "--import", first)
    assert (code, err) == (0, "")
    assert (
        out == f"{first}: 3 gold items marked: 3 new, 0 new grades for known items, 0 unchanged\n"
    )
    assert items(campaign) == {("q1", "d1", 3), ("q1", "d2", 0), ("q2", "d4", 5)}

    # a TSV with the header's aliases; a pair given twice with one grade is one item
    again = write(
        tmp_path / "gold.tsv", "qid\tdocno\trel\nq1\td1\t3\nq1\td2\t4\nq1\td2\t4\nq2\td5\t1\n"
    )
    code, out, err = run_cli(capsys, "gold", campaign, "--import", again)
    assert (code, err) == (0, "")
    assert (
        out == f"{again}: 3 gold items marked: 1 new, 1 new grades for known items, 1 unchanged\n"
    )
    assert items(campaign) == {("q1", "d1", 3), ("q1", "d2", 4), ("q2", "d4", 5), ("q2", "d5", 1)}


def test_a_pair_outside_the_pool_is_marked_with_a_warning(campaign, tmp_path, capsys):
    path = write(tmp_path / "gold.csv", "query_id,doc_id,grade\nq1,d6,2\nq1,d3,1\n")
    code, out, _err = run_cli(capsys, "gold", campaign, "--import", path)
    assert code == 0
    assert out.splitlines()[1] == (
        "warning: 1 gold item outside the pool (not in the top 3 of any pooled run): no rater "
        "sees it until the pool changes: q1:d6"
    )
    assert items(campaign) == {("q1", "d6", 2), ("q1", "d3", 1)}


def test_a_pair_only_runs_outside_the_pool_retrieved_is_outside_it(campaign, capsys):
    with open_database(campaign) as database, database.transaction() as session:
        set_pool_settings(session, PoolSettings(depth=3, runs=("A",)))
    code, out, _err = run_cli(capsys, "gold", campaign, "--mark", "q1:d4=1,q1:d2=2,q1:d5=0")
    assert code == 0 and out.splitlines()[1].endswith("until the pool changes: q1:d4, q1:d5")
    code, out, _err = run_cli(capsys, "gold", campaign, "--mark", "q1:d2=3,q2:d5=1")
    assert code == 0 and len(out.splitlines()) == 1  # B ranks d2 first, A second: no warning


BAD_ROWS = [
    ("q9,d1,2", ", column query_id: unknown query 'q9'"),
    ("q1,d99,2", ", column doc_id: unknown document 'd99'"),
    ("q1,d7,2", ", column doc_id: no run retrieved document 'd7' for query 'q1': raters would "
                "never see it"),
    ("q2,d1,2", ", column doc_id: no run retrieved document 'd1' for query 'q2': raters would "
                "never see it"),
    ("q1,d2,6", ", column grade: grade 6 is outside 0–5"),
    ("q1,d2,-1", ", column grade: grade -1 is outside 0–5"),
    ("q1,d2,2.5", ", column grade: grade 2.5 is not a whole number"),
    ("q1,d2,two", ", column grade: 'two' is not a grade (a whole number 0–5)"),
    ("q1,d2,", ", column grade: missing grade"),
    (",d2,1", ", column query_id: empty query id"),
    ("q1,d1,4", ": the same pair with another grade (query_id q1, doc_id d1: 4 here, 3 there); "
                "first on line 2"),
]  # fmt: skip


@pytest.mark.parametrize(("row", "reason"), BAD_ROWS)
def test_each_bad_row_is_named_by_file_and_line_and_changes_nothing(
    campaign, tmp_path, capsys, row, reason
):
    assert run_cli(capsys, "gold", campaign, "--mark", "q1:d3=1")[0] == 0
    before = stored(campaign)
    path = write(
        tmp_path / "gold.csv", f"query_id,doc_id,grade\nq1,d1,3\nq1,d2,3\n{row}\nq2,d4,1\n"
    )
    code, out, err = run_cli(capsys, "gold", campaign, "--import", path)
    assert (code, out) == (1, "")
    assert err == f"judge-app gold: {path} line 4{reason}\n"
    assert stored(campaign).equals(before)  # nothing marked, not even the good rows


def test_many_bad_rows_list_twenty_and_count_the_rest(campaign, tmp_path, capsys):
    rows = "".join(f"q{n},d1,2\n" for n in range(10, 35))  # 25 unknown queries
    path = write(tmp_path / "gold.csv", "query_id,doc_id,grade\nq1,d1,3\n" + rows)
    code, _out, err = run_cli(capsys, "gold", campaign, "--import", path)
    lines = err.splitlines()
    assert code == 1 and len(lines) == 21
    assert lines[0] == f"judge-app gold: {path} line 3, column query_id: unknown query 'q10'"
    assert lines[19] == f"{path} line 22, column query_id: unknown query 'q29'"
    assert lines[20] == "… and 5 more problems"
    assert stored(campaign).empty


def test_a_file_without_the_header_or_rows_is_refused_or_marks_nothing(campaign, tmp_path, capsys):
    headless = write(tmp_path / "headless.csv", "q1,d1,3\n")
    code, _out, err = run_cli(capsys, "gold", campaign, "--import", headless)
    assert code == 1
    assert err.splitlines()[0] == (
        f"judge-app gold: {headless}, column query_id: missing column 'query_id' "
        "(the header has: q1, d1, 3)"
    )
    empty = write(tmp_path / "empty.csv", "query_id,doc_id,grade\n")
    assert run_cli(capsys, "gold", campaign, "--import", empty) == (
        0,
        f"{empty}: no gold items in the file: nothing marked\n",
        "",
    )
    assert stored(campaign).empty


# marking, removing, listing, exporting ---------------------------------------------------------


def test_mark_remove_and_list(campaign, capsys):
    code, out, _err = run_cli(capsys, "gold", campaign, "--mark", "q1:d1=3, q2:d5=0")
    assert (code, out) == (
        0,
        "2 gold items marked: 2 new, 0 new grades for known items, 0 unchanged\n",
    )
    code, _out, err = run_cli(capsys, "gold", campaign, "--mark", "q1:d7=3,q3:d1=1")
    assert code == 1 and err == (
        "judge-app gold: nothing was marked:\nq3:d1: unknown query 'q3'\n"
        "q1:d7: no run retrieved document 'd7' for query 'q1': raters would never see it\n"
    )
    code, _out, err = run_cli(capsys, "gold", campaign, "--remove", "q1:d1,q1:d2")
    assert (code, err) == (1, "judge-app gold: not gold: q1:d2: nothing was removed\n")
    assert items(campaign) == {("q1", "d1", 3), ("q2", "d5", 0)}

    frame = stored(campaign)
    code, out, _err = run_cli(capsys, "gold", campaign, "--list", "--format", "json")
    listed = json.loads(out)
    assert [(row["query_id"], row["doc_id"], row["grade"]) for row in listed] == [
        ("q1", "d1", 3),
        ("q2", "d5", 0),
    ]
    stamps = [datetime.fromisoformat(row["marked_at"].removesuffix("Z")) for row in listed]
    assert stamps == list(frame["marked_at"])  # to the microsecond
    code, out, _err = run_cli(capsys, "gold", campaign, "--list", "--format", "csv")
    rows = list(csv.DictReader(out.splitlines()))
    assert [row["marked_at"] for row in rows] == [row["marked_at"] for row in listed]
    code, out, _err = run_cli(capsys, "gold", campaign)
    assert out.splitlines()[0] == "2 gold items"
    assert out.splitlines()[4].split()[:3] == ["q2", "d5", "0"]

    code, out, _err = run_cli(capsys, "gold", campaign, "--remove", "q1:d1")
    assert (code, out) == (0, "1 gold item removed\n")
    assert items(campaign) == {("q2", "d5", 0)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mark", "q1:d1=6"], "--mark q1:d1=6: a grade is 0–5"),
        (["--mark", "q1:d1"], "--mark 'q1:d1': write QUERY_ID:DOC_ID=GRADE"),
        (["--mark", "q1:d1=²"], "--mark 'q1:d1=²': write QUERY_ID:DOC_ID=GRADE"),
        (["--remove", "q1-d1"], "--remove 'q1-d1': write QUERY_ID:DOC_ID"),
        (["--remove", "q1:d1,q1:d1"], "--remove names a pair twice: q1:d1"),
        (["--export", "out.tsv"], "--export writes CSV: name the file .csv, not out.tsv"),
        (["--remove", "q1:d1", "--format", "csv"], "--format is for --list"),
    ],
)
def test_usage_errors_exit_2(campaign, capsys, args, message):
    assert run_cli(capsys, "gold", campaign, *args) == (2, "", f"judge-app gold: {message}\n")


def test_two_actions_at_once_are_refused_by_the_command_line(campaign):
    done = subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "gold", str(campaign), "--list", "--remove", "a:b"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "not allowed with argument" in done.stderr


def test_export_then_import_is_a_round_trip(tmp_path, capsys):
    """Ids a spreadsheet would run, or that hold the file's own delimiters, come back."""
    odd = ["=1+1", "-d", "'=x", "'plain", "a,b", 'say "hi"', "ünï", "tab\there", "d:colon"]
    runs = {"A": [("+q", doc, rank) for rank, doc in enumerate(odd, start=1)]}
    db = build_campaign(tmp_path, runs, odd)
    with open_database(db) as database, database.transaction() as session:
        set_pool_settings(session, PoolSettings(depth=20))
    marks = ",".join(f"+q:{doc}={n % 6}" for n, doc in enumerate(odd) if "," not in doc)
    assert run_cli(capsys, "gold", db, "--mark", marks)[0] == 0
    assert run_cli(capsys, "gold", db, "--mark", "+q:a,b=5")[0] == 2  # the list's own comma
    with open_database(db) as database:
        gold(database, GoldOptions(mark=(("+q", "a,b", 5),)))
    marked = items(db)
    assert len(marked) == len(odd)
    out = tmp_path / "exported.csv"
    assert run_cli(capsys, "gold", db, "--export", out) == (0, f"{out}: 9 gold items\n", "")
    cleared(db)
    assert stored(db).empty
    code, output, _err = run_cli(capsys, "gold", db, "--import", out)
    assert code == 0 and "9 new" in output
    assert items(db) == marked
    again = tmp_path / "again.csv"
    assert run_cli(capsys, "gold", db, "--export", again)[0] == 0
    assert again.read_bytes() == out.read_bytes()


# properties ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_campaign(tmp_path_factory) -> Path:
    return build_campaign(tmp_path_factory.mktemp("gold"), RUNS, [f"d{n}" for n in range(1, 8)])


@settings(max_examples=40, deadline=None)
@given(
    chosen=st.lists(
        st.tuples(st.sampled_from(RETRIEVED), st.integers(0, 5)),
        unique_by=lambda mark: mark[0],
        max_size=len(RETRIEVED),
    ),
    repeats=st.lists(st.integers(0, 20), max_size=4),
    spaces=st.booleans(),
)
def test_a_valid_gold_file_imports_to_exactly_its_rows(
    shared_campaign, tmp_path_factory, chosen, repeats, spaces
):
    cleared(shared_campaign)
    rows = [(query, doc, grade) for (query, doc), grade in chosen]
    rows += [rows[n % len(rows)] for n in repeats] if rows else []  # a pair again, same grade
    if spaces:
        rows = [(f" {query}", f"{doc} ", f" {grade}") for query, doc, grade in rows]
    path = write_rows(tmp_path_factory.mktemp("file") / "gold.csv", rows)
    with open_database(shared_campaign) as database:
        gold(database, GoldOptions(import_path=path))
    assert items(shared_campaign) == {(query, doc, grade) for (query, doc), grade in chosen}


HEADER = "query_id,doc_id,grade\n"


@settings(max_examples=150, deadline=None)
@given(
    text=st.one_of(
        st.text(),
        st.text().map(lambda body: HEADER + body),
        st.lists(
            st.tuples(
                st.sampled_from(["q1", "q2", "q9", "", " q1 ", "q1\x00"]),
                st.sampled_from(["d1", "d2", "d4", "d7", "zz", ""]),
                st.one_of(st.integers(-2, 7).map(str), st.text(max_size=3)),
            ),
            max_size=6,
        ).map(lambda rows: HEADER + "".join(",".join(row) + "\n" for row in rows)),
    ),
    suffix=st.sampled_from([".csv", ".tsv", ".jsonl", ".txt"]),
)
def test_any_text_is_imported_or_refused_cleanly(shared_campaign, tmp_path_factory, text, suffix):
    cleared(shared_campaign)
    path = tmp_path_factory.mktemp("file") / f"gold{suffix}"
    path.write_text(text, encoding="utf-8")
    with open_database(shared_campaign) as database:
        try:
            gold(database, GoldOptions(import_path=path))
        except JudgeAppError as error:
            assert str(error) and stored(shared_campaign).empty
    assert items(shared_campaign) <= {(q, d, g) for q, d in RETRIEVED for g in range(6)}


# no rater's judgment ---------------------------------------------------------------------------


def test_gold_items_change_neither_the_evaluation_nor_the_agreement(tmp_path, capsys):
    db = tmp_path / "demo.sqlite"
    assert main(["demo", str(db)]) == 0
    capsys.readouterr()

    def answers() -> tuple[str, str, list[str]]:
        options = EvaluationOptions(ks=(5, 10), permutations=200)
        request = EvaluationRequest(options, SignificanceOptions.following(options), per_rater=True)
        result = evaluate(request, str(db))
        report = agree.agreement_of(str(db), agree.AgreementOptions(bootstrap=200))
        with open_database(db) as database, database.reading() as session:
            raters = all_rater_names(session)
        return as_text(result, "json"), agreement_text(report, "json"), raters

    before = answers()
    judgments = pd.read_csv(DEMO / "judgments.csv")
    judged = judgments.drop_duplicates(["query_id", "doc_id"]).head(40)
    # gold grades unlike the raters': 5 where they gave little, 0 where they gave much
    rows = [
        (q, d, 0 if g >= 3 else 5)
        for q, d, g in judged[["query_id", "doc_id", "grade"]].itertuples(index=False)
    ]
    path = write_rows(tmp_path / "gold.csv", rows)
    assert run_cli(capsys, "gold", db, "--import", path)[0] == 0
    marked = stored(db)  # the demo's own twelve, and these
    assert set(rows) <= set(zip(marked["query_id"], marked["doc_id"], marked["grade"]))
    after = answers()
    assert after == before
    assert not any("gold" in name.lower() for name in after[2])
