"""A layout that places its widgets in a row and wraps them onto more rows where the row is too
narrow (Qt's flow layout example): a page's controls fit a 900-pixel window without a
horizontal scroll bar, and keep one row on a wide one."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Widgets left to right, wrapping; each row's widgets aligned at their bottoms."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 14) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), place=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, place=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """As wide as the widest widget (everything else may wrap below it)."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size.grownBy(margins)

    def _arrange(self, rect: QRect, *, place: bool) -> int:
        """Lay the widgets out in ``rect`` (when ``place``); the height they take."""
        margins: QMargins = self.contentsMargins()
        area = rect.marginsRemoved(margins)
        rows: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        x = 0
        for item in self._items:
            if item.isEmpty():
                continue
            size = item.sizeHint().expandedTo(item.minimumSize())
            if rows[-1] and x + size.width() > area.width():
                rows.append([])
                x = 0
            rows[-1].append((item, size))
            x += size.width() + self._spacing
        y = area.y()
        for row in rows:
            height = max((size.height() for _item, size in row), default=0)
            x = area.x()
            for item, size in row:
                if place:  # bottoms aligned: captions above, boxes in one line
                    item.setGeometry(QRect(QPoint(x, y + height - size.height()), size))
                x += size.width() + self._spacing
            y += height + self._spacing
        return y - self._spacing - area.y() + margins.top() + margins.bottom()
