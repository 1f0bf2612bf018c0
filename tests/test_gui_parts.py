"""Parts of the judging window that need no window: highlighting, idle-aware timing, key maps."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent

from judge_app.gui.highlight import highlighted_html, query_terms
from judge_app.gui.judging import key_names
from judge_app.gui.keymap import ACTIONS, KEYMAPS
from judge_app.gui.timing import ActiveTimer

MARK = "M"


def test_query_terms_drop_stop_words_and_repeats():
    assert query_terms("How to reset an iPhone to factory settings") == [
        "reset", "iphone", "factory", "settings",
    ]  # fmt: skip
    assert query_terms(None) == []


def test_highlight_marks_whole_terms_case_insensitively_and_escapes_html():
    html = highlighted_html("Pizza <b>pizzas</b> & PIZZA.\n\nNext", ["pizza"], MARK)
    assert html == (
        '<p><span style="M">Pizza</span> &lt;b&gt;pizzas&lt;/b&gt; &amp; '
        '<span style="M">PIZZA</span>.</p><p>Next</p>'
    )
    assert highlighted_html("a <i>", [], MARK) == "<p>a &lt;i&gt;</p>"
    assert highlighted_html(None, ["x"], MARK) == ""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_timer_leaves_out_idle_time_and_inactive_time():
    clock = Clock()
    timer = ActiveTimer(clock, idle_limit=60)
    clock.now = 10
    timer.touch()
    clock.now = 200  # 190 s without input: only 60 count
    timer.touch()
    assert timer.elapsed_ms() == 70_000
    timer.set_active(False)
    clock.now = 500  # the window was in the background
    timer.set_active(True)
    clock.now = 505
    assert timer.elapsed_ms() == 75_000
    timer.restart()
    clock.now = 507
    assert timer.elapsed_ms() == 2_000


@pytest.mark.parametrize(
    ("key", "modifiers", "text", "expected"),
    [
        (Qt.Key.Key_3, Qt.KeyboardModifier.NoModifier, "3", "grade3"),
        (Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier, "?", "help"),
        (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier, "", "undo"),
        (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
         "", "redo"),
        (Qt.Key.Key_2, Qt.KeyboardModifier.KeypadModifier, "2", "grade2"),
        (Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier, "\\r", "next_query"),
        (Qt.Key.Key_J, Qt.KeyboardModifier.NoModifier, "j", "next"),
    ],
)  # fmt: skip
def test_key_presses_find_their_action_in_the_standard_map(key, modifiers, text, expected):
    event = QKeyEvent(QEvent.Type.KeyPress, key, modifiers, text)
    action = next(KEYMAPS["standard"][name] for name in key_names(event)
                  if name in KEYMAPS["standard"])  # fmt: skip
    assert action == expected


def test_every_key_map_binds_every_grade_to_one_known_action():
    for keymap in KEYMAPS.values():
        assert set(keymap.values()) <= set(ACTIONS)
        for grade in range(6):
            assert f"grade{grade}" in keymap.values()
    home = KEYMAPS["home-row"]
    assert [home[key] for key in "ASDFGH"] == [f"grade{g}" for g in range(6)]
