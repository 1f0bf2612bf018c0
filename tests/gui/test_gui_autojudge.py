"""Lead ▸ Automatic judge…: the dialog runs the LLM judge off the UI thread against a
chat-completions server on 127.0.0.1, shows its progress, can cancel it, and reports the
summary; the template editor's mistakes are named before anything is asked."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from judge_app.automatic_judges.prompt import DEFAULT_TEMPLATE
from judge_app.gui import preferences
from judge_app.store import automatic, open_database


def auto_grades(path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT COUNT(*) FROM auto_judgment").fetchone()[0]
    finally:
        connection.close()


def opened_dialog(window, server):
    window.menus.lead_actions["autojudge"].trigger()
    dialog = window.lead_dialog
    assert dialog.objectName() == "autojudgeDialog" and dialog.isVisible()
    dialog.endpoint.setText(server.url)
    dialog.model.setText("judge-model")
    return dialog


def test_the_dialog_judges_and_reports_the_summary(qtbot, open_window, demo_db, chat_server):
    window = open_window(demo_db)
    dialog = opened_dialog(window, chat_server)
    assert dialog.template.toPlainText() == DEFAULT_TEMPLATE
    dialog.template.setPlainText("[user]\n{query} {queri}")
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert dialog.error.isVisible() and "'{queri}'" in dialog.error.text()
    assert chat_server.seen == [] and window.workspace.task is None
    reset = dialog.findChild(QPushButton, "autojudgeResetTemplate")
    qtbot.mouseClick(reset, Qt.MouseButton.LeftButton)
    assert dialog.template.toPlainText() == DEFAULT_TEMPLATE
    dialog.limit.setValue(6)
    with qtbot.waitSignal(dialog.judged, timeout=30_000) as judged:
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
        assert not dialog.isEnabled()  # the dialog waits for its work
    summary = judged.args[0]
    assert (summary.pairs, summary.graded, summary.cancelled) == (6, 6, False)
    assert summary.probed == 18  # every pair of the six, three ways (dialog.probes: 20)
    assert len(chat_server.seen) == 6 + 18 and auto_grades(demo_db) == 6
    qtbot.waitUntil(dialog.isEnabled)
    assert dialog.isVisible() and dialog.summary.text().startswith(
        'judge "judge-model": 6 pairs, 0 cached, 6 asked: 6 graded, 0 failed'
    )
    assert not dialog.error.isVisible()
    assert (
        preferences.dialog_settings("autojudge", preferences.AUTOJUDGE_KEYS)["endpoint"]
        == chat_server.url
    )


def test_an_endpoint_is_remembered_without_a_key_in_it(qtbot, open_window, demo_db, chat_server):
    window = open_window(demo_db)
    dialog = opened_dialog(window, chat_server)
    secret = chat_server.url.replace("http://", "http://user:s3cret@") + "?api-key=s3cret"
    dialog.endpoint.setText(secret)
    dialog.limit.setValue(1)
    with qtbot.waitSignal(dialog.judged, timeout=30_000):
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert (
        preferences.dialog_settings("autojudge", preferences.AUTOJUDGE_KEYS)["endpoint"]
        == chat_server.url
    )
    assert chat_server.seen[0].path.endswith("?api-key=s3cret")  # used, never kept


def test_cancel_in_the_progress_dialog_keeps_the_answers(qtbot, open_window, demo_db, chat_server):
    chat_server.pause = 0.05
    window = open_window(demo_db)
    dialog = opened_dialog(window, chat_server)
    dialog.concurrency.setValue(1)
    with qtbot.waitSignal(dialog.judged, timeout=30_000) as judged:
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
        task = window.workspace.task
        qtbot.waitUntil(lambda: task.dialog is not None and task.dialog.isVisible(), timeout=10_000)
        assert "asking judge-model" in task.dialog.labelText()
        qtbot.mouseClick(task.dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
    summary = judged.args[0]
    assert summary.cancelled and 0 < summary.asked < summary.pairs
    assert auto_grades(demo_db) == summary.asked == len(chat_server.seen)
    qtbot.waitUntil(dialog.isEnabled)
    assert "cancelled (what was answered is kept)" in dialog.summary.text()


def test_the_local_model_learns_from_the_raters_grades_in_the_window(qtbot, open_window, demo_db):
    """Choosing the local model greys the LLM's fields out and grades the pool, with no
    server, off the UI thread; the summary is the command line's."""
    window = open_window(demo_db)
    dialog = window.show_dialog("autojudge")
    dialog.with_local.setChecked(True)
    assert not dialog.endpoint.isEnabled() and not dialog.template.isEnabled()
    assert dialog.name.isEnabled()
    with qtbot.waitSignal(dialog.judged, timeout=60_000) as judged:
        dialog.accept_button.click()
    report = judged.args[0]
    assert report.written == 161 and report.quality.kappa > 0.5
    assert "held out: quadratic kappa" in dialog.summary.text()
    with open_database(demo_db) as database, database.reading() as session:
        assert automatic.judge(session, "local model").graded == 161


