"""Rater quality control on a generated campaign with planted raters: a careful one, a fast
one, an inconsistent one and a biased one, each caught by the right figure and no other; the
figures of ``judge-app raters --format json`` against numbers computed here from the planted
data (scikit-learn for kappa, krippendorff for alpha)."""

from __future__ import annotations

import dataclasses
import json
from contextlib import redirect_stdout
from datetime import datetime
from io import StringIO
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from campaign_support import (
    PLANTED_DOCS,
    PLANTED_QUERIES,
    PLANTED_RATERS,
    import_frames,
    plant_raters,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from judge_app.agreement.raters import (
    alpha_with_others,
    blocks,
    consistency,
    speed,
)
from judge_app.cli import main as cli
from judge_app.commands.agree import AgreementOptions, agreement_of
from judge_app.commands.campaign import read_campaign
from judge_app.commands.evaluate import evaluate
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.store import judgments as store
from judge_app.store import open_database, reads
from judge_app.store.models import RepeatJudgment, utcnow
from judge_app.store.people import named_rater
from judge_app.store.rater_queue import (
    query_items,
    queue_progress,
)
from judge_app.store.repeats import answered_repeats_frame, schedule_repeats


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, dict]:
    return plant_raters(tmp_path_factory.mktemp("planted"))


def _raters_json(path: Path) -> dict:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["raters", str(path), "--format", "json"]) == 0
    return {record["rater"]: record for record in json.loads(out.getvalue())["raters"]}


def test_each_planted_rater_is_caught_by_the_right_figure(planted):
    path, _ = planted
    figures = _raters_json(path)
    warned = {name: " ".join(record["warnings"]) for name, record in figures.items()}
    assert "judgments under 2 s" in warned["ben"]
    assert "self-agreement kappa" in warned["chloe"]
    assert "above gold" in warned["dan"] and "gold items within one" in warned["dan"]
    assert warned["ana"] == ""
    assert "under 2 s" not in warned["chloe"] + warned["dan"] + warned["ana"]
    assert "self-agreement" not in warned["ben"] + warned["dan"] + warned["ana"]
    assert "gold" not in warned["ben"] + warned["chloe"] + warned["ana"]


def test_the_json_figures_are_the_planted_numbers(planted):
    path, data = planted
    figures = _raters_json(path)
    judged = pd.DataFrame(data["judgments"], columns=["rater", "query", "doc", "grade", "ms", "at"])
    for rater in PLANTED_RATERS:
        record, own = figures[rater], judged[judged["rater"] == rater]
        seconds = own["ms"].to_numpy() / 1000
        assert record["done"] == len(own) == PLANTED_QUERIES * PLANTED_DOCS
        assert record["median_seconds"] == pytest.approx(np.median(seconds), abs=1e-12)
        assert record["too_fast_share"] == pytest.approx(np.mean(seconds < 2), abs=1e-12)
        assert record["per_active_hour"] == pytest.approx(len(own) * 3600 / seconds.sum())
        first, again = np.array(data["repeats"][rater]).T
        assert record["repeats"] == len(first) == int(0.1 * len(own))
        assert record["repeats_pending"] == 0 and record["remaining"] == 0
        expected = cohen_kappa_score(first, again, labels=range(6), weights="quadratic")
        if np.array_equal(first, again):
            assert record["self_agreement_kappa"] == pytest.approx(1.0)
        else:
            assert record["self_agreement_kappa"] == pytest.approx(expected, abs=1e-12)
        assert record["self_agreement_exact"] == pytest.approx(np.mean(first == again))
        pairs = [
            (g, data["gold"][(q, d)])
            for q, d, g in zip(own["query"], own["doc"], own["grade"])
            if (q, d) in data["gold"]
        ]
        given, gold = np.array(pairs).T
        assert record["gold_items"] == len(given) == 30
        assert record["gold_accuracy"] == pytest.approx(np.mean(given == gold), abs=1e-12)
        assert record["gold_within_one"] == pytest.approx(np.mean(np.abs(given - gold) <= 1))
        assert record["gold_mean_absolute_error"] == pytest.approx(np.mean(np.abs(given - gold)))
        assert record["gold_bias"] == pytest.approx(np.mean(given - gold), abs=1e-12)
        assert [block["judgments"] for block in record["drift"]["by_block"]] == [50] * 4 + [40]
        assert [day["judgments"] for day in record["drift"]["by_day"]] == [120, 120]


