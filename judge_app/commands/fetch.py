"""Make a run from a live search engine (``judge-app fetch``, Lead ▸ Fetch results…): each
query of the database is sent through a request template (``engines.template``) to
Elasticsearch, OpenSearch, Solr or any JSON service over HTTP (``engines.client``), the top
``depth`` hits of each answer are mapped to documents (``engines.fields``), and the whole is
written at the end, in one short transaction, as a new run (``store.fetched_runs``).

A run is a snapshot: it is never replaced, so fetching again (under another name) makes
another run and two days can be compared; its description keeps the engine, its address
(without credentials or query string), the time, the paths and the template. Documents the
database has not seen are added with their texts; those it has keep theirs. Credentials come
from an environment variable and are never stored. A query that fails is named and the others
are kept; a run whose every query failed, a path of the user's that finds nothing, or a
cancel, writes nothing. The queries are those of the database (``queries``: some of their
ids); one without text is skipped and said.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from judge_app.engines.client import (
    EngineClient,
    EngineError,
    QueryFailed,
    Stopped,
    authorization,
)
from judge_app.engines.fields import FieldMapping, Hit, MappingError
from judge_app.engines.pacing import Clock, Pacer, Wait, cancellable_wait
from judge_app.engines.template import RequestTemplate
from judge_app.errors import JudgeAppError, UsageError, quoted, some_of, typed
from judge_app.names import normal_id
from judge_app.options import check_patience, check_variable_name, require_finite, require_whole
from judge_app.store.database import Database, opened
from judge_app.store.fetched_runs import (
    FetchedDocument,
    FetchedResult,
    queries_with_text,
    run_names,
    write_fetched_run,
)
from judge_app.web import public_url

AUTH_ENV = "JUDGE_APP_ENGINE_AUTH"
DEFAULT_TEMPLATES = {
    "elasticsearch": """{
  "query": {"multi_match": {"query": "{query}", "fields": ["title^2", "body"]}},
  "size": {depth}
}
""",
    "solr": """{
  "params": {
    "q": "{query}",
    "defType": "edismax",
    "qf": "title^2 body",
    "fl": "*,score",
    "rows": {depth}
  }
}
""",
    "http": """{"query": "{query}", "size": {depth}}
