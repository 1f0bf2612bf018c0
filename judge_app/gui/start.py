"""The start page: open or create a database, open the demo, or pick a recent database."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from judge_app.gui import preferences
from judge_app.gui.delegates import TwoLineDelegate
from judge_app.gui.models import Role

PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 40  # the recent entry as stored


def recent_entry_exists(name: str) -> bool:
    """A recent database can still be opened: a URL, or a file that is still there."""
    return "://" in name or Path(name).is_file()


def recent_entry_label(name: str) -> tuple[str, str]:
    """A recent database's two lines: the file name and its folder, or for a URL the database
    name and where it is (``judging`` / ``PostgreSQL · lead@db.example.org``)."""
    if "://" not in name:
        return Path(name).name, str(Path(name).parent)
    url = urlsplit(name)
    engine = url.scheme.split("+")[0]
    kind = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}.get(engine, engine)
    where = f"{url.username}@{url.hostname}" if url.username else (url.hostname or "")
    return url.path.lstrip("/") or name, " · ".join(part for part in (kind, where) if part)


class ActionCard(QPushButton):
    """A large button with a glyph, a title and a line of description."""

    def __init__(self, glyph: str, title: str, text: str, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setProperty("class", "startAction")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(78)
        self.setAccessibleName(title)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(14)
        icon = QLabel(glyph)
        icon.setObjectName("startGlyph")
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        icon.setFixedSize(40, 40)
        words = QVBoxLayout()
        words.setSpacing(2)
        heading = QLabel(title)
        heading.setObjectName("startActionTitle")
        description = QLabel(text)
        description.setObjectName("startActionText")
        description.setWordWrap(True)
        words.addStretch(1)
        words.addWidget(heading)
        words.addWidget(description)
        words.addStretch(1)
        layout.addWidget(icon, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(words, 1)
        for child in (icon, heading, description):
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)


class StartPage(QWidget):
    """What the window shows without a database. It asks, the window opens: a database file
    (``openRequested``), a new one (``newRequested``), the demo (``demoRequested``) or a recent
    one (``recentChosen``, its path or URL)."""

    openRequested = Signal()
    newRequested = Signal()
    demoRequested = Signal()
    recentChosen = Signal(str)

    def __init__(self, demo_available: bool) -> None:
        super().__init__()
        self.setObjectName("startPage")
        page = QWidget()  # scrolled on a small screen, so the window never outgrows the screen
        scroll = QScrollArea()
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.viewport().setAutoFillBackground(False)
        page.setAutoFillBackground(False)
        around = QVBoxLayout(self)
        around.setContentsMargins(0, 0, 0, 0)
        around.addWidget(scroll)
        outer = QGridLayout(page)
        outer.setContentsMargins(40, 32, 40, 32)
        content = QWidget()
        content.setObjectName("startContent")
        content.setMaximumWidth(960)
        content.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        outer.addWidget(content, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)

        title = QLabel("judge_app")
        title.setObjectName("startTitle")
        tagline = QLabel(
            "Relevance judging and ranking evaluation: grade search results 0–5, "
            "measure agreement, compute NDCG."
        )
        tagline.setObjectName("startTagline")
        tagline.setWordWrap(True)
        layout.addWidget(title)
        layout.addSpacing(4)
        layout.addWidget(tagline)
        layout.addSpacing(20)

        self.error = QLabel()
        self.error.setObjectName("startError")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        layout.addWidget(self.error)
        layout.addSpacing(12)

        columns = QHBoxLayout()
        columns.setSpacing(32)
        layout.addLayout(columns)

        start = QVBoxLayout()
        start.setContentsMargins(0, 0, 0, 0)
        start.setSpacing(10)
        start.addWidget(_caption("Start"))
        self.open_button = ActionCard(
            "↗", "Open database…", "A judge_app database file (.sqlite)", "startOpen"
        )
        self.new_button = ActionCard(
            "+",
            "New database…",
            "An empty database; then import queries, documents and runs",
            "startNew",
        )
        self.demo_button = ActionCard(
            "▶",
            "Open the demo",
            "16 queries, two runs and three raters' grades, to try judging",
            "startDemo",
        )
        self.open_button.clicked.connect(self.openRequested)
        self.new_button.clicked.connect(self.newRequested)
        self.demo_button.clicked.connect(self.demoRequested)
        self.demo_button.setVisible(demo_available)
        for button in (self.open_button, self.new_button, self.demo_button):
            start.addWidget(button)
        start.addStretch(1)
        start_column = QWidget()
        start_column.setFixedWidth(380)
        start_column.setLayout(start)
        columns.addWidget(start_column)

        recent = QVBoxLayout()
        recent.setSpacing(10)
        recent.addWidget(_caption("Recent databases"))
        self.recent_list = QListWidget()
        self.recent_list.setObjectName("recentList")
        self.recent_list.setItemDelegate(TwoLineDelegate(Role.URL, parent=self.recent_list))
        self.recent_list.setUniformItemSizes(True)
        self.recent_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.recent_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.recent_list.setCursor(Qt.CursorShape.PointingHandCursor)
        self.recent_list.itemClicked.connect(self._open_item)
        self.recent_list.itemActivated.connect(self._open_item)
        self.recent_empty = QLabel(
            "No recent databases yet. A database you open or create is listed here."
        )
        self.recent_empty.setObjectName("recentEmpty")
        self.recent_empty.setWordWrap(True)
        self.recent_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # as tall as the three cards beside it
        for widget in (self.recent_list, self.recent_empty):
            widget.setFixedHeight(3 * 78 + 2 * 10)
            recent.addWidget(widget)
        hint = QLabel(
            "A team shares one PostgreSQL database; open it with<br>"
            "<code>judge-app gui postgresql+psycopg://user@host/db</code>"
        )
        hint.setObjectName("startHint")
        hint.setWordWrap(True)
        recent.addWidget(hint)
        recent.addStretch(1)
        columns.addLayout(recent, 1)
        content.setMinimumWidth(820)
        content.setMinimumHeight(420)

    def refresh(self, error: str | None = None) -> None:
        """List the recent databases (those gone are shown, not openable) and any error."""
        self.recent_list.clear()
        for name in preferences.recent_databases():
            exists = recent_entry_exists(name)
            label, where = recent_entry_label(name)
            item = QListWidgetItem(label)
            item.setData(PATH_ROLE, name)
            item.setData(Role.URL, where if exists else f"{where}  ·  not found")
            item.setToolTip(name)
            item.setSizeHint(QSize(200, 56))
            if not exists:
                item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.recent_list.addItem(item)
        has_recent = self.recent_list.count() > 0
        self.recent_list.setVisible(has_recent)
        self.recent_empty.setVisible(not has_recent)
        self.error.setText(error or "")
        self.error.setVisible(bool(error))
        first = next(
            (
                self.recent_list.item(row)
                for row in range(self.recent_list.count())
                if self.recent_list.item(row).flags() & Qt.ItemFlag.ItemIsEnabled
            ),
            None,
        )
        if first is not None:
            self.recent_list.setCurrentItem(first)
            self.recent_list.setFocus()
        else:
            self.open_button.setFocus()

    def recent_names(self) -> list[str]:
        return [
            self.recent_list.item(row).data(PATH_ROLE) for row in range(self.recent_list.count())
        ]

    def _open_item(self, item: QListWidgetItem) -> None:
        if item.flags() & Qt.ItemFlag.ItemIsEnabled:
            self.recentChosen.emit(item.data(PATH_ROLE))


def _caption(text: str) -> QLabel:
    caption = QLabel(text.upper())
    caption.setObjectName("paneCaption")
    return caption
