"""The HTTP client of a search engine: one JSON request a query, POSTed to the engine's search
URL, one at a time at the pacer's pace.

A request that meets 408, 429, a 5xx status, a timeout or a dropped connection is sent again
after an exponential pause (or the pause a Retry-After asks for, up to ``LONGEST_PAUSE``), up
to ``retries`` times; then the query fails with its reason, and so does one the engine refuses
(400: the engine's own message is given). A status that says the address or the credentials
are wrong (401, 403, 404), or nothing listening, stops everything: ``EngineError``.

Credentials are an ``Authorization`` header (from an environment variable the caller read,
winning over a user and password in the URL);
a redirect is followed, but never with the header to another host, port or scheme (httpx
drops it there), and a redirect that would turn the POST into a GET is a failure, not a
search without its query. An answer is read up to ``MAX_BODY`` bytes, each read within
``timeout`` seconds and the whole answer within ``timeout`` of its first byte.
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from judge_app.engines.pacing import Pacer
from judge_app.errors import JudgeAppError, UsageError, shortened
from judge_app.web import public_url, retry_after

RETRIED_STATUSES = frozenset({408, 429}) | frozenset(range(500, 600)) - {501, 505}
FATAL_STATUSES = {
    401: "refused the credentials",
    403: "refused access",
    404: "has no such index, core or path",
}
LONGEST_PAUSE = 60.0
"""No pause between attempts is longer, whatever a Retry-After asks."""
MAX_BODY = 64 << 20
"""The most bytes of an answer read: a longer one fails its query."""
MAX_REDIRECTS = 5
MESSAGE_CHARACTERS = 200
"""The most of an engine's error message kept (a Solr stack trace is longer)."""

Retrying = Callable[[str, float], None]
"""Hears why an attempt failed and the seconds before the next."""


class EngineError(JudgeAppError):
    """The engine cannot answer any query as asked (wrong address, index or credentials)."""


class QueryFailed(Exception):
    """One query got no answer; ``reason`` says why in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Stopped(Exception):
    """Cancelled while a request waited for its turn or for a retry."""


@dataclass(frozen=True)
class Answer:
    """An engine's JSON answer to one query, and the ``attempts`` it took."""

    body: Any
    attempts: int


