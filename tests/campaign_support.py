"""A generated campaign for the evaluation tests: holes in the judgments, two runs, three
raters and a lead's adjudicated grades; built with ``judge-app import``."""

from __future__ import annotations

from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judge_app.cli import main as cli


def import_frames(path: Path, folder: Path, **frames: pd.DataFrame) -> None:
    """Write the frames as CSV files and import them with ``judge-app import`` (a run
    ``run_NAME`` each on its own, as the command takes one run at a time)."""
    args, runs = ["import", str(path)], []
    for name, frame in frames.items():
        file = folder / f"{name}.csv"
        frame.to_csv(file, index=False)
        if name.startswith("run_"):
            runs.append(["import", str(path), "--run", str(file), "--run-name", name[4:]])
        else:
            args += [f"--{name}", str(file)]
    with redirect_stdout(StringIO()):
        for command in [args, *runs]:
            assert cli(command) == 0


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """30 queries; runs ``alpha`` and ``beta`` of 15 results from a pool of 25 documents per
    query; raters ana, ben, chloe each grade a random part of the pool (so some top-k results
    stay unjudged and two queries are not judged at all); a lead adjudicated some grades."""
    folder = tmp_path_factory.mktemp("generated")
    rng = np.random.default_rng(7)
    queries = [f"g{q:02d}" for q in range(30)]
    pool = {q: [f"{q}-d{d:02d}" for d in range(25)] for q in queries}
    runs = {
        name: pd.DataFrame(
            [
                (q, doc, rank + 1)
                for q in queries[: 28 if name == "alpha" else 30]
                for rank, doc in enumerate(rng.permutation(pool[q])[:15])
            ],
            columns=["query_id", "doc_id", "rank"],
        )
        for name in ("alpha", "beta")
    }
    rows = []
    for q in queries[:28]:
        truth = rng.integers(0, 6, size=25)
        for rater, share in (("ana", 0.9), ("ben", 0.7), ("chloe", 0.5)):
            for doc, grade in zip(pool[q], truth):
                if rng.random() < share:
                    noisy = int(np.clip(grade + rng.integers(-1, 2), 0, 5))
                    rows.append((q, doc, rater, noisy))
        for doc in pool[q][:3]:
            rows.append((q, doc, "adjudicated", int(rng.integers(0, 6))))
    judgments = pd.DataFrame(rows, columns=["query_id", "doc_id", "rater", "grade"])
    path = folder / "generated.sqlite"
    import_frames(
        path,
        folder,
        queries=pd.DataFrame({"query_id": queries, "text": [f"query {q}" for q in queries]}),
        run_alpha=runs["alpha"],
        run_beta=runs["beta"],
        judgments=judgments,
    )
    return path
