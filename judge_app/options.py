"""Values of options, parsed and checked in one place for every command and the window: lists
of names, known names, whole and finite numbers.

A usage error (exit code 2) names the option (``option``: its name, which each front end words
its own way) and what it takes; an unknown rater or run is one too, with the names the source
does hold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from judge_app.errors import UsageError, quoted
from judge_app.names import normal_ids, similar_name, similar_reason


def names(text: str | None, option: str, what: str = "rater") -> tuple[str, ...] | None:
    """The names of a comma-separated list as typed (``"ana, ben"``), each trimmed and in
    Unicode NFC; None when the option was not given; a usage error for no name or one twice."""
    if text is None:
        return None
    listed = normal_ids(text)
    if not listed:
        raise UsageError("needs at least one name: a,b,c", option)
    twice = sorted({name for name in listed if listed.count(name) > 1})
    if twice:
        raise UsageError(f"names a {what} twice: {', '.join(map(quoted, twice))}", option)
    return tuple(listed)


def check_known(
    asked: Iterable[str] | None, known: Iterable[str], what: str, option: str, source: str
) -> None:
    """A usage error naming the ``asked`` names ``source`` does not hold, with those it does
    (and the one meant, where a name differs from one only by case or spaces)."""
    if asked is None:
        return
    known = sorted(set(known))
    unknown = [name for name in asked if name not in known]
    if not unknown:
        return
    text = f": {source} has no {what} {', '.join(map(quoted, unknown))}"
    text += f" ({what}s it has: {', '.join(known) or 'none'})"
    for name in unknown:
        meant = similar_name(name, known)
        if meant is not None:
            text += "; " + similar_reason(name, meant)
    raise UsageError(text, option)


def require_whole(
    option: str, value: int, low: int, high: int | None = None, note: str = ""
) -> None:
    """A usage error unless ``option``'s ``value`` is a whole number from ``low`` (to ``high``)."""
    if value < low or (high is not None and value > high):
        span = f"from {low}" + ("" if high is None else f" to {high}")
        raise UsageError(f"takes a whole number {span}{note}", option)


def require_finite(option: str, value: float) -> None:
    """A usage error unless ``option``'s ``value`` is a finite number (not nan or inf)."""
    if not math.isfinite(value):
        raise UsageError("takes a finite number (not nan or inf)", option)


def check_variable_name(option: str, value: str) -> None:
    """A usage error unless ``value`` (where a secret is read from) can name an environment
    variable."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise UsageError("takes the name of an environment variable", option)


def check_patience(timeout: float, retries: int, backoff: float) -> None:
    """A usage error unless an HTTP client's ``timeout`` (seconds above 0, at most an hour),
    ``retries`` (0 to 10) and ``backoff`` (seconds from 0 to 60) are in range."""
    require_finite("timeout", timeout)
    if not 0 < timeout <= 3600:
        raise UsageError("takes seconds above 0 and at most 3600", "timeout")
    require_whole("retries", retries, 0, 10)
    require_finite("backoff", backoff)
    if not 0 <= backoff <= 60:
        raise UsageError("takes seconds from 0 to 60", "backoff")


def check_digits(digits: int | None) -> None:
    """A usage error unless ``digits`` is None (full precision) or 0 to 15."""
    if digits is not None:
        require_whole("digits", digits, 0, 15)
