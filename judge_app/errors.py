"""The errors a user can meet: each carries a message written for that user."""


class JudgeAppError(Exception):
    """Base of every error the command line and the window report without a traceback."""
