"""The judge-app command line end to end, through a subprocess as a user runs it."""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import DEMO

from judge_app.cli import _parser, main
from judge_app.store import open_database
from judge_app.store.assignments import current_assignments
from judge_app.store.people import campaign_raters


def judge_app(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "judge_app.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def campaign_names(session) -> list[str]:
    return [name for _id, name in campaign_raters(session)]


def test_init_import_info_export(tmp_path):
    db = tmp_path / "campaign.sqlite"
    assert judge_app("init", db).returncode == 0
    result = judge_app(
        "import", db,
        "--queries", DEMO / "queries.csv",
        "--documents", DEMO / "documents.jsonl",
        "--run", DEMO / "runs" / "bm25.txt",
        "--judgments", DEMO / "judgments.csv",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "run 'bm25', 161 results for 16 queries" in result.stdout
    assert "458 judgments added, 0 changed, 0 unchanged" in result.stdout

    info = judge_app("info", db)
    assert info.returncode == 0
    assert "judgments" in info.stdout and "458" in info.stdout
    assert "bm25" in info.stdout and "100.0%" in info.stdout

    out = tmp_path / "judgments.csv"
    assert judge_app("export", db, "--judgments", out).returncode == 0
    with out.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 458
    assert {"query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped",
            "note", "judged_at", "duration_ms"} == set(rows[0])  # fmt: skip
    assert rows[0]["judged_at"].endswith("Z")

    qrels = tmp_path / "qrels.txt"
    result = judge_app("export", db, "--qrels", qrels, "--aggregate", "rater:ana")
    assert result.returncode == 0, result.stderr
    lines = qrels.read_text().splitlines()
    assert len(lines) == 161 and all(len(line.split()) == 4 for line in lines)


def test_import_is_idempotent_through_the_cli(tmp_path):
    db = tmp_path / "db.sqlite"
    first = judge_app("import", db, "--judgments", DEMO / "judgments.csv")
    again = judge_app("import", db, "--judgments", DEMO / "judgments.csv")
    assert first.returncode == again.returncode == 0
    assert "0 judgments added, 0 changed, 458 unchanged" in again.stdout


def test_bad_file_exits_1_with_message_and_no_traceback(tmp_path):
    db = tmp_path / "db.sqlite"
    bad = tmp_path / "judgments.csv"
    bad.write_text("query_id,doc_id,rater,grade\nq1,d1,ana,3\nq1,d2,ana,9\n", encoding="utf-8")
    result = judge_app("import", db, "--judgments", bad)
    assert result.returncode == 1
    assert f"{bad} line 3, column grade: grade 9 is outside 0–5" in result.stderr
    assert "Traceback" not in result.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("frobnicate",),
        ("import",),
        ("export", "DB"),
        ("export", "DB", "--judgments", "a.csv", "--qrels", "b"),
    ],
)
def test_usage_errors_exit_2(args):
    result = judge_app(*args)
    assert result.returncode == 2
    assert "usage" in result.stderr.lower()


def test_import_without_files_is_a_usage_error(tmp_path):
    result = judge_app("import", tmp_path / "db.sqlite")
    assert result.returncode == 2
    assert "at least one of" in result.stderr


def test_commands_that_read_do_not_create_a_database(tmp_path):
    db = tmp_path / "typo.sqlite"
    result = judge_app("info", db)
    assert result.returncode == 1 and "judge-app init" in result.stderr
    assert not db.exists()


def test_unknown_aggregation_is_a_usage_error(tmp_path):
    db = tmp_path / "db.sqlite"
    judge_app("init", db)
    result = judge_app("export", db, "--qrels", tmp_path / "q", "--aggregate", "average")
    assert result.returncode == 2 and "unknown aggregation" in result.stderr


def test_qrels_of_a_rater_without_grades_is_refused_naming_the_raters(tmp_path):
    db = tmp_path / "demo.sqlite"
    judge_app("demo", db)
    out = tmp_path / "zed.qrels"
    result = judge_app("export", db, "--qrels", out, "--aggregate", "rater:zed")
    assert result.returncode == 2 and not out.exists()
    assert "has no rater 'zed' (raters it has: ana, ben, chloe)" in result.stderr


