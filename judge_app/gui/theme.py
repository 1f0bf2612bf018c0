"""Look: Fusion style with a light or dark palette, grade colours readable on both, fonts."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from judge_app.reports.palette import GRADE_COLOURS, SIGNIFICANCE_COLOURS

THEMES = ("light", "dark")

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


def significance_colours(pal: QPalette, better: bool) -> tuple[QColor, QColor]:
    """(background, text) of a run significantly better (or worse) than another, readable on
    ``pal``: the colours of the window's good and poor notices."""
    colours = SIGNIFICANCE_COLOURS["dark" if is_dark(pal) else "light"]
    background, text = colours["better" if better else "worse"]
    return QColor(background), QColor(text)


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
    if app.property("judgeAppTheme") == theme:
        return  # already so: setting it again would re-polish every widget of every window
    app.setProperty("judgeAppTheme", theme)
    app.setStyle("Fusion")
    app.setPalette(palette(theme))
    # Fusion outlines check boxes and radio buttons (and list items' check boxes) in the Window
    # colour made darker, which vanishes on a dark window; these widgets paint no Window
    # background (lists paint Base), so a lighter Window colour changes only the outlines
    indicators = palette(theme)
    if theme == "dark":
        indicators.setColor(QPalette.ColorRole.Window, QColor("#a3abb6"))
    for widget_class in ("QCheckBox", "QRadioButton", "QListWidget"):
        # PySide6's stubs type the class name (a const char*) as bytes; the binding takes str only
        app.setPalette(indicators, widget_class)  # type: ignore[arg-type]
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
QTableView#resultList, QTableView#queueList, QTextBrowser#documentView {{
    background: {base}; border: 1px solid {border}; border-radius: 6px; }}
QTableView#resultList, QTableView#queueList {{
    selection-background-color: {accent};
    selection-color: {colours[QPalette.ColorRole.HighlightedText]}; }}
QTableView#queueList::item:hover:!selected, QTableView#resultList::item:hover:!selected {{
    background: {hover}; }}
QHeaderView::section {{
    background: {base}; color: {muted}; border: none; border-bottom: 1px solid {border};
    padding: 5px 8px; font-size: 9pt; font-weight: 600; }}
#errorBanner {{
    background: {"#5a1f1f" if dark else "#fdecec"}; color: {"#ffd7d7" if dark else "#8a1f1f"};
    border-bottom: 1px solid {"#8a2f2f" if dark else "#f1b7b7"}; padding: 8px 20px; }}
#waitBanner {{
    background: {"#4a3b12" if dark else "#fff6d6"}; color: {"#ffe9a8" if dark else "#6b4e00"};
    border-bottom: 1px solid {"#7a6020" if dark else "#f0d68a"}; padding: 8px 20px; }}
#noteBox {{ background: {base}; border: 1px solid {accent}; border-radius: 6px; }}
#skipStrip {{ background: {base}; border: 1px solid {border}; border-radius: 6px; }}
QPushButton#skipReason {{
    background: {keycap}; border: 1px solid {border}; border-radius: 5px; color: {text};
    text-align: left; padding: 3px 8px; font-size: 9pt; }}
QPushButton#skipReason:hover {{ border-color: {accent}; }}
#cueBanner {{
    background: {base}; color: {muted}; border: 1px solid {border}; border-radius: 6px;
    padding: 6px 10px; }}
#cueBanner[state="done"] {{
    background: {"#1f3d2b" if dark else "#e6f5ec"}; color: {"#bff0d0" if dark else "#1d5b36"};
    border-color: {"#2f6a47" if dark else "#b5e0c5"}; }}
#cueBanner[state="warning"] {{
    background: {"#4a3b12" if dark else "#fff6d6"}; color: {"#ffe9a8" if dark else "#6b4e00"};
    border-color: {"#7a6020" if dark else "#f0d68a"}; }}
QLineEdit#queueSearch {{
    background: {base}; border: 1px solid {border}; border-radius: 5px; padding: 3px 6px; }}
QToolButton#unfinishedOnly {{
    background: {base}; border: 1px solid {border}; border-radius: 5px; padding: 3px 8px; }}
