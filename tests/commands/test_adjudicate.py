"""Adjudication in the core: the disputed documents (the agreement report's list) with every
rater's grade, note and time; decisions stored as the rater ``adjudicated``, never over a
rater's; progress, the next undecided one, undo."""

from __future__ import annotations

import json
import shutil
from contextlib import redirect_stdout
from io import StringIO

import pandas as pd
import pytest

from judge_app.agreement.tables import adjudication_frame
from judge_app.cli import main as cli
from judge_app.commands.adjudicate import Adjudication, read_disputes
from judge_app.commands.agree import AgreementOptions, agreement_of
from judge_app.commands.report import ReportOptions, render_report
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.reports.document import _agreement  # the report's agreement section
from judge_app.store import open_database, reads
from judge_app.store.bulk import document_ids, query_ids
from judge_app.store.judgments import set_grade, set_note, skip
from judge_app.store.people import add_rater

# (query, document): ana, ben, chloe (None: not judged, "s": skipped)
GRADES = {
    ("q1", "d1"): (0, 4, None),  # disputed: 4 apart
    ("q1", "d2"): (3, 3, 2),
    ("q2", "d3"): (1, 3, "s"),  # disputed: 2 apart; chloe skipped
    ("q2", "d4"): (5, 4, 4),
}
RATERS = ("ana", "ben", "chloe")


@pytest.fixture
def campaign(db):
    """The judgments above, with a note and a time on some."""
    with db.transaction() as session:
        raters = {name: add_rater(session, name).id for name in RATERS}
        queries = query_ids(session, ["q1", "q2"])
        docs = document_ids(session, ["d1", "d2", "d3", "d4"])
        for (query, doc), grades in GRADES.items():
            for name, grade in zip(RATERS, grades):
                key = (raters[name], queries[query], docs[doc])
                if grade == "s":
                    skip(session, *key, reason="page did not load", duration_ms=900)
                elif grade is not None:
                    set_grade(session, *key, grade, duration_ms=12_000 + grade)
        set_note(session, raters["ben"], queries["q1"], docs["d1"], "exactly what was asked")
    return db


def raters_judgments(db):
    with db.reading() as session:
        frame = reads.judgments_frame(session, raters=list(RATERS))
    return frame.drop(columns=["judged_at"])


def test_the_disputed_documents_are_the_agreement_reports_with_grades_notes_and_times(
    campaign,
):
    disputes = read_disputes(campaign)
    report = agreement_of(campaign.describe(), AgreementOptions(bootstrap=0))
    listed = [(q.query_id, item.doc_id) for q in report.per_query for item in q.adjudicate]
    assert [(item.query_id, item.doc_id) for item in disputes.items] == listed
    assert listed == [("q1", "d1"), ("q2", "d3")]
    first, second = disputes.items
    assert (first.spread, first.grades, first.decided) == (4, [0, 4], None)
    assert [(o.rater, o.grade, o.note, o.duration_ms) for o in first.opinions] == [
        ("ana", 0, None, 12_000),
        ("ben", 4, "exactly what was asked", 12_004),
    ]
    chloe = second.opinions[2]
    assert (chloe.rater, chloe.grade, chloe.skipped, chloe.note, chloe.duration_ms) == (
        "chloe",
        None,
        True,
        "page did not load",
        900,
    )
    assert [label.grade for label in disputes.scale] == [0, 1, 2, 3, 4, 5]