@pytest.mark.parametrize(
    ("option", "target", "reason"),
    [
        ("--judgments", "missing/x.csv", "folder {folder}/missing does not exist"),
        ("--qrels", ".", "is a folder, not a file"),
        ("--qrels", "a-file/x.qrels", "{folder}/a-file is not a folder"),
    ],
)
def test_export_to_a_path_it_cannot_write_exits_1_and_writes_nothing(
    tmp_path, option, target, reason
):
    db = tmp_path / "demo.sqlite"
    judge_app("demo", db)
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    before = sorted(tmp_path.rglob("*"))
    out = tmp_path / target
    result = judge_app("export", db, option, out)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"cannot write {out}: {reason.format(folder=tmp_path)}" in result.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_export_to_a_full_disk_leaves_no_partial_file(tmp_path, tiny_disk):
    db = tmp_path / "demo.sqlite"
    judge_app("demo", db)
    out = tiny_disk.path / "judgments.csv"
    tiny_disk.fill()
    try:
        result = judge_app("export", db, "--judgments", out)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert f"cannot write {out}: " in result.stderr
        assert sorted(tiny_disk.path.iterdir()) == [tiny_disk.filler]
    finally:
        tiny_disk.free()


def test_assign_every_query_to_two_raters_then_a_shared_quarter(tmp_path):
    db = tmp_path / "campaign.sqlite"
    judge_app("init", db)
    judge_app("import", db, "--queries", DEMO / "queries.csv")
    result = judge_app("assign", db, "--raters", "ana,ben,chloe", "--copies", "2")
    assert result.returncode == 0, result.stderr
    assert "16 queries assigned to 3 raters, 32 assignments new" in result.stdout
    assert "each query judged by 2 of them" in result.stdout
    with open_database(db) as database, database.reading() as session:
        queues = current_assignments(session)
        assert sorted(len(queries) for queries in queues.values()) == [10, 11, 11]
        assert campaign_names(session) == ["ana", "ben", "chloe"]  # added by assign
    again = judge_app("assign", db, "--raters", "ana,ben,chloe", "--copies", "2")
    assert "0 assignments new" in again.stdout  # the same plan again changes nothing
    shared = judge_app("assign", db, "--raters", "ana,ben,chloe", "--share", "25", "--replace")
    assert shared.returncode == 0, shared.stderr
    assert "each query judged by 1–3 of them, 4 by all" in shared.stdout
    with open_database(db) as database, database.reading() as session:
        queues = current_assignments(session)
    assert len(set.intersection(*queues.values())) == 4
    assert len(set.union(*queues.values())) == 16  # and every query has a rater


def test_assign_names_raters_in_nfc_without_case_and_refuses_one_only_spaces_away(tmp_path):
    db = tmp_path / "campaign.sqlite"
    judge_app("demo", db)
    result = judge_app("assign", db, "--raters", "cafe\u0301,  Ben  ", "--copies", "1")
    assert result.returncode == 0, result.stderr
    assert "  ben: " in result.stdout and "Ben" not in result.stdout  # "  Ben  " is ben
    for names, reason in (
        ("dan,D an", "rater 'D an' differs from the rater 'dan' only by case or spaces"),
        ("ana,Adjudicated", "'Adjudicated' is where a lead's adjudicated grades are kept"),
        ("ana,ANA", "--raters names the rater 'ana' twice"),
    ):
        result = judge_app("assign", db, "--raters", names, "--copies", "1")
        assert result.returncode in (1, 2) and "Traceback" not in result.stderr
        assert reason in result.stderr
    with open_database(db) as database, database.reading() as session:
        assert campaign_names(session) == ["ana", "ben", "caf\u00e9", "chloe"]


