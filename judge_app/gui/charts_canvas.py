"""A matplotlib Figure in a widget: the figures of ``judge_app.reports.charts``, drawn in the
window as they are in reports, in the colours of the window's theme (redrawn when the
application's palette changes: ``MainWindow.set_theme``).

Drawing a figure (its constrained layout above all) takes tens of milliseconds, more on a
loaded machine: it happens on a worker thread with matplotlib's Agg canvas, and the widget
paints the image it returns (scaled, while a fresh one for a new size is drawn). The UI thread
never draws a figure."""

from __future__ import annotations

import threading
from collections.abc import Callable

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QEvent, QRect, QSize, Qt, QThreadPool, QTimer
from PySide6.QtGui import (
    QGuiApplication,
    QImage,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from judge_app.gui.workers import Worker
from judge_app.reports.charts import LIGHT, recolour

MINIMUM_HEIGHT = 220
MARGIN = 4
SETTLE_MS = 40
"""A figure is drawn once the widget kept its figure, colours and size this long: not at every
step of a drag, and not while the page around it paints (the UI thread calls into Python for
each cell it paints, and would wait for the GIL at each while a worker draws)."""

_ONE_AT_A_TIME = threading.Lock()
"""Matplotlib is not thread-safe: the workers draw one figure at a time."""
_RUNNING: set[Worker] = set()
"""The draws under way, kept until they end (a canvas closed meanwhile lets its go)."""
Drawn = tuple[int, Figure, bytes, int, int, float]
"""A figure drawn: which figure of the canvas (its count), the figure, its RGBA pixels, their
width and height, the pixel ratio."""


def _draw(
    figure: Figure, size: QSize, ratio: float, colours: dict[str, str], was: dict
) -> tuple[Figure, bytes, int, int, float]:
    """``figure`` in ``colours`` (from ``was``), drawn at ``size`` (logical pixels) and
    ``ratio`` physical pixels each: on a worker, as nothing else touches the figure meanwhile."""
    with _ONE_AT_A_TIME:
        recolour(figure, colours, was)
        was.clear()
        was.update(colours)
        dpi = figure.get_dpi()
        figure.set_size_inches(size.width() * ratio / dpi, size.height() * ratio / dpi)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        buffer = canvas.buffer_rgba()
        height, width = buffer.shape[:2]
        return figure, bytes(buffer), width, height, ratio


class ChartCanvas(QWidget):
    """One figure at a time, drawn off the UI thread at the widget's size; :meth:`set_figure`
    swaps it. Its background and border may be styled (by object name), around a small
    margin."""

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
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self._figure = figure or Figure()
        self._make: Callable[[], Figure] | None = None  # the figure to make on the next draw
        self._count = 0  # the figures shown so far: a draw of an earlier one is not shown
        self.colours = dict(LIGHT)  # what the figure was last drawn in
        self._image: QImage | None = None  # the figure as last drawn
        self._drawing: Worker | None = None  # the draw under way
        self._stale = True  # the figure, its colours or the size changed since that draw
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._draw)

    @property
    def figure(self) -> Figure:
        """The figure shown."""
        return self._figure

    @property
    def drawn(self) -> bool:
        """Is the figure shown as it is, at the widget's size (nothing left to draw)?"""
        return self._image is not None and not self._stale and self._drawing is None

    def set_figure(self, figure: Figure) -> None:
        """Show ``figure`` instead of the one shown."""
        self._figure, self._make = figure, None
        self._count += 1
        self.colours = dict(LIGHT)
        self._redraw()

    def make_figure(self, make: Callable[[], Figure]) -> None:
        """Show the figure ``make`` returns, made on the worker that draws it (making one
        takes tens of milliseconds too)."""
        self._make = make
        self._count += 1
        self._redraw()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._redraw()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._redraw()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._redraw()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._image is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawImage(self._target(), self._image)

    def _target(self) -> QRect:
        return self.rect().adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)

    def _redraw(self) -> None:
        self._stale = True
        self._settle.start()

    def _draw(self) -> None:
        """Draw the figure on a worker (one at a time: a change meanwhile draws again)."""
        size = self._target().size()
        if self._drawing is not None or not self.isVisible() or size.isEmpty():
            return
        self._stale = False
        palette = QGuiApplication.palette()
        colours = {
            "ink": palette.color(QPalette.ColorRole.Text).name(),
            "grid": palette.color(QPalette.ColorRole.Mid).name(),
            "face": palette.color(QPalette.ColorRole.Base).name(),
        }
        ratio, count = self.devicePixelRatioF(), self._count
        make, self._make = self._make, None
        if make is not None:
            self.colours = dict(LIGHT)  # a new figure, in the colours it is made in
        figure, was = self._figure, self.colours

        def work(_worker: Worker) -> Drawn:
            return (count, *_draw(make() if make else figure, size, ratio, colours, was))

        worker = Worker(work)
        worker.signals.returned.connect(self._drawn)
        worker.signals.finished.connect(self._finished)
        worker.signals.finished.connect(lambda: _RUNNING.discard(worker))
        self._drawing = worker
        _RUNNING.add(worker)
        QThreadPool.globalInstance().start(worker)

    def _drawn(self, drawn: Drawn) -> None:
        count, figure, pixels, width, height, ratio = drawn
        if count != self._count:
            return  # swapped meanwhile: its own draw follows
        self._figure = figure
        image = QImage(pixels, width, height, QImage.Format.Format_RGBA8888).copy()
        image.setDevicePixelRatio(ratio)
        self._image = image
        self.update()

    def _finished(self) -> None:
        self._drawing = None
        if self._stale:
            self._draw()
