"""A client of the OpenAI-compatible chat-completions protocol (Ollama, vLLM, llama.cpp's
server, LM Studio, hosted services): one question, its answer, its token usage and time.

A request that meets 429, a 5xx status, a timeout or a dropped connection is sent again after
an exponential pause (or the pause the server's Retry-After asks for), up to ``retries``
times; then it is a failure with its reason. A status that says the endpoint, model or key is
wrong (401, 403, 404) stops everything: ``EndpointError``. The API key is read from an
environment variable by the caller and only ever sent in the Authorization header; a server
that echoes it (or any bearer token) in its words gets it blanked before they are kept.

A server is not trusted to be reasonable: an answer is asked for in at most ``max_tokens``
tokens, its body is read up to ``MAX_BODY`` bytes, the whole of an attempt (not each read)
within ``timeout`` seconds, a token count past ``MAX_COUNT`` is no count, and ``stop`` ends
an attempt under way at once.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import SplitResult, urlsplit, urlunsplit

import httpx

from judge_app.errors import JudgeAppError, shortened
from judge_app.web import public_url as public_url  # the name the judge's callers import
from judge_app.web import retry_after

RETRIED_STATUSES = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
FATAL_STATUSES = {
    401: "refused the API key",
    403: "refused access",
    404: "has no such model or path",
}
LONGEST_PAUSE = 60.0
"""No pause between attempts is longer, whatever a Retry-After asks."""
MAX_BODY = 1 << 20
"""The most bytes of a response read: an answer longer than this is a failure, not kept."""
MAX_TOKENS = 1024
"""The most tokens an answer may take (``max_tokens``): a grade and its reasons need far fewer."""
MAX_COUNT = 2**31 - 1
"""A token count past this is no count (the database's integers hold no more)."""
WATCH_SECONDS = 0.05
"""How often an attempt under way looks whether it is past its time or stopped."""
POLL_SECONDS = 0.05
"""How often ``replies`` looks whether it is cancelled while every question waits."""
Question = TypeVar("Question")
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")


class EndpointError(JudgeAppError):
    """The endpoint cannot answer any question as configured (wrong URL, model or key);
    ``status`` is the HTTP status that said so (None: nothing answered)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ChatSettings:
    """Where and how to ask: the ``base_url`` (``…/v1``), the ``model``, the API key (None:
    no Authorization header), the ``timeout`` of one whole attempt in seconds, how many times
    a failed attempt is ``retries``-ed, the first pause before a retry (``backoff`` s, doubled
    each time), the most tokens an answer may take, and whether to ask for a ``structured``
    answer (``ANSWER_FORMATS``)."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    max_tokens: int = MAX_TOKENS
    structured: bool = True

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


ANSWER_FORMATS = ("json_schema", "json_object", "text")
"""How an answer is asked for, best first: a JSON schema the server enforces (OpenAI's
``response_format`` type ``json_schema``: OpenAI, vLLM, Ollama, LM Studio), a JSON object
with the schema (llama.cpp's servers, which refuse the first), then free text. A server that
refuses a format (an error naming ``response_format``) is asked the next, at once; one that
ignores it answers in text, which is parsed as text."""


class _FormatRefused(Exception):
    """The server refused the answer format asked for."""


class ChatClient:
    """Asks one model at one endpoint, from any number of threads at once (one connection
    pool of ``connections``); ``stop`` cuts the pauses between retries short. ``schema``:
    the JSON schema of a structured answer (``settings.structured``); ``retrying`` hears why
    an attempt failed and the seconds the client pauses before it tries again."""

    def __init__(
        self,
        settings: ChatSettings,
        *,
        connections: int = 4,
        stop: threading.Event | None = None,
        schema: Mapping[str, object] | None = None,
        retrying: Callable[[str, float], None] | None = None,
    ) -> None:
        self.settings = settings
        self.retrying = retrying
        self.stop = stop or threading.Event()
        self.schema = schema
        self.answer_format = (
            "text" if schema is None or not settings.structured else ANSWER_FORMATS[0]
        )
        self._format_lock = threading.Lock()
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
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            answer_format = self.answer_format
            try:
                failure, pause, reply = self._attempt(self._payload(messages, answer_format))
            except _FormatRefused:
                self._refused(answer_format)
                attempts -= 1  # the question was not asked: no attempt spent
                continue
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
            pause = min(pause, LONGEST_PAUSE)
            if self.retrying is not None:
                self.retrying(failure, pause)
            if self.stop.wait(pause):
                return _timed(Reply(None, failure, stopped=True), started, attempts)

    def _payload(self, messages: Sequence[Mapping[str, str]], answer_format: str) -> dict[str, Any]:
        """The request of ``messages`` with the answer asked for in ``answer_format``."""
        payload: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "temperature": 0,
            "max_tokens": self.settings.max_tokens,
        }
        if answer_format == "json_schema":
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "relevance_grade", "strict": True, "schema": self.schema},
            }
        elif answer_format == "json_object":
            payload["response_format"] = {"type": "json_object", "schema": self.schema}
        return payload

    def _refused(self, answer_format: str) -> None:
        """Ask in the format after ``answer_format`` from now on (every thread)."""
        with self._format_lock:
            if self.answer_format == answer_format:
                self.answer_format = ANSWER_FORMATS[ANSWER_FORMATS.index(answer_format) + 1]

    def _attempt(self, payload: dict[str, Any]) -> tuple[str, float | None, Reply | None]:
        """One attempt: (why it failed, the pause asked for, None) to try again, or
        ("", None, the reply) when it needs no retry (an answer, a failure for good, or
        stopped); httpx.ConnectError when nothing answers at the address."""
        timeout = self.settings.timeout
        deadline = time.monotonic() + timeout
        late = f"no answer within {timeout:g} s"
        try:
            with self._http.stream("POST", self.url, json=payload) as response:
                body = self._body(response, deadline)
        except httpx.TimeoutException:
            return late, None, None
        except httpx.ConnectError:
            raise
        except (httpx.RequestError, httpx.StreamError) as error:
            if self.stop.is_set():
                return "", None, Reply(None, "stopped", stopped=True)
            if time.monotonic() >= deadline:
                return late, None, None
            reason = str(error) or type(error).__name__
            return f"the connection failed: {shortened(reason)}", None, None
        if body is None:
            return "", None, Reply(None, f"the answer is longer than {MAX_BODY:,} bytes: not kept")
        status = response.status_code
        if status >= 400 and "response_format" in payload and _names_format(body):
            raise _FormatRefused
        if status in FATAL_STATUSES:
            raise EndpointError(
                f"{public_url(self.url)} {FATAL_STATUSES[status]} (HTTP {status}"
                f"{self._error_text(body)}): check the endpoint, the model "
                f"{self.settings.model!r} and the API key",
                status,
            )
        if status in RETRIED_STATUSES:
            return f"HTTP {status}{self._error_text(body)}", retry_after(response), None
        if status != 200:
            return "", None, Reply(None, f"HTTP {status}{self._error_text(body)}")
        return "", None, self._reply_of(body)

    def _body(self, response: httpx.Response, deadline: float) -> bytes | None:
        """The body of ``response``, read until ``deadline`` (a watcher closes it then, or
        as soon as ``stop`` is set: the read fails); None past ``MAX_BODY`` bytes."""
        done = threading.Event()

        def watch() -> None:
            while not done.wait(WATCH_SECONDS):
                if self.stop.is_set() or time.monotonic() >= deadline:
                    response.close()
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BODY:
                    return None
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            done.set()

    def _error_text(self, body: bytes) -> str:
        """``: <the server's message>`` from an error's body (any key blanked), or nothing."""
        text = body.decode("utf-8", "replace").strip()
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            error = parsed.get("error") if isinstance(parsed, dict) else None
            if isinstance(error, dict):
                error = error.get("message")
            text = str(error).strip() if error else ""
        return f": {shortened(self.blanked(text))}" if text else ""

    def _reply_of(self, body: bytes) -> Reply:
        """The answer and usage of a 200 response; a failure if it is not chat-completions
        JSON."""
        try:
            parsed = json.loads(body)
            content = parsed["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            text = shortened(self.blanked(body.decode("utf-8", "replace").strip()))
            return Reply(None, f"not a chat-completions answer: {text!r}")
        usage = parsed.get("usage") if isinstance(parsed.get("usage"), dict) else {}
        return Reply(
            answer=self.blanked(content) if isinstance(content, str) else "",
            failure=None,
            prompt_tokens=_count(usage.get("prompt_tokens")),
            completion_tokens=_count(usage.get("completion_tokens")),
        )

    def blanked(self, text: str) -> str:
        """``text`` without the API key or any bearer token in it."""
        key = self.settings.api_key
        if key:
            text = text.replace(key, "[key]")
        return _BEARER.sub(r"\1[key]", text)


def check_endpoint(settings: ChatSettings) -> int | None:
    """Before a run: EndpointError when nothing answers at the endpoint, or when it lists
    the models it serves (``GET …/models``) and ``settings.model`` is none of them (a
    llama.cpp server answers under any name: grades were kept under one it never served). A
    server that lists none, or not there, is taken at its word. Returns the requests the
    server works on at once where it says it (llama.cpp's ``GET /props``: ``total_slots``),
    else None."""
    parts = urlsplit(chat_url(settings.base_url))
    url = urlunsplit(parts._replace(path=parts.path.removesuffix("/chat/completions") + "/models"))
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=min(settings.timeout, 10.0))
        listed = response.json().get("data") if response.status_code == 200 else None
    except httpx.ConnectError as error:
        raise EndpointError(
            f"cannot connect to {public_url(url)}: {shortened(str(error) or 'refused')}"
        ) from None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    ids = [str(model["id"]) for model in listed or () if isinstance(model, dict) and "id" in model]
    if ids and not any(_same_model(settings.model, served) for served in ids):
        shown = ", ".join(map(repr, ids[:10])) + (
            f" and {len(ids) - 10} more" if len(ids) > 10 else ""
        )
        raise EndpointError(
            f"{public_url(url)} serves {shown}, not {settings.model!r}: check --model"
        )
    return _slots(parts, headers, settings.timeout)