@pytest.mark.parametrize("command", ["eval", "agreement", "report"])
def test_raters_option_names_the_rater_meant(tmp_path, command):
    db = tmp_path / "demo.sqlite"
    judge_app("demo", db)
    where = ["--db", db] if command != "report" else [db, "--out", tmp_path / "r.html"]
    result = judge_app(command, *where, "--raters", "ana,Ben")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (
        "has no rater 'Ben' (raters it has: ana, ben, chloe); rater 'Ben' differs from the "
        "rater 'ben' only by case or spaces"
    ) in result.stderr
    assert judge_app(command, *where, "--raters", " ana , ben ").returncode == 0


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["--raters", "ana,ben", "--copies", "3"], 2, "--copies takes a whole number from 1 to 2"),
        (["--raters", " , ", "--copies", "1"], 2, "--raters needs at least one name"),
        (["--raters", "ana", "--copies", "1", "--share", "10"], 2, "not allowed with argument"),
    ],
)
def test_assign_refuses_what_cannot_be_planned(tmp_path, args, status, said):
    db = tmp_path / "campaign.sqlite"
    judge_app("init", db)
    judge_app("import", db, "--queries", DEMO / "queries.csv")
    result = judge_app("assign", db, *args)
    assert result.returncode == status and said in result.stderr
    with open_database(db) as database, database.reading() as session:
        assert current_assignments(session) == {}


def test_demo_builds_a_database_with_three_raters_and_two_runs(tmp_path):
    db = tmp_path / "demo.sqlite"
    result = judge_app("demo", db)
    assert result.returncode == 0, result.stderr
    for word in ("ana", "ben", "chloe", "bm25", "neural", "Perfect"):
        assert word in result.stdout
    again = judge_app("demo", db)
    assert again.returncode == 0
    assert again.stdout.split("Raters")[1] == result.stdout.split("Raters")[1]


def test_strict_import_names_unknown_ids(tmp_path):
    db = tmp_path / "db.sqlite"
    judge_app("import", db, "--queries", DEMO / "queries.csv")
    run = tmp_path / "run.csv"
    run.write_text("query_id,doc_id,rank\nq01,dX,1\nq99,dY,1\n", encoding="utf-8")
    result = judge_app("import", db, "--run", run, "--strict")
    assert result.returncode == 1
    assert "line 3, column query_id: unknown query 'q99'" in result.stderr
    assert "line 2, column doc_id: unknown document 'dX'" in result.stderr


def test_info_lists_queries_and_documents_known_by_id_alone(tmp_path):
    db = tmp_path / "db.sqlite"
    assert judge_app("import", db, "--run", DEMO / "runs" / "bm25.txt").returncode == 0
    info = judge_app("info", db).stdout
    assert "Queries known by id alone (import their file): q01, q02," in info
    assert "and 6 more" in info
    judge_app("import", db, "--queries", DEMO / "queries.csv")
    assert "Queries known by id alone" not in judge_app("info", db).stdout


def test_info_names_fifty_raters_and_counts_the_others(tmp_path, capsys):
    """A campaign of a million raters printed a million lines (and took minutes): ``info``
    lists the first 50 by name and counts the rest; the counts are of every rater."""
    db, judgments = tmp_path / "db.sqlite", tmp_path / "judgments.csv"
    rows = [f"q{n % 7},d{n % 11},r{n:03d},{n % 6}" for n in range(120)]
    judgments.write_text("query_id,doc_id,rater,grade\n" + "\n".join(rows) + "\n")
    assert main(["import", str(db), "--judgments", str(judgments)]) == 0
    capsys.readouterr()
    assert main(["info", str(db)]) == 0
    info = capsys.readouterr().out
    assert re.search(r"^  raters +120$", info, re.MULTILINE)
    listed = re.findall(r"^ +(r\d{3}) +yes", info, re.MULTILINE)
    assert listed == [f"r{n:03d}" for n in range(50)]
    assert "  and 70 more (judge-app raters lists every one)" in info


