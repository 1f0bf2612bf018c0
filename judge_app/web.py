"""What every HTTP client of judge_app (the LLM judge's, the search engines') says and reads
alike: an address as it may be stored and shown, the pause a Retry-After header asks for, and
its retries in words."""

from __future__ import annotations

import email.utils
import math
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import httpx


def public_url(url: str) -> str:
    """``url`` as it may be stored and shown: without a user, password, query or fragment
    (where a key could hide)."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def retry_after(response: httpx.Response) -> float | None:
    """The pause a Retry-After header asks for, in seconds (a number or an HTTP date)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def retry_words(retries: int, why: str, pause: float) -> str:
    """The retries of a run as the progress bar and the window say them: ``3 retries, the
    last after HTTP 500, in 0.4 s``."""
    return (
        f"{retries:,} retr{'y' if retries == 1 else 'ies'}, the last after {why}, in {pause:.1f} s"
    )
