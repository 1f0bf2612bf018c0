"""Lead pages opened without freezing the window. The stack a page stands on (pandas,
matplotlib, scipy, the use cases, the page's own module) takes seconds to import the first
time: a worker thread imports it while the page says so with a busy bar, and the page's
widgets are then made on the UI thread (tens of milliseconds)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from judge_app.gui.busy_bar import BusyBar
from judge_app.gui.error_words import error_text
from judge_app.gui.workers import Worker

GUI = "judge_app.gui"
QT = ("PySide6", "shiboken6")
STACKS = "judge_app.gui.analysis"
"""Its imports (in its functions too) name every lead page and the use cases behind them: the
first page loaded loads them all, and every other page opens at once."""


_IMPORTS = re.compile(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+[(\w]|import[ \t]+([\w.]+)[ \t]*(?:$|#|as\b))",
    re.M,
)
"""An import statement's module, as the formatter writes them (one ``import x`` per line): a
regular expression, not ``ast.parse``, which would hold the GIL for tens of milliseconds per
module and keep the window from its events meanwhile."""


def stack_of(modules: Iterable[str]) -> list[str]:
    """The modules ``modules`` import (at their top or in their functions), followed through
    the window's own modules, less Qt's (imported long before): what a worker imports. The
    window's modules only define widgets, making none (no widget may be made off the UI
    thread). Read from the source, so the list never falls behind what the pages import."""
    stack: dict[str, None] = {}
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in stack or name.startswith(QT):
            continue
        stack[name] = None
        if not name.startswith(GUI):
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        with open(spec.origin, encoding="utf-8") as source:
            todo += [match[0] or match[1] for match in _IMPORTS.findall(source.read())]
    return list(stack)


def import_all(names: list[str]) -> None:
    """Import each of ``names`` not imported yet."""
    for name in names:
        if name not in sys.modules:
            importlib.import_module(name)


class LoadingPage(QWidget):
    """A page being loaded: what it is, with a busy bar (or why it could not load)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("loadingPage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        self.title = QLabel()
        self.title.setObjectName("loadingTitle")
        self.busy = BusyBar("loadingBusy")
        self.error = QLabel()
        self.error.setObjectName("loadingError")
        self.error.setWordWrap(True)
        layout.addWidget(self.title)
        layout.addWidget(self.busy)
        layout.addWidget(self.error)
        layout.addStretch(1)
        for widget in (self.title, self.error):
            widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def wait_for(self, title: str) -> None:
        self.title.setText(title)
        self.error.hide()
        self.busy.start("Loading pandas, matplotlib and the statistics (once a session)…")

    def failed(self, text: str) -> None:
        self.busy.stop()
        self.error.setText(text)
        self.error.show()


class PageLoader(QObject):
    """Shows a lead page at once: built now if what it stands on is imported, else after a
    worker imported it, with ``page`` (a LoadingPage in ``pages``) shown meanwhile."""

    def __init__(self, pages: QStackedWidget) -> None:
        super().__init__(pages)
        self.pages = pages
        self.page = LoadingPage()
        pages.addWidget(self.page)
        self.waiting: str | None = None  # the title of the page the loading page stands for
        self._loading: dict[str, Worker] = {}  # the worker importing each page's stack

    def show(
        self, title: str, module: str, build: Callable[[], object], show: Callable[[], None]
    ) -> None:
        """Call ``show`` (which shows page ``module``, built by ``build`` if it is not yet) now
        if ``module`` is imported; else show ``title`` loading and, once it is, if the loading
        page is still the one shown then, ``build`` it and in the event loop's next turn
        ``show`` it: both in one turn would keep the window from its events too long."""
        if module in sys.modules:
            self.waiting = None
            show()
            return
        self.waiting = title
        self.page.wait_for(title)
        self.pages.setCurrentWidget(self.page)
        if module in self._loading:
            return
        worker = Worker(lambda _worker: import_all(stack_of([module, STACKS])))
        self._loading[module] = worker
        worker.signals.returned.connect(lambda _none: self._loaded(title, build, show))
        worker.signals.errored.connect(
            lambda error: self.page.failed(f"{title} could not be loaded: {error_text(error)}")
        )
        worker.signals.finished.connect(lambda: self._loading.pop(module, None))
        QThreadPool.globalInstance().start(worker)

    def _loaded(self, title: str, build: Callable[[], object], show: Callable[[], None]) -> None:
        if self._waiting_for(title):
            build()
            QTimer.singleShot(1, lambda: self._built(title, show))  # a timer: events first

    def _built(self, title: str, show: Callable[[], None]) -> None:
        if self._waiting_for(title):
            self.waiting = None
            self.page.busy.stop()
            show()

    def _waiting_for(self, title: str) -> bool:
        return self.pages.currentWidget() is self.page and self.waiting == title
