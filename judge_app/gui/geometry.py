"""Where the window goes: within the screen it opens on, at the size, position, maximized
state and splitter sizes it had when it was last closed on the same screens (QSettings, keyed
by the screens' layout: a laptop alone and the laptop beside a monitor each keep their own)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter

from judge_app.gui.preferences import app_settings

DEFAULT_SIZE = QSize(1280, 800)
SCREEN_SHARE = 0.92
"""The share of the screen's free area a first start fills, at most, when the default size
does not fit."""


def screens_key() -> str:
    """The layout of the screens, as a settings group name: "1920x1080+0+0,1280x1024+1920+0"."""
    rects = sorted(
        (rect.x(), rect.y(), rect.width(), rect.height())
        for rect in (screen.geometry() for screen in QGuiApplication.screens())
    )
    layout = ",".join(f"{w}x{h}{x:+d}{y:+d}" for x, y, w, h in rects) or "none"
    return f"window/{layout}"


def first_placement(available: QRect, minimum: QSize) -> QRect:
    """The window's frame on a first start: the default size, shrunk to fit ``available``
    (but never below ``minimum``), centred there."""
    width = min(DEFAULT_SIZE.width(), int(available.width() * SCREEN_SHARE))
    height = min(DEFAULT_SIZE.height(), int(available.height() * SCREEN_SHARE))
    size = QSize(max(width, minimum.width()), max(height, minimum.height()))
    rect = QRect(available.topLeft(), size)
    rect.moveCenter(available.center())
    return rect


def restore(window: QMainWindow, splitters: dict[str, QSplitter]) -> bool:
    """Place ``window`` as it was last closed on these screens, with its splitters' sizes;
    False, with the window placed for a first start, if there is nothing to restore."""
    restore_splitters(splitters)
    saved = app_settings().value(f"{screens_key()}/geometry")
    if isinstance(saved, QByteArray) and window.restoreGeometry(saved):
        return True  # Qt moves a window whose saved place is off every screen back on
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        frame = first_placement(screen.availableGeometry(), window.minimumSizeHint())
        margins = _frame_margins(window)
        window.setGeometry(frame.adjusted(0, margins, 0, 0))
    return False


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
