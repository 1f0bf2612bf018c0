"""The raters page (View ▸ Raters), the one a lead checks every morning: each rater's
progress, speed, self-agreement, accuracy on gold items and agreement with the others; the
figures out of line in words on top and in the warning colour in the table, and where raters
made preference judgments, how many and their share of intransitive triples; the chosen
rater's drift and too-fast judgments.

The figures are those of ``judge_app.commands.rater_quality`` (``judge-app raters``),
computed off the UI thread by the window (``judge_app.gui.analysis``); the page only shows
them, rounded as ``judge_app.numbers`` rounds for people, as ``judge_app.writers.raters``
writes them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from judge_app.agreement.quality import RaterQuality, RatersReport
from judge_app.agreement.raters import BLOCK
from judge_app.errors import JudgeAppError
from judge_app.gui.charts_canvas import ChartCanvas
from judge_app.gui.figure_page import FigurePage
from judge_app.gui.plain import PLAIN, plain_tip
from judge_app.gui.tables import (
    WARNING_COLOURS,
    CsvButton,
    FrameModel,
    TablePane,
    fit_columns,
    named_label,
    table_view,
)
from judge_app.gui.theme import is_dark
from judge_app.io.outputs import output_file
from judge_app.numbers import MISSING, count_text, score_text, seconds_text, share_text
from judge_app.reports.figures import rater_drift_figure
from judge_app.writers import raters as rater_writer

COLUMNS = {
    "rater": "Rater",
    "done": "Done",
    "remaining": "Left",
    "skipped": "Skipped",
    "median_seconds": "Median\ns",
    "per_active_hour": "Per\nhour",
    "too_fast_share": "Too\nfast",
    "self_agreement_kappa": "Self\nκ",
    "gold_accuracy": "Gold\nexact",
    "gold_bias": "Gold\nbias",
    "alpha_with_others": "α with\nothers",
    "alpha_contribution": "α contri-\nbution",
}
"""The table's columns: keys of ``writers.raters.record``, and their headers."""
PREFERENCE_COLUMNS = {"preferences": "Prefer-\nences", "intransitive_share": "Intransi-\ntive"}
"""The columns after those where a rater made preference judgments
(``writers.raters.PREFERENCE_COLUMNS``)."""


COUNTS = ("rater", "done", "remaining", "skipped", "preferences")
FORMATS = {
    column: rater_writer.TEXTS[column]
    for column in COLUMNS | PREFERENCE_COLUMNS
    if column not in COUNTS
}
"""The figures' texts: those of ``judge-app raters`` and the report."""
TIPS = {
    "done": "Judgments made, skips included",
    "remaining": "Remaining: results of the rater's queue still to judge",
    "skipped": "Results the rater could not judge",
    "median_seconds": "Median seconds of a timed judgment, idle time left out",
    "per_active_hour": "Timed judgments per active hour (the hours of their own times)",
    "too_fast_share": "Share of timed judgments faster than the fastest credible judgment",
    "self_agreement_kappa": (
        "Self-agreement: Cohen's kappa (quadratic weights) of the grades given again to "
        "hidden repeats, against the rater's first grades"
    ),
    "gold_accuracy": "Share of gold items graded exactly as the gold grade",
    "gold_bias": "Mean of the rater's grade minus the gold grade: above 0, too generous",
    "alpha_with_others": "Ordinal Krippendorff's alpha of the rater against the other raters",
    "alpha_contribution": (
        "All raters' alpha minus their alpha without this rater: below 0 the others agree "
        "better without them"
    ),
    "preferences": "Preference judgments made (which of two documents is better), skips included",
    "intransitive_share": (
        "Share of cyclic triples (x over y over z over x) among the triples of a query's "
        "documents whose three pairs the rater ordered"
    ),
}
WARNED_BY = {  # a column: the figures (keys of ``RaterQuality.out_of_line``) it warns about
    "too_fast_share": ("too_fast_share",),
    "self_agreement_kappa": ("self_agreement_kappa",),
    "gold_accuracy": ("gold_within_one",),
    "gold_bias": ("gold_bias",),
    "alpha_with_others": ("alpha_with_others",),
    "alpha_contribution": ("alpha_contribution",),
}
FAST_COLUMNS = {
    "query_id": "Query",
    "doc_id": "Document",
    "grade": "Grade",
    "seconds": "Seconds",
    "judged_at": "When (UTC)",
}
BANNER_LINES = 4
"""Raters out of line named on the banner, at most (their rows are marked in any case)."""
NONE_OUT_OF_LINE = "No rater's figures are out of line"
DRIFT_BY = {"block": f"By block of {BLOCK}", "day": "By day"}
DRIFT_HEIGHT = 140
ROWS_IN_SIGHT = 3
"""Rows of the raters table always in sight, however the page is split."""
ROWS_FIRST_SHOWN = 8
"""Rows the table is first given room for (as many as there are raters, up to this), where
the chosen rater's drift keeps its own room; the lead's split is kept after."""
DETAIL_ROOM = 230
"""Pixels the chosen rater's drift and too-fast judgments keep when the table is fitted."""
HEADER_ROOM = 22
"""Pixels beside a header's text: its padding, and the sort indicator's room."""
NAME_MINIMUM = 72
"""Pixels for the raters' names at least: where the figures leave less room than a name
takes, it is cut with "…" (whole in its tooltip)."""

