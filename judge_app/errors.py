"""The errors a user can meet: each carries a message written for that user.

A message quotes values from the user's files and options with :func:`quoted`, which cuts a
long one; and every line of every message is cut at ``LINE_CHARACTERS``, so that no input,
however large, makes a message larger than a screen.
"""

from collections.abc import Callable, Sequence

VALUE_CHARACTERS = 70
LINE_CHARACTERS = 500


def shortened(text: str, limit: int = VALUE_CHARACTERS) -> str:
    """``text``, or its first ``limit`` characters then "… (N characters)"."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def some_of(names: Sequence[str], limit: int = 10) -> str:
    """``names`` joined by commas; past ``limit`` the first ones and "and N more" (10,000
    raters named in full would fill a screen)."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more:,} more" if more > 0 else "")


def quoted(value: object) -> str:
    """A value of the user's as a message shows it: ``'x'``, or ``'xxx…' (N characters)``."""
    text = str(value)
    if len(text) <= VALUE_CHARACTERS:
        return repr(text)
    return f"{text[:VALUE_CHARACTERS] + '…'!r} ({len(text):,} characters)"


def typed(name: str) -> str:
    """``name`` as a user types it in a shell: ``"local model"`` (always in double quotes,
    with ``\\``, ``"``, ``$`` and a backquote escaped)."""
    escaped = "".join(f"\\{c}" if c in '\\"$`' else c for c in name)
    return f'"{escaped}"'


class JudgeAppError(Exception):
    """Base of every error the command line and the window report without a traceback."""

    def __init__(self, message: str = "") -> None:
        lines = str(message).split("\n")
        super().__init__("\n".join(shortened(line, LINE_CHARACTERS) for line in lines))


OptionWords = Callable[[str], str]
"""How a front end names an option it is given the name of: the command line by its flag
(``--judge``), the window by its label (``Automatic judge``)."""


class UsageError(JudgeAppError):
    """The options do not make sense (exit code 2): a value out of range, an unknown name.

    ``option``, where the message is about one, is the option's name (``"judge"``, ``"k"``),
    never a front end's words for it: each front end words it its own way (:meth:`worded`),
    and the message follows those words. ``UsageError("takes a whole number from 0",
    option="seed")`` reads "--seed takes a whole number from 0" on the command line; a message
    that begins with a colon follows them at once (``": the judge has graded nothing"`` reads
    "--judge: the judge has graded nothing")."""

    def __init__(self, message: str = "", option: str | None = None) -> None:
        super().__init__(message)
        self.option = option

    def worded(self, words: OptionWords = str) -> str:
        """The message, after the option named as ``words`` names it (by default: its name)."""
        message = super().__str__()
        if self.option is None:
            return message
        return words(self.option) + ("" if message.startswith(":") else " ") + message

    @property
    def reason(self) -> str:
        """The message without the option: what a control that is the option says."""
        return super().__str__().removeprefix(":").strip()

    def __str__(self) -> str:
        return self.worded()


def in_words(error: BaseException, option_words: OptionWords = str) -> str:
    """Why something failed, as a user reads it, never naming an exception class: our own
    errors carry their message (an option they name, as ``option_words`` names it); the
    system's say what happened to which file; anything else is a defect in judge_app and is
    said to be one."""
    if isinstance(error, UsageError):
        return error.worded(option_words)
    if isinstance(error, JudgeAppError):
        return str(error)
    if isinstance(error, OSError):
        reason = error.strerror or str(error) or "the system refused"
        return f"{reason}: {error.filename}" if error.filename else reason
    details = shortened(str(error).strip().splitlines()[0] if str(error).strip() else "")
    return "An unexpected problem in judge_app (please report it)" + (
        f": {details}" if details else ""
    )


MAKE_A_JUDGE = (
    "make one with judge-app autojudge DB --local (a model learned from the human grades) "
    "or judge-app autojudge DB --endpoint URL --model NAME (an LLM); in the window, "
    "Lead ▸ Automatic judge…"
)
"""How to make an automatic judge, from the command line or the window."""


def unknown_judge(source: str, name: str, judges: list[str]) -> UsageError:
    """The one error for an automatic judge ``name`` that ``source`` does not have, naming
    the ``judges`` it has as they are typed, or saying it has none and how to make one (here,
    not in ``writers``: the store and the evaluation raise it, and lie below the writers)."""
    if not judges:
        return UsageError(
            f"{source} has no automatic judge {quoted(name)}: it has none yet; {MAKE_A_JUDGE}"
        )
    return UsageError(
        f"{source} has no automatic judge {quoted(name)}; its judges are: "
        + ", ".join(map(typed, judges))
    )
