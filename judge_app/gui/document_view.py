"""The pane that shows a document to judge (or adjudicate): its HTML added piece by piece."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from judge_app.gui.theme import MARK_STYLES, is_dark, muted_text
from judge_app.judging.highlight import BODY_STYLE, Piece, document_pieces


class DocumentView(QTextBrowser):
    """A read-only view of a document (``judging.highlight.document_pieces``) that shows its
    first piece at once and adds each next one on a later turn of the event loop: a body of
    megabytes never holds the window (a key pressed meanwhile is handled between two pieces),
    and showing another document drops what was left of the last. Links are not followed
    and it never takes the keyboard focus (the keys are the judging screen's)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("documentView")
        self.setOpenLinks(False)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.document().setDocumentMargin(14)
        self.document().setDefaultStyleSheet(BODY_STYLE)
        self._left: deque[Piece] = deque()
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._add_next)

    def show_document(
        self,
        title: str | None,
        doc_id: str,
        url: str | None,
        body: str | None,
        terms: list[str],
        after: str = "",
    ) -> None:
        """Show a document, the query's ``terms`` marked in the palette's colours, and the
        HTML ``after`` it (a rater's note)."""
        palette = self.palette()
        mark = MARK_STYLES["dark" if is_dark(palette) else "light"]
        pieces = document_pieces(title, doc_id, url, body, terms, mark, muted_text(palette))
        last = pieces[-1]  # what comes after the text goes in its last piece
        self.show_pieces([*pieces[:-1], Piece(last.html + after, last.continues)])

    def show_pieces(self, pieces: list[Piece]) -> None:
        """Show ``pieces`` of HTML, the first now and the others one by one."""
        self._left = deque(pieces[1:])
        self.setHtml(pieces[0].html if pieces else "")
        if self._left:
            self._timer.start()
        else:
            self._timer.stop()

    def loading(self) -> bool:
        """Whether pieces are still to come."""
        return bool(self._left)

    def clear(self) -> None:
        self._left.clear()
        self._timer.stop()
        super().clear()

    def _add_next(self) -> None:
        if not self._left:
            self._timer.stop()
            return
        piece = self._left.popleft()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if piece.continues:  # no gap below the paragraph it goes on with
            below = cursor.blockFormat()
            below.setBottomMargin(0)
            cursor.setBlockFormat(below)
        cursor.insertBlock()  # else the piece's first paragraph would join the last one
        cursor.insertHtml(piece.html)
