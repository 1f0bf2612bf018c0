"""Persistence: SQLAlchemy models, ``open_database``, units of work and reads.

Its names are imported when first asked for, so that a module of the store without SQLAlchemy
(its errors, the grade labels) costs nothing more: the window paints before SQLAlchemy loads.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge_app.store.database import Database, open_database
    from judge_app.store.errors import SchemaTooNewError, StoreError

_HOMES = {
    "Database": "judge_app.store.database",
    "open_database": "judge_app.store.database",
    "SchemaTooNewError": "judge_app.store.errors",
    "StoreError": "judge_app.store.errors",
}
__all__ = ["Database", "SchemaTooNewError", "StoreError", "open_database"]


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)
