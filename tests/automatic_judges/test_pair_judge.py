"""The pairwise LLM judge (``judge-app autojudge-pairs``) against a chat-completions server on
127.0.0.1 that answers from the documents each question shows first and second: both orders
asked, the combination of the two answers, answers that cannot be read kept as failures, the
cache, pairs from a file, the choices kept apart from the raters' preferences; the strict
parsing of an answer; and ``preferences calibrate`` checked against scikit-learn."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from chat_server import Answer, ChatServer, Seen, Status
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from judge_app.automatic_judges.pair_prompt import (
    ANSWERS,
    PAIR_TEMPLATE,
    as_choice,
    combined,
    parse_preference,
)
from judge_app.cli import main as cli
from judge_app.commands.autojudge_pairs import PairJudgeOptions, autojudge_pairs
from judge_app.commands.calibrate_pairs import PairCalibrationOptions, calibrate_pairs
from judge_app.errors import JudgeAppError, UsageError
from judge_app.io.errors import ImportFileError
from judge_app.store import open_database
from judge_app.store.auto_preferences import AutoChoice, write_auto_preferences
from judge_app.store.automatic import add_judge, judge
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.models import AUTO_CHOICES
from judge_app.store.preferences import PREFERENCE_COLUMNS, canonical, preferences_frame
from judge_app.store.reads import judgments_frame

SHOWN = re.compile(r"Document (A|B):\n<document>\nTitle: (.*)\n")
QUERIES = ("q01", "q02")
DOCUMENTS = 4  # per query: 6 pairs each


@dataclass
class PairServer(ChatServer):
    """Answers a pair's question with ``prefer(first title, second title)`` (A, B, equal or
    neither), in JSON where the request asks for a format, else as "Final answer: X"; a
    scripted action (``script``) comes first."""

    prefer: Callable[[str, str], str] = lambda first, second: "A"

    def record(self, seen: Seen) -> Any:
        action = super().record(seen)
        if action is not None:
            return action
        first, second = shown(seen)
        answer = self.prefer(first, second)
        if "response_format" in seen.body:
            return Answer(json.dumps({"reason": "Compared.", "preference": answer}))
        return Answer(f"Both are about the query.\nFinal answer: {answer}")


def shown(seen: Seen) -> tuple[str, str]:
    """The titles of the documents a question shows as A and as B."""
    found = dict(SHOWN.findall(seen.user))
    return found["A"], found["B"]


@pytest.fixture
def pair_server():
    server = PairServer().start()
    yield server
    server.stop()


@pytest.fixture
def db(demo, tmp_path) -> Path:
    """The demo with preferences of its three raters: for the first four documents all of
    them graded in each of ``QUERIES``, every pair as their own grades order it."""
    path = tmp_path / "campaign.sqlite"
    shutil.copy(demo, path)
    grades = human_grades(path)
    rows = []
    for query, mine in grades.groupby("query_id", sort=True):
        if query not in QUERIES:
            continue
        every = mine.groupby("doc_id")["rater"].nunique()
        documents = sorted(every[every == mine["rater"].nunique()].index)[:DOCUMENTS]
        for rater, theirs in mine.groupby("rater"):
            graded = dict(zip(theirs["doc_id"], theirs["grade"]))
            for a, b in itertools.combinations(documents, 2):
                choice = preferred(graded[a], graded[b])
                rows.append((query, a, b, rater, choice, None, None, None, None))
    source = tmp_path / "preferences.csv"
    pd.DataFrame(rows, columns=PREFERENCE_COLUMNS).to_csv(source, index=False)
    assert quiet(["preferences", "import", str(path), str(source)]) == 0
    return path


def human_grades(path: Path) -> pd.DataFrame:
    with open_database(path) as database, database.reading() as session:
        return judgments_frame(session, include_skipped=False)


def preferred(first: float, second: float) -> str:
    """The choice grades make: the higher is better; equal, or neither when both are 0."""
    if first == second:
        return "neither" if first == 0 else "equal"
    return "a" if first > second else "b"


def quiet(arguments: list[str]) -> int:
    with redirect_stdout(StringIO()):
        return cli(arguments)


def run(path: Path, server: ChatServer, **changes: Any):
    values = {"endpoint": server.url, "model": "judge-model", "backoff": 0.01, "timeout": 5.0}
    values.update(changes)
    return autojudge_pairs(path, PairJudgeOptions(**values))


def rows(path: Path) -> list[dict]:
    """The auto_preference rows with external ids, read with sqlite3 alone."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        found = connection.execute(
            "SELECT q.external_id AS query, da.external_id AS doc_a, db.external_id AS doc_b, "
            "da.title AS title_a, db.title AS title_b, p.* FROM auto_preference p "
            "JOIN query q ON q.id = p.query_id JOIN document da ON da.id = p.document_a_id "
            "JOIN document db ON db.id = p.document_b_id ORDER BY 1, 2, 3"
        ).fetchall()
        return [dict(row) for row in found]
    finally:
        connection.close()


