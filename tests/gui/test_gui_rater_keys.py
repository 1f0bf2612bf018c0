"""A rater's keys land only where the rater meant them (issue 29, items 1–7): after the
shortcut card, past the end of a query, beside the cue, on reopening, after a search and on
the rater chooser. Driven from the keyboard on the demo (pytest-qt, offscreen)."""

from __future__ import annotations

from gui_support import press
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem
from sqlalchemy import func, select

from judge_app.errors import JudgeAppError
from judge_app.gui import create_main_window
from judge_app.gui.models import Column
from judge_app.judging import session as session_module
from judge_app.store.models import JudgmentEvent


def events(window) -> int:
    """How many changes of judgments the database holds."""
    with window.database.reading() as session:
        return session.scalar(select(func.count()).select_from(JudgmentEvent))


def in_view(judging, row: int) -> bool:
    """Is the whole of result ``row`` inside the results' viewport?"""
    view = judging.results.view
    rect = view.visualRect(judging.results.model.index(row, Column.TITLE))
    return view.viewport().rect().contains(rect)


def test_closing_the_shortcuts_gives_the_focus_back_to_the_results(qtbot, window):
    judging = window.judging
    for closing in (Qt.Key.Key_Escape, Qt.Key.Key_Space, Qt.Key.Key_X):
        press(qtbot, window, Qt.Key.Key_Question)
        assert window.overlay.isVisible()
        press(qtbot, window, closing)
        assert not window.overlay.isVisible()
        assert QApplication.focusWidget() is judging.results.view, closing
    row = judging.current_row
    press(qtbot, window, Qt.Key.Key_3)  # grades, never types into the queue's search
    assert judging.session.items[row].grade == 3 and judging.queue.search.text() == ""


