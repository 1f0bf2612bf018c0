"""Numbers a lead can trust on the campaign a lead writes first: 8 queries, 2 runs, 3 raters,
and a copy where humans judged 5 of the 8 queries and an automatic judge graded everything.
Each test is a figure once found impossible or contradicting another (issue 28): one interval
per question, named, the same in every output, and none past what the measure can reach."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from automatic_support import grade_automatically
from campaign_support import import_frames
from scipy import stats

from judge_app.cli import main as cli
from judge_app.evaluation.corrected import MIN_LABELLED
from judge_app.numbers import bound_text

QUERIES = [f"q{number}" for number in range(1, 9)]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """8 queries of 12 documents, runs ``lexical`` and ``dense`` of 10 results each (dense
    ranks by the true grades with less noise), ana, ben and chloe grading every pooled pair
    within a grade of the truth."""
    folder = tmp_path_factory.mktemp("small")
    rng = np.random.default_rng(3)
    docs = {query: [f"{query}-d{d}" for d in range(12)] for query in QUERIES}
    truth = {
        (query, doc): int(np.clip(round(rng.normal(2, 1.6)), 0, 5))
        for query in QUERIES
        for doc in docs[query]
    }
    runs = {}
    for name, noise in (("lexical", 2.0), ("dense", 1.2)):
        rows = []
        for query in QUERIES:
            score = {doc: truth[(query, doc)] + rng.normal(0, noise) for doc in docs[query]}
            ranked = sorted(docs[query], key=lambda doc: -score[doc])[:10]
            rows += [(query, doc, rank + 1) for rank, doc in enumerate(ranked)]
        runs[f"run_{name}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    pooled = sorted({(q, d) for run in runs.values() for q, d, _ in run.itertuples(index=False)})
    judgments = pd.DataFrame(
        [
            (query, doc, rater, int(np.clip(truth[(query, doc)] + round(rng.normal(0, 0.8)), 0, 5)))
            for query, doc in pooled
            for rater in ("ana", "ben", "chloe")
        ],
        columns=["query_id", "doc_id", "rater", "grade"],
    )
    path = folder / "small.sqlite"
    queries = pd.DataFrame({"query_id": QUERIES, "text": [f"query {q}" for q in QUERIES]})
    import_frames(path, folder, queries=queries, judgments=judgments, **runs)
    return path


@pytest.fixture
def five(small, tmp_path) -> Path:
    """A copy of ``small`` whose humans judged q1 … q5 alone, every pooled pair graded by the
    automatic judge ``llm``."""
    path = tmp_path / "five.sqlite"
    path.write_bytes(small.read_bytes())
    with sqlite3.connect(path) as connection:
        connection.execute(
            "DELETE FROM judgment WHERE query_id IN "
            "(SELECT id FROM query WHERE external_id IN ('q6', 'q7', 'q8'))"
        )
    grade_automatically(path, "llm", seed=3)
    return path


def said(*args: object) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli([str(arg) for arg in args]) == 0
    return out.getvalue()


def per_query(document: dict, run: str, measure: str = "ndcg@10") -> dict[str, float]:
    [record] = [item for item in document["runs"] if item["run"] == run]
    return {row["query_id"]: row[measure] for row in record["queries"]}


# 1. the humans-only interval of a difference is the t interval, and agrees with the t-test


def test_the_humans_only_interval_of_a_difference_agrees_with_the_paired_t_test(five):
    corrected = json.loads(said("eval", "--db", five, "--judge", "llm", "--format", "json"))
    humans = json.loads(said("eval", "--db", five, "--format", "json"))
    [difference] = corrected["judge"]["differences"]
    assert difference["runs"] == "lexical − dense"
    dense, lexical = per_query(humans, "dense"), per_query(humans, "lexical")
    d = np.array([lexical[q] - dense[q] for q in sorted(dense)])
    assert len(d) == 5
    half = stats.t.ppf(0.975, len(d) - 1) * stats.sem(d)  # Fisher's z: a difference in [-1, 1]
    z = np.arctanh(d.mean())
    expected = [np.tanh(z - half / (1 - d.mean() ** 2)), np.tanh(z + half / (1 - d.mean() ** 2))]
    assert difference["interval"] == pytest.approx(expected, abs=1e-12)
    assert difference["interval_method"] == "t"
    t_p = stats.ttest_rel([lexical[q] for q in sorted(dense)], [dense[q] for q in sorted(dense)])
    low, high = difference["interval"]
    if not low <= 0 <= high:  # excluding 0, it says what the paired t-test says
        assert t_p.pvalue < 0.05
    compared = json.loads(said("eval", "--db", five, "--compare", "--format", "json"))
    [pair] = compared["significance"]["pairs"]
    assert pair["t_p"] == pytest.approx(t_p.pvalue, abs=1e-12)  # the same test, the same data


def test_on_the_demo_the_humans_only_interval_no_longer_contradicts_compare(demo, tmp_path):
    """The demo's neural − bm25: 0.0677, not significant by the randomization test (p =
    0.078) nor the t-test (0.076); the humans-only interval of ``eval --judge`` once read
    [0.0004, 0.1350]."""
    path = tmp_path / "demo.sqlite"
    path.write_bytes(demo.read_bytes())
    grade_automatically(path, "llm", seed=5)
    corrected = json.loads(said("eval", "--db", path, "--judge", "llm", "--format", "json"))
    [difference] = corrected["judge"]["differences"]
    low, high = difference["interval"]
    assert low < 0 < high
    compared = json.loads(said("eval", "--db", path, "--compare", "--format", "json"))
    [pair] = compared["significance"]["pairs"]
    assert not pair["significant"] and pair["t_p"] > 0.05 and pair["randomization_p"] > 0.05


# 2. nothing impossible after the active sample is applied; looking at it changes nothing


def test_after_the_active_sample_no_figure_is_impossible(five, tmp_path):
    before = said("eval", "--db", five, "--judge", "llm", "--format", "json")
    said("sample", five, "--judge", "llm")  # only to look
    assert said("eval", "--db", five, "--judge", "llm", "--format", "json") == before
    said("sample", five, "--judge", "llm", "--apply")
    document = json.loads(said("eval", "--db", five, "--judge", "llm", "--format", "json"))
    judge = document["judge"]
    labelled, queries = judge["labelled_queries"], judge["queries"]
    assert labelled < 5 and queries == 8
    per_query_grades = judge["grades_per_labelled_query"]
    estimates = [run["estimates"] for run in document["runs"]] + judge["differences"]
    for estimate in estimates:
        low = -1.0 if "runs" in estimate else 0.0
        for key in ("interval", "ppi_interval", "automatic_interval"):
            assert all(low <= bound <= 1 for bound in estimate[key] if bound is not None), key
        assert estimate["ppi_interval"] == [None, None]  # below the minimum: no interval
        assert estimate["interval"] == [None, None]  # nor design-weighted humans alone
        assert estimate["equivalent_queries"] is None or estimate["equivalent_queries"] <= 8
        saved = estimate["grades_saved"]
        assert saved is None or saved <= (queries - labelled) * per_query_grades
    assert f"need at least {MIN_LABELLED}" in judge["caveat"]
    assert "This campaign has fewer queries than that." in judge["caveat"]
    table = said("eval", "--db", five, "--judge", "llm")
    assert judge["caveat"] in table
    out = tmp_path / "report.html"
    said("report", five, "--judge", "llm", "--out", out)
    text = out.read_text(encoding="utf-8")
    assert judge["caveat"].split(":")[0] in text
    for number in re.findall(r"\[(-?\d\.\d{4}), (-?\d\.\d{4})\]", text):
        assert all(-1 <= float(bound) <= 1 for bound in number)


# 4. one interval for one difference, named, the same in the table and the sentence


def test_compare_shows_one_interval_for_one_difference_and_says_lower_plainly(small):
    text = said("eval", "--db", small, "--compare")
    document = json.loads(said("eval", "--db", small, "--compare", "--format", "json"))
    [pair] = document["significance"]["pairs"]
    low, high = bound_text(pair["interval_low"]), bound_text(pair["interval_high"])
    assert pair["interval_method"] == "simultaneous HSD"
    header = next(line for line in text.splitlines() if line.lstrip().startswith("baseline"))
    assert header.count("interval") == 1 and "95% simultaneous HSD interval" in header
    assert "bootstrap" not in text
    assert f"[{low}, {high}]" in text
    sentence = next(line for line in text.splitlines() if " over 8 queries (" in line)
    assert sentence.count(" interval, ") == 1 and f"interval, {low} to {high}," in sentence
    assert "trails" not in sentence and " by -" not in sentence
    assert sentence.startswith("lexical is ") and " lower than dense on mean ndcg@10" in sentence
    assert pair["mean_difference"] < 0


# 3. a judge that learned nothing is said to, and does not correct the humans


def random_judge(path: Path, name: str, seed: int) -> None:
    """An automatic judge grading every pooled pair at random: it learned nothing."""
    from sqlalchemy import select

    from judge_app.store import automatic, open_database
    from judge_app.store.models import Result

    rng = np.random.default_rng(seed)
    with open_database(path) as database, database.transaction() as session:
        judge = automatic.add_judge(session, name, method="llm", model="dice")
        pairs = sorted(set(session.execute(select(Result.query_id, Result.document_id)).all()))
        grades = [automatic.AutoGrade(q, d, float(rng.integers(0, 6))) for q, d in pairs]
        automatic.write_grades(session, judge.rater_id, grades)


def test_a_judge_that_learned_nothing_is_said_to_and_corrects_nothing(small, tmp_path):
    from sklearn.metrics import cohen_kappa_score

    path = tmp_path / "dice.sqlite"
    path.write_bytes(small.read_bytes())
    random_judge(path, "dice", seed=1)
    said("export", path, "--qrels", tmp_path / "q.txt")  # the humans' mean grades
    qrels = pd.read_csv(tmp_path / "q.txt", sep=" ", names=["query_id", "x", "doc_id", "grade"])
    document = json.loads(said("eval", "--db", path, "--judge", "dice", "--format", "json"))
    quality = document["judge"]["quality"]
    assert quality["learned_nothing"] and quality["kappa_quadratic"] < 0.2
    from judge_app.commands.campaign import read_campaign

    campaign = read_campaign(str(path))
    dice = campaign.automatic_grades("dice")
    both = qrels.merge(dice, on=["query_id", "doc_id"], suffixes=("_human", "_judge"))
    rounded = [np.clip(np.floor(both[f"grade_{who}"] + 0.5), 0, 5) for who in ("human", "judge")]
    expected = cohen_kappa_score(*rounded, weights="quadratic", labels=range(6))
    assert quality["kappa_quadratic"] == pytest.approx(expected, abs=1e-12)
    assert quality["pairs"] == len(both)
    caveat = document["judge"]["caveat"]
    assert caveat.startswith("The automatic judge dice learned nothing worth using")
    for run in document["runs"]:  # the correction falls back to humans alone
        estimates = run["estimates"]
        assert estimates["ppi_mean"] == estimates["mean"] and estimates["grades_saved"] == 0
        assert estimates["ppi_interval"] == estimates["interval"]
    assert caveat in said("eval", "--db", path, "--judge", "dice")
    out = tmp_path / "report.html"
    said("report", path, "--judge", "dice", "--out", out)
    assert "learned nothing worth using" in out.read_text(encoding="utf-8")
    assert "learned nothing worth using" in said("calibrate", path, "--judge", "dice")


def test_autojudge_says_when_the_local_judge_learned_nothing(small, tmp_path):
    """The human grades shuffled across pairs: nothing a run or a text shows predicts them."""
    path = tmp_path / "shuffled.sqlite"
    path.write_bytes(small.read_bytes())
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT id, grade FROM judgment ORDER BY id").fetchall()
        grades = np.random.default_rng(4).permutation([grade for _, grade in rows])
        connection.executemany(
            "UPDATE judgment SET grade = ? WHERE id = ?",
            [(int(grade), id_) for (id_, _), grade in zip(rows, grades)],
        )
    text = said("autojudge", path, "--local")
    assert "The automatic judge local model learned nothing worth using" in text
