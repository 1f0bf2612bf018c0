"""A client of the OpenAI-compatible chat-completions protocol (Ollama, vLLM, llama.cpp's
server, LM Studio, hosted services): one question, its answer, its token usage and time.

A request that meets 429, a 5xx status, a timeout or a dropped connection is sent again after
an exponential pause (or the pause the server's Retry-After asks for), up to ``retries``
times; then it is a failure with its reason. A status that says the endpoint, model or key is
wrong (401, 403, 404) stops everything: ``EndpointError``. The API key is read from an
environment variable by the caller and only ever sent in the Authorization header.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from judge_app.errors import JudgeAppError, shortened

RETRIED_STATUSES = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
FATAL_STATUSES = {
    401: "refused the API key",
    403: "refused access",
    404: "has no such model or path",
}
LONGEST_PAUSE = 60.0
"""No pause between attempts is longer, whatever a Retry-After asks."""


class EndpointError(JudgeAppError):
    """The endpoint cannot answer any question as configured (wrong URL, model or key);
    ``status`` is the HTTP status that said so (None: nothing answered)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ChatSettings:
    """Where and how to ask: the ``base_url`` (``…/v1``), the ``model``, the API key (None:
    no Authorization header), the ``timeout`` of one attempt in seconds, how many times a
    failed attempt is ``retries``-ed, and the first pause before a retry (``backoff`` s,
    doubled each time)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0

    def __repr__(self) -> str:  # never shows the key
        return f"ChatSettings({self.base_url!r}, {self.model!r})"


@dataclass(frozen=True)
class Reply:
    """The model's ``answer`` (None: no answer, ``failure`` says why), its token usage, the
    milliseconds from the first attempt to the reply and how many ``attempts`` it took;
    ``stopped``: cut short by ``stop`` before it had an answer (not a failure of the model)."""

    answer: str | None
    failure: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    duration_ms: int = 0
    attempts: int = 0
    stopped: bool = False


class ChatClient:
    """Asks one model at one endpoint, from any number of threads at once (one connection
    pool of ``connections``); ``stop`` cuts the pauses between retries short."""

    def __init__(
        self, settings: ChatSettings, *, connections: int = 4, stop: threading.Event | None = None
    ) -> None:
        self.settings = settings
        self.stop = stop or threading.Event()
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout),
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )
        self.url = chat_url(settings.base_url)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ask(self, messages: Sequence[Mapping[str, str]]) -> Reply:
        """The model's reply to ``messages`` (temperature 0), retried as the module says."""
        payload = {"model": self.settings.model, "messages": list(messages), "temperature": 0}
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            try:
                failure, pause, reply = self._attempt(payload)
            except httpx.ConnectError as error:
                if attempts > self.settings.retries:  # nothing listens there: no pair can be
                    raise EndpointError(  # answered
                        f"cannot connect to {public_url(self.url)}: "
                        f"{shortened(str(error) or 'refused')}"
                    ) from None
                failure, pause, reply = "cannot connect", None, None
            if reply is not None:
                return _timed(reply, started, attempts)
            if attempts > self.settings.retries:
                tried = f" (after {attempts} attempts)" if attempts > 1 else ""
                return _timed(Reply(None, failure + tried), started, attempts)
            if pause is None:
                pause = self.settings.backoff * 2 ** (attempts - 1) * random.uniform(0.75, 1.25)
            if self.stop.wait(min(pause, LONGEST_PAUSE)):
                return _timed(Reply(None, failure, stopped=True), started, attempts)

    def _attempt(self, payload: dict[str, Any]) -> tuple[str, float | None, Reply | None]:
        """One attempt: (why it failed, the pause asked for, None) to try again, or
        ("", None, the reply) when it needs no retry (an answer, or a failure for good);
        httpx.ConnectError when nothing answers at the address."""
        try:
            response = self._http.post(self.url, json=payload)
        except httpx.TimeoutException:
            return f"no answer within {self.settings.timeout:g} s", None, None
        except httpx.ConnectError:
            raise
        except httpx.RequestError as error:
            reason = str(error) or type(error).__name__
            return f"the connection failed: {shortened(reason)}", None, None
        status = response.status_code
        if status in FATAL_STATUSES:
            raise EndpointError(
                f"{public_url(self.url)} {FATAL_STATUSES[status]} (HTTP {status}"
                f"{_error_text(response)}): check the endpoint, the model "
                f"{self.settings.model!r} and the API key",
                status,
            )
        if status in RETRIED_STATUSES:
            return f"HTTP {status}{_error_text(response)}", retry_after(response), None
        if status != 200:
            failure = f"HTTP {status}{_error_text(response)}"
            return "", None, Reply(None, failure)
        return "", None, _reply_of(response)


def chat_url(base_url: str) -> str:
    """The chat-completions URL of a base URL (``http://host:11434/v1``, its query kept); a
    URL whose path already ends in ``/chat/completions`` is kept."""
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urlunsplit(parts._replace(path=path))


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


def _error_text(response: httpx.Response) -> str:
    """``: <the server's message>`` from an error's body, or nothing."""
    try:
        body = response.json()
    except ValueError:
        text = response.text.strip()
    else:
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            error = error.get("message")
        text = str(error).strip() if error else ""
    return f": {shortened(text)}" if text else ""


def _reply_of(response: httpx.Response) -> Reply:
    """The answer and usage of a 200 response; a failure if it is not chat-completions JSON."""
    try:
        body = response.json()
        content = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        text = shortened(response.text.strip())
        return Reply(None, f"not a chat-completions answer: {text!r}")
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return Reply(
        answer=content if isinstance(content, str) else "",
        failure=None,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _timed(reply: Reply, started: float, attempts: int) -> Reply:
    duration = round((time.monotonic() - started) * 1000)
    return replace(reply, duration_ms=duration, attempts=attempts)
