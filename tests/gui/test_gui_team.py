"""A rater's window on a team database (issue 30): it judges as the rater the login is bound to
and shows no one else; every lead page and tool says in words that a rater's login cannot open
it; a login turned off while judging is said in words, and the grade then stays on screen as
unsaved until it can be written."""

from __future__ import annotations

import pytest
from gui_support import press
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from sqlalchemy import create_engine
from team_support import team

from judge_app.errors import JudgeAppError
from judge_app.gui import preferences
from judge_app.gui.models import Role
from judge_app.store import open_database
from judge_app.store.judgments import current_state

pytestmark = pytest.mark.postgres
__all__ = ["team"]  # fixtures


def _refusal(login: str, what: str) -> str:
    return (
        f"{login} is a rater's login: it cannot {what}, which is a lead's work (connect with a "
        "lead's login)"
    )


def test_a_raters_window_judges_as_the_login_and_opens_no_lead_page(qtbot, open_window, team):
    ana = team.logins["ana"]
    window = open_window(team.url_of("ana"), rater=None)  # no name given: the login's
    assert window.judging.session is not None and window.judging.session.rater_name == ana
    assert window.windowTitle().endswith(f"judging as {ana}")
    # the password is the user's to keep (~/.pgpass, PGPASSWORD): never in the settings
    assert preferences.recent_databases() == [team.url_of("ana").replace(":secret@", "@")]
    page = window.pages.currentWidget()
    for key, what in (
        ("Ctrl+2", "open the evaluation"),
        ("Ctrl+3", "open the agreement"),
        ("Ctrl+4", "open the raters"),
        ("Ctrl+5", "open the automatic judges"),
        ("Ctrl+I", "import files"),
        ("Ctrl+E", "export the judgments"),
        ("Ctrl+Shift+E", "export the report"),
    ):
        (action,) = (a for a in window.findChildren(QAction) if a.shortcut().toString() == key)
        action.trigger()
        assert window.status_text() == _refusal(ana, what), key
        assert window.pages.currentWidget() is page
    for action, what in (
        ("assign", "assign queries"),
        ("rubric", "change the rubric"),
        ("gold", "open the gold items"),
        ("autojudge", "grade with an automatic judge"),
        ("ensemble", "combine automatic judges"),
    ):
        window.menus.lead_actions[action].trigger()
        assert window.status_text() == _refusal(ana, what)
        assert window.lead_dialog is None
    window.menus.judge_actions["change_rater"].trigger()  # ana alone
    chooser = window.chooser
    assert [chooser.raters.itemText(i) for i in range(chooser.raters.count())] == [ana]
    assert chooser.own_name == ana
    ben = team.logins["ben"]
    with pytest.raises(JudgeAppError, match=f"a rater's login cannot judge as '{ben}'"):
        window.choose_rater(ben, create=True)


def test_a_raters_window_refuses_another_name_given_at_start(qtbot, open_window, team):
    with pytest.raises(JudgeAppError, match="a rater's login cannot judge as 'ben'"):
        open_window(team.url_of("ana"), rater="ben")


def test_a_login_turned_off_while_judging_keeps_the_grade_unsaved_until_it_can_be_written(
    qtbot, open_window, team
):
    ana = team.logins["ana"]
    window = open_window(team.url_of("ana"), rater=None)
    judging = window.judging
    press(qtbot, window, Qt.Key.Key_Home)
    row = judging.current_row
    press(qtbot, window, Qt.Key.Key_3)
    assert window.status_text().startswith("Saved: grade 3")
    pair = (judging.session.query.id, judging.session.items[row].document_id)
    admin = create_engine(team.url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER ROLE "{ana}" NOLOGIN')
            connection.exec_driver_sql(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{ana}'"
            )
        for key in (Qt.Key.Key_Down, Qt.Key.Key_Home):  # the rater selects it again
            press(qtbot, window, key)
        press(qtbot, window, Qt.Key.Key_5)
        assert window.status_text().startswith("Not saved: grade 5")
        assert f"no longer lets {ana} connect" in judging.error_banner.text()
        assert judging.results.model.index(row, 3).data(Role.UNSAVED) == "grade 5"
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER ROLE "{ana}" LOGIN')
        for key in (Qt.Key.Key_Down, Qt.Key.Key_Home):
            press(qtbot, window, key)
        press(qtbot, window, Qt.Key.Key_5)  # again: now written
        assert window.status_text().startswith("Saved: grade 5")
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER ROLE "{ana}" LOGIN')
        admin.dispose()
    with open_database(team.url, create=False) as database, database.reading() as session:
        state = current_state(session, team.ids["ana"], *pair)
    assert state is not None and state.grade == 5