QToolButton#unfinishedOnly:checked {{
    background: {accent}; color: {colours[QPalette.ColorRole.HighlightedText]}; }}
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
#chooserRule {{ background: {border}; }}
QPushButton[class="link"] {{
    background: transparent; border: none; color: {colours[QPalette.ColorRole.Link]};
    font-weight: 600; padding: 4px 6px; }}
QPushButton[class="link"]:hover {{ text-decoration: underline; }}
#startTitle {{ font-size: 26pt; font-weight: 700; color: {text}; }}
#startTagline {{ color: {muted}; font-size: 11pt; }}
QPushButton[class="startAction"] {{
    background: {header}; border: 1px solid {border}; border-radius: 10px; text-align: left; }}
QPushButton[class="startAction"]:hover {{ background: {hover}; border-color: {accent}; }}
QPushButton[class="startAction"]:focus {{ border: 2px solid {accent}; }}
QPushButton[class="startAction"]:pressed {{ background: {keycap}; }}
#startGlyph {{
    background: {"#2a3a5c" if dark else "#e8efff"}; color: {"#9dbcff" if dark else accent};
    border-radius: 20px; font-size: 15pt; font-weight: 700; }}
#startActionTitle {{ font-size: 11pt; font-weight: 600; color: {text}; }}
#startActionText {{ color: {muted}; font-size: 9.5pt; }}
QListWidget#recentList {{
    background: {header}; border: 1px solid {border}; border-radius: 10px; padding: 4px; }}
QListWidget#recentList::item {{ border-radius: 6px; }}
QListWidget#recentList::item:hover {{ background: {hover}; }}
QListWidget#recentList::item:selected {{ background: {accent}; }}
#recentEmpty {{
    background: {header}; border: 1px dashed {border}; border-radius: 10px; color: {muted};
    font-size: 10pt; padding: 24px; }}
#startHint {{ color: {muted}; font-size: 9pt; }}
#startError {{
    background: {"#5a1f1f" if dark else "#fdecec"}; color: {"#ffd7d7" if dark else "#8a1f1f"};
    border: 1px solid {"#8a2f2f" if dark else "#f1b7b7"}; border-radius: 8px;
    padding: 10px 14px; }}
#dialogTitle {{ font-size: 15pt; font-weight: 600; color: {text}; }}
#dialogText {{ color: {muted}; font-size: 9.5pt; }}
#fieldLabel {{ color: {text}; font-weight: 600; }}
#fieldSubLabel {{ color: {muted}; padding-left: 12px; }}
#problemsBox {{
    background: {"#3a1c1c" if dark else "#fff5f5"};
    border: 1px solid {"#8a2f2f" if dark else "#f1b7b7"}; border-radius: 8px; }}
#problemsTitle {{ color: {"#ffb4b4" if dark else "#8a1f1f"}; font-weight: 600; font-size: 10.5pt; }}
QTableWidget#problemList {{
    background: {base}; border: 1px solid {border}; border-radius: 4px;
    alternate-background-color: {colours[QPalette.ColorRole.AlternateBase]}; }}
QListWidget#assignRaters::item, QListWidget#poolRuns::item {{ padding: 3px 2px; }}
#previewText {{ color: {text}; }}
#dialogError {{ color: {"#ff8f8f" if dark else "#b42318"}; font-weight: 600; }}
#analysisControls, #evaluationSummary {{
    background: {header}; border: 1px solid {border}; border-radius: 8px; }}
#evaluationSummary {{ padding: 10px 12px; color: {text}; }}
#analysisStatus {{ color: {muted}; }}
#loadingError, #analysisStatus[error="true"] {{
    color: {"#ff8f8f" if dark else "#b42318"}; font-weight: 600; }}
#tableHint, #tableCount, #statNote {{ color: {muted}; font-size: 9pt; }}
#agreementHeader, #ratersHeader, #calibrationHeader {{
    background: {header}; border-bottom: 1px solid {border}; }}
#agreementTitle, #ratersTitle, #calibrationTitle, #loadingTitle {{
    font-size: 15pt; font-weight: 600; color: {text}; }}