""",
}
DEFAULT_TEMPLATES["opensearch"] = DEFAULT_TEMPLATES["elasticsearch"]
"""A first template for each engine, to copy and edit (``--show-template``)."""

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
Retrying = Callable[[int, str, float], None]
"""Hears, as a request is to be sent again, the retries so far, why and the pause."""


@dataclass(frozen=True)
class FetchOptions:
    """Where and how to fetch: the ``engine`` (``ENGINES``), its search ``url``, the request
    ``template`` (None: the engine's ``DEFAULT_TEMPLATES``), the ``queries`` (None: all), the
    ``depth`` kept of each answer, the new run's ``run_name`` (None: the engine and the
    time), the ``fields`` paths that differ from the engine's defaults, the environment
    variable holding the credentials (``auth_env``), at most ``rate`` requests a second (0:
    no limit), the ``timeout`` of a request in seconds, its ``retries`` and the first pause
    between them (``backoff`` s)."""

    engine: str = "elasticsearch"
    url: str = ""
    template: RequestTemplate | None = None
    queries: tuple[str, ...] | None = None
    depth: int = 10
    run_name: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    auth_env: str = AUTH_ENV
    rate: float = 10.0
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 1.0

    def checked(self) -> FetchOptions:
        """These options, or a usage error naming the first that is wrong (a template's
        mistakes are a TemplateError naming its line)."""
        self.mapping.checked()
        if not re.match(r"https?://[^/\s]+", self.url.strip()):
            raise UsageError(
                "takes the engine's search address: http://localhost:9200/INDEX/_search, "
                "http://localhost:8983/solr/CORE/select",
                "url",
            )
        require_whole("depth", self.depth, 1, 10_000)
        if self.run_name is not None and not normal_id(self.run_name):
            raise UsageError("needs a name", "run-name")
        if self.queries is not None and (
            not self.queries or len(set(self.queries)) != len(self.queries)
        ):
            raise UsageError("needs query ids, each once", "queries")
        check_variable_name("auth-env", self.auth_env)
        require_finite("rate", self.rate)
        if not 0 <= self.rate <= 1000:
            raise UsageError("takes requests a second from 0 (no limit) to 1000", "rate")
        check_patience(self.timeout, self.retries, self.backoff)
        self.request_template.checked()
        return self

    @property
    def mapping(self) -> FieldMapping:
        """Where the answers keep their hits and each hit its document."""
        return FieldMapping(self.engine, dict(self.fields))

    @property
    def request_template(self) -> RequestTemplate:
        """The template the requests are made from."""
        if self.template is not None:
            return self.template
        default = DEFAULT_TEMPLATES.get(self.engine, DEFAULT_TEMPLATES["http"])
        return RequestTemplate(default, f"the default {self.engine} template")


@dataclass
class FetchSummary:
    """What a fetch did: the ``run`` written (None: nothing was), its ``results`` for
    ``queries`` answered, the ``failed`` queries with their reasons, those ``skipped`` (no
    text), the ``documents_added`` to the database, the retries, the seconds it took, and
    whether it was ``cancelled``."""

    run: str | None
    queries: int = 0
    results: int = 0
    documents_added: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    retried: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    total: int = 0

    def sentence(self) -> str:
        """The fetch in words, as the command line and the window say it."""
        if self.cancelled:
            return (
                f"cancelled after {self.queries + len(self.failed):,} of {self.total:,} "
                "queries: nothing was stored"
            )
        text = (
            f"run {typed(self.run or '')}: {self.results:,} results for {self.queries:,} "
            f"queries; {self.documents_added:,} documents new"
        )
        if self.retried:
            text += f"; {self.retried:,} retries"
        if self.skipped:
            text += f"; {len(self.skipped):,} skipped without text: {some_of(self.skipped)}"
        if self.failed:
            text += "\n" + self.failures()
        return text

    def failures(self) -> str:
        """The queries that failed, each with its reason (the first ten)."""
        reasons = [f"{query} ({why})" for query, why in self.failed.items()]
        text = f"{len(self.failed):,} queries failed: " + "; ".join(reasons[:10])
        return text + (f"; and {len(reasons) - 10:,} more" if len(reasons) > 10 else "")


class FetchError(JudgeAppError):
    """A fetch that stored nothing: every query failed, or the mapping found nothing."""


def fetch(
    database: Database | str,
    options: FetchOptions,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    retrying: Retrying | None = None,
    clock: Clock = time.monotonic,
    wait: Wait | None = None,
) -> FetchSummary:
    """Fetch the run of ``options`` into ``database`` (an open one, or a path or URL);
    ``progress`` hears (queries done, queries to send) after each, ``retrying`` each retry,
    ``cancelled`` is read before each request and during pauses. ``clock`` and ``wait``
    pace the requests (tests give their own)."""
    options = options.checked()
    stop = cancelled or (lambda: False)
    auth = authorization(os.environ.get(options.auth_env))
    with opened(database) as found:
        with found.reading() as session:
            names = run_names(session)
            stored = queries_with_text(session, options.queries)
        missing = sorted(set(options.queries or ()) - {query for query, _ in stored})
        if missing:
            raise UsageError(f": the database has no query {', '.join(map(quoted, missing))}",
                             "queries")  # fmt: skip
        started_at = datetime.now(UTC).replace(microsecond=0)
        name = normal_id(options.run_name or f"{options.engine} {started_at:%Y-%m-%d %H:%M:%S}")
        if name in names:
            other = typed(f"{name} {started_at:%Y-%m-%d}")
            raise UsageError(
                f": the database has a run {quoted(name)} already; a fetch makes a new run "
                f"(a snapshot): give another name, such as {other}",
                "run-name",
            )
        summary = FetchSummary(run=None, total=len(stored))
        started = time.monotonic()
        fetched = _fetch_all(options, stored, summary, auth, progress, stop, retrying, clock,
                             wait or cancellable_wait(stop))  # fmt: skip
        summary.seconds = time.monotonic() - started
        if summary.cancelled:
            return summary
        documents, results, found_fields = fetched
        if not results and summary.failed:
            raise FetchError(f"no query was answered: nothing was stored\n{summary.failures()}")
        unfound = options.mapping.unfound(found_fields) if results else []
        if unfound:
            raise FetchError(
                f"{', '.join(unfound)}: found nothing in any of the {len(results):,} hits "
                "fetched: nothing was stored"
            )
        description = _description(options, started_at, summary)
        added, written = found.write(
            lambda session: write_fetched_run(session, name, description, documents, results)
        )
    summary.run, summary.documents_added, summary.results = name, added, written
    return summary


def _fetch_all(
    options: FetchOptions,
    stored: list[tuple[str, str | None]],
    summary: FetchSummary,
    auth: str | None,
    progress: Progress | None,
    stop: Cancelled,
    retrying: Retrying | None,
    clock: Clock,
    wait: Wait,
) -> tuple[dict[str, FetchedDocument], list[FetchedResult], set[str]]:
    """Send every query with text; the documents and results of those answered, and the
    fields found in any hit."""
    template, mapping = options.request_template, options.mapping
    documents: dict[str, FetchedDocument] = {}
    results: list[FetchedResult] = []
    found: set[str] = set()

    def heard(why: str, pause: float) -> None:
        summary.retried += 1
        if retrying is not None:
            retrying(summary.retried, why, pause)

    client = EngineClient(
        options.url,
        Pacer(options.rate, clock, wait),
        auth=auth,
        timeout=options.timeout,
        retries=options.retries,
        backoff=options.backoff,
        retrying=heard,
    )
    with client:
        for done, (query_id, text) in enumerate(stored):
            if stop():
                summary.cancelled = True
                break
            if text is None or not text.strip():
                summary.skipped.append(query_id)
            else:
                try:
                    answer = client.search(template.body(text, query_id, options.depth))
                    hits = _mapped(mapping, answer.body, options.depth)
                except Stopped:
                    summary.cancelled = True
                    break
                except EngineError as error:
                    raise _without_credentials(error, auth, options.auth_env) from None
                except (QueryFailed, MappingError) as error:
                    if isinstance(error, MappingError) and not summary.queries:
                        raise FetchError(f"query {query_id}: {error}: nothing was stored") from None
                    summary.failed[query_id] = str(error)
                else:
                    summary.queries += 1
                    for rank, hit in enumerate(hits, start=1):
                        document = FetchedDocument(hit.title, hit.url, hit.body)
                        documents.setdefault(hit.doc_id, document)
                        results.append(FetchedResult(query_id, hit.doc_id, rank, hit.score))
                        found.update(hit.found())
            if progress is not None:
                progress(done + 1, len(stored))
    return documents, results, found


def _mapped(mapping: FieldMapping, answer: object, depth: int) -> list[Hit]:
    """The top ``depth`` hits of ``answer``, each document once (a repeat is dropped: a
    run holds a document once per query)."""
    hits: list[Hit] = []
    seen: set[str] = set()
    for position, raw in enumerate(mapping.hits(answer), start=1):
        hit = mapping.hit(position, raw)
        if hit.doc_id not in seen:
            seen.add(hit.doc_id)
            hits.append(hit)
        if len(hits) == depth:
            break
    return hits


def _without_credentials(error: EngineError, auth: str | None, variable: str) -> EngineError:
    """``error``, saying where credentials come from when the engine refused to go without."""
    if auth is None and "refused" in str(error):
        return EngineError(f"{error}; no credentials were sent: {variable} is not set")
    return error


def _description(options: FetchOptions, at: datetime, summary: FetchSummary) -> str:
    """The run's description: where from, when, how many, the paths and the template."""
    template = options.request_template
    failed = (
        f"; {len(summary.failed):,} failed: {some_of(list(summary.failed))}"
        if summary.failed
        else ""
    )
    return (
        f"Fetched from {options.engine} at {public_url(options.url)} on "
        f"{at:%Y-%m-%d %H:%M:%S} UTC: the top {options.depth} hits of {summary.queries:,} "
        f"queries{failed}.\n"
        f"Fields: {options.mapping.described()}\n"
        f"Template ({Path(template.source).name if options.template else template.source}):\n"
        f"{template.text.rstrip()}"
    )
