"""``eval --judge``: each run's mean by humans corrected by an automatic judge, checked against
``ppi-python``'s estimates (``ppi_oracle``) on the per-query values the evaluation itself
reports, and what it refuses."""

from __future__ import annotations

import json
from contextlib import redirect_stdout
from io import StringIO

import numpy as np
import pytest
from campaign_support import judged_by_machine
from ppi_oracle import jackknife_interval, on_scale, point
from scipy import stats

from judge_app.cli import main as cli

__all__ = ["campaign"]  # fixtures

ppi_py = pytest.importorskip("ppi_py")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judged")
    return judged_by_machine(folder / "judged.sqlite", folder)


def _json(*args: str) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", *args, "--format", "json"]) == 0
    return json.loads(out.getvalue())


def _per_query(document: dict, measure: str = "ndcg@10") -> dict[str, dict[str, float]]:
    return {
        run["run"]: {row["query_id"]: row[measure] for row in run["queries"]}
        for run in document["runs"]
    }


def test_each_run_and_difference_is_ppi_pythons_estimate_from_the_evaluations_own_values(campaign):
    corrected = _json("--db", str(campaign), "--judge", "lenient")
    humans = _per_query(_json("--db", str(campaign)))
    judge = _per_query(_json("--db", str(campaign), "--judge", "lenient", "--grades", "automatic"))
    assert corrected["judge"]["labelled_queries"] == 30 and corrected["judge"]["queries"] == 120
    for run in corrected["runs"]:
        name = run["run"]
        shared = sorted(humans[name])  # ana judged these queries completely
        others = sorted(set(judge[name]) - set(shared))
        y = np.array([humans[name][q] for q in shared])
        yhat = np.array([judge[name][q] for q in shared])
        unlabeled = np.array([judge[name][q] for q in others])
        low, high = jackknife_interval(y, yhat, unlabeled, bounds=(0.0, 1.0))
        assert run["ppi_mean"] == pytest.approx(point(y, yhat, unlabeled), abs=1e-12)
        assert run["ppi_interval"] == pytest.approx([low, high], abs=1e-12)
        assert run["estimates"]["interval"] == pytest.approx(
            list(on_scale(np.mean(y), stats.sem(y), len(y), 0.0, 1.0)), abs=1e-12
        )
        assert run["estimates"]["mean"] == pytest.approx(run["mean"]["ndcg@10"], abs=1e-12)
        assert run["estimates"]["automatic_mean"] == pytest.approx(
            np.mean(list(judge[name].values())), abs=1e-12
        )
        width = run["ppi_interval"][1] - run["ppi_interval"][0]
        humans_width = run["estimates"]["interval"][1] - run["estimates"]["interval"][0]
        assert width < humans_width  # the judge's grades of 90 more queries narrow it
        assert run["estimates"]["grades_saved"] > 0
    first, *rest = [run["run"] for run in corrected["runs"]]
    for other, difference in zip(rest, corrected["judge"]["differences"]):
        assert difference["runs"] == f"{other} − {first}"
        shared = sorted(humans[first])
        others = sorted(set(judge[first]) - set(shared))
        y = np.array([humans[other][q] - humans[first][q] for q in shared])
        yhat = np.array([judge[other][q] - judge[first][q] for q in shared])
        unlabeled = np.array([judge[other][q] - judge[first][q] for q in others])
        low, high = jackknife_interval(y, yhat, unlabeled, bounds=(-1.0, 1.0))
        assert difference["ppi_interval"] == pytest.approx([low, high], abs=1e-12)


def test_the_judges_grades_change_no_humans_number(campaign):
    """Evaluating humans' grades reads no automatic grade: the document is the same but
    for the options it states."""
    humans = _json("--db", str(campaign))
    corrected = _json("--db", str(campaign), "--judge", "lenient")
    for plain, judged in zip(humans["runs"], corrected["runs"]):
        assert plain["mean"] == judged["mean"] and plain["queries"] == judged["queries"]
    assert humans["settings"]["grades"] == "humans" and humans["settings"]["judge"] is None
    assert corrected["settings"]["grades"] == "corrected"


