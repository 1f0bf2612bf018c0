"""The main window: menus, the rater chooser, the judging screen, the status bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from judge_app.errors import JudgeAppError
from judge_app.gui import preferences
from judge_app.gui.judging import JudgingScreen
from judge_app.gui.keymap import KEYMAP_TITLES, KEYMAPS, key_label, keys_of
from judge_app.gui.overlay import ShortcutOverlay
from judge_app.gui.session import JudgingSession
from judge_app.gui.theme import THEMES, apply_theme, stylesheet
from judge_app.store import Database
from judge_app.store.people import add_rater, find_rater
from judge_app.store.queue import active_rater_names
from judge_app.store.settings import scale

WINDOW_SIZE = (1280, 800)
_INPUT_EVENTS = (
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
)


class RaterChooser(QWidget):
    """Who is judging: pick a rater of the database or add one. Inline, never a dialog."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.setObjectName("raterChooser")
        outer = QGridLayout(self)
        card = QFrame()
        card.setObjectName("chooserCard")
        card.setFixedWidth(460)
        outer.addWidget(card, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(card)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        title = QLabel("Who is judging?")
        title.setObjectName("chooserTitle")
        self.database_label = QLabel()
        self.database_label.setObjectName("chooserText")
        self.database_label.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(self.database_label)
        layout.addSpacing(8)
        self.raters = QComboBox()
        self.raters.setObjectName("raterCombo")
        self.start = QPushButton("Start judging")
        self.start.setObjectName("startJudging")
        self.start.setDefault(True)
        self.start.clicked.connect(self._start)
        pick = QHBoxLayout()
        pick.addWidget(self.raters, 1)
        pick.addWidget(self.start)
        layout.addLayout(pick)
        layout.addSpacing(6)
        other = QLabel("New rater")
        other.setObjectName("chooserText")
        layout.addWidget(other)
        self.new_name = QLineEdit()
        self.new_name.setObjectName("newRaterName")
        self.new_name.setPlaceholderText("Name of the new rater")
        self.new_name.returnPressed.connect(self._add)
        self.add = QPushButton("Add and start")
        self.add.setObjectName("addRater")
        self.add.clicked.connect(self._add)
        create = QHBoxLayout()
        create.addWidget(self.new_name, 1)
        create.addWidget(self.add)
        layout.addLayout(create)
        self.error = QLabel()
        self.error.setObjectName("statusError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)

    def refresh(self, names: list[str], preferred: str | None, database: str) -> None:
        self.database_label.setText(
            f"Judging in {database}. Your grades stay yours: nobody sees them while judging, "
            "and you see no one else's."
        )
        self.raters.clear()
        self.raters.addItems(names)
        if preferred in names:
            self.raters.setCurrentText(preferred)
        self.start.setEnabled(bool(names))
        self.error.hide()
        (self.raters if names else self.new_name).setFocus()

    def _start(self) -> None:
        if self.raters.currentText():
            self._window.choose_rater(self.raters.currentText())

    def _add(self) -> None:
        name = self.new_name.text().strip()
        try:
            self._window.choose_rater(name, create=True)
        except JudgeAppError as error:
            self.error.setText(str(error))
            self.error.show()


class MainWindow(QMainWindow):
    """judge_app's window on one database."""

    def __init__(self, database: Database) -> None:
        super().__init__()
        self.database = database
        self.setObjectName("mainWindow")
        self.setWindowTitle(f"judge_app — {Path(database.describe()).name}")
        self.resize(*WINDOW_SIZE)
        self.pages = QStackedWidget()
        self.chooser = RaterChooser(self)
        self.judging = JudgingScreen()
        self.pages.addWidget(self.chooser)
        self.pages.addWidget(self.judging)
        self.setCentralWidget(self.pages)
        self.overlay = ShortcutOverlay(self.pages)
        self.status_label = QLabel()
        self.status_label.setObjectName("statusMessage")
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().setSizeGripEnabled(False)
        self.judging.message.connect(self.show_message)
        self.judging.helpRequested.connect(self.toggle_shortcuts)
        self.keymap_name = preferences.keymap_name()
        self.judging.set_keymap(KEYMAPS[self.keymap_name])
        self._build_menus()
        self.set_theme(preferences.theme_name())
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    # menus -----------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        menus = self.menuBar()
        file = menus.addMenu("&File")
        self._add(file, "&Open database…", self._open_database)
        self._add(file, "&New database…", self._new_database)
        file.addSeparator()
        self._add(file, "&Close window", self.close)

        judge = menus.addMenu("&Judge")
        self.judge_actions: dict[str, QAction] = {}
        for grade in range(6):
            self._judge_action(judge, f"grade{grade}", f"Grade &{grade}")
        judge.addSeparator()
        for name, title in (
            ("clear", "C&lear grade"),
            ("skip", "&Skip (cannot judge)…"),
            ("note", "&Note…"),
        ):
            self._judge_action(judge, name, title)  # fmt: skip
        judge.addSeparator()
        self._judge_action(judge, "undo", "&Undo")
        self._judge_action(judge, "redo", "&Redo")
        judge.addSeparator()
        for name, title in (
            ("next", "Next result"),
            ("previous", "Previous result"),
            ("next_query", "Next &query"),
            ("previous_query", "Pre&vious query"),
        ):
            self._judge_action(judge, name, title)  # fmt: skip
        judge.addSeparator()
        self._add(judge, "Change &rater…", self.show_chooser)

        view = menus.addMenu("&View")
        self._judge_action(view, "help", "&Keyboard shortcuts")
        keys = view.addMenu("Key &map")
        group = QActionGroup(self)
        self.keymap_actions: dict[str, QAction] = {}
        for name, title in KEYMAP_TITLES.items():
            action = keys.addAction(title)
            action.setCheckable(True)
            action.setChecked(name == self.keymap_name)
            action.triggered.connect(lambda _checked=False, n=name: self.set_keymap(n))
            group.addAction(action)
            self.keymap_actions[name] = action
        themes = view.addMenu("&Theme")
        theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for name in THEMES:
            action = themes.addAction(name.capitalize())
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, n=name: self.set_theme(n))
            theme_group.addAction(action)
            self.theme_actions[name] = action

    def _add(self, menu, title: str, slot) -> QAction:  # type: ignore[no-untyped-def]
        action = menu.addAction(title)
        action.triggered.connect(slot)
        return action

    def _judge_action(self, menu, name: str, title: str) -> None:  # type: ignore[no-untyped-def]
        """A menu entry for a keyboard action; the key is shown, the key map handles it."""
        action = menu.addAction(title)
        action.triggered.connect(
            lambda _checked=False, n=name: (
                self.toggle_shortcuts() if n == "help" else self.judging.run_action(n)
            )
        )
        self.judge_actions[name] = action
        self._label_action(name)

    def _label_action(self, name: str) -> None:
        action = self.judge_actions[name]
        title = action.text().split("\t")[0]
        keys = keys_of(KEYMAPS[self.keymap_name], name)
        action.setText(f"{title}\t{key_label(keys[0])}" if keys else title)

    # state -----------------------------------------------------------------------------------

    def set_keymap(self, name: str) -> None:
        self.keymap_name = name
        preferences.set_keymap_name(name)
        self.keymap_actions[name].setChecked(True)
        self.judging.set_keymap(KEYMAPS[name])
        for action in self.judge_actions:
            self._label_action(action)
        self.show_message(f"Key map: {KEYMAP_TITLES[name]}")

    def set_theme(self, name: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        self.setStyleSheet(stylesheet(name))
        self.theme = name
        preferences.set_theme_name(name)
        self.theme_actions[name].setChecked(True)
        self.judging.apply_palette()

    def show_message(self, text: str, error: bool = False) -> None:
        self.status_label.setObjectName("statusError" if error else "statusMessage")
        self.status_label.setStyleSheet(self.status_label.styleSheet())
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)
        self.status_label.setText(text)

    def status_text(self) -> str:
        return self.status_label.text()

    def toggle_shortcuts(self) -> None:
        if self.overlay.isVisible():
            self.overlay.hide()
            self.judging.result_view.setFocus()
            return
        session = self.judging.session
        labels = (
            [label.label for label in session.scale]
            if session
            else [label.label for label in _scale(self.database)]
        )
        self.overlay.show_keymap(self.keymap_name, KEYMAPS[self.keymap_name], labels)

    # raters ----------------------------------------------------------------------------------

    def show_chooser(self) -> None:
        with self.database.reading() as session:
            names = active_rater_names(session)
        described = self.database.describe()
        self.chooser.refresh(names, preferences.last_rater(described), described)
        self.judging.set_session(None)
        self.pages.setCurrentWidget(self.chooser)
        self.show_message("Choose who is judging")

    def choose_rater(self, name: str, create: bool = False) -> None:
        """Start judging as ``name``; with ``create``, a rater the database lacks is added."""
        with self.database.transaction() as session:
            rater = find_rater(session, name)
            if rater is None:
                if not create:
                    raise JudgeAppError(f"no rater called {name!r}")
                rater = add_rater(session, name)
            rater_id, rater_name = rater.id, rater.name
        preferences.remember_rater(self.database.describe(), rater_name)
        self.judging.set_session(JudgingSession(self.database, rater_id, rater_name))
        self.pages.setCurrentWidget(self.judging)
        self.setWindowTitle(
            f"judge_app — {Path(self.database.describe()).name} — judging as {rater_name}"
        )
        session_ = self.judging.session
        assert session_ is not None
        overall = session_.overall_progress()
        self.show_message(
            f"Judging as {rater_name}: {overall.done} of {overall.total} results judged in "
            f"{len(session_.queue)} queries. Press ? for the shortcuts."
        )
        self.judging.result_view.setFocus()

    # files -----------------------------------------------------------------------------------

    def _open_database(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open database", "", "judge_app databases (*.sqlite *.db);;All files (*)"
        )
        if path:
            self._replace_with(path, create=False)

    def _new_database(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "New database", "judging.sqlite", "judge_app databases (*.sqlite)"
        )
        if path:
            self._replace_with(path, create=True)

    def _replace_with(self, path: str, create: bool) -> None:
        from judge_app.store import open_database

        try:
            database = open_database(path, create=create)
        except JudgeAppError as error:
            self.show_message(f"Cannot open {path}: {error}", error=True)
            return
        window = MainWindow(database)
        preferences.add_recent_database(database.describe())
        window.show_chooser()
        window.show()
        self.close()

    # events ----------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT_EVENTS:
            self.judging.timer.touch()
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange:
            self.judging.timer.set_active(self.isActiveWindow())
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        super().closeEvent(event)


def _scale(database: Database):  # type: ignore[no-untyped-def]
    with database.reading() as session:
        return scale(session)
