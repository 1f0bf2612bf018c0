"""Qt parts of the judging window tested without a window: key presses read as key-map names,
and the guard against PySide6's reference counting bug. What the window shows (timing, key
maps, highlighting, the session) is tested without Qt in the test_judging_* modules."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent

from judge_app.gui.key_events import key_names
from judge_app.judging.keys import KEYMAPS


@pytest.mark.parametrize(
    ("key", "modifiers", "text", "expected"),
    [
        (Qt.Key.Key_3, Qt.KeyboardModifier.NoModifier, "3", "grade3"),
        (Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier, "?", "help"),
        (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier, "", "undo"),
        (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
         "", "redo"),
        (Qt.Key.Key_2, Qt.KeyboardModifier.KeypadModifier, "2", "grade2"),
        (Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier, "\\r", "next_unfinished"),
        (Qt.Key.Key_J, Qt.KeyboardModifier.NoModifier, "j", "next"),
        (Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier, "1", "skip_reason1"),
        (Qt.Key.Key_End, Qt.KeyboardModifier.NoModifier, "", "last"),
    ],
)  # fmt: skip
def test_key_presses_find_their_action_in_the_standard_map(key, modifiers, text, expected):
    event = QKeyEvent(QEvent.Type.KeyPress, key, modifiers, text)
    action = next(KEYMAPS["standard"][name] for name in key_names(event)
                  if name in KEYMAPS["standard"])  # fmt: skip
    assert action == expected


def test_every_menu_entry_calls_a_method_the_window_has(window):
    """The menus are data naming the window's methods: each name is one it has."""
    from judge_app.gui.window import DIALOGS
    from judge_app.gui.window_menus import FILE, LEAD, PAGES

    for entry in (*FILE, *LEAD, *PAGES):
        if entry is not None:
            found = window
            for part in entry.slot.split("."):
                found = getattr(found, part)
            assert callable(found), entry
            if entry.argument is not None:
                assert entry.argument in DIALOGS, entry


def test_every_dialog_of_the_window_is_a_class_of_its_module():
    import importlib

    from PySide6.QtWidgets import QDialog

    from judge_app.gui.window import DIALOGS

    for name, (module, dialog, what, _kept_as) in DIALOGS.items():
        found = getattr(importlib.import_module(f"judge_app.gui.{module}"), dialog)
        assert issubclass(found, QDialog) and what, name


def test_every_key_map_action_does_something_on_the_judging_screen(qtbot):
    """Keys are data: each action a key map can bind is one the screen knows how to do."""
    import re

    from judge_app.gui.judging import JudgingScreen
    from judge_app.judging.keys import ACTIONS, KEYMAPS

    screen = JudgingScreen()
    qtbot.addWidget(screen)
    bound = {action for keymap in KEYMAPS.values() for action in keymap.values()}
    assert bound <= set(ACTIONS)
    for action in ACTIONS:
        assert action in screen._actions or re.fullmatch(r"grade[0-5]|skip_reason[1-4]", action)
