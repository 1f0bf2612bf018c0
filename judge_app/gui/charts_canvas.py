"""A matplotlib Figure in a widget: the figures of ``judge_app.reports.charts``, drawn in the
window as they are in reports."""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

MINIMUM_HEIGHT = 220


class ChartCanvas(QWidget):
    """One figure at a time, resized with the widget; :meth:`set_figure` swaps it. Its
    background and border may be styled (by object name), around a small margin."""

    def __init__(
        self,
        figure: Figure | None = None,
        *,
        name: str = "",
        minimum_height: int = MINIMUM_HEIGHT,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        if name:
            self.setObjectName(name)
        self.setMinimumHeight(minimum_height)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self.canvas = self._canvas(figure or Figure())
        self._layout.addWidget(self.canvas)

    @staticmethod
    def _canvas(figure: Figure) -> FigureCanvasQTAgg:
        canvas = FigureCanvasQTAgg(figure)
        canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        canvas.setMinimumSize(0, 0)
        return canvas

    @property
    def figure(self) -> Figure:
        """The figure shown."""
        return self.canvas.figure

    def set_figure(self, figure: Figure) -> None:
        """Show ``figure`` instead of the one shown."""
        canvas = self._canvas(figure)
        self._layout.replaceWidget(self.canvas, canvas)
        self.canvas.hide()
        self.canvas.deleteLater()
        self.canvas = canvas
        canvas.draw_idle()
