"""A key press as key maps name it (``judging.keys``): the judging and adjudication screens
look its names up in their maps, most specific first."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence

_MODIFIERS = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)


def key_names(event: QKeyEvent) -> list[str]:
    """The names a key press may be bound under, most specific first: "Shift+?" then "?";
    "Num+1" then "1"."""
    names = [QKeySequence(event.keyCombination()).toString()]
    if not event.modifiers() & _MODIFIERS:
        text = event.text().upper()
        if text and text.isprintable() and not text.isspace():
            names.append(text)
        bare = event.modifiers() & ~(
            Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
        )
        names.append(QKeySequence(event.key() | bare.value).toString())
    return list(dict.fromkeys(name for name in names if name))


def key_id(event: QKeyEvent) -> int:
    """The physical key where the system says which it is, else Qt's key code."""
    return event.nativeScanCode() or event.key()
