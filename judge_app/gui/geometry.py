"""Where the window goes: within the screen it opens on, at the size, position, maximized
state and splitter sizes it had when it was last closed on the same screens (QSettings, keyed
by the screens' layout: a laptop alone and the laptop beside a monitor each keep their own)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter

from judge_app.gui.preferences import app_settings

SCREEN_SHARE = 0.9
"""The share of the screen's free width and height a first start fills on a large screen."""
SMALL_SCREEN = QSize(1400, 900)
"""A screen's free area below this (a laptop; 1280×800 at 100%, any at 150%): a first start
takes all of it, as every pixel is needed there."""
WIDEST = 1.8
"""A first start's width at most this many times its height (16:9 and a little more): a wide
screen does not stretch the tables' rows across it."""


def screens_key() -> str:
    """The layout of the screens, as a settings group name: "1920x1080+0+0,1280x1024+1920+0"."""
    rects = sorted(
        (rect.x(), rect.y(), rect.width(), rect.height())
        for rect in (screen.geometry() for screen in QGuiApplication.screens())
    )
    layout = ",".join(f"{w}x{h}{x:+d}{y:+d}" for x, y, w, h in rects) or "none"
    return f"window/{layout}"


def first_placement(available: QRect, minimum: QSize) -> QRect:
    """The window's frame on a first start: all of a small ``available``, else SCREEN_SHARE
    of it (no wider than WIDEST times its height); at least ``minimum`` where that fits,
    centred there."""
    small = available.width() < SMALL_SCREEN.width() or available.height() < SMALL_SCREEN.height()
    share = 1.0 if small else SCREEN_SHARE
    height = int(available.height() * share)
    width = min(int(available.width() * share), int(height * WIDEST))
    size = QSize(max(width, minimum.width()), max(height, minimum.height()))
    rect = QRect(available.topLeft(), size)
    rect.moveCenter(available.center())
    return fitted(rect, available)


def fitted(frame: QRect, available: QRect) -> QRect:
    """``frame`` shrunk to the size of ``available`` where it is larger, then moved inside it."""
    rect = QRect(frame.topLeft(), frame.size().boundedTo(available.size()))
    rect.moveLeft(min(max(rect.left(), available.left()), available.right() - rect.width() + 1))
    rect.moveTop(min(max(rect.top(), available.top()), available.bottom() - rect.height() + 1))
    return rect


def restore(window: QMainWindow, splitters: dict[str, QSplitter]) -> bool:
    """Place ``window`` as it was last closed on these screens, with its splitters' sizes,
    fitted to its screen's free area if that changed; False, with the window placed for a
    first start, if there is nothing to restore."""
    restore_splitters(splitters)
    saved = app_settings().value(f"{screens_key()}/geometry")
    restored = isinstance(saved, QByteArray) and window.restoreGeometry(saved)
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return restored
    available = screen.availableGeometry()
    margins = _frame_margins(window)
    if not restored:
        frame = first_placement(available, window.minimumSizeHint())
    elif not window.isMaximized() and not available.contains(_frame(window, margins)):
        frame = fitted(_frame(window, margins), available)
    else:
        return restored
    window.setGeometry(frame.adjusted(0, margins, 0, 0))
    return restored


def _frame(window: QMainWindow, margins: int) -> QRect:
    """The window's frame, its title bar guessed as ``margins`` before it is shown."""
    return window.geometry().adjusted(0, -margins, 0, 0)


def restore_splitters(splitters: dict[str, QSplitter]) -> None:
    """Give ``splitters`` the sizes they had when last saved on these screens."""
    settings = app_settings()
    group = screens_key()
    for name, splitter in splitters.items():
        state = settings.value(f"{group}/splitter-{name}")
        if isinstance(state, QByteArray):
            splitter.restoreState(state)


def save(window: QMainWindow, splitters: dict[str, QSplitter]) -> None:
    """Remember ``window``'s place and its splitters' sizes for these screens."""
    settings = app_settings()
    group = screens_key()
    settings.setValue(f"{group}/geometry", window.saveGeometry())
    for name, splitter in splitters.items():
        settings.setValue(f"{group}/splitter-{name}", splitter.saveState())


def _frame_margins(window: QMainWindow) -> int:
    """The height of a title bar before the window is shown (the window manager's frame is
    unknown until then): a typical one, so that the frame fits the screen."""
    shown = window.frameGeometry().height() - window.geometry().height()
    return shown if shown > 0 else 30