def test_keys_past_the_last_result_never_change_a_grade(qtbot, window):
    judging = window.judging
    count = len(judging.session.items)
    for _ in range(count):
        press(qtbot, window, Qt.Key.Key_2)
    last = judging.current_row
    assert all(item.grade == 2 for item in judging.session.items) and last == count - 1
    before = events(window)
    for key in (Qt.Key.Key_4, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_S):
        press(qtbot, window, key)
    assert events(window) == before  # nothing written
    assert judging.session.items[last].grade == 2 and not judging.session.items[last].skipped
    assert window.status_text().startswith(
        f"Not changed: {judging.session.items[last].external_id}"
    )
    press(qtbot, window, Qt.Key.Key_Up)  # chosen again: the rater looks, and may change it
    press(qtbot, window, Qt.Key.Key_Down)
    press(qtbot, window, Qt.Key.Key_4)
    assert judging.session.items[last].grade == 4 and events(window) == before + 1
    press(qtbot, window, Qt.Key.Key_5)  # the same again: kept, as after any grade
    assert judging.session.items[last].grade == 4
    rect = judging.results.view.visualRect(judging.results.model.index(last, Column.TITLE))
    qtbot.mouseClick(judging.results.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    press(qtbot, window, Qt.Key.Key_5)  # a click on it chooses it too
    assert judging.session.items[last].grade == 5


def test_a_grade_in_the_middle_still_moves_on_and_grades_the_next_ungraded(qtbot, window):
    judging = window.judging
    press(qtbot, window, Qt.Key.Key_End)
    press(qtbot, window, Qt.Key.Key_1)  # the last graded: on to the first ungraded
    assert judging.current_row == 0
    press(qtbot, window, Qt.Key.Key_3)
    assert judging.session.items[0].grade == 3 and judging.current_row == 1


def test_the_leave_warning_counts_down_as_the_rater_grades(qtbot, window):
    judging = window.judging
    total = len(judging.session.items)
    press(qtbot, window, Qt.Key.Key_2)
    press(qtbot, window, Qt.Key.Key_Return)
    assert f"{total - 1} results are not graded yet" in judging.results.cue.text()
    press(qtbot, window, Qt.Key.Key_2)
    assert f"{total - 2} results are not graded yet" in judging.results.cue.text()
    for _ in range(total - 3):
        press(qtbot, window, Qt.Key.Key_2)
    assert "1 result is not graded yet" in judging.results.cue.text()
    press(qtbot, window, Qt.Key.Key_2)
    assert "Query done" in judging.results.cue.text()


def test_the_cue_never_moves_the_results_and_the_next_result_stays_in_sight(qtbot, window):
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    QApplication.processEvents()
    judging = window.judging
    place = judging.results.view.geometry()
    texts = {judging.results.cue.text()}
    count = len(judging.session.items)
    for step in range(count):
        if step == 1:  # asked to leave: the warning replaces the keys
            press(qtbot, window, Qt.Key.Key_Return)
        row = judging.current_row
        press(qtbot, window, Qt.Key.Key_2)
        texts.add(judging.results.cue.text())
        assert judging.results.view.geometry() == place
        assert in_view(judging, judging.current_row)
        if row + 1 < count:
            assert in_view(judging, row + 1), row  # the result just graded's next one
    assert any("not graded yet" in text for text in texts)
    assert any("Query done" in text for text in texts) and len(texts) >= 3
    for height in (640, 560):  # a smaller window: the current result and the next in sight
        press(qtbot, window, Qt.Key.Key_Home)
        for _ in range(count - 3):
            press(qtbot, window, Qt.Key.Key_Down)
        window.resize(1280, height)
        qtbot.waitUntil(lambda h=height: window.height() == h)
        QApplication.processEvents()
        row = judging.current_row
        assert in_view(judging, row) and in_view(judging, row + 1)


def test_on_reopening_the_result_last_shown_is_in_sight(qtbot, open_window, demo_db):
    first = open_window(demo_db)
    press(qtbot, first, Qt.Key.Key_End)
    row = first.judging.current_row
    first.close()
    again = open_window(demo_db)
    qtbot.waitUntil(lambda: again.judging.current_row == row)
    for width, height in ((1024, 560), (1280, 800)):  # placed by a window manager, then shown
        again.resize(width, height)
        qtbot.waitUntil(lambda w=width: again.width() == w)
        QApplication.processEvents()
        assert in_view(again.judging, row), (width, height)


def test_a_search_ends_once_it_opened_a_query_and_enter_goes_on_in_queue_order(qtbot, window):
    judging = window.judging
    queue = judging.session.queue
    press(qtbot, window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(judging.queue.search, "CSV")
    qtbot.keyClick(judging.queue.search, Qt.Key.Key_Return)
    found = judging.session.query_index
    assert queue[found].text == "python read csv file"
    assert judging.queue.search.text() == ""  # the search is done
    assert judging.queue.filter.rowCount() == len(queue)  # every query in sight again
    for _ in judging.session.items:
        press(qtbot, window, Qt.Key.Key_2)
    press(qtbot, window, Qt.Key.Key_Return)
    assert judging.session.query_index == found + 1  # the next unfinished in the queue
    shown = judging.queue.filter.mapToSource(judging.queue.view.currentIndex()).row()
    assert shown == found + 1  # and it is the one the queue shows chosen


def test_a_query_clicked_in_a_search_ends_the_search(qtbot, window):
    judging = window.judging
    qtbot.keyClicks(judging.queue.search, "pizza")
    assert judging.queue.filter.rowCount() < len(judging.session.queue)
    judging.queue.view.clicked.emit(judging.queue.filter.index(0, 0))
    assert judging.queue.search.text() == ""
    assert judging.queue.filter.rowCount() == len(judging.session.queue)


def test_the_rater_chooser_takes_enter_and_typing_at_once(qtbot, open_window, demo_db):
    window = open_window(demo_db, None)
    chooser = window.chooser
    qtbot.waitUntil(lambda: QApplication.focusWidget() is chooser.raters)
    qtbot.keyClicks(QApplication.focusWidget(), "b")  # typing picks a rater
    assert chooser.raters.currentText() == "ben"
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.judging
    assert window.judging.session.rater_name == "ben"
    again = open_window(demo_db, None)  # ben was chosen here: one button, and Enter
    qtbot.waitUntil(lambda: QApplication.focusWidget() is again.chooser.start_own)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert again.judging.session.rater_name == "ben"


def test_a_chosen_query_under_the_mouse_reads_as_chosen(window):
    """White text on the hover colour was unreadable: the chosen row keeps its colour."""
    judging = window.judging
    view = judging.queue.view
    index = view.currentIndex()
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    option.rect = QRect(0, 0, 200, 40)
    option.state |= QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_MouseOver
    option.state |= QStyle.StateFlag.State_Enabled
    image = QImage(200, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("black"))
    painter = QPainter(image)
    view.itemDelegate().paint(painter, option, index)
    painter.end()
    background = QColor(image.pixel(QPoint(100, 37)))
    text = view.palette().highlightedText().color()
    assert _contrast(background, text) >= 3, background.name()


def _contrast(one: QColor, other: QColor) -> float:
    """WCAG's contrast ratio of two colours."""

    def luminance(colour: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(c) for c in (colour.redF(), colour.greenF(), colour.blueF()))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_at_1280_pixels_the_results_show_the_titles_whole(qtbot, window):
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    QApplication.processEvents()
    judging = window.judging
    bold = QFont(judging.results.view.font())
    bold.setWeight(QFont.Weight.DemiBold)
    metrics = QFontMetrics(bold)
    room = judging.results.view.columnWidth(Column.TITLE) - 16  # the delegate's margins
    titles = [item.title for item in judging.session.items if len(item.title) <= 50]
    cut = [title for title in titles if metrics.horizontalAdvance(title) > room]
    assert titles and not cut  # (they were cut at 25 to 40 characters)
    assert judging.document.view.width() >= 400  # and the document keeps its room


def test_a_start_paints_before_the_queue_is_read_and_judges_once_it_is(qtbot, demo_db):
    window = create_main_window(demo_db, "dan", in_background=True)
    qtbot.addWidget(window)
    window.show()
    judging = window.judging
    assert window.pages.currentWidget() is judging and judging.session is None
    assert judging.header.text.text() == "Opening dan's queue…"
    qtbot.waitUntil(lambda: judging.session is not None, timeout=30_000)
    assert judging.session.rater_name == "dan" and judging.current_row == 0
    assert window.status_text().startswith("Judging as dan: 0 of ")
    window.close()


def test_a_queue_that_cannot_be_read_at_start_asks_who_is_judging_saying_why(
    qtbot, demo_db, monkeypatch
):
    def unreadable(*_args, **_kwargs):
        raise JudgeAppError("the database is locked")

    monkeypatch.setattr(session_module, "JudgingSession", unreadable)
    window = create_main_window(demo_db, "dan", in_background=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.chooser, timeout=30_000)
    assert window.chooser.error.isVisible() and "locked" in window.chooser.error.text()
    window.close()
