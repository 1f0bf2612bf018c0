"""``judge-app agreement`` prints today's bytes: the JSON, CSV and table of a seeded campaign
(four raters, missing and skipped grades, an adjudicator, ids whose text and code-point orders
differ, three runs) are compared with files kept in ``tests/reference/agreement``.

The campaign is generated here; the reference files were written by the command before its
reads and sums were reworked for speed (issue 16), so any change to a printed digit shows.
Rewrite them with ``PYTHONPATH=tests python tests/agreement/test_agreement_golden.py`` only
for an intended change.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from paths import REFERENCE

from judge_app.cli import main

GOLDEN = REFERENCE / "agreement"
RATERS = ("ana", "Ben", "chloé", "dan")
CASES = {  # name: agreement arguments after the source
    "all": ["--bootstrap", "200", "--seed", "5"],
    "no_interval": ["--bootstrap", "0"],
    "chosen": ["--raters", "dan,ana,Ben", "--bootstrap", "50", "--k", "3"],
    "one_query": ["--query", "q10", "--bootstrap", "30", "--seed", "2"],
}
FORMATS = ("json", "csv", "table")


def write_campaign(folder: Path) -> tuple[Path, list[Path]]:
    """A seeded judgments CSV and three run files in ``folder``."""
    rng = np.random.default_rng(16)
    queries = [f"q{n}" for n in range(1, 13)] + ["Q2", "q_é"]
    lines = ["query_id,doc_id,rater,grade,skipped"]
    for q, query in enumerate(queries):
        truth = rng.integers(0, 6, size=15)
        for d in range(15):
            doc = f"{query}-d{d}" if d % 4 else f"D{d}é{q}"
            for r, rater in enumerate(RATERS):
                if rater == "dan" and q == 3:  # dan did not judge every query
                    continue
                if rng.random() < 0.2:
                    continue
                spread = (0, 1, 2, 1)[r]
                grade = int(np.clip(truth[d] + rng.integers(-spread, spread + 1), 0, 5))
                skipped = rng.random() < 0.05
                lines.append(f"{query},{doc},{rater},{'' if skipped else grade},{skipped}")
            if d == 2:
                lines.append(f"{query},{doc},adjudicated,{int(truth[d])},False")
    judgments = folder / "judgments.csv"
    judgments.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = []
    for name in ("bm25", "neural", "mixed"):
        rows = ["query_id,doc_id,rank,score"]
        for q, query in enumerate(queries):
            order = rng.permutation(15)[:10]
            for rank, d in enumerate(order, 1):
                doc = f"{query}-d{d}" if d % 4 else f"D{d}é{q}"
                rows.append(f"{query},{doc},{rank},{20 - rank}")
        path = folder / f"{name}.csv"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        runs.append(path)
    return judgments, runs


def printed(*args: str) -> str:
    """What ``judge-app ARGS`` prints; fails on an error."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    folder = tmp_path_factory.mktemp("golden")
    return campaign_sources(folder)


def campaign_sources(folder: Path) -> dict[str, list[str]]:
    """The campaign as a judgments file and as a database."""
    judgments, runs = write_campaign(folder)
    db = folder / "campaign.sqlite"
    args = ["import", str(db), "--judgments", str(judgments)]
    printed(*args)
    for run in runs:
        printed("import", str(db), "--run", str(run), "--run-name", run.stem)
    return {"file": ["--judgments", str(judgments)], "db": ["--db", str(db)]}


def reference_name(source: str, case: str, output: str) -> str:
    return f"{source}_{case}.{'txt' if output == 'table' else output}"


@pytest.mark.parametrize("source", ["file", "db"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("output", FORMATS)
def test_output_is_byte_for_byte_the_reference(sources, source, case, output):
    text = printed("agreement", *sources[source], *CASES[case], "--format", output)
    expected = (GOLDEN / reference_name(source, case, output)).read_text(encoding="utf-8")
    assert text == expected


if __name__ == "__main__":
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        found = campaign_sources(Path(temporary))
        for source, source_args in found.items():
            for case, case_args in CASES.items():
                for output in FORMATS:
                    text = printed("agreement", *source_args, *case_args, "--format", output)
                    path = GOLDEN / reference_name(source, case, output)
                    path.write_text(text, encoding="utf-8")
    sys.exit(0)
