"""Issue 32 item 4: several automatic judges combined into one (``judge-app ensemble``), with
its own calibration, usable by ``eval --judge`` like any judge."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judge_app.cli import main as cli
from judge_app.commands.autojudge import AutojudgeOptions, autojudge
from judge_app.commands.calibrate import calibrate_of
from judge_app.commands.ensemble import EnsembleOptions, combined, ensemble
from judge_app.errors import UsageError
from judge_app.evaluation.calibration import CalibrationOptions
from judge_app.store import open_database
from judge_app.store.automatic import judge


def frame(rows: list[tuple[int, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "document_id", "grade"])


@pytest.mark.parametrize(
    ("combine", "expected"),
    [("mean", [7.6 / 3, 4.0, 1 / 3]), ("median", [3.0, 4.0, 0.0]), ("majority", [1, 4, 0])],
)
def test_grades_are_combined_on_the_pairs_every_member_answered(combine, expected):
    a = frame([(1, 1, 1.0), (1, 2, 4.0), (1, 3, 0.0), (2, 1, 3.0), (2, 2, np.nan)])
    b = frame([(1, 1, 3.0), (1, 2, 4.0), (1, 3, 1.0), (2, 2, 5.0)])  # no (2, 1)
    c = frame([(1, 1, 3.6), (1, 2, 4.0), (1, 3, 0.0), (2, 1, 2.0), (2, 2, 1.0)])
    found = combined([a, b, c], ["a", "b", "c"], combine)
    assert found[["query_id", "document_id"]].values.tolist() == [[1, 1], [1, 2], [1, 3], [2, 2]]
    assert np.allclose(found["grade"][:3], expected)
    assert np.isnan(found["grade"][3]) and found["failure"][3] == "the judge 'a' gave no grade"
    assert found["failure"][:3].isna().all()


def test_a_majority_tie_goes_to_the_lowest_of_the_grades_most_given():
    a, b = frame([(1, 1, 2.0), (1, 2, 4.6)]), frame([(1, 1, 4.0), (1, 2, 4.5)])
    assert combined([a, b], ["a", "b"], "majority")["grade"].tolist() == [2.0, 5.0]


@pytest.fixture
def db(demo, tmp_path) -> Path:
    path = tmp_path / "campaign.sqlite"
    shutil.copy(demo, path)
    return path


def grades(path: Path, name: str) -> dict[tuple[int, int], float | None]:
    connection = sqlite3.connect(path)
    try:
        found = connection.execute(
            "SELECT a.query_id, a.document_id, a.grade FROM auto_judgment a JOIN rater r "
            "ON r.id = a.rater_id WHERE r.name = ?",
            (name,),
        ).fetchall()
    finally:
        connection.close()
    return {(q, d): g for q, d, g in found}


def test_an_ensemble_of_two_llm_judges_is_calibrated_and_used_by_eval(db, chat_server):
    with open_database(db, create=False) as database:
        for model in ("small", "large"):
            autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model=model,
                                                 probes=0, limit=40))  # fmt: skip
        summary = ensemble(database, EnsembleOptions(("small", "large")))
        assert summary.judge == "mean of small, large" and summary.graded == 40
        with database.reading() as session:
            described = judge(session, summary.judge).describe()
        assert described == "ensemble: mean of small, large"
        found = calibrate_of(database, CalibrationOptions(judge=summary.judge, bootstrap=50))
    small, large, both = (grades(db, n) for n in ("small", "large", "mean of small, large"))
    assert both == {pair: (small[pair] + large[pair]) / 2 for pair in small}
    assert found.pairs > 0 and found.judge.method == "ensemble"
    assert not any(line.startswith("Not probed") for line in found_findings(found))
    with redirect_stdout(StringIO()) as out:
        code = cli(["eval", "--db", str(db), "--judge", "mean of small, large", "--format", "json"])
    assert code == 0 and '"judge": "mean of small, large"' in out.getvalue()


def found_findings(found) -> list[str]:
    from judge_app.writers.calibration import findings

    return findings(found)


def test_combined_again_after_a_member_graded_more(db, chat_server):
    with open_database(db, create=False) as database:
        for model in ("a", "b"):
            autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model=model,
                                                 probes=0, limit=10))  # fmt: skip
        first = ensemble(database, EnsembleOptions(("a", "b"), combine="majority", name="both"))
        autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model="b", probes=0,
                                             limit=20))  # fmt: skip
        second = ensemble(database, EnsembleOptions(("a", "b"), combine="majority", name="both"))
        assert first.graded == second.graded == 10  # a graded no more
        autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model="a", probes=0,
                                             limit=20))  # fmt: skip
        third = ensemble(database, EnsembleOptions(("a", "b"), combine="majority", name="both"))
    assert third.graded == 20 and len(grades(db, "both")) == 20


def test_what_cannot_be_combined_is_refused_and_nothing_changes(db, chat_server):
    with open_database(db, create=False) as database:
        for model in ("a", "b"):
            autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model=model,
                                                 probes=0, limit=5))  # fmt: skip
        ensemble(database, EnsembleOptions(("a", "b"), name="ab"))
        for options, said in (
            (EnsembleOptions(("a",)), "two or more"),
            (EnsembleOptions(("a", "a")), "two or more"),
            (EnsembleOptions(("a", "b"), combine="max"), "combine must be one of"),
            (EnsembleOptions(("a", "nobody")), "nobody"),
            (EnsembleOptions(("a", "ab")), "itself an ensemble"),
            (EnsembleOptions(("a", "b"), name="ab", combine="median"), "another model"),
        ):
            with pytest.raises(Exception, match=said):
                ensemble(database, options)
    assert len(grades(db, "ab")) == 5


def test_the_command_line_combines_and_names_what_to_run_next(db, chat_server):
    with open_database(db, create=False) as database:
        for model in ("a", "b"):
            autojudge(database, AutojudgeOptions(endpoint=chat_server.url, model=model,
                                                 probes=0, limit=5))  # fmt: skip
    with redirect_stdout(StringIO()) as out:
        assert cli(["ensemble", str(db), "--judges", "a,b", "--combine", "median"]) == 0
    assert out.getvalue().startswith('judge "median of a, b" (median of a, b): 5 pairs graded')
    assert "judge-app calibrate" in out.getvalue()
    with redirect_stderr(StringIO()) as err:
        assert cli(["ensemble", str(db), "--judges", "a"]) == 2
    assert "two or more" in err.getvalue()
    with pytest.raises(UsageError):
        EnsembleOptions(("a", "b"), name=" ").checked()
