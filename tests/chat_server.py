"""A small chat-completions server on 127.0.0.1 for the automatic judge's tests: it answers
like Ollama or vLLM would, or misbehaves as scripted (429 or 500 then success, a reply too
slow for the client's timeout, an answer that is not a grade, a dropped connection).

Behaviour is chosen per request from the user message: ``script[key]`` is a list of actions
consumed in order by the requests whose user message contains ``key``; a request no script
matches (or whose script is used up) is answered ``Final score: N`` with N from ``grade_of``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PROMPT_TOKENS = 100
COMPLETION_TOKENS = 7


@dataclass(frozen=True)
class Answer:
    """200 with this content (and usage)."""

    content: str


@dataclass(frozen=True)
class Status:
    """An error status, with a Retry-After header if given."""

    code: int
    retry_after: str | None = None


@dataclass(frozen=True)
class Sleep:
    """Sleep this long, then answer with the default grade (too late for a short timeout)."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """Close the connection without a response."""


@dataclass(frozen=True)
class Raw:
    """A 200 response of this JSON body (the usage given, or the default), sent whole, or a
    byte every ``drip`` seconds."""

    content: str
    usage: dict[str, Any] | None = None
    drip: float = 0.0


@dataclass(frozen=True)
class Echo:
    """An error status whose message repeats the request's Authorization header."""

    code: int = 400


@dataclass(frozen=True)
class Seen:
    """A request as received: its path, headers and JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float  # time.monotonic() when it arrived

    @property
    def user(self) -> str:
        """The last user message: the question (those before are examples)."""
        return [m["content"] for m in self.body["messages"] if m["role"] == "user"][-1]


def default_grade(content: str) -> int:
    """A grade 0–5 fixed by the message, the same every time."""
    return hashlib.sha256(content.encode()).digest()[0] % 6


@dataclass
class ChatServer:
    """The server: ``url`` is its base URL (``http://127.0.0.1:PORT/v1``), ``seen`` every
    request received, ``script`` the scripted behaviours, ``pause`` a delay before every
    answer (to let a test cancel midway)."""

    script: dict[str, list[Any]] = field(default_factory=dict)
    grade_of: Callable[[str], int] = default_grade
    pause: float = 0.0
    formats: frozenset[str] | None = None
    """The answer formats (``response_format`` types) it takes, answering those as JSON;
    another is refused as llama.cpp's Python server refuses it. None: the field is ignored
    (every answer in text)."""
    models: list[str] | None = None
    """The model ids ``GET /v1/models`` lists (None: 404, as a server that lists none)."""
    slots: int | None = None
    """The requests it says it works on at once (``GET /props``, as llama.cpp's server says
    them; None: 404)."""
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    busy: int = 0  # requests being answered now
    most_at_once: int = 0  # the most it answered at once

    def start(self) -> ChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/props" and server.slots is not None:
                    self.reply(200, {"total_slots": server.slots, "n_ctx": 2048})
                    return
                if self.path != "/v1/models" or server.models is None:
                    self.reply(404, {"error": {"message": "not found"}})
                    return
                listed = [{"id": name, "object": "model"} for name in server.models]
                self.reply(200, {"object": "list", "data": listed})

            def do_POST(self) -> None:
                with server.lock:
                    server.busy += 1
                    server.most_at_once = max(server.most_at_once, server.busy)
                try:
                    self.answer()
                finally:
                    with server.lock:
                        server.busy -= 1

            def answer(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                headers = {key.lower(): value for key, value in self.headers.items()}
                seen = Seen(self.path, headers, body, time.monotonic())
                action = server.record(seen)
                if server.pause:
                    time.sleep(server.pause)
                if isinstance(action, Drop):
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if isinstance(action, Status):
                    headers = {"Retry-After": action.retry_after} if action.retry_after else {}
                    self.reply(
                        action.code, {"error": {"message": f"scripted {action.code}"}}, headers
                    )
                    return
                if isinstance(action, Echo):
                    said = f"bad request with Authorization: {self.headers.get('Authorization')}"
                    self.reply(action.code, {"error": {"message": said}})
                    return
                if isinstance(action, Raw):
                    usage = action.usage or {"prompt_tokens": PROMPT_TOKENS,
                                             "completion_tokens": COMPLETION_TOKENS}  # fmt: skip
                    message = {"role": "assistant", "content": action.content}
                    body = {"choices": [{"index": 0, "message": message}], "usage": usage}
                    self.reply(200, body, drip=action.drip)
                    return
                asked = (body.get("response_format") or {}).get("type")
                if server.formats is not None and asked and asked not in server.formats:
                    said = f"response_format.type: Input should be one of {sorted(server.formats)}"
                    self.reply(500, {"error": {"message": said}})
                    return
                if isinstance(action, Sleep):
                    time.sleep(action.seconds)
                    action = None
                grade = server.grade_of(seen.user)
                content = (
                    action.content
                    if isinstance(action, Answer)
                    else json.dumps({"reason": "It matches the intent.", "final_score": grade})
                    if server.formats is not None and asked
                    else f"The page matches the intent.\nFinal score: {grade}"
                )
                self.reply(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": PROMPT_TOKENS,
                            "completion_tokens": COMPLETION_TOKENS,
                            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
                        },
                    },
                )

            def reply(
                self,
                code: int,
                payload: dict,
                headers: dict[str, str] | None = None,
                drip: float = 0.0,
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    if not drip:
                        self.wfile.write(data)
                    for byte in data if drip else b"":
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(drip)
                except OSError:  # the client gave up (its timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def record(self, seen: Seen) -> Any:
        """Note the request; the scripted action for it, or None."""
        with self.lock:
            self.seen.append(seen)
            for key, actions in self.script.items():
                if key in seen.user and actions:
                    return actions.pop(0)
        return None

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture(autouse=True)  # every test's, by tests/conftest.py
def loopback_only(monkeypatch):
    """Nothing a test does connects anywhere but this machine: a connection to another
    address fails the test, and no proxy from the environment is used."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    connect = socket.socket.connect

    def loopback_connect(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            assert ipaddress.ip_address(host).is_loopback, f"a test connected to {host}"
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_connect)


@pytest.fixture
def chat_server():
    """A chat-completions server on 127.0.0.1 for the test, stopped after it."""
    server = ChatServer().start()
    yield server
    server.stop()
