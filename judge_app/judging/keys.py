"""Keys as data: which key does what on the judging screen, in each of the key maps a rater can
choose. Key names are Qt's portable key-sequence texts ("Ctrl+Z", "Num+1", "?")."""

from __future__ import annotations

from dataclasses import dataclass

SKIP_REASONS = (
    "Page does not load",
    "Language I cannot read",
    "Needs expertise I lack",
    "Query unclear to me",
)
"""The preset reasons a rater gives for a skip with one key (Alt+1 to Alt+4), stored as the
skipped result's note."""


@dataclass(frozen=True)
class Action:
    """Something a rater can do from the keyboard."""

    name: str
    title: str
    repeats: bool = False  # held down, does it act again? Only moving does.


ACTIONS = {
    action.name: action
    for action in (
        *(Action(f"grade{grade}", f"Grade {grade} and go to the next ungraded result")
          for grade in range(6)),
        Action("next", "Next result", repeats=True),
        Action("previous", "Previous result", repeats=True),
        Action("first", "First result"),
        Action("last", "Last result"),
        Action("clear", "Clear the grade"),
        Action("skip", "Skip: cannot judge"),
        *(Action(f"skip_reason{number}", f"Reason: {reason}")
          for number, reason in enumerate(SKIP_REASONS, start=1)),
        Action("note", "Write a note on the result"),
        Action("open_url", "Open the web page"),
        Action("undo", "Undo (this session's changes)"),
        Action("redo", "Redo"),
        Action("next_unfinished", "Next unfinished query"),
        Action("next_query", "Next query"),
        Action("previous_query", "Previous query"),
        Action("find_query", "Find a query in the queue"),
        Action("scroll_down", "Scroll the document down", repeats=True),
        Action("scroll_up", "Scroll the document up", repeats=True),
        Action("help", "Show these shortcuts"),
    )
}  # fmt: skip

_COMMON = {
    "Down": "next",
    "Up": "previous",
    "J": "next",
    "K": "previous",
    "Home": "first",
    "End": "last",
    "Backspace": "clear",
    "Delete": "clear",
    "N": "note",
    "O": "open_url",
    **{f"Alt+{number}": f"skip_reason{number}" for number in range(1, len(SKIP_REASONS) + 1)},
    "Ctrl+Z": "undo",
    "Ctrl+Shift+Z": "redo",
    "Ctrl+Y": "redo",
    "Return": "next_unfinished",
    "Enter": "next_unfinished",
    "Ctrl+Right": "next_query",
    "Ctrl+Left": "previous_query",
    "Space": "scroll_down",
    "PgDown": "scroll_down",
    "Shift+Space": "scroll_up",
    "PgUp": "scroll_up",
    "Ctrl+F": "find_query",
    "?": "help",
    "F1": "help",
}

KEYMAPS: dict[str, dict[str, str]] = {
    "standard": {**{str(grade): f"grade{grade}" for grade in range(6)}, "S": "skip", **_COMMON},
    "home-row": {
        **{key: f"grade{grade}" for grade, key in enumerate("ASDFGH")},
        "X": "skip",
        **_COMMON,
    },
    "numpad": {
        **{f"Num+{grade}": f"grade{grade}" for grade in range(6)},
        **{str(grade): f"grade{grade}" for grade in range(6)},
        "Num+.": "skip",
        "Num+-": "clear",
        "Num+*": "note",
        "Num+Enter": "next_unfinished",
        "Num++": "next_unfinished",
        "S": "skip",
        **_COMMON,
    },
}

KEYMAP_TITLES = {
    "standard": "Standard (0–5)",
    "home-row": "Home row (A S D F G H)",
    "numpad": "Numeric keypad",
}

DEFAULT_KEYMAP = "standard"


