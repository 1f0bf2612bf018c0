"""``judge-app settings --pairs-top N --pairs-budget N``: the preference pairs a lead plans, read
and changed with the campaign's other settings (``commands.campaign_settings``), whole or not
at all."""

from __future__ import annotations

import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

from judge_app.cli import main as cli
from judge_app.commands.campaign_settings import SettingsChange, pair_cost, read_settings
from judge_app.errors import UsageError
from judge_app.store import open_database
from judge_app.store.pair_queue import PairSettings, pair_settings


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


def test_pair_settings_round_trip(db):
    code, out, _ = said("settings", db, "--format", "json")
    assert code == 0 and json.loads(out)["pairs"] == {"top": 6, "budget": 10}
    code, out, err = said("settings", db, "--pairs-top", 8, "--pairs-budget", 12)
    assert (code, err) == (0, "")
    assert (
        "Preference pairs\n  at most 12 of the 28 pairs of 8 results per rater and query\n" in out
    )
    with open_database(db, create=False) as database, database.reading() as session:
        assert pair_settings(session) == PairSettings(top=8, budget=12)
    code, out, _ = said("settings", db, "--pairs-budget", 3, "--format", "json")
    assert json.loads(out)["pairs"] == {"top": 8, "budget": 3}  # the top kept
    assert read_settings(db).pairs == PairSettings(top=8, budget=3)


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--pairs-top", 21], "the results compared per query must be 2–20, not 21"),
        (["--pairs-top", 1], "the results compared per query must be 2–20, not 1"),
        (["--pairs-budget", 0], "the pairs per rater and query must be at least 1, not 0"),
        (["--pool-depth", 3, "--pairs-budget", -2], "must be at least 1, not -2"),
        (["--pairs-top", 4, "--pool-depth", 0], "at least 1"),
    ],
)
def test_a_value_out_of_range_is_named_and_changes_nothing(db, args, why):
    before = read_settings(db)
    code, out, err = said("settings", db, *args)
    assert (code, out) == (1, "") and why in err, err
    assert read_settings(db) == before


def test_the_use_case_refuses_a_pair_setting_it_does_not_know():
    with pytest.raises(UsageError, match="no preference pair setting rounds"):
        SettingsChange(pairs={"rounds": 3}).checked()
    assert not SettingsChange(pairs={"top": 3}).empty


@pytest.mark.parametrize(
    ("top", "budget", "words"),
    [
        (6, 10, "at most 10 of the 15 pairs of 6 results per rater and query"),
        (6, 15, "all 15 pairs of 6 results per rater and query"),
        (20, 1_000, "all 190 pairs of 20 results per rater and query"),
        (2, 5, "the one pair of 2 results per rater and query"),
    ],
)
def test_the_cost_in_words(top, budget, words):
    assert pair_cost(PairSettings(top, budget)) == words
