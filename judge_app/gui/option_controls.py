"""Controls bound to declared options (``judge_app.option_declarations``), as glue binds its
widgets to state by name: each takes its items, default and tooltip from its option's
declaration, gives the option's value (``option_value``), keeps and restores it (``setting``,
``restore``), and says when the user changed it (``on_change``). A page lists its controls once
and builds, reads and restores them through this one interface."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QMenu, QSpinBox, QStyle, QToolButton

from judge_app.errors import UsageError
from judge_app.option_declarations import Option

Slot = Callable[[], None]


class OptionControl(Protocol):
    """What a page asks of a control bound to ``option``."""

    option: Option[Any]

    def option_value(self) -> Any:
        """The option's value as the control gives it (what the command line's would be)."""

    def setting(self) -> object:
        """The value as the page keeps it between sessions."""

    def restore(self, value: object) -> None:
        """Show ``value`` as :meth:`setting` gave it (a text, from QSettings), asking for
        nothing to be computed; a value not offered yet is shown once it is."""

    def on_change(self, slot: Slot) -> None:
        """Call ``slot`` when the user changes the value."""


def tooltip_of(option: Option[Any]) -> str:
    """The option's help as a control's tooltip: a sentence."""
    return option.help[:1].upper() + option.help[1:]


class ChoiceBox(QComboBox):
    """A drop-down of an option's choices, in the window's words (the value as each item's
    data), with more ``items`` where the page offers them (a rater's own grades)."""

    def __init__(self, option: Option[Any], items: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.option = option
        self.setObjectName(f"{option.name}Combo")
        self.setToolTip(tooltip_of(option))
        self._items = dict(option.choices if items is None else items)
        self._wanted: str | None = None  # restored before it was offered
        self.offer({})
        if option.default is not None:
            self.setCurrentIndex(max(self.findData(option.default), 0))

    def offer(self, more: Mapping[str, str]) -> bool:
        """Offer the choices and ``more``, keeping the value chosen (or choosing the one
        restored, once it is offered); whether the value changed."""
        before = self.currentData()
        wanted, self._wanted = self._wanted, None
        self.blockSignals(True)
        self.clear()
        for value, text in {**self._items, **more}.items():
            self.addItem(text, value)
        index = self.findData(wanted) if wanted is not None else -1
        self.setCurrentIndex(max(index if index >= 0 else self.findData(before), 0))
        self.blockSignals(False)
        return self.currentData() != before

    def option_value(self) -> Any:
        return self.currentData()

    def setting(self) -> object:
        return self.currentData()

    def restore(self, value: object) -> None:
        index = self.findData(str(value))
        self._wanted = str(value) if index < 0 else None
        if index < 0:
            return
        self.blockSignals(True)
        self.setCurrentIndex(index)
        self.blockSignals(False)

    def on_change(self, slot: Slot) -> None:
        self.currentIndexChanged.connect(slot)


class CutoffSpin(QSpinBox):
    """A cut-off: 1 to ``highest``, or all (0, shown as "all"; the value None)."""

    def __init__(self, option: Option[int], highest: int = 100) -> None:
        super().__init__()
        self.option = option
        self.setObjectName(f"{option.name}Spin")
        self.setToolTip(tooltip_of(option))
        self.setRange(0, highest)
        self.setSpecialValueText("all")
        self.setValue(option.default)

    def option_value(self) -> int | None:
        return self.value() or None

    def setting(self) -> object:
        return self.value()

    def restore(self, value: object) -> None:
        if str(value).isdigit():
            self.blockSignals(True)
            self.setValue(int(str(value)))
            self.blockSignals(False)

    def on_change(self, slot: Slot) -> None:
        self.valueChanged.connect(slot)


class ChoiceCheck(QCheckBox):
    """A check box of a two-choice option, captioned by its label: checked is the first
    choice (``prefer``), unchecked the second (``ignore``)."""

    def __init__(self, option: Option[str]) -> None:
        super().__init__(option.label)
        self.option = option
        self.setObjectName(f"{option.name}Check")
        self.setToolTip(tooltip_of(option))
        self.on, self.off = option.choices
        self.setChecked(option.default == self.on)

    def option_value(self) -> str:
        return self.on if self.isChecked() else self.off

    def setting(self) -> object:
        return self.isChecked()

    def restore(self, value: object) -> None:
        self.blockSignals(True)
        self.setChecked(str(value).lower() in ("true", self.on))
        self.blockSignals(False)

    def on_change(self, slot: Slot) -> None:
        self.toggled.connect(slot)


class NameMenu(QToolButton):
    """A drop-down of checkable names (runs or raters); none checked means all."""

    changed = Signal()

    def __init__(self, option: Option[Any]) -> None:
        super().__init__()
        self.option = option
        self.setObjectName(f"{option.name}Menu")
        self.setToolTip(tooltip_of(option))
        self.noun = option.label.lower()
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setMenu(QMenu(self))
        self.actions_: dict[str, QAction] = {}
        self._wanted: set[str] = set()  # to choose once offered (restored settings)
        self._update_text()

    def want(self, names: list[str]) -> None:
        """Choose ``names`` when they are next offered (those that are)."""
        self._wanted = set(names)

    def set_names(self, names: list[str]) -> bool:
        """Offer ``names``, keeping what was chosen among them (or choosing those wanted);
        True if the choice changed."""
        before = self.chosen()
        chosen = set(self.chosen() or ()) | self._wanted
        self._wanted = set()
        menu = self.menu()
        menu.clear()
        self.actions_ = {}
        for name in names:
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in chosen)
            action.toggled.connect(self._toggled)
            self.actions_[name] = action
        self._update_text()
        return self.chosen() != before

    def chosen(self) -> tuple[str, ...] | None:
        names = tuple(name for name, action in self.actions_.items() if action.isChecked())
        return names or None

    def option_value(self) -> tuple[str, ...] | None:
        return self.chosen()

    def setting(self) -> object:
        return list(self.chosen() or ())

    def restore(self, value: object) -> None:
        names = value if isinstance(value, (list, tuple)) else []
        self.want([str(name) for name in names])

    def on_change(self, slot: Slot) -> None:
        self.changed.connect(slot)

    def _toggled(self, _on: bool) -> None:
        self._update_text()
        self.changed.emit()

    def _update_text(self) -> None:
        chosen = self.chosen()
        self.setText(f"All {self.noun}" if not chosen else ", ".join(chosen))

    def sizeHint(self) -> QSize:
        """Room for the text and, beside it, the drop-down arrow (which the style would
        draw over the text's end)."""
        hint = super().sizeHint()
        arrow = self.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator, None, self)
        return QSize(hint.width() + arrow, hint.height())