def mean_grades(path: Path) -> dict[str, float]:
    """Each document's mean human grade, by title."""
    grades = human_grades(path)
    connection = sqlite3.connect(path)
    try:
        titles = dict(connection.execute("SELECT external_id, title FROM document"))
    finally:
        connection.close()
    return {titles[doc]: grade for doc, grade in grades.groupby("doc_id")["grade"].mean().items()}


def by_grade(path: Path) -> Callable[[str, str], str]:
    """A judge that answers as the mean human grades order the two documents."""
    means = mean_grades(path)
    words = {"a": "A", "b": "B", "equal": "equal", "neither": "neither"}
    return lambda first, second: words[preferred(means[first], means[second])]


# both orders --------------------------------------------------------------------------------


def test_each_pair_is_asked_in_both_orders_and_kept_apart_from_the_raters(db, pair_server):
    pair_server.prefer = by_grade(db)
    with open_database(db) as database, database.reading() as session:
        before = preferences_frame(session)
    summary = run(db, pair_server)
    stored = rows(db)
    pairs = len(QUERIES) * 6
    assert summary.pairs == summary.chosen == len(stored) == pairs
    assert len(pair_server.seen) == 2 * pairs and summary.failed == 0
    asked = Counter(shown(seen) for seen in pair_server.seen)
    expected = Counter()
    for row in stored:
        expected.update([(row["title_a"], row["title_b"]), (row["title_b"], row["title_a"])])
    assert asked == expected  # each order once
    means = mean_grades(db)
    words = {"a": "A", "b": "B", "equal": "equal", "neither": "neither"}
    for row in stored:
        truth = preferred(means[row["title_a"]], means[row["title_b"]])
        turned = {"a": "b", "b": "a"}.get(truth, truth)
        assert row["choice"] == row["choice_ab"] == row["choice_ba"] == truth
        assert json.loads(row["answer_ab"])["preference"] == words[truth]  # the words kept
        assert json.loads(row["answer_ba"])["preference"] == words[turned]
        assert row["failure"] is None and row["prompt_tokens"] == 200
    assert (summary.both_read, summary.consistent) == (pairs, pairs)
    assert "position consistency 100.0%" in summary.sentence()
    with open_database(db) as database, database.reading() as session:
        after = preferences_frame(session)
        found = judge(session, "judge-model pairs")
    pd.testing.assert_frame_equal(after, before)  # no automatic choice among the raters'
    assert found.template == PAIR_TEMPLATE and found.details["task"] == "pairs"
    assert found.describe().startswith("pairs: judge-model")


def test_a_judge_that_prefers_the_first_shown_ties_every_pair(db, pair_server):
    pair_server.prefer = lambda first, second: "A"
    summary = run(db, pair_server)
    stored = rows(db)
    assert {(row["choice_ab"], row["choice_ba"], row["choice"]) for row in stored} == {
        ("a", "b", "equal")
    }
    assert (summary.both_read, summary.consistent) == (len(stored), 0)
    calibration = calibrate_pairs(db, PairCalibrationOptions("judge-model pairs"))
    assert calibration.consistency == 0 and calibration.first_shown == len(stored)
    assert calibration.second_shown == 0


@pytest.mark.parametrize(("forward", "backward"), list(itertools.product(AUTO_CHOICES, repeat=2)))
def test_two_answers_make_a_choice_only_where_they_agree(forward, backward):
    choice = combined(forward, backward)
    assert choice == (forward if forward == backward else "equal")
    assert combined(backward, forward) == choice  # the order they came in does not matter


def test_an_answer_is_turned_to_the_canonical_order():
    assert [as_choice(answer, True) for answer in ANSWERS] == ["a", "b", "equal", "neither"]
    assert [as_choice(answer, False) for answer in ANSWERS] == ["b", "a", "equal", "neither"]


