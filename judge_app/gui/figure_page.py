"""A page of figures computed off the UI thread (the agreement and raters pages): the figures
as the page lays them out, or in their place a card that says what is under way or why there
are none; once there are figures, later work is shown inline by the page's busy bar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from judge_app.gui.busy_bar import BusyBar
from judge_app.gui.tables import named_label

MESSAGE_WIDTH = 480


class FigurePage(QWidget):
    """The figures (``_content``) or a message card in their place.

    ``name`` prefixes the object names (``NAMEMessageCard``, ``NAMEMessage``, ``NAMETitle``)
    the theme styles; ``title`` heads the card; ``waiting`` is said until the first figures.
    A subclass sets ``self.report`` when it shows figures."""

    busy: BusyBar

    def __init__(self, name: str, title: str, waiting: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}View")
        self.name, self.title = name, title
        self.report: Any = None
        self.pages = QStackedWidget()
        self.pages.addWidget(self._content())
        self.pages.addWidget(self._message_page())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.show_busy(waiting)

    def _content(self) -> QWidget:
        """The page with its figures; its header has the ``_title_row``."""
        raise NotImplementedError

    def _title_row(self) -> QHBoxLayout:
        """The page's title, its source (``self.source``, cut where it is long) and the busy
        bar (``self.busy``) of work under way while figures are shown."""
        row = QHBoxLayout()
        row.setSpacing(12)
        row.addWidget(named_label(self.title, f"{self.name}Title"))
        self.source = named_label("", f"{self.name}Source")
        self.source.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.source, 1, Qt.AlignmentFlag.AlignBaseline)
        self.busy = BusyBar(f"{self.name}Busy")
        row.addWidget(self.busy, 0, Qt.AlignmentFlag.AlignVCenter)
        return row

    def _message_page(self) -> QWidget:
        page = QWidget()
        outer = QGridLayout(page)
        card = QFrame()
        card.setObjectName(f"{self.name}MessageCard")
        card.setFixedWidth(MESSAGE_WIDTH)
        outer.addWidget(card, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(28, 22, 28, 24)
        layout.setSpacing(8)
        layout.addWidget(named_label(self.title, f"{self.name}Title"))
        self.message_label = named_label("", f"{self.name}Message", wrap=True)
        layout.addWidget(self.message_label)
        return page

    def show_error(self, text: str) -> None:
        """Say why there are no figures, in place of them."""
        self._show_message(text, error=True)

    def show_busy(self, text: str, on_cancel: Callable[[], None] | None = None) -> None:
        """Say what is under way: inline beside the figures shown (Cancel calls
        ``on_cancel``), or in place of them if there are none yet; "" says nothing."""
        if self.report is not None:
            if text:
                self.busy.start(text, on_cancel)
            else:
                self.busy.stop()
            self.pages.setCurrentIndex(0)
        elif text:
            self._show_message(text, error=False)

    def _show_message(self, text: str, *, error: bool) -> None:
        self.report = None
        self.busy.stop()
        self._figures_gone()
        label = self.message_label
        label.setProperty("error", error)
        label.style().unpolish(label)
        label.style().polish(label)
        label.setText(text)
        self.pages.setCurrentIndex(1)

    def _figures_gone(self) -> None:
        """What a subclass does when a message takes the figures' place."""

    def shown_message(self) -> str | None:
        """The message shown in place of the figures, or None when they are shown."""
        return self.message_label.text() if self.pages.currentIndex() == 1 else None
