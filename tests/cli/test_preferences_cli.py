"""``judge-app preferences`` (import all or nothing, export round trip, summary) and
``judge-app eval --measure Compat`` on the demo with preferences drawn from its grades."""

from __future__ import annotations

import itertools
import json

import krippendorff
import numpy as np
import pandas as pd
import pytest

from judge_app.cli import main
from judge_app.metrics.compatibility import compatibility
from judge_app.store import open_database
from judge_app.store.preferences import PREFERENCE_COLUMNS, preferences_frame
from judge_app.store.reads import judgments_frame, results_frame


@pytest.fixture
def demo(tmp_path):
    path = tmp_path / "demo.sqlite"
    assert main(["demo", str(path)]) == 0
    return str(path)


def _preferences_from_grades(db: str, queries: int = 6) -> pd.DataFrame:
    """Each rater's preferences between the first six documents of a query's pool, as their
    own grades order them (equal grades: ``equal``, both 0: ``neither``)."""
    with open_database(db) as database, database.reading() as session:
        grades = judgments_frame(session)
    rows = []
    for (query, rater), mine in grades.groupby(["query_id", "rater"], sort=True):
        if query > f"q{queries:02d}":
            continue
        graded = dict(zip(mine["doc_id"], mine["grade"]))
        for a, b in itertools.combinations(sorted(graded)[:6], 2):
            ga, gb = graded[a], graded[b]
            choice = (
                "neither" if ga == gb == 0 else "equal" if ga == gb else "a" if ga > gb else "b"
            )
            rows.append((query, a, b, rater, choice, a, None, "2026-01-01T10:00:00Z", 1200))
    return pd.DataFrame(rows, columns=PREFERENCE_COLUMNS)


def test_import_export_round_trip_and_summary(demo, tmp_path, capsys):
    given = _preferences_from_grades(demo)
    given.loc[0, "note"] = "=SUM(A1)"  # made inert in the CSV, restored on import
    source = tmp_path / "prefs.csv"
    given.to_csv(source, index=False)
    assert main(["preferences", "import", demo, str(source)]) == 0
    for name in ("back.csv", "back.jsonl"):
        assert main(["preferences", "export", demo, str(tmp_path / name)]) == 0
        again = tmp_path / f"again-{name}.sqlite"
        assert main(["preferences", "import", str(again), str(tmp_path / name)]) == 0
        with open_database(again) as database, database.reading() as session:
            reread = preferences_frame(session)
        with open_database(demo) as database, database.reading() as session:
            stored = preferences_frame(session)
        pd.testing.assert_frame_equal(reread, stored)
    assert "'=SUM(A1)" in (tmp_path / "back.csv").read_text()
    assert len(stored) == len(given) and stored["note"].dropna().tolist() == ["=SUM(A1)"]
    capsys.readouterr()
    assert main(["preferences", "summary", demo]) == 0
    out = capsys.readouterr().out
    assert "Krippendorff's alpha (nominal)" in out and "Intransitive triples" in out


def test_the_summary_agrees_with_the_krippendorff_package(demo, tmp_path):
    from judge_app.agreement.preference_agreement import VALUES, preference_agreement

    given = _preferences_from_grades(demo)
    alpha = preference_agreement(given).alpha.value
    units = given.pivot_table(
        index="rater", columns=["query_id", "doc_a", "doc_b"], values="choice", aggfunc="first"
    )
    codes = units.apply(lambda column: column.map({v: i for i, v in enumerate(VALUES)}))
    expected = krippendorff.alpha(codes.to_numpy(dtype=float), level_of_measurement="nominal")
    assert alpha == pytest.approx(expected, abs=1e-12)


def test_a_bad_file_changes_nothing_and_names_line_column_and_reason(demo, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "query_id,doc_a,doc_b,rater,choice,shown_left\n"
        "q01,d0101,d0102,ana,a,d0101\n"
        "q01,d0103,d0103,ana,a,\n"
        "q01,d0101,d0104,ana,better,\n"
        "q01,d0102,d0101,ana,b,\n"
        "q01,d0105,d0106,ana,equal,d0999\n"
    )
    capsys.readouterr()
    assert main(["preferences", "import", demo, str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad} line 3, column doc_b: the same document on both sides" in err
    assert f"{bad} line 4, column choice: choice 'better' is not one of a, b, equal" in err
    assert f"{bad} line 6, column shown_left: shown_left 'd0999' is neither" in err
    assert f"{bad} line 5: duplicate preference" in err and "first on line 2" in err
    with open_database(demo) as database, database.reading() as session:
        assert preferences_frame(session).empty


def test_eval_scores_runs_by_compatibility_beside_ndcg(demo, tmp_path, capsys):
    given = _preferences_from_grades(demo)
    source = tmp_path / "prefs.jsonl"
    given.to_json(source, orient="records", lines=True)
    assert main(["preferences", "import", demo, str(source)]) == 0
    capsys.readouterr()
    code = main(["eval", "--db", demo, "--measure", "Compat", "--compare", "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    found = document["preferences"]
    assert found["measure"] == "Compat" and document["settings"]["measures"] == []
    with open_database(demo) as database, database.reading() as session:
        results = results_frame(session)
    for record in found["runs"]:
        run = results[results["run"] == record["run"]]
        for query in record["queries"]:
            ranked = run[run["query_id"] == query["query_id"]].sort_values("rank")["doc_id"]
            groups = found["ideal_rankings"][query["query_id"]]
            assert query["Compat"] == pytest.approx(compatibility(list(ranked), groups))
        values = [query["Compat"] for query in record["queries"]]
        assert record["mean"]["Compat"] == pytest.approx(np.mean(values))
        assert record["interval"]["low"] <= record["mean"]["Compat"] <= record["interval"]["high"]
        assert record["n_queries"] == 6
    assert found["significance"]["measure"] == "Compat"
    capsys.readouterr()
    assert main(["eval", "--db", demo, "--measure", "AP,Compat(p=0.8)", "--compare"]) == 0
    out = capsys.readouterr().out
    assert "Compat(p=0.8) (95% t)" in out and "over the 6 queries that have one" in out


def test_eval_of_compat_without_preferences_says_so(demo, capsys):
    assert main(["eval", "--db", demo, "--measure", "Compat"]) == 2
    assert "holds no preference judgments" in capsys.readouterr().err
