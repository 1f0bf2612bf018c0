"""Look: Fusion style with a light or dark palette, grade colours readable on both, fonts."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("light", "dark")

GRADE_COLOURS = ("#b8473d", "#d9822b", "#d6a72c", "#7ba63a", "#3b9960", "#1f7a8c")
SKIPPED_COLOUR = "#7b8494"

_PALETTES = {
    "light": {
        QPalette.ColorRole.Window: "#f3f4f6",
        QPalette.ColorRole.WindowText: "#1f2328",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#f7f8fa",
        QPalette.ColorRole.Text: "#1f2328",
        QPalette.ColorRole.PlaceholderText: "#8a919c",
        QPalette.ColorRole.Button: "#ffffff",
        QPalette.ColorRole.ButtonText: "#1f2328",
        QPalette.ColorRole.Highlight: "#2f6feb",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#ffffff",
        QPalette.ColorRole.ToolTipText: "#1f2328",
        QPalette.ColorRole.Link: "#1f5fd0",
        QPalette.ColorRole.Mid: "#d0d4da",
        QPalette.ColorRole.Midlight: "#e4e7eb",
        QPalette.ColorRole.Dark: "#9aa1ab",
        QPalette.ColorRole.Light: "#ffffff",
        QPalette.ColorRole.Shadow: "#6b7280",
    },
    "dark": {
        QPalette.ColorRole.Window: "#1d2025",
        QPalette.ColorRole.WindowText: "#e6e8eb",
        QPalette.ColorRole.Base: "#24282e",
        QPalette.ColorRole.AlternateBase: "#2a2e35",
        QPalette.ColorRole.Text: "#e6e8eb",
        QPalette.ColorRole.PlaceholderText: "#7d8590",
        QPalette.ColorRole.Button: "#2c3139",
        QPalette.ColorRole.ButtonText: "#e6e8eb",
        QPalette.ColorRole.Highlight: "#3b78e7",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2c3139",
        QPalette.ColorRole.ToolTipText: "#e6e8eb",
        QPalette.ColorRole.Link: "#79a8ff",
        QPalette.ColorRole.Mid: "#3a4049",
        QPalette.ColorRole.Midlight: "#333840",
        QPalette.ColorRole.Dark: "#15171b",
        QPalette.ColorRole.Light: "#40464f",
        QPalette.ColorRole.Shadow: "#000000",
    },
}

# how the query terms are marked in the document text
MARK_STYLES = {
    "light": "background-color:#fff1a8; color:#1f2328; font-weight:600;",
    "dark": "background-color:#6b5a12; color:#fff7d1; font-weight:600;",
}


def palette(theme: str) -> QPalette:
    result = QPalette()
    for role, colour in _PALETTES[theme].items():
        result.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        muted = QColor(_PALETTES[theme][role])
        muted.setAlpha(110)
        result.setColor(QPalette.ColorGroup.Disabled, role, muted)
    return result


def is_dark(pal: QPalette) -> bool:
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def grade_colour(grade: int | None, skipped: bool = False) -> QColor:
    return QColor(SKIPPED_COLOUR if skipped or grade is None else GRADE_COLOURS[grade])


def text_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = colour.redF(), colour.greenF(), colour.blueF()
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return QColor("#1b1b1b") if luminance > 0.5 else QColor("#ffffff")


def muted_text(pal: QPalette) -> str:
    """A secondary text colour for the palette, as a CSS colour."""
    return "#9aa3ae" if is_dark(pal) else "#5d6470"


def apply_theme(app: QApplication, theme: str) -> None:
    """Use Fusion with the ``light`` or ``dark`` palette and the application's base font."""
    app.setStyle("Fusion")
    app.setPalette(palette(theme))
    font = QFont(app.font())
    font.setPointSizeF(max(font.pointSizeF(), 10.0))
    app.setFont(font)