def test_the_table_and_csv_say_the_same(campaign):
    document = _json("--db", str(campaign), "--judge", "lenient")
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(campaign), "--judge", "lenient", "--format", "csv"]) == 0
    import pandas as pd

    table = pd.read_csv(StringIO(out.getvalue()))
    for run in document["runs"]:
        row = table[table["run"] == run["run"]].iloc[0]
        assert [row["ppi_low"], row["ppi_high"]] == run["ppi_interval"]
        assert row["ppi_mean"] == run["ppi_mean"]
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["eval", "--db", str(campaign), "--judge", "lenient"]) == 0
    text = out.getvalue()
    assert "30 of 120 queries judged completely by humans" in text
    assert "random sample" in text  # what the interval assumes
    good = next(run for run in document["runs"] if run["run"] == "good")
    low, high = good["ppi_interval"]
    assert f"[{low:.4f}, {high:.4f}]" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge", "nobody"], "has no automatic judge 'nobody'; its judges are: \"lenient\""),
        (["--grades", "corrected"], "--grades corrected needs an automatic judge"),
        (["--grades", "automatic"], "--grades automatic needs an automatic judge"),
        (["--grades", "everyone"], "--grades: use humans, automatic, corrected"),
        (["--judge", "lenient", "--grades", "humans"], "--grades humans reads none"),
        (["--judge", "lenient", "--grades", "automatic", "--raters", "ana"], "--raters chooses"),
        (["--judge", "lenient", "--grades", "automatic", "--per-rater"], "--per-rater is of"),
    ],
)
def test_wrong_choices_are_refused_in_words(campaign, capsys, args, message):
    assert cli(["eval", "--db", str(campaign), *args]) == 2
    assert message in capsys.readouterr().err


def test_a_person_cannot_judge_or_be_imported_as_the_automatic_judge(campaign, tmp_path, capsys):
    from judge_app.store import open_database
    from judge_app.store.errors import StoreError
    from judge_app.store.people import named_rater

    with open_database(campaign) as database, database.reading() as session:
        with pytest.raises(StoreError, match="'lenient' is an automatic judge, not a person"):
            named_rater(session, " Lenient ")
    file = tmp_path / "judgments.csv"
    file.write_text("query_id,doc_id,rater,grade\nq1,d1,lenient,3\n", encoding="utf-8")
    assert cli(["import", str(campaign), "--judgments", str(file)]) != 0
    err = capsys.readouterr().err
    assert "judgments.csv" in err and "line 2" in err and "automatic judge" in err


def test_the_report_shows_the_numbers_eval_gives(campaign, tmp_path):
    document = _json("--db", str(campaign), "--judge", "lenient")
    out = tmp_path / "report.html"
    with redirect_stdout(StringIO()):
        assert cli(["report", str(campaign), "--judge", "lenient", "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "humans corrected by lenient" in html and "random sample" in html
    for run in document["runs"]:
        low, high = run["ppi_interval"]
        # eval --judge's numbers: the mean and its interval, as its table prints them
        assert f">{run['ppi_mean']:.4f} [{low:.4f}, {high:.4f}]<" in html


def test_the_local_judge_end_to_end_narrows_the_interval(campaign, tmp_path, capsys):
    """``autojudge --local`` learns from ana's 30 queries (no text: ranks alone) and grades
    all 120: its held-out kappa is reported; most corrected intervals are narrower than the
    humans-only ones; where the judge's values follow the humans' too little to pay for
    tuning its weight on 30 queries (the good run's), the interval may be a little wider,
    and saves no grade."""
    path = tmp_path / "local.sqlite"
    path.write_bytes(campaign.read_bytes())
    assert cli(["autojudge", str(path), "--local"]) == 0
    said = capsys.readouterr().out
    assert "held out: quadratic kappa" in said and "local model" in said
    document = _json("--db", str(path), "--judge", "local model")
    assert document["judge"]["labelled_queries"] == 30 and document["judge"]["queries"] == 120
    narrower = 0
    every = [run["estimates"] for run in document["runs"]] + document["judge"]["differences"]
    for estimates in every:
        low, high = estimates["ppi_interval"]
        humans_low, humans_high = estimates["interval"]
        assert high - low <= 1.25 * (humans_high - humans_low)
        narrower += high - low < humans_high - humans_low - 1e-6
        if high - low > humans_high - humans_low:
            assert estimates["grades_saved"] == 0
        assert low < estimates["ppi_mean"] < high
    assert narrower >= 3  # of 5: where the judge's values follow the humans' (not the good run's)
