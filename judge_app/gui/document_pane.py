"""The judging screen's document pane: the document, under it the note editor (N) and, after a
skip, the preset reasons to give it (Alt+1 to Alt+4 or a click)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from judge_app.gui.document_view import DocumentView
from judge_app.gui.flow import FlowLayout
from judge_app.gui.theme import muted_text
from judge_app.judging.keys import SKIP_REASONS, key_label, keys_of

if TYPE_CHECKING:  # a start paints the judging screen before SQLAlchemy is loaded
    from judge_app.store.rater_queue import Item


class DocumentPane(QFrame):
    """``noteFinished`` says the note editor was left: True to save its text (Enter, or the
    focus gone elsewhere), False to cancel (Esc); ``reasonChosen`` gives the number (from 1)
    of a skip reason clicked."""

    noteFinished = Signal(bool)
    reasonChosen = Signal(int)

    def __init__(self, caption_text: str = "Document") -> None:
        super().__init__()
        self.setObjectName("documentPane")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        caption = QLabel(caption_text.upper())
        caption.setObjectName("paneCaption")
        layout.addWidget(caption)
        self.view = DocumentView()
        layout.addWidget(self.view, 1)

        self.note_box, self.note_prompt, note_layout = _strip("noteBox")
        self.note_edit = QLineEdit()
        self.note_edit.setObjectName("noteEdit")
        self.note_edit.installEventFilter(self)
        note_layout.addWidget(self.note_edit)
        layout.addWidget(self.note_box)

        self.skip_strip, self.skip_prompt, skip_layout = _strip("skipStrip")
        self.skip_prompt.setWordWrap(True)
        self.skip_buttons: list[QPushButton] = []
        buttons = QWidget()
        flow = FlowLayout(buttons, spacing=4)  # two a row, or one where the pane is narrow
        flow.setContentsMargins(0, 0, 0, 0)
        for number, reason in enumerate(SKIP_REASONS, start=1):
            button = QPushButton()
            button.setObjectName("skipReason")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(reason)
            button.clicked.connect(lambda _checked=False, n=number: self.reasonChosen.emit(n))
            flow.addWidget(button)
            self.skip_buttons.append(button)
        skip_layout.addWidget(buttons)
        layout.addWidget(self.skip_strip)

    def show_item(self, item: Item, terms: list[str]) -> None:
        """Show ``item``'s document with ``terms`` marked, and the rater's note after it."""
        muted = muted_text(self.palette())
        saved_with = "" if item.judged else " (saved with your grade or skip)"
        note = (
            f'<p style="color:{muted}; border-left:3px solid {muted}; padding-left:8px">'
            f"<b>Your note{saved_with}:</b> {html.escape(item.note)}</p>"
            if item.note
            else ""
        )
        self.view.show_document(item.title, item.external_id, item.url, item.body, terms, note)

    def set_keymap(self, keymap: dict[str, str]) -> None:
        """Name each skip reason's key in ``keymap`` on its button."""
        for number, button in enumerate(self.skip_buttons, start=1):
            keys = keys_of(keymap, f"skip_reason{number}")
            key = f"{key_label(keys[0])}  " if keys else ""
            button.setText(f"{key}{SKIP_REASONS[number - 1]}")

    def offer_reasons(self, doc_id: str) -> None:
        """Offer the skip reasons for the document ``doc_id`` just skipped."""
        self.skip_prompt.setText(
            f"Skipped {html.escape(doc_id)}. A reason, if you like (it becomes the note; keep "
            "judging otherwise):"
        )
        self.skip_strip.show()

    def scroll_page(self, step: int) -> None:
        """Scroll the document a page down (``step`` 1) or up (-1)."""
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.value() + step * bar.pageStep())

    def open_note(self, doc_id: str, note: str | None, judged: bool) -> None:
        """Edit the note of the document ``doc_id`` (``judged`` already, or not yet)."""
        later = "" if judged else "; saved with your grade"
        self.note_prompt.setText(f"Note on {doc_id} (Enter saves{later}, Esc cancels)")
        self.note_edit.setText(note or "")
        self.note_box.show()
        self.note_edit.setFocus()
        self.note_edit.selectAll()

    def take_note(self) -> str | None:
        """Close the note editor and give its text, trimmed; None if it was not open."""
        if not self.note_box.isVisible():
            return None
        self.note_box.hide()
        return self.note_edit.text().strip()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.note_edit:
            if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
                if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape):
                    self.noteFinished.emit(event.key() != Qt.Key.Key_Escape)
                    return True
            elif event.type() == QEvent.Type.FocusOut and self.note_box.isVisible():
                if not self.note_box.isAncestorOf(self.window().focusWidget() or self):
                    self.noteFinished.emit(True)
        return super().eventFilter(watched, event)


def _strip(name: str) -> tuple[QFrame, QLabel, QVBoxLayout]:
    """A hidden strip under the document (styled by its object ``name``), its prompt first."""
    strip = QFrame()
    strip.setObjectName(name)
    layout = QVBoxLayout(strip)
    layout.setContentsMargins(10, 8, 10, 8)
    layout.setSpacing(4)
    prompt = QLabel()
    prompt.setObjectName("notePrompt")
    layout.addWidget(prompt)
    strip.hide()
    return strip, prompt, layout
