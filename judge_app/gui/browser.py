"""A result's web page opened in the user's browser, where it is a web address."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

WEB_SCHEMES = ("http", "https")
"""What opens in the browser: an address of any other kind is refused, said."""
URL_SHOWN = 120
"""The most of an address the status bar shows."""


def open_in_browser(url: str | None) -> tuple[str, bool]:
    """Open ``url`` in the browser; what to tell the rater, and whether it is an error."""
    if not url:
        return "This result has no web address", False
    address = QUrl(url.strip(), QUrl.ParsingMode.StrictMode)
    if address.scheme().lower() not in WEB_SCHEMES or not address.host():
        # a file: URL to a program runs it on some systems; javascript:, data: and the like
        # are no web page: only a web address goes to the browser
        return (
            f"Not opened: {shown_url(url)} is no web address (only http and https addresses "
            "open in the browser)",
            True,
        )
    if QDesktopServices.openUrl(address):
        return f"Opened {shown_url(url)} in the browser", False
    return f"No browser could open {shown_url(url)}", True


def shown_url(url: str) -> str:
    """``url`` as the status bar shows it: on one line, at most ``URL_SHOWN`` characters."""
    text = " ".join(url.split())
    return text if len(text) <= URL_SHOWN else text[: URL_SHOWN - 1] + "…"