Note = tuple[str, bool]
"""A cell's tooltip, and whether its figure is out of line."""


def rater_notes(rater: RaterQuality, min_seconds: float) -> dict[str, Note]:
    """Each column's tooltip for ``rater``: why a figure is undefined, what it rests on, and
    the warning of a figure out of line (then marked)."""
    reasons: dict[str, str] = rater_writer.record(rater)["reasons"]  # type: ignore[assignment]
    speed, repeats, gold = rater.speed, rater.self_agreement, rater.gold
    preferences = rater.preferences
    pending = f"; {rater.repeats_pending:,} waiting" if rater.repeats_pending else ""
    context = {
        "rater": rater.rater + ("" if rater.active else " is no longer active"),
        "done": f"{rater.done:,} judgments, {rater.skipped:,} of them skipped",
        "remaining": f"{rater.remaining:,} of {rater.assigned:,} results left{pending}",
        "median_seconds": f"Over {speed.timed:,} timed judgments",
        "per_active_hour": f"Over {speed.timed:,} timed judgments",
        "too_fast_share": (
            f"{speed.too_fast:,} of {speed.timed:,} timed judgments under {min_seconds:g} s"
        ),
        "self_agreement_kappa": (
            f"On {repeats.pairs:,} repeats{pending}: exact {share_text(repeats.exact.value)}, "
            f"within one grade {share_text(repeats.within_one.value)}"
        ),
        "gold_accuracy": (
            f"On {gold.pairs:,} gold items: exact {share_text(gold.exact.value)}, within one "
            f"grade {share_text(gold.within_one.value)}"
        ),
        "gold_bias": (
            f"On {gold.pairs:,} gold items; mean absolute error "
            f"{score_text(gold.mean_absolute_error.value)}"
        ),
        "preferences": (
            f"{preferences.made:,} preference judgments, {preferences.skipped:,} of them skipped"
        ),
        "intransitive_share": (
            f"{preferences.cyclic:,} of {preferences.triples:,} ordered triples are cyclic"
        ),
    }
    notes: dict[str, Note] = {}
    for column in COLUMNS | PREFERENCE_COLUMNS:
        if column == "rater":  # the name (whole, should it be cut), then every warning
            warnings = list(rater.warnings)
            lines = [context["rater"], *(f"Out of line: {warning}" for warning in warnings)]
        else:
            keys = [key for key in WARNED_BY.get(column, ()) if key in rater.out_of_line]
            warnings = [rater.out_of_line[key] for key in keys]
            lines = [f"Out of line: {warning}" for warning in warnings]
            reason = reasons.get(column)
            if reason:
                lines.append(f"Undefined: {reason}")
            elif context.get(column):
                lines.append(context[column])
        if lines:
            notes[column] = ("\n".join(lines), bool(warnings))
    return notes


class RatersModel(FrameModel):
    """The raters table: a rater a row; a figure out of line in the warning colour (and the
    rater's name in bold), each cell's tooltip from :func:`rater_notes`."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(
            pd.DataFrame({column: [] for column in COLUMNS}),
            headers=COLUMNS | PREFERENCE_COLUMNS,
            formats=FORMATS,
            tooltips=TIPS,
            parent=parent,
        )
        self.notes: dict[str, dict[str, Note]] = {}

    def show_report(self, report: RatersReport) -> None:
        """The report's raters, in the order sorted by (if any)."""
        self.notes = {
            rater.rater: rater_notes(rater, report.min_seconds) for rater in report.raters
        }
        shown = COLUMNS | (PREFERENCE_COLUMNS if report.with_preferences else {})
        frame = rater_writer.frame(report)[list(shown)]
        self.set_frame(frame.astype({column: "float64" for column in FORMATS if column in shown}))

    def note(self, row: int, column: int) -> Note | None:
        rater = str(self.column_values(0)[row])
        return self.notes.get(rater, {}).get(self.columns[column])

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if index.isValid() and role in (
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.ForegroundRole,
            Qt.ItemDataRole.FontRole,
        ):
            note = self.note(index.row(), index.column())
            if note is None:
                return None
            text, warned = note
            if role == Qt.ItemDataRole.ToolTipRole:
                return plain_tip(text)
            if not warned:
                return None
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor(WARNING_COLOURS[is_dark(QGuiApplication.palette())]))
            if index.column() != 0:  # bold only where the column has room for it (the name)
                return None
            font = QFont()
            font.setBold(True)
            return font
        return super().data(index, role)


