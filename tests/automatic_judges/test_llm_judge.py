"""The LLM automatic judge (``judge-app autojudge``) against a chat-completions server on
127.0.0.1 (tests/chat_server.py): what is stored for normal answers, retried statuses, slow
replies, dropped connections and answers that are not a grade; the cache that makes a rerun
free; --limit, --queries, cancelling; the prompt's template and the parsing of answers.
Nothing leaves the machine: a connection elsewhere fails the test."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from chat_server import (
    COMPLETION_TOKENS,
    PROMPT_TOKENS,
    Answer,
    Drop,
    Echo,
    Raw,
    Sleep,
    Status,
    default_grade,
)

from judge_app.automatic_judges import llm
from judge_app.automatic_judges.llm import EndpointError, chat_url, public_url
from judge_app.automatic_judges.prompt import (
    DEFAULT_TEMPLATE,
    Pair,
    check_template,
    messages,
    parse_grade,
    prompt_version,
)
from judge_app.cli import main as cli
from judge_app.commands import autojudge as autojudge_module
from judge_app.commands.autojudge import AutojudgeOptions, autojudge
from judge_app.errors import JudgeAppError, UsageError
from judge_app.option_declarations import flag_of
from judge_app.store import open_database
from judge_app.store.automatic import judge
from judge_app.store.grade_labels import DEFAULT_SCALE, GradeLabel
from judge_app.store.settings import set_grade_label
from judge_app.web import retry_words

KEY = "sk-test-7f3a9c1e5b"
PIZZA = "best pizza recipes"  # the text of q01, in every one of its prompts


@pytest.fixture
def db(demo, tmp_path) -> Path:
    """A copy of the demo campaign for one test."""
    path = tmp_path / "campaign.sqlite"
    shutil.copy(demo, path)
    return path


def run(path: Path, server, **changes) -> autojudge_module.AutojudgeSummary:
    """``autojudge`` on the database file with the test server and quick retries."""
    values = {"endpoint": server.url, "model": "judge-model", "backoff": 0.01, "timeout": 5.0}
    values.update(probes=0)  # the probes are tests/automatic_judges/test_judge_probes.py's
    values.update(changes)
    with open_database(path, create=False) as database:
        return autojudge(database, AutojudgeOptions(**values))


def rows(path: Path) -> list[dict]:
    """The auto_judgment rows with external ids, read with sqlite3 alone."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        found = connection.execute(
            "SELECT q.external_id AS query, d.external_id AS doc, a.* FROM auto_judgment a "
            "JOIN query q ON q.id = a.query_id JOIN document d ON d.id = a.document_id "
            "ORDER BY q.external_id, d.external_id"
        ).fetchall()
        return [dict(row) for row in found]
    finally:
        connection.close()


def pooled(path: Path, queries: list[str] | None = None, depth: int = 10) -> list[tuple[str, str]]:
    """The pool in order (query, best rank, document), computed here with plain SQL."""
    connection = sqlite3.connect(path)
    try:
        found = connection.execute(
            "SELECT q.external_id, d.external_id, MIN(r.rank) AS best FROM result r "
            "JOIN query q ON q.id = r.query_id JOIN document d ON d.id = r.document_id "
            "WHERE r.rank <= ? GROUP BY r.query_id, r.document_id "
            "ORDER BY q.external_id, best, d.external_id",
            (depth,),
        ).fetchall()
    finally:
        connection.close()
    return [(q, d) for q, d, _best in found if queries is None or q in queries]


