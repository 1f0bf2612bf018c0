"""A matplotlib Figure in a widget: the figures of ``judge_app.reports.charts``, drawn in the
window as they are in reports, in the colours of the window's theme (redrawn when the
application's palette changes: ``MainWindow.set_theme``)."""

from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from judge_app.reports.charts import LIGHT, recolour

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
        self.colours = dict(LIGHT)  # what the figure is drawn in
        self.canvas = self._canvas(figure or Figure())
        self._layout.addWidget(self.canvas)
        self._follow_theme()

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
        self.colours = dict(LIGHT)
        self._follow_theme()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._follow_theme()
        super().changeEvent(event)

    def _follow_theme(self) -> None:
        """Draw the figure in the application palette's colours (text, grid, base)."""
        palette = QGuiApplication.palette()
        colours = {
            "ink": palette.color(QPalette.ColorRole.Text).name(),
            "grid": palette.color(QPalette.ColorRole.Mid).name(),
            "face": palette.color(QPalette.ColorRole.Base).name(),
        }
        recolour(self.figure, colours, self.colours)
        self.colours = colours
        self.canvas.draw_idle()
