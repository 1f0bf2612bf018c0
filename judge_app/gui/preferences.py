"""The user's own preferences (QSettings): recent databases, the rater last chosen for each,
the key map, the theme and the evaluation page's settings. ``JUDGE_APP_SETTINGS`` names an
INI file to use instead of the user's, so tests and scripts never read or change the
developer's own settings."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from judge_app.gui.theme import THEMES
from judge_app.judging.keys import DEFAULT_KEYMAP, KEYMAPS

SETTINGS_ENV = "JUDGE_APP_SETTINGS"
RECENT_LIMIT = 8


def app_settings() -> QSettings:
    path = os.environ.get(SETTINGS_ENV)
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "judge_app", "judge-app"
    )


def _list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    assert isinstance(value, Iterable), value  # QSettings reads a list back as a list
    return [str(entry) for entry in value]


def data_folder() -> Path:
    """Where judge_app keeps its own files (the demo database): the user's data folder, or
    beside the settings file named by ``JUDGE_APP_SETTINGS``."""
    path = os.environ.get(SETTINGS_ENV)
    if path:
        return Path(path).parent
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(location) / "judge_app"


def recent_databases() -> list[str]:
    return _list(app_settings().value("recent/databases"))


def add_recent_database(name: str) -> None:
    settings = app_settings()
    recent = [name, *(entry for entry in recent_databases() if entry != name)]
    settings.setValue("recent/databases", recent[:RECENT_LIMIT])


def _database_key(group: str, database: str) -> str:
    return f"{group}/" + database.replace("/", "|").replace("\\", "|")


def _rater_key(database: str) -> str:
    return _database_key("raters", database)


def last_rater(database: str) -> str | None:
    value = app_settings().value(_rater_key(database))
    return str(value) if value else None


def remember_rater(database: str, name: str) -> None:
    app_settings().setValue(_rater_key(database), name)


def keymap_name() -> str:
    name = str(app_settings().value("keys/map", DEFAULT_KEYMAP))
    return name if name in KEYMAPS else DEFAULT_KEYMAP


def set_keymap_name(name: str) -> None:
    app_settings().setValue("keys/map", name)


def theme_name() -> str:
    name = str(app_settings().value("view/theme", "light"))
    return name if name in THEMES else "light"


def set_theme_name(name: str) -> None:
    app_settings().setValue("view/theme", name)


def _place_key(database: str, rater: str) -> str:
    return _rater_key(database).replace("raters/", "places/", 1) + "|" + rater


def last_place(database: str, rater: str) -> tuple[int, int] | None:
    """(query id, document id) of the result ``rater`` last had open on ``database``."""
    value = _list(app_settings().value(_place_key(database, rater)))
    try:
        query, document = (int(part) for part in value)
    except ValueError:
        return None
    return query, document


def remember_place(database: str, rater: str, query_id: int, document_id: int) -> None:
    app_settings().setValue(_place_key(database, rater), [str(query_id), str(document_id)])


def flag(name: str) -> bool:
    """A checkable View option (``compact_rubric``, ``hide_queue``), off unless set."""
    return str(app_settings().value(f"view/{name}", "false")).lower() == "true"


def set_flag(name: str, on: bool) -> None:
    app_settings().setValue(f"view/{name}", "true" if on else "false")


EVALUATION_KEYS = ("k", "gain", "ideal", "unjudged", "aggregate", "adjudicated")
"""The evaluation page's settings kept for every database; its runs and raters are kept for
each database (they name that database's runs and raters)."""


def evaluation_settings(database: str) -> dict[str, str | list[str]]:
    """The evaluation page's settings as last left (texts, as stored), with the runs and
    raters chosen on ``database``; only what was stored."""
    settings = app_settings()
    values: dict[str, str | list[str]] = {
        key: str(settings.value(f"evaluation/{key}"))
        for key in EVALUATION_KEYS
        if settings.contains(f"evaluation/{key}")
    }
    for names in ("runs", "raters"):
        values[names] = _list(settings.value(_database_key(f"evaluation-{names}", database)))
    return values


def remember_evaluation_settings(database: str, values: dict[str, object]) -> None:
    """Keep the evaluation page's ``values`` (EVALUATION_KEYS, runs and raters of
    ``database``) for the next time."""
    settings = app_settings()
    for key in EVALUATION_KEYS:
        settings.setValue(f"evaluation/{key}", str(values[key]))
    for names in ("runs", "raters"):
        chosen = values[names]
        assert isinstance(chosen, (list, tuple))
        settings.setValue(_database_key(f"evaluation-{names}", database), list(chosen))


AUTOJUDGE_KEYS = ("endpoint", "model", "api_key_env")
"""What the automatic judge's dialog keeps: where and whom it asked (never a key itself)."""
FETCH_KEYS = ("engine", "url", "depth", "auth_env", "rate", "paths", "template")
"""What the fetch dialog keeps: the engine and how it was asked (never a credential, nor the
run's name or queries, which belong to one fetch)."""


def dialog_settings(group: str, keys: tuple[str, ...]) -> dict[str, str]:
    """A dialog's ``keys`` as it last used them (those stored), under ``group``."""
    settings = app_settings()
    return {
        key: str(settings.value(f"{group}/{key}"))
        for key in keys
        if settings.contains(f"{group}/{key}")
    }


def remember_dialog_settings(group: str, values: dict[str, str]) -> None:
    """Keep a dialog's ``values`` for the next time, under ``group``."""
    settings = app_settings()
    for key, value in values.items():
        settings.setValue(f"{group}/{key}", value)
