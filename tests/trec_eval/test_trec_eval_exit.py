"""``judge-app trec-eval`` ends as it printed: status 0 and the same output on every run, never
SIGABRT ("terminate called without an active exception") at the interpreter's teardown while
an Arrow task still runs (issue 34: 5 in 300 runs; the command line now waits for Arrow's
pools to be idle before returning, see ``judge_app.cli._settle_arrow``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from paths import ROOT, TREC_EVAL

from judge_app import cli

RUNS = 200
COMMAND = [
    sys.executable, "-m", "judge_app.cli", "trec-eval", "-mbinG", "-m", "P.1,2,3,5,7",
    str(TREC_EVAL / "qrels.comment.test"), str(TREC_EVAL / "results.comment.test"),
]  # fmt: skip


def run_once(_: int) -> tuple[int, bytes, bytes]:
    done = subprocess.run(COMMAND, cwd=ROOT, capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow
def test_every_run_exits_0_with_the_same_output():
    with ThreadPoolExecutor(max_workers=2) as pool:  # two at a time: the time halved, and load
        runs = list(pool.map(run_once, range(RUNS)))
    statuses = Counter(status for status, _, _ in runs)
    errors = Counter(err for _, _, err in runs)
    outputs = Counter(out for _, out, _ in runs)
    assert statuses == {0: RUNS}, (statuses, errors)
    assert errors == {b"": RUNS}, errors
    assert len(outputs) == 1, outputs
    assert next(iter(outputs)).startswith(b"P_1 ")


@pytest.mark.skipif(os.name == "nt", reason="Arrow's C++ names there are MSVC's: not looked up")
def test_arrow_pools_are_found_to_wait_for():
    """Where the command line waits (Linux, macOS), it finds Arrow's two pools: a pyarrow
    whose library no longer has the names would otherwise end the wait silently."""
    import pyarrow.compute as pc

    pc.sum(pc.add(1, 2))  # Arrow loaded and used
    counts = cli._arrow_task_counts()
    assert len(counts) == 2
    cli._settle_arrow()
    assert [count() for count in counts] == [0, 0]