def stylesheet(theme: str) -> str:
    """The window's style sheet for ``theme``: spacing, type scale, cards and captions."""
    dark = theme == "dark"
    colours = _PALETTES[theme]
    window = colours[QPalette.ColorRole.Window]
    base = colours[QPalette.ColorRole.Base]
    text = colours[QPalette.ColorRole.Text]
    border = colours[QPalette.ColorRole.Mid]
    muted = "#9aa3ae" if dark else "#5d6470"
    header = "#262a31" if dark else "#ffffff"
    hover = "#323843" if dark else "#f0f4ff"
    accent = colours[QPalette.ColorRole.Highlight]
    keycap = "#3a404a" if dark else "#eef0f3"
    return f"""
QMainWindow, QStackedWidget > QWidget {{ background: {window}; }}
#queryHeader {{ background: {header}; border-bottom: 1px solid {border}; }}
#queryCaption, #paneCaption, #overlayHeading {{
    color: {muted}; font-size: 8.5pt; font-weight: 600; letter-spacing: 1px; }}
#queryText {{ font-size: 17pt; font-weight: 600; color: {text}; }}
#queryDescription {{ color: {muted}; font-size: 10pt; }}
#raterLabel, #queryProgress {{ color: {text}; font-size: 10pt; }}
#overallProgress {{
    border: 1px solid {border}; border-radius: 5px; background: {base}; height: 20px;
    text-align: center; color: {text}; font-size: 9pt; }}
#overallProgress::chunk {{ background: {"#2f8a57" if dark else "#58b57f"}; border-radius: 4px; }}
QTableView#resultList, QListView#queueList, QTextBrowser#documentView {{
    background: {base}; border: 1px solid {border}; border-radius: 6px; }}
QTableView#resultList {{ selection-background-color: {accent}; }}
QListView#queueList::item:hover, QTableView#resultList::item:hover {{ background: {hover}; }}
QHeaderView::section {{
    background: {base}; color: {muted}; border: none; border-bottom: 1px solid {border};
    padding: 5px 8px; font-size: 9pt; font-weight: 600; }}
#errorBanner {{
    background: {"#5a1f1f" if dark else "#fdecec"}; color: {"#ffd7d7" if dark else "#8a1f1f"};
    border-bottom: 1px solid {"#8a2f2f" if dark else "#f1b7b7"}; padding: 8px 20px; }}
#noteBox {{ background: {base}; border: 1px solid {accent}; border-radius: 6px; }}
#notePrompt {{ color: {muted}; font-size: 9pt; }}
#rubricPanel {{ background: {header}; border-top: 1px solid {border}; }}
#rubricPanel QPushButton {{
    background: {base}; border: 1px solid {border}; border-radius: 8px; text-align: left; }}
#rubricPanel QPushButton:hover {{ background: {hover}; border-color: {accent}; }}
#rubricPanel QPushButton:pressed {{ background: {keycap}; }}
#rubricTitle {{ font-weight: 600; color: {text}; font-size: 10pt; }}
#rubricDescription {{ color: {muted}; font-size: 9pt; }}
#shortcutCard {{ background: {header}; border: 1px solid {border}; border-radius: 12px; }}
#overlayTitle {{ font-size: 16pt; font-weight: 600; color: {text}; }}
#overlaySubtitle {{ color: {muted}; font-size: 9.5pt; }}
#overlayAction {{ color: {text}; font-size: 10pt; }}
#overlayKeys {{ color: {text}; font-family: monospace; font-size: 10pt; font-weight: 600;
    background: {keycap}; border: 1px solid {border}; border-radius: 4px; padding: 1px 6px; }}
#chooserCard {{ background: {header}; border: 1px solid {border}; border-radius: 12px; }}
#chooserTitle {{ font-size: 18pt; font-weight: 600; color: {text}; }}
#chooserText {{ color: {muted}; font-size: 10pt; }}
QStatusBar {{ background: {header}; border-top: 1px solid {border}; color: {text}; }}
QStatusBar QLabel {{ padding: 3px 10px; }}
QStatusBar QLabel#statusError {{ color: {"#ff8f8f" if dark else "#b42318"}; font-weight: 600; }}
"""