def test_alpha_with_others_and_the_drift_blocks_against_krippendorff(planted):
    """With exactly one other rater, the rater's alpha against the rest is the two raters'
    alpha, overall and in each block of 50 on its units alone."""
    _, data = planted
    judged = pd.DataFrame(data["judgments"], columns=["rater", "query", "doc", "grade", "ms", "at"])
    ana, chloe = (judged[judged["rater"] == name]["grade"].to_numpy() for name in ("ana", "chloe"))
    both = np.vstack([ana, chloe])
    others = np.eye(6)[chloe]  # the one other rater's grade, as shares
    whole = alpha_with_others(ana, others, np.zeros(len(ana), dtype=int), 1)[0]
    reference = krippendorff.alpha(both, level_of_measurement="ordinal", value_domain=range(6))
    assert whole.value == pytest.approx(reference, abs=1e-12)
    by_block = alpha_with_others(ana, others, np.arange(len(ana)) // 50, 5)
    for index, block in enumerate(by_block):
        part = both[:, 50 * index : 50 * (index + 1)]
        expected = krippendorff.alpha(part, level_of_measurement="ordinal", value_domain=range(6))
        assert block.value == pytest.approx(expected, abs=1e-12)
    alone = alpha_with_others(ana, np.zeros_like(others), np.zeros(len(ana), dtype=int), 1)[0]
    assert alone.value is None and alone.reason


def test_repeats_and_gold_count_in_no_evaluation_or_agreement(planted, tmp_path):
    """The same campaign without repeats and gold gives the same evaluation and agreement."""
    path, data = planted
    bare = tmp_path / "bare.sqlite"
    frame = pd.DataFrame(
        [(q, d, r, g) for r, q, d, g, _, _ in data["judgments"]],
        columns=["query_id", "doc_id", "rater", "grade"],
    )
    with open_database(path, read_only=True) as database, database.reading() as session:
        from judge_app.store.reads import queries_frame, results_frame

        queries = queries_frame(session)[["query_id", "text"]]
        run = results_frame(session)[["query_id", "doc_id", "rank"]]
    import_frames(bare, tmp_path, queries=queries, run_main=run, judgments=frame)
    options = EvaluationOptions(ks=(5, 10, 20))
    planted_table, bare_table = (
        evaluate(EvaluationRequest.shown(options), read_campaign(str(db))).table
        for db in (path, bare)
    )
    assert planted_table is not None and len(planted_table) == PLANTED_QUERIES
    pd.testing.assert_frame_equal(planted_table, bare_table)
    planted_agreement = agreement_of(str(path), AgreementOptions(bootstrap=0))
    bare_agreement = agreement_of(str(bare), AgreementOptions(bootstrap=0))
    for name in ("krippendorff_alpha", "pairwise", "per_rater", "per_query", "raters"):
        assert getattr(planted_agreement, name) == getattr(bare_agreement, name), name
    assert planted_agreement.raters == list(PLANTED_RATERS)


def test_a_pending_repeat_looks_like_a_new_item_and_takes_the_raters_change(tmp_path):
    """The queue shows a repeat unjudged, with no note, after the first run's documents; a
    grade of it is stored as the repeat, the first grade stays, and undo reverts the repeat;
    once answered, the repeat is the rater's view of the pair for the rest of that session
    only: the next shows (and changes) the judgment again."""
    run = pd.DataFrame(
        [("q1", f"d{d}", d) for d in range(1, 9)], columns=["query_id", "doc_id", "rank"]
    )
    path = tmp_path / "one.sqlite"
    import_frames(
        path, tmp_path, queries=pd.DataFrame({"query_id": ["q1"], "text": ["x"]}), run_main=run
    )
    with open_database(path) as database:
        with database.transaction() as session:
            ana = named_rater(session, "ana").id
            fresh = query_items(session, ana, 1)
            for item in fresh:
                store.set_grade(session, ana, 1, item.document_id, item.position % 6)
                store.set_note(session, ana, 1, item.document_id, "first")
            assert schedule_repeats(session, ana, 0.25, judged_before=datetime(2100, 1, 1)) == 2
            assert schedule_repeats(session, ana, 0.25, judged_before=datetime(2100, 1, 1)) == 0
        with database.reading() as session:
            items = query_items(session, ana, 1)
            progress = queue_progress(session, ana)[1]
            started = store.latest_event_id(session, ana)
        by_id = {item.document_id: item for item in fresh}
        repeated = [item for item in items if not item.judged]
        assert len(repeated) == 2 and items[-2:] == repeated  # after the run's others
        for item in repeated:  # exactly as it was before anyone judged it, but its place
            assert item == dataclasses.replace(by_id[item.document_id], position=item.position)
        assert (progress.done, progress.total) == (6, 8)
        target = repeated[0].document_id
        first = by_id[target].position % 6
        since = utcnow()  # the session that answers the repeat starts
        event = database.write(
            lambda s: store.set_grade(s, ana, 1, target, 5 - first, repeats_since=since)
        )
        assert event is not None and event.repeat and event.old_grade is None
        with database.reading() as session:
            assert store.current_state(session, ana, 1, target, repeats_since=since).grade == (
                5 - first
            )
            shown = query_items(session, ana, 1, repeats_since=since)
            assert [item.grade for item in shown if item.document_id == target] == [5 - first]
            judgment = store.locked_judgment(session, (ana, 1, target))
            assert (judgment.grade, judgment.note) == (first, "first")
        undone = database.write(lambda s: store.undo(s, ana, after_event_id=started))
        assert undone is not None and undone.repeat
        with database.reading() as session:
            assert store.current_state(session, ana, 1, target) is None  # pending again
            assert store.locked_judgment(session, (ana, 1, target)).grade == first
        database.write(lambda s: store.set_grade(s, ana, 1, target, 5 - first, repeats_since=since))
        later = utcnow()  # the next session: the pair is the judgment again, and takes changes
        with database.reading() as session:
            assert store.current_state(session, ana, 1, target, repeats_since=later).grade == first
        database.write(lambda s: store.set_grade(s, ana, 1, target, 3, repeats_since=later))
        with database.reading() as session:
            assert store.locked_judgment(session, (ana, 1, target)).grade == 3
            assert session.get(RepeatJudgment, (ana, 1, target)).grade == 5 - first
            again = answered_repeats_frame(session)
            history = reads.history_frame(session)  # the judgment's own, the repeat's left out
        assert list(again["first_grade"]) == [first] and list(again["grade"]) == [5 - first]
        assert list(history["action"]) == ["set", "note"] * 8 + ["set"]


def test_figures_of_nothing_are_undefined_with_a_reason():
    assert speed(np.array([np.nan]), 2).median_seconds.reason
    assert consistency(np.zeros(0), np.zeros(0), "repeats").kappa.reason == "no repeats graded yet"
    assert [len(block) for block in blocks(np.arange(120))] == [50, 70]
    assert [len(block) for block in blocks(np.arange(130))] == [50, 50, 30]


def test_the_table_csv_and_too_fast_file_say_what_the_json_says(planted, tmp_path, capsys):
    path, _ = planted
    figures = _raters_json(path)
    flagged = tmp_path / "fast.csv"
    assert cli(["raters", str(path), "--format", "csv", "--too-fast", str(flagged)]) == 0
    table = pd.read_csv(StringIO(capsys.readouterr().out))
    assert list(table["rater"]) == list(PLANTED_RATERS)
    for column in ("done", "median_seconds", "too_fast_share", "self_agreement_kappa"):
        assert list(table[column]) == [figures[name][column] for name in PLANTED_RATERS]
    fast = pd.read_csv(flagged)
    assert fast["seconds"].lt(2).all()
    assert fast.groupby("rater").size().to_dict() == {
        name: record["too_fast"] for name, record in figures.items() if record["too_fast"]
    }
    assert cli(["raters", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "Out of line:" in shown and "ben: " in shown and "1.0000" in shown
    assert cli(["raters", str(path), "--min-seconds", "0"]) == 0
    assert "0 judgments flagged" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["-1", "nan", "601"])
def test_a_fastest_credible_judgment_out_of_range_is_a_usage_error(planted, value, capsys):
    path, _ = planted
    assert cli(["raters", str(path), "--min-seconds", value]) == 2
    assert "--min-seconds takes a number of seconds from 0 to 600" in capsys.readouterr().err


def test_the_report_has_the_raters_section_with_the_same_numbers(planted, tmp_path):
    path, _ = planted
    out = tmp_path / "report.html"
    with redirect_stdout(StringIO()):
        assert cli(["report", str(path), "--out", str(out), "--bootstrap", "0"]) == 0
    html = out.read_text(encoding="utf-8")
    section = html.split("<h2>Raters</h2>")[1]
    figures = _raters_json(path)
    assert f"{figures['ben']['too_fast_share']:.1%}" in section
    assert "judgments under 2 s" in section and "self-agreement kappa" in section


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 2)), min_size=2))
def test_alpha_against_one_other_rater_is_krippendorffs_in_every_group(units):
    """Random units of two raters cut into groups: each group's figure is krippendorff's
    alpha of the two raters on that group's units (or undefined where it is NaN)."""
    own, other, groups = (np.array(column) for column in zip(*units))
    found = alpha_with_others(own, np.eye(6)[other], groups, 3)
    for group in range(3):
        data = np.vstack([own[groups == group], other[groups == group]]).astype(float)
        if data.shape[1] == 0 or len(np.unique(data)) < 2:
            assert found[group].value is None and found[group].reason
            continue
        expected = krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=range(6))
        assert found[group].value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1))
