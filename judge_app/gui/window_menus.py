"""The window's menu bar, as data: File, Judge, Lead and View. An entry names the window's
method it calls; a lead's work is refused to a rater's login first; an entry of the Judge menu
runs a key map action and shows its key."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

from judge_app.gui import preferences
from judge_app.gui.theme import THEMES
from judge_app.judging.keys import KEYMAP_TITLES, KEYMAPS, key_label, keys_of

Shortcut = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class Entry:
    """A menu entry: its ``title``, the window's method it calls (``slot``, a dotted path
    from the window), its ``shortcut``, and for a lead's work what a rater's login is told
    it cannot do (``lead``)."""

    name: str
    title: str
    slot: str
    shortcut: Shortcut = None
    lead: str | None = None
    argument: str | None = None  # the one the slot is called with


FILE = (
    Entry("open", "&Open database…", "opening.ask_open_database", QKeySequence.StandardKey.Open),
    Entry("new", "&New database…", "opening.ask_new_database", QKeySequence.StandardKey.New),
    Entry("demo", "Open the &demo", "opening.open_demo"),
    None,
    Entry("import", "&Import…", "show_dialog", "Ctrl+I", argument="import"),
    Entry("export", "&Export…", "show_dialog", "Ctrl+E", argument="export"),
    Entry("report", "Export &report…", "analysis.ask_report", "Ctrl+Shift+E", "export the report"),
    None,
    Entry("close", "C&lose database", "close_database"),
    None,
    Entry("quit", "&Quit", "close", QKeySequence.StandardKey.Quit),
)
"""File; the demo's entry only where the window can build the demo. None: a separator."""
LEAD = tuple(
    Entry(name, title, "show_dialog", argument=name)
    for name, title in (
        ("assign", "&Assign queries…"),
        ("rubric", "&Rubric…"),
        ("pool", "&Pooling…"),
        ("gold", "&Gold items…"),
        ("quality", "&Quality checks…"),
        ("autojudge", "Automatic &judge…"),
        ("ensemble", "Com&bine judges…"),
        ("fetch", "&Fetch results…"),
    )
)
PAGES = (
    Entry("judging", "&Judging", "show_judging", "Ctrl+1"),
    Entry("pairs", "Compare &pairs", "pair_page.show", "Ctrl+6"),
    Entry(
        "evaluation",
        "&Evaluation (NDCG)",
        "analysis.show_evaluation",
        "Ctrl+2",
        "open the evaluation",
    ),
    Entry("agreement", "&Agreement", "analysis.show_agreement", "Ctrl+3", "open the agreement"),
    Entry("raters", "&Raters", "analysis.show_raters", "Ctrl+4", "open the raters"),
    Entry(
        "calibration",
        "A&utomatic judges",
        "analysis.show_calibration",
        "Ctrl+5",
        "open the automatic judges",
    ),
)
"""View's pages."""
JUDGE = (
    *((f"grade{grade}", f"Grade &{grade}") for grade in range(6)),
    None,
    ("clear", "C&lear grade"),
    ("skip", "&Skip (cannot judge)"),
    ("note", "&Note…"),
    ("open_url", "&Open the web page"),
    None,
    ("undo", "&Undo"),
    ("redo", "&Redo"),
    None,
    ("next", "Next result"),
    ("previous", "Previous result"),
    ("first", "First result"),
    ("last", "Last result"),
    ("next_unfinished", "Next &unfinished query"),
    ("next_query", "Next &query"),
    ("previous_query", "Pre&vious query"),
    ("find_query", "&Find a query…"),
    None,
)
"""Judge: the key map's actions by name, with their titles (the key shown beside each)."""


class MenuWindow(Protocol):
    """What the menus need of the window (``gui.window.MainWindow``)."""

    keymap_name: str

    @property
    def demo(self) -> object: ...

    def refused(self, what: str) -> bool: ...

    def run_key_action(self, name: str) -> None: ...

    def show_chooser(self) -> None: ...

    def show_queue(self, shown: bool) -> None: ...

    def set_compact_rubric(self, compact: bool) -> None: ...

    def set_keymap(self, name: str) -> None: ...

    def set_theme(self, name: str) -> None: ...


