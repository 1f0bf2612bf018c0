"""Every text that comes from a file (queries, descriptions, documents, runs, raters, notes)
is shown as plain text everywhere in the window: no label, tooltip, list, card, dialog or page
renders it as HTML (issue 31, item 1). The campaign here is the demo with markup in each of
them; the test walks every widget and every item of every view of each screen."""

from __future__ import annotations

import pytest
from gui_support import press
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QApplication, QLabel, QWidget
from sqlalchemy import text

from judge_app.store import open_database

MARKUP = "<b>X</b><br><span style='font-size:1px'>hidden</span>"
"""Appended to every text of the campaign: shown as HTML it would lose its tags."""
TAG = "<span style='font-size:1px'>"


@pytest.fixture
def hostile_db(demo_db):
    with open_database(demo_db) as database, database.transaction() as session:
        for statement in (
            "UPDATE query SET text = text || :m, description = coalesce(description, '') || :m",
            "UPDATE document SET title = coalesce(title, '') || :m, body = body || :m",
            "UPDATE run SET name = name || :m",
            "UPDATE rater SET name = name || :m WHERE name NOT IN ('dan', 'adjudicated')",
            "UPDATE judgment SET note = coalesce(note, '') || :m",
        ):
            session.execute(text(statement), {"m": MARKUP})
    return demo_db


def rendered_as_html(shown: str, rich: bool) -> bool:
    """Whether ``shown`` (a text holding the markup, as a widget would show it, rich if
    ``rich``) renders the markup as HTML: its tag is lost in the plain text shown."""
    if TAG not in shown or not rich:
        return False
    document = QTextDocument()
    document.setHtml(shown)
    return TAG not in document.toPlainText()


def leaks(root: QWidget) -> list[str]:
    """Where under ``root`` a text of the campaign is rendered as HTML."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        name = f"{type(widget).__name__} {widget.objectName()!r}"
        tip = widget.toolTip()
        if rendered_as_html(tip, GuiQt.mightBeRichText(tip)):
            found.append(f"{name} tooltip: {tip[:80]}")
        if isinstance(widget, QLabel):
            shown = widget.text()
            rich = widget.textFormat() == Qt.TextFormat.RichText or (
                widget.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(shown)
            )
            if rendered_as_html(shown, rich):
                found.append(f"{name}: {shown[:80]}")
        if isinstance(widget, QAbstractButton) and rendered_as_html(widget.text(), False):
            found.append(f"{name}: {widget.text()[:80]}")
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            found += [f"{name} {where}" for where in _item_leaks(widget.model())]
    return found


def _item_leaks(model: QAbstractItemModel, parent: QModelIndex | None = None) -> list[str]:
    """Tooltips of ``model``'s items that render the markup (an item's tooltip is rich text
    where it looks like it, as a widget's is)."""
    parent = parent or QModelIndex()
    found = []
    try:
        columns = model.columnCount(parent)
    except TypeError:  # a list model's is not Python's to call
        columns = 1
    for row in range(min(model.rowCount(parent), 200)):
        for column in range(columns):
            index = model.index(row, column, parent)
            tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
            if isinstance(tip, str) and rendered_as_html(tip, GuiQt.mightBeRichText(tip)):
                found.append(f"item ({row}, {column}) tooltip: {tip[:80]}")
    return found


def everywhere() -> list[str]:
    """The leaks of every window and dialog open now."""
    return [leak for top in QApplication.topLevelWidgets() for leak in leaks(top)]


def test_the_judging_screen_shows_every_text_of_the_campaign_as_it_is(
    qtbot, open_window, hostile_db
):
    window = open_window(hostile_db)
    judging = window.judging
    assert judging.header.text.text().endswith(MARKUP)
    for key in (Qt.Key.Key_Down, Qt.Key.Key_2, Qt.Key.Key_N):
        press(qtbot, window, key)
    assert everywhere() == []


@pytest.mark.parametrize("page", ["evaluation", "agreement", "raters", "calibration"])
def test_every_lead_page_shows_the_texts_as_they_are(qtbot, open_window, hostile_db, page):
    window = open_window(hostile_db)
    window.menus.page_actions[page].trigger()
    qtbot.waitUntil(
        lambda: window.pages.currentWidget() is not window.judging and window.task is None,
        timeout=60_000,
    )
    qtbot.wait(200)  # a page is shown a turn after it is built, its charts after they settle
    assert everywhere() == []


def test_the_rater_chooser_adjudication_and_the_dialogs_show_the_texts_as_they_are(
    qtbot, open_window, hostile_db
):
    window = open_window(hostile_db)
    window.show_chooser()
    window.chooser.show_all()
    assert everywhere() == []
    window.analysis.adjudicate.emit("q05", "d0509")
    screen = window.adjudication
    qtbot.waitUntil(lambda: screen.adjudication is not None and window.task is None, timeout=30_000)
    assert everywhere() == []
    for name in ("export", "assign", "rubric", "pool", "gold", "quality"):
        dialog = window.show_dialog(name)
        assert dialog is not None
        qtbot.waitUntil(lambda: window.task is None, timeout=30_000)
        assert everywhere() == []
        dialog.reject()