def test_a_decision_is_the_adjudicators_own_judgment_and_undo_takes_it_back(campaign):
    before = raters_judgments(campaign)
    adjudication = Adjudication(read_disputes(campaign))
    assert adjudication.progress_text() == "0 of 2 decided"
    assert adjudication.accept(1, 3) is None  # chloe skipped: no grade to accept
    assert adjudication.accept(0, 9) is None  # no ninth rater
    decision = adjudication.accept(0, 2)  # ben's 4
    assert decision is not None and decision.source == "ben's grade"
    assert adjudication.progress_text() == "1 of 2 decided"
    campaign.write(decision.write)
    assert adjudication.settle(decision, None) == "Saved: q1 · d1 decided 4 (ben's grade)"
    assert adjudication.next_undecided(0) == 1
    own = adjudication.decide(1, 2)
    campaign.write(own.write)
    assert adjudication.done() and adjudication.next_undecided(1) is None

    with campaign.reading() as session:
        decided = reads.grades_frame(session, [ADJUDICATED])
    assert sorted(zip(decided["query_id"], decided["doc_id"], decided["grade"])) == [
        ("q1", "d1", 4.0),
        ("q2", "d3", 2.0),
    ]
    assert raters_judgments(campaign).equals(before)  # no rater's grade touched
    assert [item.decided for item in read_disputes(campaign).items] == [4, 2]
    report = agreement_of(campaign.describe(), AgreementOptions(bootstrap=0))
    assert adjudication_frame(report)["decided"].tolist() == [4, 2]
    assert ADJUDICATED not in report.raters
    section = " ".join(block for block in _agreement(report, 4) if isinstance(block, str))
    assert "a lead decided 2; 0 await adjudication" in section

    undone = adjudication.undo()
    assert undone is not None and (undone.index, undone.grade) == (1, None)
    campaign.write(undone.write)
    assert [item.decided for item in read_disputes(campaign).items] == [4, None]
    assert adjudication.progress_text() == "1 of 2 decided"


def test_a_decision_that_failed_is_taken_back(campaign):
    adjudication = Adjudication(read_disputes(campaign))
    decision = adjudication.decide(0, 5)
    message = adjudication.settle(decision, OSError("the disk is full"))
    assert message == "Not saved: q1 · d1: the disk is full"
    assert adjudication.decided == [None, None] and adjudication.undo() is None


def test_nothing_to_adjudicate(db):
    disputes = read_disputes(db)
    adjudication = Adjudication(disputes)
    assert disputes.items == [] and not adjudication.done()
    assert adjudication.progress_text() == "0 of 0 decided"


def printed_agreement(path, output: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(["agreement", "--db", str(path), "--bootstrap", "0", "--format", output]) == 0
    return out.getvalue()


def test_a_decided_document_is_counted_decided_alike_by_agreement_and_the_report(demo, tmp_path):
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo, path)
    with open_database(path) as database:
        adjudication = Adjudication(read_disputes(database))  # the adjudication screen's list
        disputed = len(adjudication.items)
        decision = adjudication.accept(0, 1)  # the first rater's grade, as key 1 takes it
        assert decision is not None
        database.write(decision.write)
    item = adjudication.items[0]
    assert disputed == 4  # the demo's documents graded two or more apart
    counts = {"disputed": disputed, "decided": 1, "awaiting": disputed - 1}
    said = (
        f"{disputed} documents are graded two or more apart; a lead decided 1; "
        f"{disputed - 1} await adjudication"
    )

    table = printed_agreement(path, "table")
    assert f"\nTo adjudicate ({said})\n" in table
    listed = table.split(f"To adjudicate ({said})\n")[1].split("\n\n")[0].splitlines()
    assert len(listed) == disputed - 1
    assert not any(line.startswith(f"  {item.query_id} {item.doc_id}:") for line in listed)

    record = json.loads(printed_agreement(path, "json"))
    assert record["adjudication"] == counts
    queries = record["per_query"]
    awaiting = [(q["query_id"], unit["doc_id"]) for q in queries for unit in q["adjudicate"]]
    decided = [(q["query_id"], unit["doc_id"], unit["decided"]) for q in queries
               for unit in q["decided"]]  # fmt: skip
    assert len(awaiting) == disputed - 1 and (item.query_id, item.doc_id) not in awaiting
    assert decided == [(item.query_id, item.doc_id, item.opinions[0].grade)]

    rows = pd.read_csv(StringIO(printed_agreement(path, "csv")))
    overall = rows[rows["section"] == "overall"].set_index("statistic")["value"]
    assert {key: int(overall[f"adjudication.{key}"]) for key in counts} == counts

    options = ReportOptions(bootstrap=0, out=tmp_path / "report.html")
    html = render_report(str(path), options).html
    assert f"<p>{said}.</p>" in html