class WindowMenus(QObject):
    """The menus of ``window`` on ``bar``, and their actions by name."""

    def __init__(self, window: MenuWindow, bar: QMenuBar, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window
        file = bar.addMenu("&File")
        entries = [entry for entry in FILE if entry is None or entry.name != "demo" or window.demo]
        self.file_actions = self._entries(file, entries)
        self.close_database_action = self.file_actions["close"]
        judge = bar.addMenu("&Judge")
        self.judge_actions: dict[str, QAction] = {}
        for item in JUDGE:
            if item is None:
                judge.addSeparator()
            else:
                self._key_action(judge, *item)
        self.judge_actions["change_rater"] = self._add(judge, "Change &rater…", window.show_chooser)
        self.lead_actions = self._entries(bar.addMenu("&Lead"), LEAD)
        view = bar.addMenu("&View")
        self.page_actions = self._entries(view, PAGES)
        view.addSeparator()
        self.queue_action = self._toggle(view, "&Queue pane", "show_queue", window.show_queue)
        self.queue_action.setShortcut("Ctrl+Shift+Q")
        self.compact_action = self._toggle(
            view, "&Compact rubric", "compact_rubric", window.set_compact_rubric
        )
        view.addSeparator()
        self._key_action(view, "help", "&Keyboard shortcuts")
        self.keymap_actions = self._choices(
            view.addMenu("Key &map"), KEYMAP_TITLES, window.keymap_name, window.set_keymap
        )
        themes = {name: name.capitalize() for name in THEMES}
        self.theme_actions = self._choices(view.addMenu("&Theme"), themes, None, window.set_theme)

    def update(self, judging: bool, database: bool) -> None:
        """Enable the Judge menu where a rater is ``judging``, the rest where a ``database``
        is open and no work runs."""
        for action in self.judge_actions.values():
            action.setEnabled(judging)
        self.judge_actions["change_rater"].setEnabled(database)
        kept = ("open", "new", "demo", "quit")
        for name, action in self.file_actions.items():
            if name not in kept:
                action.setEnabled(database)
        for action in (*self.lead_actions.values(), *self.page_actions.values()):
            action.setEnabled(database)

    def label_keys(self) -> None:
        """Name each key map action's key, in the window's key map, beside its title."""
        for name, action in self.judge_actions.items():
            if name != "change_rater":
                title = action.text().split("\t")[0]
                keys = keys_of(KEYMAPS[self.window.keymap_name], name)
                action.setText(f"{title}\t{key_label(keys[0])}" if keys else title)

    def _entries(self, menu: QMenu, entries: Iterable[Entry | None]) -> dict[str, QAction]:
        actions: dict[str, QAction] = {}
        for entry in entries:
            if entry is None:
                menu.addSeparator()
                continue
            slot = self._slot(entry.slot, entry.argument)
            if entry.lead is not None:
                slot = self._as_lead(entry.lead, slot)
            actions[entry.name] = self._add(menu, entry.title, slot, entry.shortcut)
        return actions

    def _slot(self, path: str, argument: str | None) -> Callable[[], object]:
        """The window's method at the dotted ``path``, looked up when it is called (with
        ``argument`` where there is one)."""

        def call() -> object:
            found: object = self.window
            for part in path.split("."):
                found = getattr(found, part)
            assert callable(found), path
            return found() if argument is None else found(argument)

        return call

    def _as_lead(self, what: str, slot: Callable[[], object]) -> Callable[[], object]:
        """``slot``, unless the database's login is a rater's, who cannot do ``what``."""
        return lambda: None if self.window.refused(what) else slot()

    def _add(
        self, menu: QMenu, title: str, slot: Callable[[], object], shortcut: Shortcut = None
    ) -> QAction:
        action = menu.addAction(title)
        action.triggered.connect(lambda _checked=False: slot())
        if shortcut is not None:
            action.setShortcut(shortcut)
        return action

    def _key_action(self, menu: QMenu, name: str, title: str) -> None:
        """A menu entry for a key map action; the key is shown, the key map handles it."""
        self.judge_actions[name] = self._add(menu, title, lambda: self.window.run_key_action(name))
        self.label_keys()

    def _toggle(self, menu: QMenu, title: str, name: str, apply: Callable[[bool], None]) -> QAction:
        """A checkable View option kept in the preferences (``show_queue`` is on by default)."""
        action = menu.addAction(title)
        action.setCheckable(True)
        on = not preferences.flag("hide_queue") if name == "show_queue" else preferences.flag(name)
        action.setChecked(on)
        apply(on)

        def toggled(checked: bool) -> None:
            if name == "show_queue":
                preferences.set_flag("hide_queue", not checked)
            else:
                preferences.set_flag(name, checked)
            apply(checked)

        action.toggled.connect(toggled)
        return action

    def _choices(
        self,
        menu: QMenu,
        titles: dict[str, str],
        checked: str | None,
        choose: Callable[[str], None],
    ) -> dict[str, QAction]:
        """One checkable entry per name, one of them checked at a time."""
        group = QActionGroup(self)
        actions: dict[str, QAction] = {}
        for name, title in titles.items():
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(name == checked)
            action.triggered.connect(lambda _checked=False, n=name: choose(n))
            group.addAction(action)
            actions[name] = action
        return actions
