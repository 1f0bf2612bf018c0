"""``judge-app settings``: the rubric, the pooling and the quality checks the window's Lead
dialogs change, read and changed from the command line through the same use case
(``commands.campaign_settings``); a change names only what it changes and is written whole
or not at all."""

from __future__ import annotations

import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

from judge_app.cli import main as cli
from judge_app.commands.campaign_settings import SettingsChange, read_settings
from judge_app.errors import UsageError
from judge_app.store import open_database
from judge_app.store.grade_labels import DEFAULT_SCALE, GradeLabel
from judge_app.store.rater_queue import PoolSettings
from judge_app.store.settings import QualitySettings


@pytest.fixture
def db(demo, tmp_path) -> Path:
    path = tmp_path / "campaign.sqlite"
    shutil.copy(demo, path)
    return path


def said(*args: object) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli([str(arg) for arg in args])
    return code, out.getvalue(), err.getvalue()


def test_the_settings_are_shown_as_they_are(db):
    code, out, _ = said("settings", db, "--format", "json")
    record = json.loads(out)
    assert code == 0 and record["rubric"][3]["label"] == DEFAULT_SCALE[3].label
    assert record["pool"] == vars(PoolSettings()) | {"runs": None}
    assert record["quality"] == vars(QualitySettings())
    code, out, _ = said("settings", db)
    assert "  the top 10 of every run" in out and "fastest credible judgment 2 s" in out


def test_a_change_keeps_what_it_does_not_name(db):
    code, out, err = said("settings", db, "--grade", 3, "Useful", "Answers much of it",
                          "--grade", 0, "Off topic", "--pool-depth", 5, "--result-order",
                          "shuffle", "--repeat-share", 0.1, "--format", "json")  # fmt: skip
    assert (code, err) == (0, "")
    record = json.loads(out)
    assert record["rubric"][3] == {"grade": 3, "label": "Useful",
                                   "description": "Answers much of it"}  # fmt: skip
    assert record["rubric"][0] == {"grade": 0, "label": "Off topic", "description": ""}
    assert record["rubric"][1]["label"] == DEFAULT_SCALE[1].label
    assert record["pool"]["depth"] == 5 and record["pool"]["order"] == "shuffle"
    assert record["pool"]["query_order"] == "assigned"
    assert record["quality"] == {"min_seconds": 2.0, "repeat_share": 0.1}
    code, out, _ = said("settings", db, "--pool-runs", "bm25", "--format", "json")
    assert json.loads(out)["pool"]["runs"] == ["bm25"] and json.loads(out)["pool"]["depth"] == 5
    code, out, _ = said("settings", db, "--pool-runs", "all", "--format", "json")
    assert json.loads(out)["pool"]["runs"] is None


def test_a_wrong_value_changes_nothing(db):
    with open_database(db, create=False) as database:
        before = read_settings(database)
    for args, why in (
        (["--min-seconds", 5, "--pool-runs", "nope"], "no run called nope"),
        (["--pool-depth", 5, "--repeat-share", 0.9], "must be 0–50%, not 90%"),
        (["--pool-depth", 0], "at least 1"),
    ):
        code, _, err = said("settings", db, *args)
        assert code == 1 and why in err, err
    code, _, err = said("settings", db, "--grade", 7, "Too high")
    assert code == 2 and "grades 0 to 5" in err
    code, _, err = said("settings", db, "--grade", 3, " ")
    assert code == 2 and "give grade 3 a label" in err
    with open_database(db, create=False) as database:
        assert read_settings(database) == before


def test_the_use_case_refuses_what_it_does_not_know():
    for change, why in (
        (SettingsChange(pool={"colour": "red"}), "no pooling setting colour"),
        (SettingsChange(pool={"order": "random"}), "the results' order is one of"),
        (SettingsChange(quality={"speed": 1.0}), "no quality setting speed"),
        (SettingsChange(grades=(GradeLabel(1, "a", ""), GradeLabel(1, "b", ""))), "once"),
    ):
        with pytest.raises(UsageError, match=why):
            change.checked()


def test_a_run_named_with_braces_is_shown_as_it_is(db):
    """The table's words are made with f-strings only: a run's name is never a format."""
    import sqlite3

    connection = sqlite3.connect(db)
    with connection:
        connection.execute("UPDATE run SET name = '{pool.seed}' WHERE name = 'bm25'")
    connection.close()
    code, out, _ = said("settings", db, "--order-run", "{pool.seed}")
    assert code == 0 and "results shown as {pool.seed} ranks them" in out
