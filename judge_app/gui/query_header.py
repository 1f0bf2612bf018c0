"""The judging screen's header: the open query (its number, id, text and description) on the
left; the rater, the query's progress and the whole queue's on the right."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout

from judge_app.gui.plain import PLAIN

if TYPE_CHECKING:
    from judge_app.store.rater_queue import Progress, QueueQuery


class QueryHeader(QFrame):
    """What is being judged, by whom, and how far along."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("queryHeader")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(20, 14, 20, 14)
        layout.setSpacing(24)
        left = QVBoxLayout()
        left.setSpacing(4)
        self.caption = QLabel()
        self.caption.setObjectName("queryCaption")
        self.text = QLabel()
        self.text.setObjectName("queryText")
        self.description = QLabel()
        self.description.setObjectName("queryDescription")
        for label in (self.caption, self.text, self.description):
            label.setTextFormat(PLAIN)  # a query's text from a file is never HTML
            left.addWidget(label)
        for label in (self.text, self.description):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addLayout(left, 1)

        right = QVBoxLayout()
        right.setSpacing(6)
        self.rater = QLabel()
        self.rater.setObjectName("raterLabel")
        self.query_progress = QLabel()
        self.query_progress.setObjectName("queryProgress")
        for label in (self.rater, self.query_progress):
            label.setAlignment(Qt.AlignmentFlag.AlignRight)
            right.addWidget(label)
        self.overall_progress = QProgressBar()
        self.overall_progress.setObjectName("overallProgress")
        self.overall_progress.setMinimumWidth(260)
        self.overall_progress.setTextVisible(True)
        self.overall_progress.setFormat("All work: %v / %m judged (%p%)")
        self.overall_progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        right.addWidget(self.overall_progress)
        right.addStretch(1)
        layout.addLayout(right)

    def show_query(self, number: int, count: int, query: QueueQuery) -> None:
        """Query ``number`` (from 1) of ``count``."""
        self.caption.setText(f"QUERY {number} OF {count}  ·  {query.external_id}")
        self.text.setText(query.text or query.external_id)
        self.description.setText(query.description or "")
        self.description.setVisible(bool(query.description))

    def show_words(self, title: str, text: str) -> None:
        """No query: ``title`` where its text goes, ``text`` under it."""
        self.caption.setText("")
        self.text.setText(title)
        self.description.setText(text)

    def show_progress(
        self, query: Progress, overall: Progress, done: str = "graded", unit: str = "judged"
    ) -> None:
        """The open query's progress (``done``: what its count did) and the queue's (``unit``:
        what the bar counts)."""
        skipped = f", {query.skipped} skipped" if query.skipped else ""
        self.query_progress.setText(
            f"This query: <b>{query.graded} / {query.total}</b> {done}{skipped}"
        )
        self.overall_progress.setFormat(f"All work: %v / %m {unit} (%p%)")
        self.overall_progress.setRange(0, max(overall.total, 1))
        self.overall_progress.setValue(overall.done)
