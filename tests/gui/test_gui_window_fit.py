"""The window fits its screen and comes back where it was: size, place, maximized state,
splitter sizes; small windows get the compact rubric, and nothing the rater needs is cut."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLabel

from judge_app.gui import geometry
from judge_app.gui.geometry import first_placement, fitted


def test_a_first_start_fits_the_screen_it_opens_on():
    small = first_placement(QRect(0, 0, 1024, 768), QSize(900, 530))
    assert QRect(0, 0, 1024, 768).contains(small) and small.width() >= 900
    scaled = first_placement(QRect(0, 0, 1280, 720), QSize(900, 530))  # 1920×1080 at 150%
    assert QRect(0, 0, 1280, 720).contains(scaled)
    roomy = first_placement(QRect(0, 0, 1920, 1050), QSize(900, 530))
    assert roomy.center() == QRect(0, 0, 1920, 1050).center()


def test_a_first_start_never_outgrows_a_scaled_laptop_screen():
    """1280×800 at 150% leaves 853×507 free: the window's minimum (900×530 once) does not
    push the frame past either side or the status bar below the screen."""
    available = QRect(0, 0, 853, 507)
    assert available.contains(first_placement(available, QSize(900, 530)))
    beside = QRect(1920, 0, 853, 507)  # a second screen right of the first
    assert beside.contains(first_placement(beside, QSize(900, 530)))


def test_a_first_start_takes_all_of_a_small_screen():
    for available in (QRect(0, 0, 1280, 770), QRect(0, 0, 1024, 738), QRect(0, 0, 853, 507)):
        assert first_placement(available, QSize(640, 480)) == available


def test_a_first_start_uses_most_of_a_big_screen():
    available = QRect(0, 0, 1920, 1050)  # 1920×1080 less a panel
    roomy = first_placement(available, QSize(900, 530))
    assert available.contains(roomy)
    assert roomy.width() >= 0.8 * available.width() and roomy.height() >= 0.8 * available.height()
    wide = QRect(0, 0, 5120, 1410)  # an ultra-wide screen: not stretched across it
    assert first_placement(wide, QSize(900, 530)).width() <= 2 * 1410


def test_a_place_that_no_longer_fits_is_fitted():
    available = QRect(0, 0, 853, 507)
    big = fitted(QRect(-34, 100, 1350, 795), available)
    assert available.contains(big) and big.size() == available.size()
    moved = fitted(QRect(700, 400, 400, 300), available)
    assert available.contains(moved) and moved.size() == QSize(400, 300)


def test_a_restored_window_larger_than_its_screen_is_fitted(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    window.close()
    window.setGeometry(QRect(-200, -100, 1600, 1200))  # saved on a bigger screen
    geometry.save(window, window.splitters())
    again = open_window(demo_db)
    available = again.screen().availableGeometry()
    assert available.contains(again.geometry()), (again.geometry(), available)


def test_judging_and_evaluation_fit_a_1024_by_768_screen_at_150_percent(
    qtbot, open_window, demo_db
):
    """683×512 device-independent pixels: no hidden page (the start page among them) and no
    work under way makes the window outgrow the size a first start gives it there (less a
    title bar) while a rater judges or a lead evaluates."""
    first = first_placement(QRect(0, 0, 683, 512), QSize(0, 0))

    def fits(size: QSize) -> bool:
        return size.width() <= first.width() and size.height() <= first.height() - 24

    window = open_window(demo_db)
    window.resize(600, 450)
    qtbot.waitUntil(lambda: fits(window.minimumSizeHint()))  # once the layout has run
    window.analysis.show_evaluation()
    assert window.task is not None and fits(window.pages.minimumSizeHint())  # computing
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    qtbot.waitUntil(lambda: fits(window.minimumSizeHint()))


def test_size_place_and_splitters_come_back_after_a_restart(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    assert window.minimumSizeHint().width() <= 900
    window.resize(780, 650)  # (the test screen is 800×800: Qt keeps a window on it)
    window.judging.splitter.setSizes([150, 400, 400])
    sizes = window.judging.splitter.sizes()
    window.close()
    again = open_window(demo_db)
    assert again.size() == QSize(780, 650)
    assert again.judging.splitter.sizes() == sizes
    again.showMaximized()
    qtbot.waitUntil(lambda: again.isMaximized())
    again.close()
    assert open_window(demo_db).windowState() & Qt.WindowState.WindowMaximized


def test_a_narrow_window_shows_every_part_and_a_compact_rubric(qtbot, open_window, demo_db):
    window = open_window(demo_db)
    window.resize(900, 600)  # half of a 1920-wide screen, and less
    qtbot.waitUntil(lambda: window.judging.width() <= 900)
    judging = window.judging
    assert all(not button.description.isVisible() for button in judging.rubric.buttons)
    for part in (
        judging.header.text,
        judging.results.view,
        judging.document.view,
        judging.queue.view,
        *judging.rubric.buttons,
        window.status_label,
    ):
        assert part.isVisible() and part.width() > 0 and part.height() > 0
        assert window.rect().contains(part.mapTo(window, part.rect().bottomRight()))
    for label in judging.findChildren(QLabel):  # no label is given less room than its text
        if label.isVisible() and label.text() and not label.wordWrap():
            assert label.width() >= label.minimumSizeHint().width(), label.objectName()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: judging.rubric.buttons[0].description.isVisible())
    window.menus.compact_action.trigger()  # View ▸ Compact rubric, kept
    assert not judging.rubric.buttons[0].description.isVisible()
    window.menus.queue_action.trigger()  # View ▸ Queue pane
    assert not judging.queue.view.isVisible()
    again = open_window(demo_db)
    assert not again.judging.queue.view.isVisible()
    assert not again.judging.rubric.buttons[0].description.isVisible()


def test_every_page_fits_a_900_by_640_window(qtbot, open_window, demo_db):
    """Half of a 1920-wide screen, or a 1024×768 one with a title bar: no page asks for more,
    so none pushes the window (and its status bar) past the screen's edge."""
    window = open_window(demo_db)
    window.resize(900, 640)
    analysis = window.analysis
    pages = (analysis.show_evaluation, analysis.show_agreement, analysis.show_raters)
    for show in (*pages, analysis.show_calibration):
        show()
        qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
        minimum = window.minimumSizeHint()
        assert minimum.width() <= 900 and minimum.height() <= 640, (show, minimum)
    first = window.analysis.agreement_view.adjudication.model.frame.iloc[0]
    window.adjudicate(first["query_id"], first["doc_id"])
    minimum = window.minimumSizeHint()
    assert minimum.width() <= 900 and minimum.height() <= 640, minimum
