"""The Pooling dialog's query order: the active sample for a judge, its expected width computed
off the UI thread (storing nothing), saved with the dialog; the judging screen then follows the
sample's order."""

from __future__ import annotations

import re

from automatic_support import grade_automatically

from judge_app.commands.active_sampling import ActiveSamplingOptions, sample_queries
from judge_app.store import open_database
from judge_app.store.active_sample import has_active_sample, sample_judge
from judge_app.store.people import find_rater
from judge_app.store.rater_queue import pool_settings, rater_queue

EXPECTED = re.compile(r"Expected ±\d\.\d{3} at 4 queries \(random order: ±\d\.\d{3}\)")


def test_without_an_automatic_judge_only_the_assigned_order_is_offered(qtbot, open_window, demo_db):
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("pool")
    assert dialog.assigned_order.isChecked() and not dialog.active_order.isEnabled()
    assert dialog.sampling() is None and dialog.expected_line.text() == ""


def test_the_active_order_shows_its_width_and_is_saved(qtbot, open_window, demo_db):
    grade_automatically(demo_db, "llm", 0)
    window = open_window(demo_db, "dan")
    dialog = window.show_dialog("pool")
    assert dialog.assigned_order.isChecked() and dialog.active_judge.currentText() == "llm"
    with qtbot.waitSignal(dialog.expected, timeout=30_000) as shown:
        dialog.active_order.setChecked(True)
    assert EXPECTED.fullmatch(shown.args[0]), shown.args[0]
    with open_database(demo_db) as database:
        sample = sample_queries(database, ActiveSamplingOptions(judge="llm"), dialog.settings())
        with database.reading() as session:  # shown, not stored until Save
            assert pool_settings(session).query_order == "assigned"
            assert not has_active_sample(session)
    assert sample is not None and not sample.applied
    assert shown.args[0] == sample.sentence(4) == dialog.expected_line.text()
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    with open_database(demo_db) as database, database.reading() as session:
        assert pool_settings(session).query_order == "active"
        assert sample_judge(session) == "llm"
        queue = [query.external_id for query in rater_queue(session, find_rater(session, "dan").id)]
    assert queue == list(sample.order)
    qtbot.waitUntil(window.workspace.ready, timeout=30_000)  # the rater's queue is read again
    assert [query.external_id for query in window.judging.session.queue] == queue
    dialog = window.show_dialog("pool")
    assert dialog.active_order.isChecked()
    dialog.assigned_order.setChecked(True)
    with qtbot.waitSignal(dialog.finished, timeout=30_000):
        dialog.accept_button.click()
    with open_database(demo_db) as database, database.reading() as session:
        assert pool_settings(session).query_order == "assigned"