def _slots(parts: SplitResult, headers: dict[str, str], timeout: float) -> int | None:
    """The ``total_slots`` a llama.cpp server's ``GET /props`` (beside ``/v1``) says, or None."""
    root = parts.path.removesuffix("/chat/completions").removesuffix("/v1")
    url = urlunsplit(parts._replace(path=root + "/props"))
    try:
        response = httpx.get(url, headers=headers, timeout=min(timeout, 10.0))
        slots = response.json().get("total_slots") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= 256:
        return None
    return slots


def on_this_machine(base_url: str) -> bool:
    """Whether ``base_url`` names a server on this machine (localhost, a loopback address)."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _same_model(asked: str, served: str) -> bool:
    """Whether ``served`` (as a server lists it) is the model ``asked`` for: the same name,
    Ollama's ``name:latest``, or a file's name without its folder (llama.cpp's servers)."""
    file = served.replace("\\", "/").rsplit("/", 1)[-1]
    return asked in (served, file, file.removesuffix(".gguf")) or served == f"{asked}:latest"


def chat_url(base_url: str) -> str:
    """The chat-completions URL of a base URL (``http://host:11434/v1``, its query kept); a
    URL whose path already ends in ``/chat/completions`` is kept."""
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urlunsplit(parts._replace(path=path))


def _names_format(body: bytes) -> bool:
    """Whether an error's body speaks of the answer format (the server refused it)."""
    text = body[:4096].decode("utf-8", "replace").lower()
    return any(word in text for word in ("response_format", "json_schema", "json schema"))


def _count(value: object) -> int | None:
    """A token count as a server gave it, None unless a whole number 0–``MAX_COUNT``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


def _timed(reply: Reply, started: float, attempts: int) -> Reply:
    duration = round((time.monotonic() - started) * 1000)
    return replace(reply, duration_ms=duration, attempts=attempts)


def replies(
    settings: ChatSettings,
    questions: Sequence[Question],
    messages_of: Callable[[Question], Sequence[Mapping[str, str]]],
    schema: dict[str, Any],
    concurrency: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    retrying: Callable[[int, str, float], None] | None = None,
    answered_as: Callable[[str], None] = lambda _format: None,
    name: str = "judge",
) -> Iterator[tuple[Question, Reply | None]]:
    """Each of ``questions`` with its reply as it arrives, ``concurrency`` at a time, its
    answer asked to follow ``schema``; once ``cancelled``, no more is sent and a reply cut
    short by it comes as None. ``progress`` hears (answered, all); ``retrying`` each retry,
    one at a time, numbered in order, as it is about to be made; ``answered_as`` the format
    the answers were asked in (``ANSWER_FORMATS``)."""
    stop = threading.Event()
    retries = itertools.count(1)
    lock = threading.Lock()

    def retried(why: str, pause: float) -> None:
        if retrying is not None:
            with lock:  # from the pool's threads: one at a time, counted in order
                retrying(next(retries), why, pause)

    waiting = iter(questions)
    running: dict[Future[Reply], Question] = {}
    done = 0
    if progress is not None:
        progress(0, len(questions))
    with (
        ChatClient(settings, connections=concurrency, stop=stop, schema=schema,
                   retrying=retried) as client,
        ThreadPoolExecutor(concurrency, thread_name_prefix=name) as pool,
    ):  # fmt: skip
        try:
            while True:
                if cancelled():
                    stop.set()
                while len(running) < concurrency and not stop.is_set():
                    question = next(waiting, None)
                    if question is None:
                        break
                    running[pool.submit(client.ask, messages_of(question))] = question
                if not running:
                    return
                finished, _ = wait(running, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                for future in finished:
                    question = running.pop(future)
                    reply = future.result()
                    answered_as(client.answer_format)
                    done += 1
                    yield question, None if reply.stopped else reply
                    if progress is not None:
                        progress(done, len(questions))
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)


def keyless(error: EndpointError, settings: ChatSettings, variable: str) -> EndpointError:
    """``error``, saying that no API key was sent (``variable`` is not set) where the endpoint
    refused the request for want of one."""
    if error.status in (401, 403) and settings.api_key is None:
        return EndpointError(
            f"{error} (no API key was sent: the environment variable {variable} is not set)",
            error.status,
        )
    return error
