"""A search engine on 127.0.0.1 for the tests of ``judge-app fetch``: it answers a search as
Elasticsearch 8, OpenSearch 2 or Solr 9 document their answers, or misbehaves as scripted.

Answers, as the engines' references give them:
- Elasticsearch 8 ``POST /INDEX/_search`` (elastic.co/guide/en/elasticsearch/reference/8.x/
  search-search.html): ``took``, ``timed_out``, ``_shards``, and ``hits`` with ``total``
  (``value``, ``relation``), ``max_score`` and ``hits[]`` of ``_index``, ``_id``,
  ``_score``, ``_source`` and, where the request asks for it, ``highlight`` (field: list of
  fragments with ``<em>`` tags; .../highlighting.html). Errors are ``{"error": {"root_cause":
  [{"type", "reason"}], "type", "reason"}, "status": N}``: 400 ``parsing_exception``, 401
  ``security_exception``, 404 ``index_not_found_exception`` ("no such index [x]"), 429
  ``es_rejected_execution_exception``.
- OpenSearch 2 (opensearch.org/docs/latest/api-reference/search/): the same shape.
- Solr 9 ``/select`` with the JSON Request API (solr.apache.org/guide/solr/latest/
  query-guide/json-request-api.html), whose ``params`` take request parameters:
  ``responseHeader`` (``status`` 0, ``QTime``, ``params``), ``response`` (``numFound``,
  ``start``, ``maxScore``, ``numFoundExact``, ``docs[]`` with ``score`` where ``fl`` asks for
  it) and ``highlighting`` keyed by document id (.../highlighting.html). Errors are
  ``{"responseHeader": {"status": N, ...}, "error": {"metadata": ["error-class", ...],
  "msg": "...", "code": N}}`` (Solr's ResponseUtils.getErrorInfo).

The documents are ranked by how many of the query's words they hold (ties by id). Behaviour
is chosen per request from the query text: ``script[word]`` is a list of actions consumed in
order by the requests whose query holds ``word``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

DOCUMENTS = {
    "d1": {
        "title": "Best pizza dough",
        "url": "https://example.org/d1",
        "body": "pizza dough with flour and yeast",
    },
    "d2": {
        "title": "Pizza ovens",
        "url": "https://example.org/d2",
        "body": "a wood oven bakes pizza fast",
    },
    "d3": {
        "title": "Sourdough bread",
        "url": "https://example.org/d3",
        "body": "bread dough rises slowly",
    },
    "d4": {
        "title": "Tomato sauce",
        "url": "https://example.org/d4",
        "body": "sauce for pizza and pasta",
    },
    "d5": {
        "title": "Garden tomatoes",
        "url": "https://example.org/d5",
        "body": "growing tomatoes in summer",
    },
}


@dataclass(frozen=True)
class Status:
    """An error status with the engine's error body, and a Retry-After header if given."""

    code: int
    retry_after: str | None = None


@dataclass(frozen=True)
class Sleep:
    """Sleep this long, then answer (too late for a short timeout)."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """Send the headers and half the body, then close the connection."""


@dataclass(frozen=True)
class Redirect:
    """Answer with this status and a Location on ``target`` (a base URL), same path."""

    target: str
    code: int = 307


@dataclass(frozen=True)
class Raw:
    """200 with this JSON body, as it is."""

    body: Any


@dataclass(frozen=True)
class Seen:
    """A request as received: its path, headers (lower-case names), JSON body and time."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float


ERRORS = {
    400: ("parsing_exception", "unknown query [matc]"),
    401: (
        "security_exception",
        "missing authentication credentials for REST request [/products/_search]",
    ),
    404: ("index_not_found_exception", "no such index [products]"),
    429: ("es_rejected_execution_exception", "rejected execution of coordinating operation"),
    500: ("search_phase_execution_exception", "all shards failed"),
    503: ("cluster_block_exception", "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered]"),
}