@pytest.mark.parametrize(
    "command",
    [
        ["info", "{db}"],
        ["eval", "--db", "{db}"],
        ["agreement", "--db", "{db}"],
        ["export", "{db}", "--qrels", "{out}"],
        ["report", "{db}", "--out", "{out}.html"],
    ],
    ids=lambda command: command[0],
)
def test_read_only_commands_on_an_empty_file_write_nothing(tmp_path, capsys, command):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    arguments = [part.format(db=empty, out=tmp_path / "out") for part in command]
    assert main(arguments) == 1
    assert "is not a judge_app database yet: it holds no tables" in capsys.readouterr().err
    assert empty.stat().st_size == 0
    assert list(tmp_path.iterdir()) == [empty]


def test_an_export_over_its_own_database_or_another_is_refused(tmp_path, capsys):
    database, other = tmp_path / "campaign.sqlite", tmp_path / "other.sqlite"
    for path in (database, other):
        assert main(["init", str(path)]) == 0
    before = {path: path.read_bytes() for path in (database, other)}
    capsys.readouterr()
    assert main(["export", str(database), "--qrels", str(database)]) == 1
    assert "is a SQLite database: choose another file" in capsys.readouterr().err
    assert main(["export", str(database), "--judgments", str(other)]) == 1
    assert "is a SQLite database: choose another file" in capsys.readouterr().err
    assert {path: path.read_bytes() for path in (database, other)} == before


def test_no_help_shows_a_doubled_percent_sign():
    """argparse %-formats an option's help but not a command's description: "95%%" there
    reached the reader as it was typed."""
    parser = _parser()
    (commands,) = [action for action in parser._actions if action.choices and action.dest]
    for name, command in commands.choices.items():
        assert "%%" not in command.format_help(), name


def test_an_import_option_given_twice_is_refused_not_dropped(tmp_path, capsys):
    db = tmp_path / "db.sqlite"
    runs = []
    for name in ("a", "b"):
        run = tmp_path / f"{name}.txt"
        run.write_text(f"q1 Q0 d1 1 1.0 {name}\n", encoding="utf-8")
        runs += ["--run", str(run)]
    with pytest.raises(SystemExit) as exit_:
        main(["import", str(db), *runs])
    assert exit_.value.code == 2
    assert "--run is given twice: import one at a time" in capsys.readouterr().err
    assert not db.exists()  # nothing was imported


@pytest.mark.parametrize(
    "twin",
    [
        "\u0430na",  # a Cyrillic a
        "an\u200da",  # a zero-width joiner
        "\u202eana",  # a right-to-left override
        "a\u00adna",  # a soft hyphen
        "\uff41na",  # a full-width a
    ],
)
def test_a_name_that_only_looks_like_a_raters_is_refused_as_such(tmp_path, capsys, twin):
    db = tmp_path / "demo.sqlite"
    assert main(["demo", str(db)]) == 0  # ana is one of its raters
    capsys.readouterr()
    assert main(["assign", str(db), "--raters", twin, "--copies", "1"]) == 1
    said = capsys.readouterr().err
    assert "looks like the rater 'ana': it differs only by invisible or look-alike" in said
    assert "U+" in said  # the character that sets it apart, named


def _arguments(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every argument of ``parser`` and its commands, with the command it belongs to."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from _arguments(command, (*path, name))
        elif action.dest != "help":
            yield " ".join(path), action


def test_every_argument_says_what_it_takes():
    """The command reference of the user guide is made from this help: none is left blank,
    and no command shows two groups of one name (argparse's own is "options")."""
    blank = [
        f"{command} {'/'.join(action.option_strings) or action.dest}"
        for command, action in _arguments(_parser())
        if not action.help
    ]
    assert blank == []
    commands = {command for command, _action in _arguments(_parser())}
    for command in commands:
        parser = _parser()
        for name in command.split():
            parser = next(
                a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
            ).choices[name]
        titles = [group.title for group in parser._action_groups]
        assert len(titles) == len(set(titles)), (command, titles)