PAIR_ACTIONS = {
    action.name: action
    for action in (
        Action("left", "Left result better"),
        Action("right", "Right result better"),
        Action("equal", "Equally good"),
        Action("neither", "Neither is relevant"),
        Action("skip", "Skip: cannot compare"),
        Action("note", "Write a note on the pair"),
        Action("undo", "Undo (this session's choices)"),
        Action("redo", "Redo"),
        Action("next_unfinished", "Next unfinished query"),
        Action("next_query", "Next query"),
        Action("previous_query", "Previous query"),
        Action("find_query", "Find a query in the queue"),
        Action("scroll_down", "Scroll both results down", repeats=True),
        Action("scroll_up", "Scroll both results up", repeats=True),
        Action("grades", "Back to grading"),
        Action("help", "Show these shortcuts"),
    )
}
"""What a rater does on the pair screen, where two results are compared."""
PAIR_KEYMAP = {
    **{key: "left" for key in ("Left", "1", "A")},
    **{key: "right" for key in ("Right", "2", "D")},
    **{key: "equal" for key in ("3", "E", "=")},
    **{key: "neither" for key in ("0", "X")},
    "S": "skip",
    **{key: _COMMON[key] for key in _COMMON if _COMMON[key] in PAIR_ACTIONS},
    "Esc": "grades",
}
"""The pair screen's keys: a side by arrow or number (or A and D under the left hand), equal,
neither, skip; moving between queries, undo and help as on the grading screen."""

ADJUDICATION_KEYMAP = {
    **{key: "undo" for key in ("Ctrl+Z", "Meta+Z")},
    **{key: "gold" for key in ("Ctrl+G", "Meta+G")},
    "?": "help",
    "G": "own_grade",
    "Esc": "cancel",
    **{key: "next_undecided" for key in ("N", "Return", "Enter", "Tab")},
    **{key: "previous_undecided" for key in ("P", "Backtab")},
    "J": "next_row",
    "K": "previous_row",
    **{str(number): f"accept{number}" for number in range(1, 10)},
}
"""The adjudication screen's keys (names as ``KEYMAPS``'): a digit 1–9 accepts that rater's
grade; after G (``own_grade``) a digit 0–5 is the lead's own grade (the screen's mode)."""
ADJUDICATION_REPEATS = frozenset({"next_undecided", "previous_undecided", "next_row",
                                  "previous_row"})  # fmt: skip
"""The adjudication actions a held key repeats: only moving."""


def keys_of(keymap: dict[str, str], action: str) -> list[str]:
    """The keys bound to an action, in the map's order."""
    return [key for key, name in keymap.items() if name == action]


def key_label(key: str) -> str:
    """A key as shown to a rater: single letters in lower case, as they are typed."""
    if len(key) == 1:
        return key.lower()
    return "Enter" if key == "Return" else key.replace("Num+", "Numpad ")


REPEAT_GAP_MS = 30
"""A key pressed again sooner than this after its release was not lifted by a finger: the
window system repeats a held-down key as a release and a press at the same moment."""


class RepeatGuard:
    """Tells a key's first press from the presses a held-down key repeats, also where the
    window system does not mark them (Xvfb, VNC): a key pressed again before its release, or
    within REPEAT_GAP_MS of it, is held down. Keys are ints; times are the window system's
    milliseconds (0: unknown, as for synthesized events)."""

    def __init__(self) -> None:
        self._down: set[int] = set()
        self._released: dict[int, int] = {}

    def pressed(self, key: int, at_ms: int, marked: bool) -> bool:
        """Whether this press of ``key`` is a fresh one (``marked``: the system says it
        repeats)."""
        released = self._released.get(key)
        quick = bool(at_ms) and released is not None and 0 <= at_ms - released < REPEAT_GAP_MS
        fresh = not (marked or key in self._down or quick)
        self._down.add(key)
        return fresh

    def released(self, key: int, at_ms: int, marked: bool) -> None:
        """``key`` went up (unless ``marked`` as the release of a repeat)."""
        if marked:
            return
        self._down.discard(key)
        if at_ms:
            self._released[key] = at_ms

    def reset(self) -> None:
        """Forget every key: the window lost the keyboard, its releases go elsewhere."""
        self._down.clear()
        self._released.clear()