def test_consistency_figures_hold_together(pairs):
    grades, reference = (np.array(column) for column in zip(*pairs))
    found = consistency(grades, reference, "repeats")
    assert 0 <= found.exact.value <= found.within_one.value <= 1
    assert found.mean_absolute_error.value >= abs(found.bias.value) - 1e-12
    assert found.bias.value == pytest.approx(np.mean(grades - reference))


def test_too_fast_judgments_are_written_as_the_judgments_export_writes_them(tmp_path):
    """The same fields in two machine files of one database read alike: a flag false or
    true, a time in UTC with its Z."""
    db, flagged, exported = tmp_path / "demo.sqlite", tmp_path / "fast.csv", tmp_path / "j.csv"
    with redirect_stdout(StringIO()):
        assert cli(["demo", str(db)]) == 0
        assert cli(["raters", str(db), "--too-fast", str(flagged), "--min-seconds", "600"]) == 0
        assert cli(["export", str(db), "--judgments", str(exported)]) == 0
    keys = ["rater", "query_id", "doc_id"]
    fast = pd.read_csv(flagged, dtype=str, keep_default_na=False)
    every = pd.read_csv(exported, dtype=str, keep_default_na=False)
    both = fast.merge(every, on=keys, suffixes=("", "_export"), validate="one_to_one")
    assert len(both) == len(fast) > 100  # every judgment is under ten minutes
    assert set(both["skipped"]) <= {"false", "true"}
    assert both["skipped"].tolist() == both["skipped_export"].tolist()
    assert both["judged_at"].tolist() == both["judged_at_export"].tolist()
