"""The pieces the judging and adjudication screens are built of alike: captioned panes and
the banners that say what went wrong or what is waiting."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)


def captioned(title: str, *widgets: QWidget) -> QWidget:
    """A column under a small upper-case caption; the last widget takes the room left."""
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    caption = QLabel(title.upper())
    caption.setObjectName("paneCaption")
    layout.addWidget(caption)
    for widget in widgets[:-1]:
        layout.addWidget(widget)
    layout.addWidget(widgets[-1], 1)
    return pane


def screen_column(
    screen: QWidget,
    top: Sequence[QWidget],
    body: QWidget,
    margins: tuple[int, int, int, int],
    bottom: QWidget,
) -> None:
    """Lay ``screen`` out as the judging and adjudication screens are: ``top`` (a header and
    its banners) each at its height, ``body`` within ``margins`` taking the room left, and
    ``bottom`` (a rubric, a line of keys) under it."""
    layout = QVBoxLayout(screen)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    for part in top:
        layout.addWidget(part)
    framed = QWidget()
    inside = QVBoxLayout(framed)
    inside.setContentsMargins(*margins)
    inside.addWidget(body)
    layout.addWidget(framed, 1)
    layout.addWidget(bottom)


def banner(name: str) -> QLabel:
    """A hidden, wrapping banner styled by its object name (``errorBanner``, ``waitBanner``)."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.hide()
    return label


def as_list(view: QTableView, row_height: int) -> None:
    """A table shown as a list: one row chosen at a time, not edited, no grid, rows of one
    height that scroll whole (no half-clipped row at the top)."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
    rows = view.verticalHeader()
    rows.hide()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(row_height)