def test_a_structured_answer_is_asked_with_the_pairs_schema(db, pair_server):
    pair_server.prefer = lambda first, second: "neither"
    summary = run(db, pair_server, limit=2)
    schema = pair_server.seen[0].body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["preference"]["enum"] == ["A", "B", "equal", "neither"]
    assert summary.answer_format == "json_schema" and summary.chosen == 2
    assert {row["choice"] for row in rows(db)} == {"neither"}
    run(db, pair_server, limit=1, structured=False, name="free")
    assert "response_format" not in pair_server.seen[-1].body


# failures and the cache ------------------------------------------------------------------


def test_an_answer_that_cannot_be_read_is_a_failure_and_is_kept(db, pair_server):
    pair_server.prefer = by_grade(db)
    first_title = "Classic Margherita Pizza Recipe"  # d0101, q01
    pair_server.script[f"Document B:\n<document>\nTitle: {first_title}\n"] = [
        Answer("Document A is clearly the better one."),
        Status(400),
    ]
    summary = run(db, pair_server, concurrency=1)
    failed = [row for row in rows(db) if row["choice"] is None]
    assert summary.failed == len(failed) == 2 and summary.chosen == 10
    read, refused = failed
    assert read["answer_ba"] == "Document A is clearly the better one."
    assert read["choice_ab"] is not None and read["choice_ba"] is None
    assert read["failure"].startswith(f"with {read['doc_b']} shown first: no final answer")
    assert refused["failure"] == f"with {refused['doc_b']} shown first: HTTP 400: scripted 400"
    assert refused["answer_ba"] is None and refused["answer_ab"]
    assert summary.failures == {"no final answer in the answer": 1, "HTTP 400": 1}
    assert (summary.both_read, summary.consistent) == (10, 10)
    asked = len(pair_server.seen)
    again = run(db, pair_server)
    assert len(pair_server.seen) == asked and (again.cached, again.cached_failures) == (12, 2)
    retried = run(db, pair_server, retry_failed=True)
    assert len(pair_server.seen) == asked + 4 and (retried.cached, retried.chosen) == (10, 2)
    assert all(row["choice"] is not None for row in rows(db))


def test_cancelling_keeps_the_pairs_answered_in_both_orders(db, pair_server):
    pair_server.prefer = by_grade(db)
    heard: list[int] = []
    options = PairJudgeOptions(endpoint=pair_server.url, model="m", concurrency=1)
    summary = autojudge_pairs(
        db,
        options,
        progress=lambda done, total: heard.append(done),
        cancelled=lambda: len(heard) > 5,
    )
    assert len(pair_server.seen) == 5 and summary.cancelled  # the fifth: one order of a pair
    assert len(rows(db)) == summary.chosen == 2
    again = run(db, pair_server, model="m")
    assert (again.cached, again.chosen, len(pair_server.seen)) == (2, 10, 25)


def test_the_command_line_judges_calibrates_and_says_a_failure_by_its_exit(db, pair_server):
    pair_server.prefer = by_grade(db)
    pair_server.script["Document A:\n<document>\nTitle: Classic Margherita Pizza Recipe\n"] = [
        Answer("Final answer: C")
    ]
    out = StringIO()
    with redirect_stdout(out):
        code = cli(["autojudge-pairs", str(db), "--endpoint", pair_server.url, "--model", "m",
                    "--backoff", "0.01"])  # fmt: skip
    assert code == 1, out.getvalue()
    said = out.getvalue()
    assert (
        'judge "m pairs": 12 pairs, 0 cached, 12 asked in both orders: 11 chosen, 1 failed' in said
    )
    assert "the final answer is not A, B, equal or neither: 'Final answer: C'" in said
    assert f'Next: judge-app preferences calibrate {db} --judge "m pairs"' in said
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["preferences", "calibrate", str(db), "--judge", "m pairs", "--format",
                    "json"]) == 0  # fmt: skip
    record = json.loads(out.getvalue())
    assert (record["answered"], record["failed"]) == (12, 1)
    assert record["common"] == 11 - record["without_majority"]  # every pair has the humans'
    assert record["position_consistency"]["rate"] == 1.0
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["preferences", "calibrate", str(db), "--judge", "m pairs"]) == 0
    assert "position consistency 100.0%" in out.getvalue()
    assert quiet(["preferences", "calibrate", str(db), "--judge", "nobody"]) == 2
    assert quiet(["autojudge-pairs", "--show-template"]) == 0


