"""Persistence: SQLAlchemy models, ``open_database``, units of work and reads."""

from judge_app.store.database import Database, open_database
from judge_app.store.errors import SchemaTooNewError, StoreError

__all__ = ["Database", "SchemaTooNewError", "StoreError", "open_database"]