def test_the_dialog_asks_as_the_command_line_does(qtbot, open_window, demo_db, chat_server):
    """Issue 32: the longest answer, JSON or free text and failures asked again are the
    dialog's as they are ``autojudge``'s options (--max-tokens, --free-text, --retry-failed)."""
    window = open_window(demo_db)
    dialog = opened_dialog(window, chat_server)
    assert dialog.options().max_tokens == 1024 and dialog.options().structured
    assert not dialog.options().retry_failed
    dialog.limit.setValue(2)
    dialog.max_tokens.setValue(200)
    dialog.structured.setChecked(False)
    dialog.retry_failed.setChecked(True)
    assert (dialog.options().max_tokens, dialog.options().structured) == (200, False)
    assert dialog.options().retry_failed
    with qtbot.waitSignal(dialog.judged, timeout=30_000):
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    sent = chat_server.seen[-1].body
    assert sent["max_tokens"] == 200 and "response_format" not in sent
    dialog.with_local.setChecked(True)
    assert not dialog.max_tokens.isEnabled() and not dialog.structured.isEnabled()


def test_probes_and_an_ensemble_show_on_the_automatic_judges_page(
    qtbot, open_window, demo_db, chat_server
):
    """Issue 32: a judge that obeys instructions in documents is flagged on the page, first
    after what the calibration already said first, as ``calibrate`` says it; Lead ▸ Combine
    judges… makes an ensemble the page then lists."""
    from automatic_support import gullible_grade

    chat_server.grade_of = gullible_grade
    window = open_window(demo_db)
    for model, probes in (("gullible", 8), ("second", 0)):
        dialog = opened_dialog(window, chat_server)
        dialog.model.setText(model)
        dialog.limit.setValue(40)
        dialog.probes.setValue(probes)
        with qtbot.waitSignal(dialog.judged, timeout=30_000) as judged:
            qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
        assert judged.args[0].probed == 3 * probes
        qtbot.waitUntil(dialog.isEnabled)
        dialog.close()
        qtbot.waitUntil(lambda: window.lead_dialog is None)
    window.menus.lead_actions["ensemble"].trigger()
    combine = window.lead_dialog
    assert combine.objectName() == "ensembleDialog"
    assert [combine.judges.item(i).text() for i in range(combine.judges.count())] == [
        "gullible", "second",
    ]  # fmt: skip
    qtbot.mouseClick(combine.accept_button, Qt.MouseButton.LeftButton)
    assert "two or more automatic judges" in combine.error.text()
    for row in range(2):
        combine.judges.item(row).setCheckState(Qt.CheckState.Checked)
    combine.combine.setCurrentIndex(combine.combine.findData("majority"))
    with qtbot.waitSignal(combine.combined, timeout=30_000) as combined:
        qtbot.mouseClick(combine.accept_button, Qt.MouseButton.LeftButton)
    assert combined.args[0].judge == "majority of gullible, second"
    qtbot.waitUntil(combine.isEnabled)
    assert combine.summary.text().startswith(
        'judge "majority of gullible, second" (majority of gullible, second): 40 pairs graded'
    )
    combine.close()

    from gui_support import calibrated_json, shown_calibration

    view = shown_calibration(qtbot, window)
    listed = [view.chooser.itemData(i) for i in range(view.chooser.count())]
    assert listed == ["gullible", "majority of gullible, second", "second"]
    assert view.chosen_judge() == "gullible"
    said = view.finding_texts()
    assert said == calibrated_json(demo_db, "gullible")["findings"]
    assert said[1].startswith("Instructions injected into the document moved the judge")


def test_the_progress_says_when_a_request_is_tried_again(qtbot, open_window, demo_db, chat_server):
    """Issue 32: the progress froze while requests were retried; it now says how many were
    tried again, the last one's reason and the pause before it."""
    from chat_server import Status

    chat_server.script["best pizza recipes"] = [Status(500)]
    window = open_window(demo_db)
    dialog = opened_dialog(window, chat_server)
    dialog.limit.setValue(1)
    dialog.probes.setValue(0)
    steps: list[str] = []
    with qtbot.waitSignal(dialog.judged, timeout=30_000) as judged:
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
        window.workspace.task.progress.connect(lambda step, _done, _total: steps.append(step))
    assert judged.args[0].retried == 1 and judged.args[0].graded == 1
    said = [step for step in steps if "retry" in step]
    assert said and said[0].startswith(
        "asking judge-model — 1 retry, the last after HTTP 500: scripted 500, in "
    )