def judgments_count(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT COUNT(*) FROM judgment").fetchone()[0]
    finally:
        connection.close()


def request_hash(body: dict) -> str:
    """The cache key as documented: SHA-256 of the model and the exact messages."""
    text = json.dumps({"model": body["model"], "messages": body["messages"]}, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


# a normal run ----------------------------------------------------------------------------------


def test_every_pooled_pair_gets_the_grade_the_server_gave_with_its_usage(
    db, chat_server, monkeypatch
):
    monkeypatch.setenv("JUDGE_APP_API_KEY", KEY)
    human = judgments_count(db)
    expected = pooled(db, ["q01", "q02"])
    summary = run(db, chat_server, queries=("q01", "q02"))
    stored = rows(db)
    assert [(row["query"], row["doc"]) for row in stored] == sorted(expected)
    assert len(chat_server.seen) == len(expected) == summary.pairs == summary.graded
    assert (summary.cached, summary.failed, summary.retried) == (0, 0, 0)
    assert summary.prompt_tokens == PROMPT_TOKENS * len(expected)
    assert summary.completion_tokens == COMPLETION_TOKENS * len(expected)
    by_hash = {row["prompt_sha"]: row for row in stored}
    for seen in chat_server.seen:
        assert seen.path == "/v1/chat/completions"
        assert seen.headers["authorization"] == f"Bearer {KEY}"
        assert seen.body["model"] == "judge-model" and seen.body["temperature"] == 0
        assert [m["role"] for m in seen.body["messages"]] == ["system", "user"]
        row = by_hash[request_hash(seen.body)]
        assert row["grade"] == default_grade(seen.user)
        assert row["failure"] is None and row["answer"].endswith(f"Final score: {row['grade']:.0f}")
        assert (row["prompt_tokens"], row["completion_tokens"]) == (
            PROMPT_TOKENS,
            COMPLETION_TOKENS,
        )
        assert row["duration_ms"] >= 0
    assert judgments_count(db) == human  # nothing written where the raters' grades are
    with open_database(db) as database, database.reading() as session:
        found = judge(session, "judge-model")
    assert (found.method, found.model, found.template) == ("llm", "judge-model", DEFAULT_TEMPLATE)
    assert found.endpoint == chat_server.url and found.graded == len(expected)
    assert found.details["api_key_env"] == "JUDGE_APP_API_KEY"


def test_the_api_key_is_nowhere_in_the_database(db, chat_server, monkeypatch, tmp_path):
    monkeypatch.setenv("MY_KEY", KEY)
    endpoint = chat_server.url + f"?key={KEY}"  # as some hosted services take it
    run(db, chat_server, endpoint=endpoint, api_key_env="MY_KEY", queries=("q03",))
    assert chat_server.seen and all(
        seen.headers["authorization"] == f"Bearer {KEY}" for seen in chat_server.seen
    )
    connection = sqlite3.connect(db)
    try:
        tables = [
            name
            for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        texts = [
            str(value)
            for table in tables
            for row in connection.execute(f'SELECT * FROM "{table}"')
            for value in row
        ]
    finally:
        connection.close()
    assert texts and not [text for text in texts if KEY in text]
    for file in tmp_path.glob("campaign.sqlite*"):  # the file, its WAL and shared memory
        assert KEY.encode() not in file.read_bytes()


def test_without_the_variable_no_authorization_is_sent(db, chat_server, monkeypatch):
    monkeypatch.delenv("JUDGE_APP_API_KEY", raising=False)
    run(db, chat_server, queries=("q04",), limit=2)
    assert len(chat_server.seen) == 2
    assert all("authorization" not in seen.headers for seen in chat_server.seen)


# the cache ------------------------------------------------------------------------------------


def test_a_rerun_asks_nothing_and_a_failure_only_when_asked_to(db, chat_server):
    chat_server.script[PIZZA] = [Answer("It looks relevant to me.")]
    first = run(db, chat_server, queries=("q01",))
    asked = len(chat_server.seen)
    assert (first.graded, first.failed) == (asked - 1, 1)
    before = {
        (row["query"], row["doc"]): row["judged_at"] for row in rows(db) if row["grade"] is not None
    }
    second = run(db, chat_server, queries=("q01",))  # the failure is kept: asked again, at
    assert len(chat_server.seen) == asked  # temperature 0 it fails the same way
    assert (second.cached, second.cached_failures, second.asked) == (asked, 1, 0)
    assert "1 failed before: --retry-failed asks them again" in second.sentence()
    third = run(db, chat_server, queries=("q01",), retry_failed=True)
    assert len(chat_server.seen) == asked + 1  # only the failure, asked again
    assert (third.cached, third.graded, third.failed) == (asked - 1, 1, 0)
    after = {(row["query"], row["doc"]): row["judged_at"] for row in rows(db)}
    assert all(after[key] == value for key, value in before.items())  # untouched
    fourth = run(db, chat_server, queries=("q01",), retry_failed=True)
    assert len(chat_server.seen) == asked + 1 and fourth.cached == asked and fourth.asked == 0


def test_another_prompt_is_another_judge_and_is_asked_again(db, chat_server):
    run(db, chat_server, queries=("q05",))
    asked = len(chat_server.seen)
    template = "[user]\nIs {title} relevant to {query}?\n{rubric}\nFinal score: N\n"
    with pytest.raises(JudgeAppError, match="another name"):
        run(db, chat_server, queries=("q05",), template=template)
    assert len(chat_server.seen) == asked
    again = run(db, chat_server, queries=("q05",), template=template, name="short prompt")
    assert len(chat_server.seen) == 2 * asked and again.cached == 0
    assert [m["role"] for m in chat_server.seen[-1].body["messages"]] == ["user"]
    with open_database(db) as database, database.reading() as session:
        assert judge(session, "short prompt").template == template
        assert (
            judge(session, "short prompt").prompt_version
            != judge(session, "judge-model").prompt_version
        )


# what goes wrong ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "retries", "requests", "grade", "failure"),
    [
        ([Status(429, "0")], 3, 2, "server", None),
        ([Status(500)], 3, 2, "server", None),
        ([Status(503), Status(502)], 3, 3, "server", None),
        ([Status(503)] * 3, 2, 3, None, "HTTP 503: scripted 503 (after 3 attempts)"),
        ([Sleep(1.0)], 2, 2, "server", None),
        ([Sleep(1.0)] * 2, 1, 2, None, "no answer within 0.3 s (after 2 attempts)"),
        ([Drop()], 2, 2, "server", None),
        ([Drop()] * 2, 1, 2, None, "the connection failed"),
        ([Answer("It is relevant.")], 3, 1, None, "no final score in the answer"),
        ([Answer("Final score: 9")], 3, 1, None, "the final score 9 is not a whole number from 0 to 5"),
        ([Answer("")], 3, 1, None, "the answer is empty"),
        ([Status(400)], 3, 1, None, "HTTP 400: scripted 400"),
    ],
    ids=[
        "429-then-answer", "500-then-answer", "503-502-then-answer", "503-always",
        "timeout-then-answer", "timeout-always", "dropped-then-answer", "dropped-always",
        "not-a-grade", "out-of-range", "empty", "bad-request",
    ],
)  # fmt: skip
def test_one_pair_through_each_misbehaviour(
    db, chat_server, script, retries, requests, grade, failure
):
    chat_server.script[PIZZA] = list(script)
    summary = run(db, chat_server, queries=("q01",), limit=1, retries=retries, timeout=0.3)
    assert len(chat_server.seen) == requests
    assert summary.retried == requests - 1
    (row,) = rows(db)
    if grade == "server":
        assert row["grade"] == default_grade(chat_server.seen[-1].user) and row["failure"] is None
        assert summary.graded == 1 and row["prompt_tokens"] == PROMPT_TOKENS
    else:
        assert row["grade"] is None and row["failure"].startswith(failure)
        assert summary.failed == 1 and summary.first_failure == row["failure"]
    if isinstance(script[-1], Answer):  # a reply that came: its text and usage are kept
        assert row["answer"] == script[-1].content and row["completion_tokens"] == COMPLETION_TOKENS
    assert row["prompt_sha"] == request_hash(chat_server.seen[0].body)


def retried(path: Path, server, **changes) -> list[tuple[int, str, float]]:
    """The retries ``autojudge`` announced: (retries so far, why, the pause in seconds)."""
    heard: list[tuple[int, str, float]] = []
    values = {"endpoint": server.url, "model": "judge-model", "timeout": 5.0, "probes": 0}
    with open_database(path, create=False) as database:
        autojudge(database, AutojudgeOptions(**values | changes),
                  retrying=lambda *retry: heard.append(retry))  # fmt: skip
    return heard


def test_retry_after_wins_over_the_backoff_which_doubles(db, chat_server):
    """The pauses as the client takes them (announced to the progress before each retry):
    no clock is read."""
    chat_server.script[PIZZA] = [Status(429, "0")]
    heard = retried(db, chat_server, queries=("q01",), limit=1, backoff=30.0)
    assert heard == [(1, "HTTP 429: scripted 429", 0.0)] and len(chat_server.seen) == 2
    chat_server.script["hiking boots"] = [Status(500), Status(500)]
    heard = retried(db, chat_server, queries=("q02",), limit=1, backoff=0.2)
    assert [(count, why) for count, why, _pause in heard] == [
        (1, "HTTP 500: scripted 500"),
        (2, "HTTP 500: scripted 500"),
    ]
    first, second = (pause for _count, _why, pause in heard)
    assert 0.15 <= first <= 0.25 and 0.3 <= second <= 0.5  # 0.2 then 0.4, ±25 %
    assert len(chat_server.seen) == 2 + 3
    assert retry_words(2, "HTTP 500", 0.4) == "2 retries, the last after HTTP 500, in 0.4 s"


def test_a_refused_key_stops_the_run_with_its_reason(db, chat_server, monkeypatch):
    monkeypatch.delenv("JUDGE_APP_API_KEY", raising=False)
    chat_server.script[PIZZA] = [Status(401)] * 100
    with pytest.raises(
        EndpointError, match=r"refused the API key \(HTTP 401: scripted 401\)"
    ) as raised:
        run(db, chat_server, queries=("q01",), concurrency=1)
    assert "the environment variable JUDGE_APP_API_KEY is not set" in str(raised.value)
    assert len(chat_server.seen) == 1 and rows(db) == []


def test_nothing_listening_stops_the_run_before_a_judge_is_made(db, monkeypatch):
    monkeypatch.delenv("JUDGE_APP_API_KEY", raising=False)
    with socket.socket() as probe:  # a port of this machine nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(
        EndpointError, match=f"cannot connect to http://127.0.0.1:{port}/v1/models"
    ) as raised:
        with open_database(db) as database:
            autojudge(
                database,
                AutojudgeOptions(
                    endpoint=f"http://127.0.0.1:{port}/v1?key=k", model="m", retries=2, backoff=0.01
                ),
            )
    assert rows(db) == [] and automatic_raters(db) == []  # no empty judge left behind
    assert "key=k" not in str(raised.value) and "API key" not in str(raised.value)


def automatic_raters(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return [name for (name,) in connection.execute(
            "SELECT name FROM rater WHERE kind = 'automatic'"
        )]  # fmt: skip
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("model", "served"),
    [
        ("llama3", ["llama3:latest", "qwen2"]),  # Ollama's
        ("smollm2", ["/models/smollm2.gguf"]),  # llama.cpp's: a file
        ("gpt-4o", ["gpt-4o", "gpt-4o-mini"]),
    ],
)
def test_a_model_the_endpoint_lists_is_taken(db, chat_server, model, served):
    chat_server.models = served
    assert run(db, chat_server, model=model, queries=("q01",)).graded > 0


def test_a_model_the_endpoint_does_not_list_is_refused_before_a_judge_is_made(db, chat_server):
    """A llama.cpp server answers under any name: grades were kept under a model it never
    served ("gpt-4o-doesnotexist"); its list of models says so."""
    chat_server.models = ["smollm2", "qwen2"]
    with pytest.raises(EndpointError, match=r"serves 'smollm2', 'qwen2', not 'gpt-4o-nope'"):
        run(db, chat_server, model="gpt-4o-nope")
    assert chat_server.seen == [] and automatic_raters(db) == []


# which pairs ----------------------------------------------------------------------------------


def test_limit_takes_the_first_pairs_of_the_pool(db, chat_server):
    summary = run(db, chat_server, limit=5)
    assert summary.pairs == 5 == len(chat_server.seen)
    assert sorted((row["query"], row["doc"]) for row in rows(db)) == sorted(pooled(db)[:5])


def test_queries_and_depth_choose_the_pool(db, chat_server):
    summary = run(db, chat_server, queries=("q03", "q07"), depth=3)
    expected = pooled(db, ["q03", "q07"], depth=3)
    assert summary.pairs == len(expected) and 3 <= len(expected) <= 12
    assert sorted((row["query"], row["doc"]) for row in rows(db)) == sorted(expected)
    with pytest.raises(UsageError) as error:
        run(db, chat_server, queries=("q99",))
    assert re.match(r"--queries: .* has no query 'q99'", error.value.worded(flag_of))


def test_the_body_is_cut_and_the_rubric_is_the_campaigns(db, chat_server):
    with open_database(db) as database, database.transaction() as session:
        set_grade_label(session, 5, "Bullseye", "Exactly the page the searcher wanted.")
    run(db, chat_server, queries=("q01",), limit=3, body_chars=50)
    for seen in chat_server.seen:
        system, user = (m["content"] for m in seen.body["messages"])
        assert "5 = Bullseye: Exactly the page the searcher wanted." in system
        assert "0 = Irrelevant: Has nothing to do with the query, or is spam or broken." in system
        fenced = user.split("<document>\n", 1)[1].split("\n</document>")[0]
        text = fenced.split("\n", 2)[2]  # after the title and the URL
        assert len(text) <= 52 and "Query: best pizza recipes" in user


# cancelling and batches -----------------------------------------------------------------------


def test_cancelling_midway_keeps_what_was_answered(db, chat_server):
    chat_server.pause = 0.02
    total = len(pooled(db))
    seen_progress: list[tuple[int, int]] = []

    def cancelled() -> bool:
        return bool(seen_progress) and seen_progress[-1][0] >= 10

    with open_database(db) as database:
        summary = autojudge(
            database,
            AutojudgeOptions(
                endpoint=chat_server.url, model="m", concurrency=3, backoff=0.01, probes=0
            ),
            progress=lambda done, of: seen_progress.append((done, of)),
            cancelled=cancelled,
        )
    assert summary.cancelled and 10 <= summary.asked <= 13
    assert len(rows(db)) == summary.graded == summary.asked == len(chat_server.seen)
    assert seen_progress[0] == (0, total) and seen_progress[-1][0] == summary.asked
    chat_server.pause = 0
    rest = run(db, chat_server, model="m")
    assert not rest.cancelled and rest.cached == summary.asked
    assert len(chat_server.seen) == total and len(rows(db)) == total


def test_answers_are_committed_in_batches_as_they_arrive(db, chat_server, monkeypatch):
    monkeypatch.setattr(autojudge_module, "BATCH_ANSWERS", 5)
    committed: list[tuple[int, int]] = []

    def progress(done: int, _total: int) -> None:
        connection = sqlite3.connect(db)  # another reader, as a crash would leave the file
        try:
            committed.append(
                (done, connection.execute("SELECT COUNT(*) FROM auto_judgment").fetchone()[0])
            )
        finally:
            connection.close()

    with open_database(db) as database:
        autojudge(
            database,
            AutojudgeOptions(
                endpoint=chat_server.url,
                model="m",
                queries=("q01", "q02"),
                concurrency=1,
                probes=0,
            ),
            progress=progress,
        )
    assert all(done - 5 < stored <= done for done, stored in committed[1:])
    assert committed[-1][0] - 5 < committed[-1][1]


# structured answers (issue 32, item 2) -------------------------------------------------------


@pytest.mark.parametrize(
    ("formats", "used", "words"),
    [
        ({"json_schema", "json_object"}, "json_schema", "as JSON with a schema"),
        ({"json_object"}, "json_object", "as a JSON object with a schema"),  # llama.cpp's
        (set(), None, "in free text"),  # refuses both
        (None, "json_schema", "as JSON with a schema"),  # ignores the field: answers in text
    ],
)
def test_the_answer_is_asked_for_in_the_best_format_the_server_takes(
    db, chat_server, formats, used, words
):
    chat_server.formats = None if formats is None else frozenset(formats)
    summary = run(db, chat_server, queries=("q01",), concurrency=1)
    refused = len(chat_server.seen) - summary.asked  # each refused format asked once
    assert refused == {"json_schema": 0, "json_object": 1, None: 2}[used] or formats is None
    answered = [seen.body.get("response_format") for seen in chat_server.seen[refused:]]
    assert summary.graded == summary.asked == len(pooled(db, ["q01"]))
    assert summary.retried == 0 and summary.failed == 0  # a refused format costs no attempt
    assert f"answers asked {words}" in summary.sentence()
    if used is None:
        assert answered == [None] * summary.asked
    else:
        assert {format["type"] for format in answered} == {used}
        schema = answered[0].get("schema") or answered[0]["json_schema"]["schema"]
        assert schema["properties"]["final_score"]["enum"] == [0, 1, 2, 3, 4, 5]
    for row in rows(db):
        assert row["answer"].startswith('{"reason"') == bool(formats)  # JSON, read as such
    assert sorted(row["grade"] for row in rows(db)) == sorted(
        default_grade(seen.user) for seen in chat_server.seen[refused:]
    )


def test_free_text_asks_for_no_format(db, chat_server):
    run(db, chat_server, queries=("q01",), structured=False)
    assert all("response_format" not in seen.body for seen in chat_server.seen)


@pytest.mark.parametrize(
    ("answer", "grade"),
    [
        ('{"reason": "on topic", "final_score": 4}', 4),
        ('{"final_score": "2"}', 2),
        ('{"final_score": 2.0}', 2),
        ('{"final_score": 7}', None),
        ('{"final_score": true}', None),
        ('{"final_score": 5e308}', None),
        ('{"reason": "no score"}', None),
        ('{"x": 1}\nFinal score: 3', 3),
    ],
)
def test_a_structured_answer_is_read_by_its_final_score(answer, grade):
    assert parse_grade(answer).grade == grade


# options and the command line -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"endpoint": "localhost:11434"}, "--endpoint takes the base URL"),
        ({"model": " "}, "--model needs"),
        ({"concurrency": 0}, "--concurrency takes a whole number from 1 to 64"),
        ({"timeout": 0.0}, "--timeout takes seconds above 0"),
        ({"retries": 11}, "--retries takes a whole number from 0 to 10"),
        ({"limit": 0}, "--limit takes a whole number from 1"),
        ({"api_key_env": "MY-KEY"}, "--api-key-env takes the name"),
        ({"template": "[user]\n{query} {queri}"}, "unknown placeholder '{queri}'"),
    ],
)
def test_options_are_checked_before_anything_is_asked(db, chat_server, changes, message):
    with pytest.raises(UsageError) as error:
        run(db, chat_server, **changes)
    assert re.search(message, error.value.worded(flag_of))  # the option, as its flag
    assert chat_server.seen == [] and rows(db) == []


