"""Keys as data, without Qt: every key map binds known actions, keys are listed and labelled
for the help overlay, and a key held down acts once."""

from __future__ import annotations

from judge_app.judging.keys import (
    ACTIONS,
    DEFAULT_KEYMAP,
    KEYMAP_TITLES,
    KEYMAPS,
    REPEAT_GAP_MS,
    RepeatGuard,
    key_label,
    keys_of,
)


def test_every_key_map_binds_every_grade_to_one_known_action():
    assert set(KEYMAP_TITLES) == set(KEYMAPS) and DEFAULT_KEYMAP in KEYMAPS
    for keymap in KEYMAPS.values():
        assert set(keymap.values()) <= set(ACTIONS)
        for grade in range(6):
            assert f"grade{grade}" in keymap.values()
    home = KEYMAPS["home-row"]
    assert [home[key] for key in "ASDFGH"] == [f"grade{g}" for g in range(6)]


def test_only_moving_repeats_while_a_key_is_held():
    repeating = {name for name, action in ACTIONS.items() if action.repeats}
    assert repeating == {"next", "previous", "scroll_down", "scroll_up"}


def test_keys_are_listed_in_the_maps_order_and_labelled_as_typed():
    standard = KEYMAPS["standard"]
    assert keys_of(standard, "next") == ["Down", "J"]
    assert keys_of(standard, "redo") == ["Ctrl+Shift+Z", "Ctrl+Y"]
    assert keys_of(standard, "nothing") == []
    assert [key_label(key) for key in ("J", "?", "Return", "Num+3", "Ctrl+Z")] == [
        "j", "?", "Enter", "Numpad 3", "Ctrl+Z",
    ]  # fmt: skip


def test_a_key_held_down_is_fresh_once_even_where_repeats_are_not_marked():
    guard = RepeatGuard()
    assert guard.pressed(51, 1_000, marked=False)
    assert not guard.pressed(51, 1_030, marked=False)  # pressed again before its release
    assert not guard.pressed(52, 1_040, marked=True)  # the system says it repeats
    guard.released(51, 1_100, marked=False)
    assert not guard.pressed(51, 1_100 + REPEAT_GAP_MS - 1, marked=False)  # release + press
    guard.released(51, 1_200, marked=False)
    assert guard.pressed(51, 1_200 + REPEAT_GAP_MS, marked=False)  # lifted by a finger


def test_a_repeats_release_and_unknown_times_leave_the_key_down():
    guard = RepeatGuard()
    assert guard.pressed(51, 0, marked=False)
    guard.released(51, 0, marked=True)  # the release of a repeat: still held
    assert not guard.pressed(51, 0, marked=False)
    guard.released(51, 0, marked=False)  # synthesized events carry no time
    assert guard.pressed(51, 0, marked=False)


def test_losing_the_keyboard_forgets_every_key():
    guard = RepeatGuard()
    guard.pressed(51, 1_000, marked=False)
    guard.reset()  # its release went to another window
    assert guard.pressed(51, 5_000, marked=False)
