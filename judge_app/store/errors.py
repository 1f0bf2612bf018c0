"""Errors of the store."""

from judge_app.errors import JudgeAppError


class StoreError(JudgeAppError):
    """A database cannot be opened or a change cannot be made; the message says why."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer judge_app than this one."""


class SimilarRaterError(StoreError):
    """A new rater's name differs from a known rater's (``similar``) only by case or spaces:
    the window asks whether they are one person, the command line refuses."""

    def __init__(self, message: str, similar: str) -> None:
        super().__init__(message)
        self.similar = similar


class ReadOnlyDatabaseError(StoreError):
    """The database cannot be written to (a read-only file, folder or disk); it may still be
    opened read-only."""
