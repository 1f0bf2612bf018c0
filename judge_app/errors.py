"""The errors a user can meet: each carries a message written for that user.

A message quotes values from the user's files and options with :func:`quoted`, which cuts a
long one; and every line of every message is cut at ``LINE_CHARACTERS``, so that no input,
however large, makes a message larger than a screen.
"""

VALUE_CHARACTERS = 70
LINE_CHARACTERS = 500


def shortened(text: str, limit: int = VALUE_CHARACTERS) -> str:
    """``text``, or its first ``limit`` characters then "… (N characters)"."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(value: object) -> str:
    """A value of the user's as a message shows it: ``'x'``, or ``'xxx…' (N characters)``."""
    text = str(value)
    if len(text) <= VALUE_CHARACTERS:
        return repr(text)
    return f"{text[:VALUE_CHARACTERS] + '…'!r} ({len(text):,} characters)"


class JudgeAppError(Exception):
    """Base of every error the command line and the window report without a traceback."""

    def __init__(self, message: str = "") -> None:
        lines = str(message).split("\n")
        super().__init__("\n".join(shortened(line, LINE_CHARACTERS) for line in lines))


class UsageError(JudgeAppError):
    """The options do not make sense (exit code 2): a value out of range, an unknown name."""


def in_words(error: BaseException) -> str:
    """Why something failed, as a user reads it, never naming an exception class: our own
    errors carry their message; the system's say what happened to which file; anything else
    is a defect in judge_app and is said to be one."""
    if isinstance(error, JudgeAppError):
        return str(error)
    if isinstance(error, OSError):
        reason = error.strerror or str(error) or "the system refused"
        return f"{reason}: {error.filename}" if error.filename else reason
    details = shortened(str(error).strip().splitlines()[0] if str(error).strip() else "")
    return "An unexpected problem in judge_app (please report it)" + (
        f": {details}" if details else ""
    )
