"""Painting of the result list and the queue: grade badges and two-line rows."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from judge_app.gui.models import Role
from judge_app.gui.theme import SKIPPED_COLOUR, grade_colour, muted_text, text_on

ERROR_COLOUR = "#d93f3f"
NOTE_MARK = "✎"  # shown beside the grade of a result with a note
_Index = QModelIndex | QPersistentModelIndex


def _background(painter: QPainter, option: QStyleOptionViewItem) -> None:
    """The row's selection and hover background, drawn by the style."""
    style = option.widget.style() if option.widget else None
    if style is not None:
        plain = QStyleOptionViewItem(option)
        plain.text = ""
        plain.state &= ~QStyle.StateFlag.State_HasFocus
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, plain, painter, option.widget)


def _text_colour(option: QStyleOptionViewItem, muted: bool = False) -> QColor:
    selected = option.state & QStyle.StateFlag.State_Selected
    if selected:
        colour = option.palette.highlightedText().color()
        if muted:
            colour.setAlpha(200)
        return colour
    return QColor(muted_text(option.palette)) if muted else option.palette.text().color()


_FONTS: dict[str, tuple[tuple[QFont, QFontMetrics], tuple[QFont, QFontMetrics]]] = {}


def _fonts(base: QFont) -> tuple[tuple[QFont, QFontMetrics], tuple[QFont, QFontMetrics]]:
    """(font, metrics) of a row's main line (demi-bold) and of its smaller second line, made
    once per base font rather than on every paint."""
    key = base.key()
    if key not in _FONTS:
        bold = QFont(base)
        bold.setWeight(QFont.Weight.DemiBold)
        small = QFont(base)
        small.setPointSizeF(base.pointSizeF() * 0.9)
        _FONTS[key] = ((bold, QFontMetrics(bold)), (small, QFontMetrics(small)))
    return _FONTS[key]


class GradeBadgeDelegate(QStyledItemDelegate):
    """The rater's grade as a coloured pill with the grade and its label."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        self.initStyleOption(option, index)
        _background(painter, option)
        grade = index.data(Role.GRADE)
        skipped = bool(index.data(Role.SKIPPED))
        unsaved = index.data(Role.UNSAVED)
        pending = bool(index.data(Role.PENDING))
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font, metrics = _fonts(option.font)[0]
        painter.setFont(font)
        rect = QRectF(option.rect).adjusted(8, 0, -8, 0)
        if index.data(Role.NOTE):  # a note: a pencil at the cell's right end
            painter.setPen(_text_colour(option, muted=True))
            painter.drawText(
                rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, NOTE_MARK
            )
            rect.adjust(0, 0, -(metrics.horizontalAdvance(NOTE_MARK) + 6), 0)
        height = metrics.height() + 8
        if not text:
            painter.setPen(_text_colour(option, muted=True))
            painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, "—")
            painter.restore()
            return
        width = min(rect.width(), metrics.horizontalAdvance(text) + 20)
        pill = QRectF(rect.left(), rect.center().y() - height / 2, width, height)
        if unsaved:
            painter.setPen(QPen(QColor(ERROR_COLOUR), 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            colour = QColor(ERROR_COLOUR)
        elif pending:  # asked for, on its way: the grade's colour, dashed and unfilled
            outline = QColor(SKIPPED_COLOUR) if skipped or grade is None else grade_colour(grade)
            painter.setPen(QPen(outline, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            colour = _text_colour(option)
        elif skipped:
            painter.setPen(QPen(QColor(SKIPPED_COLOUR), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            colour = _text_colour(option, muted=True)
        else:
            fill = grade_colour(grade)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            colour = text_on(fill)
        painter.drawRoundedRect(pill, height / 2, height / 2)
        painter.setPen(colour)
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(width - 16))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, elided)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        metrics = QFontMetrics(option.font)
        text = "5 Slightly relevant"
        return QSize(metrics.horizontalAdvance(text) + 40, metrics.height() + 16)


class TwoLineDelegate(QStyledItemDelegate):
    """A row with a main line (the display text) and a muted second line from ``second_role``."""

    def __init__(
        self, second_role: int, check_role: int | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._second_role = second_role
        self._check_role = check_role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        self.initStyleOption(option, index)
        _background(painter, option)
        painter.save()
        (first_font, first_metrics), (second_font, second_metrics) = _fonts(option.font)
        rect = option.rect.adjusted(8, 6, -8, -6)
        complete = bool(index.data(self._check_role)) if self._check_role else False
        if complete:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(QColor("#3b9960"), 2))
            x, y = rect.right() - 12, rect.top() + 4
            painter.drawPolyline([QPointF(x, y + 5), QPointF(x + 4, y + 9), QPointF(x + 12, y)])
            rect = rect.adjusted(0, 0, -18, 0)
        painter.setFont(first_font)
        painter.setPen(_text_colour(option))
        first = index.data(Qt.ItemDataRole.DisplayRole) or ""
        painter.drawText(
            rect.adjusted(0, 0, 0, -second_metrics.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
            first_metrics.elidedText(first, Qt.TextElideMode.ElideRight, rect.width()),
        )
        painter.setFont(second_font)
        painter.setPen(_text_colour(option, muted=True))
        second = index.data(self._second_role) or ""
        painter.drawText(
            rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom,
            second_metrics.elidedText(second, Qt.TextElideMode.ElideMiddle, rect.width()),
        )
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        first = QFontMetrics(option.font).height()
        return QSize(200, int(first * 2.2) + 14)
