"""Errors of the store."""

from judge_app.errors import JudgeAppError


class StoreError(JudgeAppError):
    """A database cannot be opened or a change cannot be made; the message says why."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer judge_app than this one."""


class ReadOnlyDatabaseError(StoreError):
    """The database cannot be written to (a read-only file, folder or disk); it may still be
    opened read-only."""