#agreementSource, #ratersSource, #calibrationSource, #busyLabel, #judgeLine {{
    color: {muted}; font-size: 9.5pt; }}
#ratersBanner {{ border-radius: 6px; }}
#ratersBanner QLabel {{ font-size: 9.5pt; background: transparent; }}
#ratersBanner QLabel#ratersBannerHeading {{ font-weight: 600; }}
#ratersBanner[level="good"] {{ background: {"#173b27" if dark else "#e6f4ec"}; }}
#ratersBanner[level="good"] QLabel {{ color: {"#9fe0b8" if dark else "#1e6b41"}; }}
#ratersBanner[level="warning"] {{ background: {"#3d3113" if dark else "#fdf3dc"}; }}
#ratersBanner[level="warning"] QLabel {{ color: {"#f5cf7a" if dark else "#6b4500"}; }}
#calibrationFindings {{ border-radius: 6px; }}
#calibrationFindings QLabel {{ font-size: 9.5pt; background: transparent; }}
#calibrationFindings[level="good"] {{ background: {"#173b27" if dark else "#e6f4ec"}; }}
#calibrationFindings[level="good"] QLabel {{ color: {"#9fe0b8" if dark else "#1e6b41"}; }}
#calibrationFindings[level="warning"] {{ background: {"#3d3113" if dark else "#fdf3dc"}; }}
#calibrationFindings[level="warning"] QLabel {{ color: {"#f5cf7a" if dark else "#6b4500"}; }}
QPushButton[class="segment"] {{
    background: {base}; border: 1px solid {border}; border-radius: 5px; color: {muted};
    padding: 3px 10px; font-size: 9pt; }}
QPushButton[class="segment"]:checked {{
    background: {accent}; border-color: {accent};
    color: {colours[QPalette.ColorRole.HighlightedText]}; }}
QProgressBar#busyProgress {{
    background: {border}; border: none; border-radius: 3px; }}
QProgressBar#busyProgress::chunk {{ background: {accent}; border-radius: 3px; }}
#alphaValue {{ font-size: 30pt; font-weight: 700; color: {text}; }}
#alphaIntervalCaption {{ color: {muted}; font-size: 8pt; font-weight: 600; letter-spacing: 1px; }}
#alphaInterval {{ color: {text}; font-size: 12pt; font-weight: 600; }}
#alphaLevels {{ color: {muted}; font-size: 9pt; }}
#alphaReading {{ border-radius: 6px; padding: 5px 10px; font-size: 9.5pt; font-weight: 600; }}
#alphaReading[level="good"] {{
    background: {"#173b27" if dark else "#e6f4ec"}; color: {"#9fe0b8" if dark else "#1e6b41"}; }}
#alphaReading[level="fair"] {{
    background: {"#3d3113" if dark else "#fdf3dc"}; color: {"#f5cf7a" if dark else "#8a5a00"}; }}
#alphaReading[level="poor"] {{
    background: {"#5a1f1f" if dark else "#fdecec"}; color: {"#ffd7d7" if dark else "#8a1f1f"}; }}
#statCard {{ background: {base}; border: 1px solid {border}; border-radius: 8px; }}
#statCaption {{ color: {muted}; font-size: 8.5pt; font-weight: 600; }}
#statValue {{ color: {text}; font-size: 15pt; font-weight: 600; }}
#agreementMessageCard, #ratersMessageCard, #calibrationMessageCard {{
    background: {header}; border: 1px solid {border}; border-radius: 12px; }}
#agreementMessage, #ratersMessage, #calibrationMessage {{ color: {muted}; font-size: 10.5pt; }}
#agreementMessage[error="true"], #ratersMessage[error="true"],
#calibrationMessage[error="true"] {{
    color: {"#ff8f8f" if dark else "#b42318"}; }}
QTableView#pairTable, QTableView#raterTable, QTableView#queryTable,
QTableView#adjudicationTable, QTableView#ratersTable, QTableView#tooFastTable,
QTableView#biasTable, QTableView#judgeRankingTable, QTableView#disagreeingQueries {{
    background: {base}; border: 1px solid {border}; border-radius: 6px;
    alternate-background-color: {colours[QPalette.ColorRole.AlternateBase]}; }}