class ReportCsvButton(CsvButton):
    """Export…: the raters' figures as ``judge-app raters --format csv`` writes them (full
    precision), from the report shown."""

    def __init__(self, view: RatersView) -> None:
        super().__init__(None, view.model, "raters.csv")
        self.view = view
        self.setObjectName("ratersExport")
        self.setText("Export…")
        self.setToolTip("Save every rater's figures as a CSV file, in full precision")

    def write(self, path: str) -> None:
        report = self.view.report
        if report is None:
            return
        try:
            with output_file(Path(path), newline="") as handle:
                handle.write(rater_writer.as_text(report, "csv"))
        except JudgeAppError as error:
            self.view.message.emit(f"Not exported: {error}", True)
            return
        self.view.message.emit(f"The raters' figures written to {path}", False)


class ElidedLabel(QLabel):
    """One line of text that never widens the page: cut with "…" where the room ends, the
    whole text then in its tooltip."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setTextFormat(PLAIN)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._elide()
        super().resizeEvent(event)

    def _elide(self) -> None:
        room = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, room)
        self.setText(shown)
        self.setToolTip(plain_tip(self.full_text) if shown != self.full_text else "")


class RatersView(FigurePage):
    """The raters page: the banner of figures out of line, the table of every rater, and
    the chosen rater's drift chart and too-fast judgments."""

    settingsRequested = Signal()  # Settings…: the lead's quality settings
    message = Signal(str, bool)  # for the status bar: text, is it an error

    report: RatersReport | None

    def __init__(self, parent: QWidget | None = None) -> None:
        self.drift_by = "block"
        self.model = RatersModel()  # the page's own: its parent once the page is made
        self._name_width = 0  # the names' column at least: as fitted, up to NAME_MINIMUM
        self._split_fitted = False  # the table given room for its rows, once
        self._banner_lines: list[str] = []
        super().__init__("raters", "Raters", "No rater figures computed yet", parent)
        self.model.setParent(self)

    # layout ------------------------------------------------------------------------------------

    def _content(self) -> QWidget:
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._header())
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("ratersSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.table_pane = self._table_pane()
        self.splitter.addWidget(self.table_pane)
        self.splitter.addWidget(self._detail())
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([240, 400])
        body = QVBoxLayout()
        body.setContentsMargins(16, 12, 16, 14)
        body.addWidget(self.splitter)
        layout.addLayout(body, 1)
        return content

    def _header(self) -> QFrame:
        header = QFrame()
        header.setObjectName("ratersHeader")
        layout = QVBoxLayout(header)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(10)
        title = self._title_row()
        self.settings_button = QPushButton("Settings…")
        self.settings_button.setObjectName("qualitySettings")
        self.settings_button.setAutoDefault(False)
        self.settings_button.setToolTip(
            "The fastest credible judgment, and the share of items shown again to measure "
            "self-agreement"
        )
        self.settings_button.clicked.connect(self.settingsRequested)
        title.addWidget(self.settings_button)
        self.export = ReportCsvButton(self)
        title.addWidget(self.export)
        layout.addLayout(title)
        self.banner = QFrame()
        self.banner.setObjectName("ratersBanner")
        lines = QVBoxLayout(self.banner)
        lines.setContentsMargins(10, 6, 10, 6)
        lines.setSpacing(1)
        self.banner_labels = [ElidedLabel("ratersBannerLine") for _ in range(BANNER_LINES + 2)]
        self.banner_labels[0].setObjectName("ratersBannerHeading")
        for label in self.banner_labels:
            lines.addWidget(label)
        layout.addWidget(self.banner)
        return header

    def _table_pane(self) -> QWidget:
        pane = QWidget()
        layout = QVBoxLayout(pane)
        layout.setContentsMargins(0, 0, 0, 6)
        layout.setSpacing(8)
        bar = QHBoxLayout()
        bar.setSpacing(10)
        bar.addWidget(named_label("EVERY RATER", "paneCaption"))
        self.count = named_label("", "tableCount")
        bar.addWidget(self.count)
        bar.addStretch(1)
        layout.addLayout(bar)
        self.table, self.proxy = table_view(self.model, "ratersTable")
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.viewport().installEventFilter(self)
        self.table.selectionModel().selectionChanged.connect(lambda *_args: self._show_chosen())
        layout.addWidget(self.table, 1)
        self.note = ElidedLabel("tableHint")
        layout.addWidget(self.note)
        return pane

    def _detail(self) -> QWidget:
        drift = QWidget()
        layout = QVBoxLayout(drift)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.setSpacing(8)
        bar = QHBoxLayout()
        bar.setSpacing(6)
        self.drift_caption = ElidedLabel("paneCaption")  # a long name is cut, not the page
        bar.addWidget(self.drift_caption, 1)
        self.drift_buttons: dict[str, QPushButton] = {}
        group = QButtonGroup(self)
        for by, text in DRIFT_BY.items():
            button = QPushButton(text)
            button.setObjectName(f"drift_{by}")
            button.setProperty("class", "segment")
            button.setCheckable(True)
            button.setAutoDefault(False)
            button.setChecked(by == self.drift_by)
            button.clicked.connect(lambda _checked=False, chosen=by: self.set_drift_by(chosen))
            group.addButton(button)
            bar.addWidget(button)
            self.drift_buttons[by] = button
        layout.addLayout(bar)
        self.drift = ChartCanvas(name="driftChart", minimum_height=DRIFT_HEIGHT)
        layout.addWidget(self.drift, 1)
        self.too_fast = TablePane(
            "Too fast",
            "tooFastTable",
            "too-fast.csv",
            headers=FAST_COLUMNS,
            formats={"seconds": seconds_text, "judged_at": _moment},
            tooltips={"seconds": "Time of the judgment, idle time left out"},
            noun="judgments",
            stretch=None,
            full_text=("judged_at",),
        )
        count = self.too_fast.count  # names the rater: cut if long, never widening the page
        count.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.too_fast.bar.setStretchFactor(count, 1)
        self.too_fast.table.sortByColumn(
            list(FAST_COLUMNS).index("judged_at"), Qt.SortOrder.AscendingOrder
        )
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("raterDetailSplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(drift)
        splitter.addWidget(self.too_fast)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([600, 600])
        return splitter

    # state -------------------------------------------------------------------------------------

    def show_report(self, report: RatersReport) -> None:
        """Show ``report``, keeping the chosen rater chosen (else the first is)."""
        chosen = self.chosen_rater()
        self.report = report
        self.source.setText(report.source)
        self.source.setToolTip(report.source)
        self._show_banner(report)
        self.model.show_report(report)
        fit_columns(self.table, self.model, header_room=HEADER_ROOM)
        self._name_width = min(self.table.columnWidth(0), NAME_MINIMUM)
        self.fit_rater_column()
        self._keep_rows_in_sight()
        # once the page is laid out with its figures: the splitter's sizes are settled then
        QTimer.singleShot(0, lambda count=len(report.raters): self._fit_split(count))
        count = len(report.raters)
        self.count.setText(count_text(count, "rater"))
        self.note.set_full_text(
            f"Too fast: under {report.min_seconds:g} s, the fastest credible judgment"
            f" ({len(report.flagged):,} judgments). Hover a figure for what it rests on; "
            f"{MISSING} is undefined (hover for why)."
            if report.raters
            else f"{report.source} has no raters yet: nobody has judged or been assigned work."
        )
        self.export.setEnabled(True)
        self._choose(chosen)
        self.busy.stop()
        self.pages.setCurrentIndex(0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self.fit_rater_column()
        return super().eventFilter(watched, event)

    def fit_rater_column(self) -> None:
        """The raters' names take the room the figures leave (``NAME_MINIMUM`` at least): the
        figures stay together, at the right of the table, and no empty column follows them."""
        table = self.table
        figures = sum(table.columnWidth(column) for column in range(1, self.model.columnCount()))
        table.setColumnWidth(0, max(table.viewport().width() - figures, self._name_width))

    def _keep_rows_in_sight(self) -> None:
        """However the page is split, the table keeps its headers and a few rows in sight
        (measured as styled: once the page is in the window)."""
        rows = self.table.verticalHeader().defaultSectionSize()
        header = self.table.horizontalHeader().sizeHint().height()
        scroll = self.table.horizontalScrollBar().sizeHint().height()
        frame = 2 * self.table.frameWidth()
        self.table.setMinimumHeight(header + ROWS_IN_SIGHT * rows + scroll + frame)

    def _fit_split(self, raters: int) -> None:
        """The first time there are figures in a shown page: room for every rater's row (up
        to ``ROWS_FIRST_SHOWN``) where the drift keeps ``DETAIL_ROOM``."""
        total = sum(self.splitter.sizes())
        if self._split_fitted or not self.isVisible() or total <= 0:
            return
        self._split_fitted = True
        chrome = self.table_pane.sizeHint().height() - self.table.sizeHint().height()
        row = self.table.verticalHeader().defaultSectionSize()
        more = min(raters, ROWS_FIRST_SHOWN) - ROWS_IN_SIGHT
        wanted = chrome + self.table.minimumHeight() + row * more
        table = max(self.splitter.sizes()[0], min(wanted, total - DETAIL_ROOM))
        self.splitter.setSizes([table, total - table])

    def _show_banner(self, report: RatersReport) -> None:
        """A line a rater out of line (at most ``BANNER_LINES``, then how many more) under a
        heading that counts them, or that none is."""
        lines = rater_writer.warning_lines(report)
        self._banner_lines = lines or [NONE_OUT_OF_LINE]
        if lines:
            count = len(report.raters)
            heading = (
                f"{len(lines)} of {count} raters have figures out of line"
                if count > 1
                else "Figures out of line"
            )
            shown = [heading, *lines[:BANNER_LINES]]
            if len(lines) > BANNER_LINES:
                shown.append(
                    f"… and {len(lines) - BANNER_LINES} more: their figures are marked in the table"
                )
        else:
            shown = [NONE_OUT_OF_LINE]
        for position, label in enumerate(self.banner_labels):
            label.set_full_text(shown[position] if position < len(shown) else "")
            label.setVisible(position < len(shown))
        self.banner.setToolTip("\n".join(lines) if len(lines) > BANNER_LINES else "")
        self.banner.setProperty("level", "warning" if lines else "good")
        for widget in (self.banner, *self.banner_labels):
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def banner_lines(self) -> list[str]:
        """What the banner says, a line a rater out of line (every one, whether shown or
        counted in "… and N more")."""
        return list(self._banner_lines)

    def _figures_gone(self) -> None:
        self.export.setEnabled(False)

    # the chosen rater --------------------------------------------------------------------------

    def chosen_rater(self) -> str | None:
        """The rater whose row is chosen, if any."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return str(self.model.row_frame(self.proxy.mapToSource(rows[0]).row())["rater"])

    def choose_rater(self, name: str) -> None:
        """Choose the row of rater ``name``."""
        self._choose(name)

    def _choose(self, name: str | None) -> None:
        raters = [str(rater) for rater in self.model.column_values(0)]
        row = raters.index(name) if name in raters else 0
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.table.selectRow(index.row())
        self._show_chosen()

    def set_drift_by(self, by: str) -> None:
        """Draw the drift by ``block`` (of 50 judgments) or by ``day``."""
        self.drift_by = by
        self.drift_buttons[by].setChecked(True)
        self._show_chosen()

    def _rater(self, name: str | None) -> RaterQuality | None:
        if self.report is None or name is None:
            return None
        return next((rater for rater in self.report.raters if rater.rater == name), None)

    def _show_chosen(self) -> None:
        rater = self._rater(self.chosen_rater())
        report = self.report
        if rater is None or report is None:
            self.drift_caption.set_full_text("DRIFT")
            self.too_fast.noun = "judgments"
            self.too_fast.set_frame(pd.DataFrame({column: [] for column in FAST_COLUMNS}))
            return
        self.drift_caption.set_full_text(f"DRIFT · {rater.rater.upper()}")
        by, fastest = self.drift_by, report.min_seconds
        self.drift.make_figure(lambda: rater_drift_figure(rater, by, fastest))
        flagged = report.flagged[report.flagged["rater"] == rater.rater]
        frame = pd.DataFrame(
            {
                "query_id": flagged["query_id"].astype(str),
                "doc_id": flagged["doc_id"].astype(str),
                "grade": [
                    "skipped" if skipped else (MISSING if pd.isna(grade) else int(grade))
                    for grade, skipped in zip(flagged["grade"], flagged["skipped"])
                ],
                "seconds": flagged["seconds"].astype("float64"),
                "judged_at": flagged["judged_at"],
            }
        )
        self.too_fast.noun = f"judgments by {rater.rater}"
        self.too_fast.set_frame(
            frame,
            f"Judgments under {report.min_seconds:g} s, the fastest credible judgment."
            if len(frame)
            else f"No timed judgment of {rater.rater}'s took under {report.min_seconds:g} s.",
        )


def _moment(value: pd.Timestamp) -> str:
    return f"{value:%Y-%m-%d %H:%M}"
