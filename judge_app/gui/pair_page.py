"""The window's pair screen (preference judging): built the first time a rater opens it, with a
session of the rater judging read on a worker, and read again after the campaign changes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QStackedWidget

from judge_app.gui.error_words import error_text

if TYPE_CHECKING:
    from judge_app.gui.judging import JudgingScreen
    from judge_app.gui.opening import AfterPaint
    from judge_app.gui.pair_screen import PairScreen
    from judge_app.judging.pair_session import PairSession
    from judge_app.store import Database


class PairHost(Protocol):
    """What the pair page needs of the window (``gui.window.MainWindow``)."""

    pages: QStackedWidget
    judging: JudgingScreen
    after_paint: AfterPaint

    @property
    def database(self) -> Database | None: ...

    def show_message(self, text: str, error: bool = False) -> None: ...

    def toggle_shortcuts(self) -> None: ...

    def show_judging(self) -> None: ...


class PairPage(QObject):
    """View ▸ Compare pairs, for ``window``'s rater."""

    def __init__(self, window: PairHost, parent: QObject) -> None:
        super().__init__(parent)
        self.window = window
        self.built: PairScreen | None = None

    @property
    def screen(self) -> PairScreen:
        """The pair screen, built the first time it is asked for."""
        if self.built is None:
            from judge_app.gui.pair_screen import PairScreen

            window = self.window
            screen = PairScreen()
            screen.message.connect(window.show_message)
            screen.helpRequested.connect(window.toggle_shortcuts)
            screen.gradesRequested.connect(window.show_judging)
            window.pages.addWidget(screen)
            self.built = screen
        return self.built

    def show(self) -> None:
        """Show the pair screen for the rater judging (their session read on a worker while
        the page says so; kept while the rater and the database are the same)."""
        window = self.window
        session = window.judging.session
        if window.database is None or session is None:
            window.show_message("Choose who is judging first: View ▸ Judging", error=True)
            return
        from judge_app.judging.pair_session import PairSession

        screen, database = self.screen, session.database
        rater_id, rater_name = session.rater_id, session.rater_name
        kept = screen.session
        window.pages.setCurrentWidget(screen)
        if kept is not None and kept.database is database and kept.rater_id == rater_id:
            screen.setFocus()
            return
        screen.set_session(None)
        screen.header.show_words(f"Opening {rater_name}'s pairs…", "Reading the queries.")
        window.after_paint.run(
            lambda _worker: PairSession(database, rater_id, rater_name),
            self._opened,
            lambda error: window.show_message(error_text(error), error=True),
        )

    def _opened(self, session: PairSession) -> None:
        if session.database is not self.window.database:
            return  # read for a database closed meanwhile
        self.screen.set_session(session)
        overall = session.overall_progress()
        self.window.show_message(
            f"Comparing pairs as {session.rater_name}: {overall.done} of at most {overall.total} "
            "pairs compared. Press ? for the shortcuts, Esc to grade."
        )

    def refresh(self) -> None:
        """Read the session again (its queue, the pool and the plan's settings may have
        changed), once its choices on their way are written: at once where the screen is
        shown, else when it is next shown."""
        screen = self.built
        if screen is None or screen.session is None:
            return
        if screen.in_flight:
            screen.idle.connect(self.refresh, Qt.ConnectionType.SingleShotConnection)
            return
        screen.set_session(None)
        if self.window.pages.currentWidget() is screen:
            self.show()

    def close(self) -> None:
        """The database closes: the screen lets go of its session."""
        if self.built is not None:
            self.built.set_session(None)