QTableView#pairTable::item, QTableView#raterTable::item, QTableView#queryTable::item,
QTableView#adjudicationTable::item, QTableView#ratersTable::item,
QTableView#tooFastTable::item, QTableView#biasTable::item, QTableView#judgeRankingTable::item,
QTableView#disagreeingQueries::item {{ padding: 0 8px; }}
QTableView#confusionMatrix {{
    background: {base}; border: 1px solid {border}; border-radius: 6px; gridline-color: {border}; }}
#calibrationView QTableView#confusionMatrix QHeaderView::section {{ padding: 4px 6px; }}
#agreementTabs::pane {{ border: none; }}
#agreementTabs QTabBar::tab {{
    background: transparent; border: none; border-bottom: 2px solid transparent;
    color: {muted}; font-weight: 600; padding: 6px 16px; margin-right: 4px; }}
#agreementTabs QTabBar::tab:selected {{ color: {text}; border-bottom-color: {accent}; }}
#agreementTabs QTabBar::tab:hover {{ color: {text}; }}
#kappaHeatmap, #gradesChart, #driftChart {{
    background: {base}; border: 1px solid {border}; border-radius: 6px; }}
#agreementView QHeaderView::section, #evaluationView QHeaderView::section {{
    padding-right: 20px; }}
#calibrationView QHeaderView::section {{ padding-right: 14px; }}
#drillDown QHeaderView::section {{ padding: 5px 6px; }}
#drillFormula {{ font-size: 12pt; font-weight: 600; color: {text}; padding: 4px 0; }}
QTableView#perQueryTable, QTableView#drillRanked, QTableView#drillIdeal {{
    background: {base}; border: 1px solid {border}; border-radius: 6px;
    alternate-background-color: {colours[QPalette.ColorRole.AlternateBase]}; }}
#adjudicationProgress {{ font-size: 13pt; font-weight: 600; color: {text}; }}
#adjudicationQuery {{ font-size: 15pt; font-weight: 600; color: {text}; }}
#adjudicationSummary {{ color: {muted}; font-size: 10pt; }}
#adjudicationHint {{
    color: {muted}; font-size: 9pt; padding: 6px 20px; background: {header};
    border-top: 1px solid {border}; }}
QTableView#disputeList {{
    background: {base}; border: 1px solid {border}; border-radius: 6px;
    selection-background-color: {accent}; }}
QTableView#disputeList::item:hover:!selected {{ background: {hover}; }}
#raterCard {{ background: {base}; border: 1px solid {border}; border-radius: 8px; }}
#raterCard:hover {{ border-color: {accent}; }}
#raterCard[chosen="true"] {{ border: 2px solid {accent}; }}
#raterName {{ font-weight: 600; color: {text}; font-size: 10.5pt; }}
#raterTime, #raterNoNote {{ color: {muted}; font-size: 9pt; }}
#raterNote {{ color: {text}; font-size: 9.5pt; font-style: italic; }}
#raterCard QLabel#keyCap {{
    background: {keycap}; border: 1px solid {border}; border-radius: 4px; color: {text};
    font-family: monospace; font-weight: 700; padding: 1px 4px; }}
#ownGrade {{ background: {header}; border: 1px solid {border}; border-radius: 8px; }}
#ownGradeCaption {{ color: {muted}; font-size: 9pt; font-weight: 600; }}
#ownGradeCaption[active="true"] {{ color: {colours[QPalette.ColorRole.Link]}; }}
#decisionState {{ color: {text}; font-size: 9.5pt; }}
#decisionState[failed="true"] {{ color: {"#ff8f8f" if dark else "#b42318"}; }}
#doneCard {{ background: {header}; border: 1px solid {border}; border-radius: 12px; }}
#doneTitle {{ font-size: 18pt; font-weight: 600; color: {text}; }}
#doneText {{ color: {muted}; font-size: 10.5pt; }}
QStatusBar {{ background: {header}; border-top: 1px solid {border}; color: {text}; }}
QStatusBar QLabel {{ padding: 3px 10px; }}
QStatusBar QLabel#statusError {{ color: {"#ff8f8f" if dark else "#b42318"}; font-weight: 600; }}
"""
