"""Lead ▸ Fetch results…: the dialog fetches a run from an engine on 127.0.0.1 off the UI
thread, reports what was stored, can be cancelled (storing nothing), names a template's
mistake before anything is sent, and is used with the keyboard alone."""

from __future__ import annotations

import sqlite3

from engine_server import Status
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from judge_app.commands.fetch import DEFAULT_TEMPLATES


def runs(path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [name for (name,) in connection.execute("SELECT name FROM run ORDER BY id")]


def opened_dialog(window, server):
    window.menus.lead_actions["fetch"].trigger()
    dialog = window.lead_dialog
    assert dialog.objectName() == "fetchDialog" and dialog.isVisible()
    dialog.url.setText(server.url)
    dialog.rate.setValue(0)
    return dialog


def test_the_dialog_fetches_a_run_and_reports_it(qtbot, open_window, demo_db, engine_server):
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    assert dialog.template.toPlainText() == DEFAULT_TEMPLATES["elasticsearch"]
    assert dialog.paths["title"].placeholderText() == "_source.title"
    dialog.run_name.setText("es live")
    dialog.queries.setText("q01, q02")
    with qtbot.waitSignal(dialog.fetched, timeout=30_000) as fetched:
        qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
        assert not dialog.isEnabled()  # the dialog waits for its work
    summary = fetched.args[0]
    assert summary.run == "es live" and summary.queries == 2 and len(engine_server.seen) == 2
    qtbot.waitUntil(dialog.isEnabled)
    assert dialog.summary.text() == summary.sentence() and not dialog.error.isVisible()
    assert runs(demo_db)[-1] == "es live"


def test_choosing_solr_shows_its_template_and_paths_unless_edited(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    dialog = window.show_dialog("fetch")
    dialog.engine.setCurrentIndex(dialog.engine.findData("solr"))
    assert dialog.template.toPlainText() == DEFAULT_TEMPLATES["solr"]
    assert dialog.paths["hits"].placeholderText() == "response.docs"
    assert dialog.url.placeholderText() == "http://localhost:8983/solr/CORE/select"
    dialog.template.setPlainText('{"params": {"q": "{query}"}}')
    dialog.engine.setCurrentIndex(dialog.engine.findData("http"))
    assert dialog.template.toPlainText() == '{"params": {"q": "{query}"}}'  # the lead's, kept
    reset = dialog.findChild(QPushButton, "fetchResetTemplate")
    qtbot.mouseClick(reset, Qt.MouseButton.LeftButton)
    assert dialog.template.toPlainText() == DEFAULT_TEMPLATES["http"]


def test_a_template_mistake_is_named_and_nothing_is_sent(
    qtbot, open_window, demo_db, engine_server
):
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    dialog.template.setPlainText('{\n  "query": {"match": {"body": "{qeury}"}}\n}')
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert dialog.error.isVisible()
    assert dialog.error.text().startswith("The template line 2: unknown placeholder '{qeury}'")
    assert engine_server.seen == [] and window.workspace.task is None


def test_a_failed_fetch_says_why_in_words(qtbot, open_window, demo_db, engine_server):
    engine_server.script = {"": [Status(404)]}  # every query: the index is not there
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    with qtbot.waitSignal(window.workspace.taskFinished, timeout=30_000):
        dialog.accept_button.click()
    qtbot.waitUntil(dialog.isEnabled)
    assert dialog.error.text().startswith(
        f"Nothing was stored: {engine_server.url} has no such index, core or path (HTTP 404: "
        "index_not_found_exception: no such index [products])"
    )


def test_cancel_in_the_progress_dialog_stores_nothing(qtbot, open_window, demo_db, engine_server):
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    dialog.rate.setValue(2)  # a request every half second, on the real clock
    before = runs(demo_db)
    with qtbot.waitSignal(dialog.fetched, timeout=30_000) as fetched:
        dialog.accept_button.click()
        task = window.workspace.task
        qtbot.waitUntil(lambda: task.dialog is not None and task.dialog.isVisible(), timeout=10_000)
        assert "Fetch results: asking Elasticsearch" in task.dialog.labelText()
        qtbot.mouseClick(task.dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
    summary = fetched.args[0]
    assert summary.cancelled and summary.run is None
    assert runs(demo_db) == before
    qtbot.waitUntil(dialog.isEnabled)
    assert dialog.summary.text().endswith("nothing was stored")


def test_the_dialog_is_used_with_the_keyboard(qtbot, open_window, demo_db, engine_server):
    """Every field has a mnemonic that moves the focus to it; Tab leaves the template
    editor instead of writing a tab; Enter fetches."""
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    qtbot.keyClick(dialog.url, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(dialog.template.hasFocus)
    qtbot.keyClick(dialog.template, Qt.Key.Key_Tab)
    assert not dialog.template.hasFocus() and "\t" not in dialog.template.toPlainText()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(dialog.run_name.hasFocus)
    qtbot.keyClicks(dialog.run_name, "typed")
    with qtbot.waitSignal(dialog.fetched, timeout=30_000):
        qtbot.keyClick(dialog.run_name, Qt.Key.Key_Return)
    assert runs(demo_db)[-1] == "typed"


def test_the_next_fetch_starts_from_the_engine_and_settings_of_the_last(
    qtbot, open_window, demo_db, engine_server
):
    """The engine, its address, the hits, the pace and the field paths come back (the
    engine's own template, unedited, stays the engine's); the run's name and queries do
    not."""
    window = open_window(demo_db)
    dialog = opened_dialog(window, engine_server)
    dialog.engine.setCurrentIndex(dialog.engine.findData("opensearch"))
    dialog.hits_per_query.setValue(7)
    dialog.paths["title"].setText("_source.title")
    dialog.run_name.setText("first")
    dialog.queries.setText("q01")
    dialog.accept_button.click()
    qtbot.waitUntil(dialog.isEnabled, timeout=30_000)
    assert not dialog.error.isVisible(), dialog.error.text()
    dialog.reject()
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)  # the fetch's task ends
    again = window.show_dialog("fetch")
    assert again.chosen_engine == "opensearch" and again.hits_per_query.value() == 7
    assert again.url.text() == engine_server.url
    assert again.paths["title"].text() == "_source.title" and again.rate.value() == 0
    assert again.run_name.text() == "" and again.queries.text() == ""
    assert again.template.toPlainText() == DEFAULT_TEMPLATES["opensearch"]