def test_no_human_preference_and_no_server_are_said(demo, tmp_path, pair_server):
    path = tmp_path / "empty.sqlite"
    shutil.copy(demo, path)
    with pytest.raises(JudgeAppError, match=r"no human chose on a pair: import preferences"):
        run(path, pair_server)
    with pytest.raises(UsageError, match="takes human or a CSV file"):
        PairJudgeOptions(endpoint=pair_server.url, model="m", pairs="raters").checked()


# pairs from a file -------------------------------------------------------------------------


def test_pairs_from_a_file_each_once_in_the_order_given(db, pair_server, tmp_path):
    pair_server.prefer = by_grade(db)
    source = tmp_path / "pairs.csv"
    source.write_text(
        "query_id,doc_b,doc_a,note\n"
        "q03,d0301,d0302,x\n"
        "q03,d0302,d0301,the same pair turned round\n"
        "q01,d0105,d0101,\n",
        encoding="utf-8",
    )
    summary = run(db, pair_server, pairs=source)
    assert summary.pairs == 2 and len(pair_server.seen) == 4
    assert [(row["query"], row["doc_a"], row["doc_b"]) for row in rows(db)] == [
        ("q01", "d0101", "d0105"),
        ("q03", "d0301", "d0302"),
    ]
    first = run(db, pair_server, pairs=source, limit=1, name="first only")
    seen = pair_server.seen
    assert first.pairs == 1 and Counter(map(shown, seen[-2:])) == Counter(map(shown, seen[:2]))


def test_a_file_of_pairs_with_problems_is_refused_naming_them(db, pair_server, tmp_path):
    source = tmp_path / "pairs.csv"
    source.write_text(
        "query_id,doc_a,doc_b\nq01,d0101,d0101\nq01,d0101,nowhere\n,d0101,d0102\n",
        encoding="utf-8",
    )
    with pytest.raises(ImportFileError) as error:
        run(db, pair_server, pairs=source)
    assert str(error.value).splitlines() == [
        f"{source} line 2, column doc_b: the same document on both sides: a pair compares two",
        f"{source} line 3, column doc_b: 'nowhere' is not in the database",
        f"{source} line 4, column query_id: is empty",
    ]
    source.write_text("query,doc_a,doc_b\nq01,d0101,d0102\n", encoding="utf-8")
    with pytest.raises(ImportFileError, match=r"line 1: needs the columns .*missing: query_id"):
        run(db, pair_server, pairs=source)
    assert not pair_server.seen


# parsing --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Final answer: A", "A"),
        ("Both match the intent.\nfinal answer: b.", "B"),
        ("**Final answer:** equal", "equal"),
        ("M: high\nT: high\nFinal Answer: Neither", "neither"),
        ("Final answer: Document B", "B"),
        ("Final answer: equally good", "equal"),
        ("Final answer: A\nFinal answer: B", "B"),  # the last one said
        ("<think>Final answer: A</think>\nFinal answer: B", "B"),
        (" neither ", "neither"),
        ("A", "A"),
        ('{"reason": "B is on topic.", "preference": "B"}', "B"),
        ('{"reason": "", "preference": "Equal"}', "equal"),
    ],
)
def test_an_answer_is_read(answer, expected):
    assert parse_preference(answer).answer == expected


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("A is clearly better", "no final answer in the answer"),
        ("Both.", "no final answer in the answer"),
        ("Final answer: A because it is longer", "the final answer is not A, B, equal or neither"),
        ("Final answer: C", "the final answer is not A, B, equal or neither"),
        ("Final answer: A or B", "the final answer is not A, B, equal or neither"),
        ("Final answer: A\nI changed my mind, final answer is 2", "the final answer is not"),
        ("", "the answer is empty"),
        (None, "the answer is empty"),
        ('{"reason": "x", "preference": "C"}', "the preference is not A, B, equal or neither"),
        ('{"reason": "x", "final_score": 3}', "the preference is not A, B, equal or neither"),
        ("{not json", "the answer is not JSON"),
    ],
)
def test_an_answer_that_is_not_a_choice_is_a_failure_not_a_guess(answer, failure):
    verdict = parse_preference(answer)
    assert verdict.answer is None and verdict.failure.startswith(failure)


# calibration against scikit-learn ---------------------------------------------------------