def authorization(value: str | None) -> str | None:
    """The Authorization header of a credentials variable's ``value``: sent as it is when it
    names its scheme (``ApiKey …``, ``Bearer …``, ``Basic …``), as Basic when it is
    ``user:password``; None when there is none."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if " " in value:
        return value
    if ":" in value:
        return "Basic " + base64.b64encode(value.encode()).decode("ascii")
    raise UsageError(
        "holds neither 'Scheme credentials' (ApiKey …, Bearer …, Basic …) nor user:password",
        "auth-env",
    )


class EngineClient:
    """Sends JSON bodies to one search ``url`` with ``auth`` (an Authorization header, or
    None), paced by ``pacer``; ``retrying`` hears each retry."""

    def __init__(
        self,
        url: str,
        pacer: Pacer,
        *,
        auth: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 1.0,
        retrying: Retrying | None = None,
    ) -> None:
        self.url = httpx.URL(url.strip())
        if auth:  # the credentials given win over a user and password in the address
            self.url = self.url.copy_with(userinfo=b"")
        self.pacer = pacer
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.retrying = retrying
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if auth:
            headers["Authorization"] = auth
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout),
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            trust_env=False,  # no proxy or .netrc credentials from the environment
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(self, body: dict[str, Any]) -> Answer:
        """The engine's answer to ``body``, retried as the module says; QueryFailed when it
        has none, EngineError when none can come, Stopped when cancelled."""
        attempts = 0
        while True:
            attempts += 1
            if not self.pacer.ready():
                raise Stopped
            try:
                answer = self._attempt(body)
            except _Retry as retry:
                if attempts > self.retries:
                    tried = f" (after {attempts} attempts)" if attempts > 1 else ""
                    if retry.unreachable:
                        raise EngineError(f"cannot connect to {public_url(str(self.url))}: "
                                          f"{retry.reason}{tried}") from None  # fmt: skip
                    raise QueryFailed(retry.reason + tried) from None
                pause = retry.pause
                if pause is None:
                    pause = self.backoff * 2 ** (attempts - 1) * random.uniform(0.75, 1.25)
                pause = min(pause, LONGEST_PAUSE)
                if self.retrying is not None:
                    self.retrying(retry.reason, pause)
                if not self.pacer.pause(pause):
                    raise Stopped from None
                continue
            return Answer(answer, attempts)

    def _attempt(self, body: dict[str, Any]) -> Any:
        """One attempt: the answer's JSON; _Retry to try again; QueryFailed or EngineError."""
        try:
            with self._http.stream("POST", self.url, json=body) as response:
                data = self._body(response)
        except httpx.ConnectError as error:
            raise _Retry(shortened(str(error) or "refused"), unreachable=True) from None
        except httpx.TimeoutException:
            raise _Retry(f"no answer within {self.timeout:g} s") from None
        except httpx.TooManyRedirects:
            raise QueryFailed(f"more than {MAX_REDIRECTS} redirects") from None
        except (httpx.RequestError, httpx.StreamError) as error:
            reason = str(error) or type(error).__name__
            raise _Retry(f"the connection failed: {shortened(reason)}") from None
        status = response.status_code
        if response.history and response.request.method != "POST":
            moved = response.history[0]
            target = public_url(str(response.url))
            raise QueryFailed(
                f"HTTP {moved.status_code} redirects to {target}, which turns the search into "
                "a GET without its query: give that address"
            )
        if status in FATAL_STATUSES:
            raise EngineError(
                f"{public_url(str(response.url))} {FATAL_STATUSES[status]} "
                f"(HTTP {status}{error_text(data)})"
            )
        if status in RETRIED_STATUSES:
            raise _Retry(f"HTTP {status}{error_text(data)}", retry_after(response))
        if not 200 <= status < 300:
            raise QueryFailed(f"HTTP {status}{error_text(data)}")
        try:
            return json.loads(data)
        except ValueError:
            text = data[:200].decode("utf-8", "replace").strip()
            raise QueryFailed(f"the answer is not JSON: {shortened(text)!r}") from None

    def _body(self, response: httpx.Response) -> bytes:
        """The body of ``response``, within ``timeout`` of its first byte and ``MAX_BODY``."""
        deadline = time.monotonic() + self.timeout
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_BODY:
                raise QueryFailed(f"the answer is longer than {MAX_BODY:,} bytes")
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("the whole answer took too long")
            chunks.append(chunk)
        return b"".join(chunks)


class _Retry(Exception):
    """An attempt to try again: why, the pause asked for (None: the backoff's), and whether
    nothing listened at all."""

    def __init__(self, reason: str, pause: float | None = None, unreachable: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.pause = pause
        self.unreachable = unreachable


def error_text(body: bytes) -> str:
    """``: <the engine's message>`` from an error's body, or nothing: Elasticsearch's and
    OpenSearch's ``error.root_cause[0]`` (type: reason), Solr's ``error.msg``, or a generic
    ``error.message``, ``error`` or ``message``."""
    text = body[:4096].decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(body)
    except ValueError:
        return f": {shortened(text, MESSAGE_CHARACTERS)}" if text else ""
    message = _message(parsed)
    return f": {shortened(message, MESSAGE_CHARACTERS)}" if message else ""


def _message(parsed: object) -> str:
    if not isinstance(parsed, dict):
        return ""
    error = parsed.get("error")
    if isinstance(error, dict):
        causes = error.get("root_cause")
        cause = causes[0] if isinstance(causes, list) and causes else error
        if isinstance(cause, dict) and ("reason" in cause or "type" in cause):
            kind, reason = cause.get("type"), cause.get("reason")
            return ": ".join(str(part) for part in (kind, reason) if part)
        for key in ("msg", "message"):
            if isinstance(error.get(key), str):
                return str(error[key])
    if isinstance(error, str):
        return error
    message = parsed.get("message")
    return message if isinstance(message, str) else ""