@dataclass
class EngineServer:
    """The engine: ``kind`` (elasticsearch, opensearch, solr), ``url`` its search address,
    ``seen`` every request, ``script`` the scripted actions, ``auth`` the Authorization a
    request must carry (None: any), ``host`` the loopback address it listens on."""

    kind: str = "elasticsearch"
    script: dict[str, list[Any]] = field(default_factory=dict)
    auth: str | None = None
    host: str = "127.0.0.1"
    documents: dict[str, dict[str, str]] = field(default_factory=lambda: dict(DOCUMENTS))
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> EngineServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # a redirected POST arrives as a GET, without a body
                self.handle_search({})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                self.handle_search(json.loads(self.rfile.read(length) or b"{}"))

            def handle_search(self, body: dict[str, Any]) -> None:
                headers = {key.lower(): value for key, value in self.headers.items()}
                seen = Seen(self.path, headers, body, time.monotonic())
                action = server.record(seen)
                if server.auth is not None and headers.get("authorization") != server.auth:
                    self.reply(
                        401, server.error_body(401), {"WWW-Authenticate": 'Basic realm="security"'}
                    )
                    return
                if isinstance(action, Redirect):
                    self.reply(action.code, {}, {"Location": action.target + self.path})
                    return
                if isinstance(action, Status):
                    extra = {"Retry-After": action.retry_after} if action.retry_after else {}
                    self.reply(action.code, server.error_body(action.code), extra)
                    return
                if isinstance(action, Sleep):
                    time.sleep(action.seconds)
                if isinstance(action, Raw):
                    self.reply(200, action.body)
                    return
                answer = server.answer(body)
                if isinstance(action, Drop):
                    data = json.dumps(answer).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.reply(200, answer)

            def reply(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (its timeout)
                    pass

        self.httpd = ThreadingHTTPServer((self.host, 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        return self

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        """The search address, as a user gives it to --url."""
        if self.kind == "solr":
            return f"{self.base}/solr/products/select"
        return f"{self.base}/products/_search"

    def record(self, seen: Seen) -> Any:
        """Note the request; the scripted action for it, or None."""
        text = query_text(self.kind, seen.body)
        with self.lock:
            self.seen.append(seen)
            for word, actions in self.script.items():
                if word in text and actions:
                    return actions.pop(0)
        return None

    def ranked(self, text: str, size: int) -> list[tuple[str, float]]:
        """(id, score) of the documents that hold a word of ``text``, best first."""
        words = text.lower().split()
        scored = []
        for doc_id, document in self.documents.items():
            holds = f"{document['title']} {document['body']}".lower().split()
            score = float(sum(holds.count(word) for word in words))
            if score:
                scored.append((doc_id, round(score * 1.2345, 4)))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:size]

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The engine's answer to a search ``body``."""
        text = query_text(self.kind, body)
        if self.kind == "solr":
            params = body.get("params", {})
            ranked = self.ranked(text, int(params.get("rows", body.get("limit", 10))))
            with_score = "score" in str(params.get("fl", body.get("fields", "")))
            docs = [
                {
                    "id": doc_id,
                    **{k: [v] if k == "title" else v for k, v in self.documents[doc_id].items()},
                }
                | ({"score": score} if with_score else {})
                for doc_id, score in ranked
            ]
            answer: dict[str, Any] = {
                "responseHeader": {"status": 0, "QTime": 3, "params": {"json": json.dumps(body)}},
                "response": {
                    "numFound": len(ranked),
                    "start": 0,
                    "maxScore": ranked[0][1] if ranked else 0.0,
                    "numFoundExact": True,
                    "docs": docs,
                },
            }
            if params.get("hl") in ("true", True):
                answer["highlighting"] = {
                    doc_id: {"body": [self.emphasised(doc_id, text)]} for doc_id, _ in ranked
                }
            return answer
        ranked = self.ranked(text, int(body.get("size", 10)))
        hits = []
        for doc_id, score in ranked:
            hit: dict[str, Any] = {
                "_index": "products",
                "_id": doc_id,
                "_score": score,
                "_source": self.documents[doc_id],
            }
            if "highlight" in body:
                hit["highlight"] = {"body": [self.emphasised(doc_id, text)]}
            hits.append(hit)
        return {
            "took": 2,
            "timed_out": False,
            "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
            "hits": {
                "total": {"value": len(ranked), "relation": "eq"},
                "max_score": ranked[0][1] if ranked else None,
                "hits": hits,
            },
        }

    def emphasised(self, doc_id: str, text: str) -> str:
        """The document's body with the query's words in <em> tags, as a highlighter gives it."""
        words = set(text.lower().split())
        return " ".join(
            f"<em>{w}</em>" if w in words else w for w in self.documents[doc_id]["body"].split()
        )

    def error_body(self, code: int) -> dict[str, Any]:
        """The engine's error body for ``code``."""
        kind, reason = ERRORS.get(code, ("exception", f"status {code}"))
        if self.kind == "solr":
            return {
                "responseHeader": {"status": code, "QTime": 1},
                "error": {
                    "metadata": [
                        "error-class",
                        "org.apache.solr.common.SolrException",
                        "root-error-class",
                        "org.apache.solr.common.SolrException",
                    ],
                    "msg": "undefined field nosuch" if code == 400 else reason,
                    "code": code,
                },
            }
        cause = {"type": kind, "reason": reason}
        return {"error": {"root_cause": [cause], **cause}, "status": code}

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def query_text(kind: str, body: dict[str, Any]) -> str:
    """The query text a request carries, where the tests' templates put it."""
    if kind == "solr":
        return str(body.get("params", {}).get("q", body.get("query", "")))
    query = body.get("query", {})
    if isinstance(query, str):
        return query
    for clause in ("multi_match", "match"):
        found = query.get(clause)
        if isinstance(found, dict):
            inner = found.get("query", next(iter(found.values()), ""))
            return str(inner.get("query", "") if isinstance(inner, dict) else inner)
    return ""


@pytest.fixture
def engine_server():
    """An Elasticsearch-like engine on 127.0.0.1 for the test, stopped after it."""
    server = EngineServer().start()
    yield server
    server.stop()