def cli_run(*arguments: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli(list(arguments))
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_end_to_end(db, chat_server, tmp_path):
    base = [
        "autojudge",
        str(db),
        "--endpoint",
        chat_server.url,
        "--model",
        "m",
        "--backoff",
        "0.01",
        "--probes",
        "0",
    ]
    code, out, err = cli_run(*base, "--queries", "q01,q02", "--limit", "4", "--name", "cli judge")
    assert (code, err) == (0, "")
    assert out.startswith('judge "cli judge": 4 pairs, 0 cached, 4 asked: 4 graded, 0 failed')
    assert " s and 107 tokens a request)" in out.splitlines()[0]  # 100 prompt + 7 completion
    assert len(chat_server.seen) == 4 and len(rows(db)) == 4
    code, out, _ = cli_run(*base, "--queries", "q01,q02", "--limit", "4", "--name", "cli judge")
    assert code == 0 and "4 pairs, 4 cached, 0 asked" in out and len(chat_server.seen) == 4

    template = tmp_path / "prompt.txt"
    template.write_text("[user]\nQuery: {query}\nDocument: {title}\n{rubric}\n", encoding="utf-8")
    code, out, _ = cli_run(
        *base, "--queries", "q03", "--limit", "1", "--name", "t", "--template", str(template)
    )
    assert code == 0 and chat_server.seen[-1].body["messages"][0]["content"].startswith(
        "Query: how to reset"
    )

    template.write_text("[user]\n{query} {document}\n", encoding="utf-8")
    code, _, err = cli_run(*base, "--template", str(template))
    assert code == 2 and str(template) in err and "'{document}'" in err
    code, _, err = cli_run(*base, "--concurrency", "0")
    assert code == 2 and "--concurrency" in err
    code, _, err = cli_run("autojudge", str(db), "--model", "m")
    assert code == 2 and "--endpoint" in err
    code, _, err = cli_run(*base, "--local")
    assert code == 2 and "--local" in err
    code, _, err = cli_run(*base, "--name", "ana")
    assert code == 1 and "'ana' is a human rater" in err
    chat_server.script[PIZZA] = [Status(404)]
    code, _, err = cli_run(*base, "--queries", "q01", "--concurrency", "1")
    assert code == 1 and "has no such model or path (HTTP 404" in err
    code, out, _ = cli_run("autojudge", "--show-template")
    assert code == 0 and out == DEFAULT_TEMPLATE


def test_a_run_with_failures_exits_1_and_counts_them_by_reason(db, chat_server):
    """Issue 32: every pair failed and the exit was 0, the summary naming only the first."""
    chat_server.script[PIZZA] = [Answer("Relevant, I think.")] * 2 + [Status(500)] * 8
    code, out, err = cli_run(
        "autojudge", str(db), "--endpoint", chat_server.url, "--model", "m", "--queries", "q01",
        "--backoff", "0.01", "--retries", "1", "--concurrency", "1", "--probes", "0",
    )  # fmt: skip
    assert code == 1 and err == ""
    failed = len([row for row in rows(db) if row["failure"]])
    assert failed >= 3 and f"{failed} failed" in out.splitlines()[0]
    by_reason = next(line for line in out.splitlines() if line.startswith("failed: "))
    counts = dict(part.split(" ", 1)[::-1] for part in by_reason[8:].split("; "))
    assert counts["no final score in the answer"] == "2"
    assert int(counts["HTTP 500"]) == failed - 2
    assert "The judge is named" in out  # what was answered is kept, and said so


def test_an_estimate_asks_nothing_and_counts_what_a_run_would_ask(db, chat_server):
    """Issue 32: pairs × tokens before a run, so a lead knows what a hosted model costs."""
    base = ["autojudge", str(db), "--endpoint", chat_server.url, "--model", "m",
            "--queries", "q01", "--max-tokens", "100", "--probes", "0"]  # fmt: skip
    code, out, err = cli_run(*base, "--estimate")
    pairs = len(pooled(db, ["q01"]))
    assert (code, err) == (0, "") and chat_server.seen == [] and automatic_raters(db) == []
    characters = int(re.search(r"\(([\d,]+) characters / 4\)", out).group(1).replace(",", ""))
    assert out.startswith(f'judge "m": {pairs} pairs, 0 cached, {pairs} to ask and 0 probes')
    assert f"at most {pairs * 100:,} completion tokens" in out and "Nothing was asked" in out
    code, _, _ = cli_run(*base, "--limit", "3")  # three answered: 100 + 7 tokens each
    sent = sum(len(m["content"]) for seen in chat_server.seen for m in seen.body["messages"])
    code, out, _ = cli_run(*base, "--estimate")
    assert f"{pairs} pairs, 3 cached, {pairs - 3} to ask" in out
    assert "this judge has used 100 prompt and 7 completion tokens a request" in out
    assert characters == pytest.approx(sent * pairs / 3, rel=0.5)  # the prompts' characters
    code, _, err = cli_run("autojudge", str(db), "--local", "--estimate")
    assert code == 2 and "--local costs no tokens" in err


# the prompt -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "grade"),
    [
        ("Final score: 3", 3),
        ("##final score: 4", 4),
        ("M: 2\nT: 1\nFinal score: 2", 2),
        ("Final score: 1, no wait.\nFinal score: 5", 5),
        ("**Final Score:** 1", 1),
        ("Final score (O): 2", 2),
        ("final_score = 0", 0),
        ("Final score: 3.0", 3),
        ("3", 3),
        ("  4.  ", 4),
        ("**5**", 5),
        ("<think>Final score: 1, maybe</think>\nFinal score: 2", 2),
        ("<think>hmm</think>0", 0),
        ("It is relevant.", None),
        ("Final score: 7", None),
        ("Final score: 2.5", None),
        ("Final score: -1", None),
        ("6", None),
        ("M: 2, T: 3", None),
        ("", None),
        (None, None),
        ("<think>Final score: 3</think>", None),
        ("Final score: 5.0e308", None),  # no 5
        ("Final score: 4e0", None),
        ("Final score: " + "9" * 5000, None),
        # a grade in plain words (issue 32: "The document is 5." was refused)
        ("The document is 5.", 5),
        ("I would give it a 3.", 3),
        ("Score: 4", 4),
        ("My grade is 2", 2),
        ("relevance = 1/5", 1),
        ("The rating is 4 out of 5.", 4),
        ("Provide a score of 0-5. My score: 3", 3),
        # and what is not one
        ("The page has 5 sections.", None),
        ("It is relevant to 3 of the needs and more", None),
        ("There are 3 steps, and it is good. It is a 3", None),  # two numbers: which?
        ("a score of 0 to 5, where grade 0 is bad and grade 5 perfect", None),  # the rubric
        ("score of 80%", None),
        ("Grade: 7", None),
        ("It deserves " + "very " * 30 + "much a 4", None),  # too long to end with it
    ],
)
def test_answers_are_read_as_a_grade_or_a_failure(answer, grade):
    verdict = parse_grade(answer)
    assert verdict.grade == grade
    assert (verdict.failure is None) == (grade is not None)
    assert len(verdict.failure or "") < 200  # a line, whatever the answer


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("[user]\n{query} {queri}", r"unknown placeholder '\{queri\}'"),
        ("[user]\n{query.upper}", r"unknown placeholder '\{query.upper\}'"),
        ("[user]\n{query:>10}", r"unknown placeholder '\{query:>10\}'"),
        ("[user]\n{query!r}", r"unknown placeholder '\{query!r\}'"),
        ("[user]\n{query} {", "lone brace"),
        ("[user]\n{query} }", "lone brace"),
        ("intro\n[system]\nhi\n[user]\n{query}", "text before its first"),
        ("[system]\n{query}", "no user message"),
        ("  \n", "empty"),
        ("[user]\n{query}\n[system]\nlate", r"\[system\] message must come first"),
        ("[user]\n{query}\n[user]\n{title}", "must take turns"),
        ("[user]\nA\n[assistant]\nB\n[assistant]\nC\n[user]\n{query}", "must take turns"),
    ],
)
def test_a_template_that_cannot_render_names_why(template, message):
    with pytest.raises(UsageError, match=message):
        check_template(template)


