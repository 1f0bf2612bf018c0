"""Printing a report's HTML to PDF with Qt's own rich-text engine (QTextDocument, QPdfWriter)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMarginsF, QUrl
from PySide6.QtGui import QGuiApplication, QImage, QPageLayout, QPageSize, QPdfWriter, QTextDocument

IMAGE_SCALE = 2.4
"""Chart PNGs (drawn at 192 dpi) are laid out at 1/2.4 of their pixel size: 80 dpi on the
page, so a 7-inch chart fits A4's text width, sharp when printed or zoomed."""


def write_pdf(html: str, images: dict[str, bytes], out: Path) -> None:
    """Print ``html`` to ``out`` as A4 pages; ``images`` are the PNGs its ``<img>`` name."""
    _application()
    document = QTextDocument()
    for name, data in images.items():
        image = QImage()
        image.loadFromData(data, "PNG")
        image.setDevicePixelRatio(IMAGE_SCALE)
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    document.setHtml(html)
    writer = QPdfWriter(str(out))
    writer.setTitle(document.metaInformation(QTextDocument.MetaInformation.DocumentTitle))
    writer.setCreator("judge_app")
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter)
    document.print_(writer)


def _application() -> QCoreApplication:
    """The running Qt application, or one made for printing (off screen when there is no
    display, as on a server running ``judge-app report``)."""
    app = QGuiApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication([])
    return app
