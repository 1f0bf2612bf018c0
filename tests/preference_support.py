"""Preference judgments for the demo campaign, as raters would make them: each rater's own
grades with noise (ana careful, chloe loose, so some of their triples come out cyclic), on
overlapping pairs of the first judged documents of the first queries, with a few skips; and
the demo with them imported."""

from __future__ import annotations

import itertools
import shutil
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.cli import main as cli
from judge_app.store import open_database
from judge_app.store.reads import judgments_frame

NOISE = {"ana": 0.6, "ben": 1.0, "chloe": 1.6}
"""Each rater's noise on their own grades (standard deviation, in grades)."""


def noisy_preferences(db: Path | str, queries: int = 10, seed: int = 36) -> pd.DataFrame:
    """``query_id, doc_a, doc_b, rater, choice``: six in ten pairs of the first eight judged
    documents of the first ``queries`` queries, per rater, chosen by the rater's grades plus
    noise (close: ``equal``; both graded 0 and close: ``neither``; one in fifty skipped)."""
    rng = np.random.default_rng(seed)
    with open_database(db) as database, database.reading() as session:
        grades = judgments_frame(session)
    grades = grades[grades["grade"].notna() & grades["rater"].isin(list(NOISE))]
    rows = []
    for query in sorted(grades["query_id"].unique())[:queries]:
        mine = grades[grades["query_id"] == query]
        docs = sorted(mine["doc_id"].unique())[:8]
        for rater, noise in NOISE.items():
            own = mine[mine["rater"] == rater].set_index("doc_id")["grade"]
            for a, b in itertools.combinations(docs, 2):
                if rng.random() > 0.6 or a not in own or b not in own:
                    continue
                sa, sb = own[a] + rng.normal(0, noise), own[b] + rng.normal(0, noise)
                if rng.random() < 0.02:
                    choice = "skipped"
                elif max(own[a], own[b]) == 0 and abs(sa - sb) < 1:
                    choice = "neither"
                elif abs(sa - sb) < 0.4:
                    choice = "equal"
                else:
                    choice = "a" if sa > sb else "b"
                rows.append((query, a, b, rater, choice))
    return pd.DataFrame(rows, columns=["query_id", "doc_a", "doc_b", "rater", "choice"])


def with_preferences(demo: Path, folder: Path) -> Path:
    """A copy of the ``demo`` database in ``folder`` with :func:`noisy_preferences` imported
    (``judge-app preferences import``)."""
    path = folder / "preferring.sqlite"
    shutil.copy(demo, path)
    source = folder / "preferences.csv"
    noisy_preferences(path).to_csv(source, index=False)
    with redirect_stdout(StringIO()):
        assert cli(["preferences", "import", str(path), str(source)]) == 0
    return path