class ParsedEdit(QLineEdit):
    """A line of text that ``parse`` reads (a usage error while it is wrong): the field says
    what is wrong in its tooltip (its ``error`` property set) and a change counts only once
    the text reads."""

    edited = Signal()

    def __init__(self, option: Option[Any], parse: Callable[[str], Any]) -> None:
        super().__init__()
        self.option = option
        self.parse = parse
        self.setObjectName(f"{option.name}Edit")
        self.setToolTip(tooltip_of(option))
        self.setClearButtonEnabled(True)
        self.textEdited.connect(self._edited)

    def option_value(self) -> Any:
        """What the text reads as; what an empty text reads as while it is wrong."""
        try:
            return self.parse(self.text().strip())
        except UsageError:
            return self.parse("")

    def setting(self) -> object:
        return self.text()

    def restore(self, value: object) -> None:
        self.setText(str(value or ""))
        self._check()

    def on_change(self, slot: Slot) -> None:
        self.edited.connect(slot)

    def _edited(self, _text: str) -> None:
        if self._check():
            self.edited.emit()

    def _check(self) -> bool:
        """Say whether the text reads, and if not why (the field is the option: the reason
        alone); whether it does."""
        try:
            self.parse(self.text().strip())
        except UsageError as error:
            self._show(error.reason)
            return False
        self._show(None)
        return True

    def _show(self, problem: str | None) -> None:
        self.setProperty("error", problem is not None)
        self.setToolTip(problem if problem is not None else tooltip_of(self.option))
        self.style().unpolish(self)
        self.style().polish(self)