def random_campaign(path: Path, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Human preferences of four raters (some pairs skipped or chosen by few) and a judge's
    answers in both orders (some failed) on 60 pairs, drawn with ``seed``; stored in
    ``path``; returned as frames of external ids."""
    rng = np.random.default_rng(seed)
    choices = np.array(AUTO_CHOICES)
    humans, answers = [], []
    for number in range(60):
        query, a, b = f"q{number % 6}", f"d{number:02d}a", f"d{number:02d}b"
        truth = rng.choice(choices, p=[0.35, 0.3, 0.2, 0.15])
        for rater in rng.choice(
            ["ana", "ben", "cy", "dee"], size=rng.integers(1, 5), replace=False
        ):
            choice = truth if rng.random() < 0.7 else rng.choice([*choices, "skipped"])
            humans.append((query, a, b, rater, choice, None, None, None, None))
        forward = truth if rng.random() < 0.6 else rng.choice(choices)
        backward = forward if rng.random() < 0.7 else rng.choice(choices)
        forward, backward = [None if rng.random() < 0.05 else c for c in (forward, backward)]
        answers.append((query, a, b, forward, backward))
    human_frame = pd.DataFrame(humans, columns=PREFERENCE_COLUMNS)
    source = path.with_suffix(".csv")
    human_frame.to_csv(source, index=False)
    assert quiet(["preferences", "import", str(path), str(source)]) == 0
    with open_database(path) as database, database.transaction() as session:
        made = add_judge(session, "pairs", method="llm", model="m", prompt_version="p")
        queries = query_ids(session, {row[0] for row in answers})
        docs = document_ids(session, {doc for row in answers for doc in row[1:3]})
        stored = []
        for query, a, b, forward, backward in answers:
            first, second, _ = canonical(docs[a], docs[b])
            assert (first, second) == (docs[a], docs[b])  # made in this order
            both = forward is not None and backward is not None
            stored.append(AutoChoice(
                queries[query], first, second,
                combined(forward, backward) if both else None,
                None if both else "no answer", forward, backward,
            ))  # fmt: skip
        write_auto_preferences(session, made.rater_id, stored)
    return human_frame, pd.DataFrame(answers, columns=["query_id", "a", "b", "ab", "ba"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_calibration_is_scikit_learns_kappa_and_confusion(tmp_path, seed):
    humans, answers = random_campaign(tmp_path / "random.sqlite", seed)
    calibration = calibrate_pairs(tmp_path / "random.sqlite", PairCalibrationOptions("pairs"))
    majority, tied = {}, 0
    for key, group in humans.groupby(["query_id", "doc_a", "doc_b"]):
        counts = Counter(choice for choice in group["choice"] if choice != "skipped")
        if not counts:
            continue
        ranked = counts.most_common()
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            tied += 1
            continue
        majority[key] = ranked[0][0]
    human_side, judge_side, forward_hits, backward_hits = [], [], [], []
    for query, a, b, forward, backward in answers.itertuples(index=False):
        if (query, a, b) not in majority or pd.isna(forward) or pd.isna(backward):
            continue
        human_side.append(majority[query, a, b])
        judge_side.append(combined(forward, backward))
        forward_hits.append(forward == majority[query, a, b])
        backward_hits.append(backward == majority[query, a, b])
    read = answers.dropna()
    assert calibration.tied == tied and calibration.common == len(human_side) > 20
    assert calibration.kappa.value == pytest.approx(
        cohen_kappa_score(human_side, judge_side, labels=list(AUTO_CHOICES)), abs=1e-12
    )
    np.testing.assert_array_equal(
        calibration.confusion, confusion_matrix(human_side, judge_side, labels=list(AUTO_CHOICES))
    )
    assert calibration.share == pytest.approx(np.mean(np.array(human_side) == judge_side))
    assert calibration.consistency == pytest.approx(np.mean(read["ab"] == read["ba"]))
    assert calibration.failed == len(answers) - len(read)
    shares = calibration.order_shares()
    assert shares[0] == pytest.approx(np.mean(forward_hits))
    assert shares[1] == pytest.approx(np.mean(backward_hits))
    lines = calibration.lines()
    assert lines[-5].split() == list(AUTO_CHOICES)  # the confusion table's heading


def test_a_judge_that_answered_nothing_is_refused(db):
    with open_database(db) as database, database.transaction() as session:
        add_judge(session, "silent", method="llm", model="m", prompt_version="p")
    with pytest.raises(UsageError, match="has answered no pair"):
        calibrate_pairs(db, PairCalibrationOptions("silent"))