FEW_SHOT = """\
[system]
Grade how relevant a document is to a query, from 0 to 5.
[user]
Query: cheap flights
Document: Cheap flights to Paris from 29 euros
[assistant]
Final score: 4
[user]
Query: {query}
Document: {title}
[assistant]
Final score:"""


def test_a_template_with_example_turns_and_an_answer_prefix(db, chat_server):
    """Issue 32: few-shot turns and a pre-filled answer ("Final score:"), which the model
    goes on from: its answer " 3" is read with the prefix."""
    chat_server.script[PIZZA] = [Answer(" 3")]
    summary = run(db, chat_server, queries=("q01",), template=FEW_SHOT, structured=False)
    sent = chat_server.seen[0].body["messages"]
    assert [message["role"] for message in sent] == [
        "system", "user", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert sent[2]["content"] == "Final score: 4" and sent[-1]["content"] == "Final score:"
    assert sent[3]["content"].startswith("Query: best pizza recipes")
    assert summary.failed == 0
    assert any(row["grade"] == 3 and row["answer"] == " 3" for row in rows(db))


def test_rendering_fills_the_messages_and_the_version_follows_the_prompt():
    pair = Pair("q9", None, None, "d1", "A title", None, "x" * 30)
    rendered = messages(
        "[system]\nS {rubric}\n[user]\n{{ {query} | {title} | {url} | {body} }}",
        pair,
        DEFAULT_SCALE,
        10,
    )
    assert rendered[0] == {
        "role": "system",
        "content": "S "
        + "\n".join(f"{g.grade} = {g.label}: {g.description}" for g in DEFAULT_SCALE),
    }
    assert rendered[1] == {"role": "user", "content": "{ q9 | A title |  | xxxxxxxxxx … }"}
    assert messages("Just {query}", pair, DEFAULT_SCALE, 10) == [
        {"role": "user", "content": "Just q9"}
    ]
    check_template(DEFAULT_TEMPLATE)
    version = prompt_version(DEFAULT_TEMPLATE, DEFAULT_SCALE, 4000)
    relabelled = [*DEFAULT_SCALE[:5], GradeLabel(5, "Bullseye", "")]
    assert len(version) == 12
    assert version == prompt_version(DEFAULT_TEMPLATE, list(DEFAULT_SCALE), 4000)
    assert version != prompt_version(DEFAULT_TEMPLATE, relabelled, 4000)
    assert version != prompt_version(DEFAULT_TEMPLATE, DEFAULT_SCALE, 2000)
    assert version != prompt_version(DEFAULT_TEMPLATE + " ", DEFAULT_SCALE, 4000)


def test_urls():
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
    assert chat_url("https://h/v1?key=k") == "https://h/v1/chat/completions?key=k"
    assert public_url("https://me:secret@h.example:8443/v1/?key=k#x") == "https://h.example:8443/v1"
    assert public_url("http://[::1]:8080/v1") == "http://[::1]:8080/v1"


def test_ctrl_c_stops_the_command_keeping_the_answers(db, chat_server):
    chat_server.pause = 0.05
    environment = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "autojudge", str(db), "--endpoint",
         chat_server.url, "--model", "m", "--concurrency", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(chat_server.seen) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and out == ""
    assert "cancelled (what was answered is kept)" in err
    asked = len(rows(db))
    assert 5 <= asked < len(pooled(db)) and asked == len(chat_server.seen)
    assert f"{asked} asked: {asked} graded" in err


# a hostile server (issue 31, item 4) ------------------------------------------------------------


def test_a_server_is_held_to_bounds_and_every_answer_received_is_kept(db, chat_server, monkeypatch):
    monkeypatch.setenv("MY_KEY", KEY)
    chat_server.script = {
        PIZZA: [Raw("Final score: 3", usage={"prompt_tokens": 10**30, "completion_tokens": 2**62})],
        "hiking boots": [Raw("x" * (llm.MAX_BODY + 1))],
        "reset iphone": [Echo()],
        "noise cancel": [Raw("Final score: 2", drip=0.05)],  # a whole answer would take minutes
    }
    summary = run(
        db, chat_server, api_key_env="MY_KEY", queries=("q01", "q02", "q03", "q04"), retries=0,
        timeout=1.0,
    )  # fmt: skip
    found = rows(db)
    assert summary.graded + summary.failed == len(found) > 4  # every other answer kept
    counted = [row for row in found if row["query"] == "q01" and row["prompt_tokens"] is None]
    assert [(row["grade"], row["completion_tokens"]) for row in counted] == [(3, None)]
    failures = sorted(row["failure"] for row in found if row["failure"])
    assert len(failures) == 3
    assert f"the answer is longer than {llm.MAX_BODY:,} bytes: not kept" in failures
    assert any(failure.startswith("no answer within 1 s") for failure in failures)
    echoed = [failure for failure in failures if "Authorization" in failure]
    assert len(echoed) == 1 and "Bearer [key]" in echoed[0]
    assert not [row for row in found if KEY in str(dict(row))]
    assert all(seen.body["max_tokens"] == llm.MAX_TOKENS for seen in chat_server.seen)


def test_stop_ends_an_answer_under_way_at_once(chat_server):
    chat_server.script = {"slow": [Raw("Final score: 2", drip=0.1)]}  # some 10 s in all
    stop = threading.Event()
    settings = llm.ChatSettings(chat_server.url, "judge-model", timeout=60.0, retries=0)
    with llm.ChatClient(settings, stop=stop) as client:
        threading.Timer(0.3, stop.set).start()
        reply = client.ask([{"role": "user", "content": "slow"}])
    assert reply.stopped and reply.answer is None  # it did not wait for the whole answer


# requests at once ------------------------------------------------------------------------------


def test_requests_at_once_are_as_many_as_the_server_works_on(db, chat_server):
    """Issue 32: against a one-slot server on this machine, four requests at once only waited
    in its queue, their time running out. Unasked, the run sends as many as the server says
    it works on (llama.cpp's /props), else one to a server on this machine."""
    chat_server.slots = 3
    summary = run(db, chat_server, queries=("q01",), concurrency=None)
    assert summary.concurrency == 3 and summary.sentence().splitlines()[0].endswith(
        "answers asked as JSON with a schema, 3 at once"
    )
    chat_server.slots = None
    summary = run(db, chat_server, queries=("q02",), concurrency=None)
    assert summary.concurrency == 1
    summary = run(db, chat_server, queries=("q03",), concurrency=5)
    assert summary.concurrency == 5  # asked for: as asked
    assert autojudge_module.auto_concurrency("https://api.example.com/v1", None) == 4
    assert autojudge_module.auto_concurrency("http://localhost:11434/v1", None) == 1
    assert autojudge_module.auto_concurrency("http://[::1]:8080/v1", None) == 1
    assert autojudge_module.auto_concurrency("https://api.example.com/v1", 8) == 8


def test_one_at_a_time_never_overlaps_at_the_server(db, chat_server):
    chat_server.pause = 0.02
    run(db, chat_server, queries=("q01",), concurrency=None)
    assert chat_server.most_at_once == 1
    chat_server.slots, chat_server.pause = 2, 0.1
    run(db, chat_server, queries=("q02",), concurrency=None)
    assert chat_server.most_at_once == 2  # a tenth of a second each: the two slots fill
