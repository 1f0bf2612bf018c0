"""Grade the pooled pairs with an LLM judge (``judge-app autojudge``, Lead ▸ Automatic
judge…) over the OpenAI-compatible chat-completions protocol (``automatic_judges.llm``) with
a prompt a lead can edit (``automatic_judges.prompt``); the local judge, learned from the
human grades, is ``commands.autojudge_local``.

The pairs are the pool of the chosen queries: the top ``depth`` of the pooled runs (the
lead's pooling settings), each (query, document) once, in order of query, best rank and
document; ``limit`` keeps the first N. A pair the judge already graded with the same request
(model and exact messages: the request hash) is not asked again, so a rerun costs nothing.
The answers are written as they arrive, committed in batches (a crash loses at most one
batch), as the judge's grades in ``auto_judgment``, never in ``judgment``; an answer that is
not a grade is written as a failure with its reason. Cancelling stops asking and keeps what
was written. The API key is read from an environment variable and never stored.
"""

from __future__ import annotations

import os
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from judge_app.automatic_judges.llm import (
    MAX_TOKENS,
    ChatSettings,
    EndpointError,
    Reply,
    check_endpoint,
    keyless,
    on_this_machine,
    public_url,
    replies,
)
from judge_app.automatic_judges.probes import (
    PROBE_PAIRS,
    probe_pair,
    probe_sample,
    probe_template,
    probes_of,
)
from judge_app.automatic_judges.prompt import (
    DEFAULT_TEMPLATE,
    Pair,
    answer_prefix,
    answer_schema,
    check_template,
    messages,
    parse_grade,
    prompt_version,
    request_sha,
)
from judge_app.errors import JudgeAppError, UsageError, typed
from judge_app.names import normal_id
from judge_app.options import (
    check_known,
    check_patience,
    check_variable_name,
    require_whole,
)
from judge_app.store.automatic import (
    AutoGrade,
    add_judge,
    cached,
    probes_cached,
    write_grades,
    write_probes,
)
from judge_app.store.automatic import judge as stored_judge
from judge_app.store.database import Database, opened
from judge_app.store.grade_labels import GradeLabel
from judge_app.store.judge_pairs import PoolPair, pool_pairs, query_external_ids
from judge_app.store.models import AUTOMATIC
from judge_app.store.people import find_rater
from judge_app.store.rater_queue import pool_settings
from judge_app.store.settings import scale
from judge_app.writers.corrected import quality_warning

if TYPE_CHECKING:
    from judge_app.evaluation.judge_quality import JudgeQuality

API_KEY_ENV = "JUDGE_APP_API_KEY"
BATCH_ANSWERS = 25
BATCH_SECONDS = 2.0
"""Answers are committed every BATCH_ANSWERS answers or BATCH_SECONDS, whichever is first."""

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
Retrying = Callable[[int, str, float], None]
"""Hears, as an attempt is to be tried again, the retries so far, why it failed and the
seconds before it is tried again."""


@dataclass(frozen=True)
class AutojudgeOptions:
    """How to judge: the judge's ``name`` (None: the model's); the chat-completions
    ``endpoint`` (base URL) and ``model``; the environment variable holding the API key; the
    prompt ``template`` text (None: the default); the ``queries`` (None: all); the first
    ``limit`` pairs (None: all); the pool ``depth`` (None: the lead's pooling depth); requests
    at once (``concurrency``; None: ``auto_concurrency``), the ``timeout`` of one in seconds,
    ``retries`` and the first pause between them (``backoff`` s); the document text cut to
    ``body_chars``; the most tokens an answer may take (``max_tokens``); a ``structured``
    answer (a JSON object, ``prompt.answer_schema``) or free text; ``retry_failed``: ask
    again the pairs whose answer with the same request failed (else they are kept as they
    are: at temperature 0 a model fails the same way); ``probes``: pairs of the pool (drawn
    at random, the same each run) asked again as each probe changes them
    (``automatic_judges.probes``: instructions injected, query words stuffed, the prompt worded
    otherwise), 0 for none."""

    endpoint: str | None = None
    model: str | None = None
    name: str | None = None
    api_key_env: str = API_KEY_ENV
    template: str | None = None
    queries: tuple[str, ...] | None = None
    limit: int | None = None
    depth: int | None = None
    concurrency: int | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    body_chars: int = 4000
    max_tokens: int = MAX_TOKENS
    structured: bool = True
    retry_failed: bool = False
    probes: int = PROBE_PAIRS

    def checked(self) -> AutojudgeOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.limit is not None:
            require_whole("limit", self.limit, 1)
        if self.depth is not None:
            require_whole("depth", self.depth, 1)
        if self.queries is not None and (
            not self.queries or len(set(self.queries)) != len(self.queries)
        ):
            raise UsageError("needs query ids, each once", "queries")
        if self.name is not None and not normal_id(self.name):
            raise UsageError("needs a name", "name")
        check_asking(self)
        require_whole("body-chars", self.body_chars, 1)
        require_whole("probes", self.probes, 0, note=" (0: no probe)")
        check_template(self.prompt_template)
        return self

    @property
    def prompt_template(self) -> str:
        """The template the prompt is made from."""
        return DEFAULT_TEMPLATE if self.template is None else self.template

    @property
    def judge_name(self) -> str:
        """The name the judge's grades are kept under."""
        return normal_id(self.name or self.model or "")


@dataclass
class ChatRunSummary:
    """What a run of questions to a chat model did, whatever it asked: the judge, the
    ``pairs`` to answer, those ``cached`` (answered before with the same requests, not asked;
    ``cached_failures`` of them failed), those ``failed`` (by kind of reason, with the
    first), the extra attempts ``retried``, the tokens and seconds, the ``answer_format`` the
    server took (``llm.ANSWER_FORMATS``) and the requests at once; ``cancelled`` if it
    stopped before the end."""

    judge: str
    pairs: int = 0
    cached: int = 0
    cached_failures: int = 0
    failed: int = 0
    retried: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    first_failure: str | None = None
    failures: dict[str, int] = field(default_factory=dict)
    """How many failed, by kind of reason (``failure_kind``)."""
    answer_format: str | None = None
    concurrency: int = 0  # requests at once

    def set_answer_format(self, answer_format: str) -> None:
        """The format the server was asked for its answers in (as ``replies`` tells it)."""
        self.answer_format = answer_format

    def _opening(self, asked: str) -> str:
        """The sentence's start: the judge, the pairs, the cached, ``asked`` (what of them
        was asked, in words) and the retries."""
        failures = (
            f" ({self.cached_failures:,} failed before: --retry-failed asks them again)"
            if self.cached_failures
            else ""
        )
        text = (
            f"judge {typed(self.judge)}: {self.pairs:,} pairs, {self.cached:,} cached{failures}, "
            f"{asked}"
        )
        return text + (f" ({self.retried:,} retries)" if self.retried else "")

    def _tokens(self) -> str:
        return (
            f"; {self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens; "
            f"{self.seconds:.1f} s"
        )

    def _closing(self) -> str:
        """The sentence's end: how the answers were asked, a cancel, the failures."""
        text = ""
        if self.answer_format is not None:
            text += f"; answers asked {ANSWER_WORDS[self.answer_format]}"
        if self.concurrency:
            text += f", {self.concurrency} at once"
        if self.cancelled:
            text += "; cancelled (what was answered is kept)"
        if self.failures:
            kinds = sorted(self.failures.items(), key=lambda item: -item[1])
            text += "\nfailed: " + "; ".join(f"{count:,} {kind}" for kind, count in kinds)
            text += f"\nfirst failure: {self.first_failure}"
        return text


@dataclass
class AutojudgeSummary(ChatRunSummary):
    """What a run of ``autojudge`` did (``ChatRunSummary``): ``graded`` of the pairs asked
    and the judge's ``agreement`` with the humans once its grades are written. The probes
    (``automatic_judges.probes``) of ``probe_pairs`` pairs: ``probes_cached``, ``probed`` and
    ``probes_failed``; their tokens and time count with the pairs'."""

    graded: int = 0
    agreement: JudgeQuality | None = None
    probe_pairs: int = 0
    probe_kinds: tuple[str, ...] = ()
    probes_cached: int = 0
    probed: int = 0
    probes_failed: int = 0

    @property
    def asked(self) -> int:
        """The pairs answered (graded or failed)."""
        return self.graded + self.failed

    def sentence(self) -> str:
        """The run in one line, as the command line and the window say it."""
        text = (
            self._opening(f"{self.asked:,} asked: {self.graded:,} graded, {self.failed:,} failed")
            + self._tokens()
        )
        requests = self.asked + self.probed
        if requests:
            tokens = (self.prompt_tokens + self.completion_tokens) / requests
            text += f" ({self.seconds / requests:.2f} s and {tokens:,.0f} tokens a request)"
        if self.probe_kinds:
            text += (
                f"; probes ({', '.join(self.probe_kinds)} of {self.probe_pairs:,} pairs): "
                f"{self.probes_cached:,} cached, {self.probed:,} asked, "
                f"{self.probes_failed:,} failed"
            )
        text += self._closing()
        warning = None if self.agreement is None else quality_warning(self.agreement)
        if warning:
            text += f"\n{warning}"
        return text


ANSWER_WORDS = {
    "json_schema": "as JSON with a schema",
    "json_object": "as a JSON object with a schema",
    "text": "in free text",
}


@dataclass(frozen=True)
class _Request:
    """One question to ask: the pair, its messages and their hash, and the ``probe`` it is
    (None: the pair's own question)."""

    pair: PoolPair
    messages: list[dict[str, str]]
    sha: str
    probe: str | None = None


REMOTE_CONCURRENCY = 4
"""Requests at once to a server elsewhere that does not say how many it works on."""


class ChatOptions(Protocol):
    """What a command that asks a chat model (``AutojudgeOptions``, ``PairJudgeOptions``)
    says of how to ask it."""

    @property
    def endpoint(self) -> str | None: ...

    @property
    def model(self) -> str | None: ...

    @property
    def api_key_env(self) -> str: ...

    @property
    def concurrency(self) -> int | None: ...

    @property
    def timeout(self) -> float: ...

    @property
    def retries(self) -> int: ...

    @property
    def backoff(self) -> float: ...

    @property
    def max_tokens(self) -> int: ...

    @property
    def structured(self) -> bool: ...


def check_asking(options: ChatOptions) -> None:
    """A usage error naming the first of ``options``' ways of asking that is wrong."""
    if not options.endpoint or not re.match(r"https?://[^/\s]+", options.endpoint.strip()):
        raise UsageError("takes the base URL of a chat-completions server: "
                         "http://localhost:11434/v1", "endpoint")  # fmt: skip
    if not options.model or not options.model.strip():
        raise UsageError("needs the name of a model the endpoint serves", "model")
    check_variable_name("api-key-env", options.api_key_env)
    if options.concurrency is not None:
        require_whole("concurrency", options.concurrency, 1, 64)
    check_patience(options.timeout, options.retries, options.backoff)
    require_whole("max-tokens", options.max_tokens, 16, 100_000)


def asking(options: ChatOptions) -> tuple[ChatSettings, int]:
    """The client's settings of checked ``options`` (the API key read from its variable) and
    the requests at once: ``options.concurrency``, else as the endpoint (asked now: an
    endpoint that is wrong stops the run before anything is written) says it works."""
    assert options.model is not None and options.endpoint is not None  # checked
    endpoint = options.endpoint.strip()
    settings = ChatSettings(
        base_url=endpoint,
        model=options.model.strip(),
        api_key=os.environ.get(options.api_key_env) or None,
        timeout=options.timeout,
        retries=options.retries,
        backoff=options.backoff,
        max_tokens=options.max_tokens,
        structured=options.structured,
    )
    return settings, options.concurrency or auto_concurrency(endpoint, check_endpoint(settings))


def auto_concurrency(endpoint: str, slots: int | None) -> int:
    """Requests at once when none are asked for: the server's ``slots`` where it says them
    (llama.cpp), else 1 for a server on this machine (one model on this machine's cores:
    more at once only wait in its queue, their time running out) and ``REMOTE_CONCURRENCY``
    for one elsewhere."""
    if slots is not None:
        return min(slots, 64)
    return 1 if on_this_machine(endpoint) else REMOTE_CONCURRENCY


def next_steps(db: str, judge: str) -> str:
    """What to run after ``autojudge`` on ``db`` (as the user gave it): the judge's name as
    every later command takes it, and the calibration to read first."""
    return (
        f"The judge is named {typed(judge)}: later commands take --judge {typed(judge)}.\n"
        f"Next: judge-app calibrate {shlex.quote(db)} --judge {typed(judge)}"
    )


def autojudge(
    database: Database | str,
    options: AutojudgeOptions,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    retrying: Retrying | None = None,
) -> AutojudgeSummary:
    """Grade the pool of ``options`` on ``database`` (an open one, or a path or URL) with the
    LLM judge it names; ``progress`` hears (answered, to ask) after each answer, ``retrying``
    each retry (the retries so far, why, the pause); ``cancelled`` is read between
    requests."""
    options = options.checked()
    with opened(database) as found:
        return _judged(found, options, progress, cancelled, retrying)


def _judged(
    database: Database,
    options: AutojudgeOptions,
    progress: Progress | None,
    cancelled: Cancelled | None,
    retrying: Retrying | None,
) -> AutojudgeSummary:
    """``autojudge`` on the open ``database``."""
    started = time.monotonic()
    template = options.prompt_template
    pairs, grades = _pool_of(database, options)
    settings, concurrency = asking(options)  # before the judge is made: none of a run never begun
    model, endpoint = settings.model, settings.base_url
    judge = database.write(
        lambda session: add_judge(
            session,
            options.judge_name,
            method="llm",
            model=model,
            prompt_version=prompt_version(template, grades, options.body_chars),
            template=template,
            endpoint=public_url(endpoint),
            details={
                "temperature": 0,
                "body_chars": options.body_chars,
                "api_key_env": options.api_key_env,
            },
        )
    )
    with database.reading() as session:
        known = cached(session, judge.rater_id)
        known_probes = probes_cached(session, judge.rater_id)
    summary = AutojudgeSummary(judge.name, pairs=len(pairs), concurrency=concurrency)
    requests = _to_ask(pairs, grades, known, options, summary)
    requests += _probes_to_ask(pairs, grades, known_probes, options, summary)
    writer = _BatchWriter(database, judge.rater_id)
    try:
        for request, reply in replies(
            settings, requests, _messages, answer_schema(), concurrency, progress=progress,
            cancelled=cancelled or (lambda: False), retrying=retrying,
            answered_as=summary.set_answer_format, name="autojudge",
        ):  # fmt: skip
            if reply is not None:
                writer.add(_grade_of(request, reply, summary), request.probe)
        summary.cancelled = summary.asked + summary.probed < len(requests)
    except EndpointError as error:
        raise keyless(error, settings, options.api_key_env) from None
    finally:
        writer.flush()
        summary.seconds = time.monotonic() - started
    summary.agreement = agreement(database, summary.judge)
    return summary


@dataclass(frozen=True)
class AutojudgeEstimate:
    """What a run would ask, before it starts (``estimate``): the pairs ``to_ask`` of the
    ``pairs`` (the others ``cached``) and the ``probes`` to ask, the characters of their
    prompts, the most tokens an answer may take, and the judge's tokens a request so far
    (None: it has answered none)."""

    judge: str
    pairs: int
    cached: int
    to_ask: int
    probes: int
    prompt_characters: int
    max_tokens: int
    seen: tuple[float, float] | None

    def sentence(self) -> str:
        """The estimate in words, as the command line says it."""
        prompt = self.prompt_characters / CHARACTERS_A_TOKEN
        requests = self.to_ask + self.probes
        text = (
            f"judge {typed(self.judge)}: {self.pairs:,} pairs, {self.cached:,} cached, "
            f"{self.to_ask:,} to ask and {self.probes:,} probes (--probes): about "
            f"{prompt:,.0f} prompt tokens ({self.prompt_characters:,} characters / "
            f"{CHARACTERS_A_TOKEN}) and at most {requests * self.max_tokens:,} completion "
            f"tokens (--max-tokens {self.max_tokens:,} each)"
        )
        if self.seen is not None:
            prompt_seen, completion_seen = self.seen
            text += (
                f"; this judge has used {prompt_seen:,.0f} prompt and {completion_seen:,.0f} "
                f"completion tokens a request: about {requests * prompt_seen:,.0f} and "
                f"{requests * completion_seen:,.0f} for these"
            )
        return text + ". Nothing was asked: multiply by the provider's prices per token."


CHARACTERS_A_TOKEN = 4
"""A prompt's tokens, estimated from its characters (English text, common tokenizers)."""


def estimate(database: Database | str, options: AutojudgeOptions) -> AutojudgeEstimate:
    """What ``autojudge`` would ask with ``options`` of ``database`` (an open one, or a path
    or URL, opened read-only), without asking or making a judge."""
    options = options.checked()
    with opened(database, read_only=True) as found:
        return _estimated(found, options)


def _estimated(database: Database, options: AutojudgeOptions) -> AutojudgeEstimate:
    """``estimate`` on the open ``database``."""
    pairs, grades = _pool_of(database, options)
    name = options.judge_name
    with database.reading() as session:
        found = find_rater(session, name)
        judge_id = found.id if found is not None and found.kind == AUTOMATIC else None
        known = {} if judge_id is None else cached(session, judge_id)
        known_probes = {} if judge_id is None else probes_cached(session, judge_id)
        usage = None if judge_id is None else stored_judge(session, name).usage
    seen = None if usage is None else usage[:2]
    summary = AutojudgeSummary(name, pairs=len(pairs))
    requests = _to_ask(pairs, grades, known, options, summary)
    probes = _probes_to_ask(pairs, grades, known_probes, options, summary)
    characters = sum(len(message["content"]) for r in requests + probes for message in r.messages)
    return AutojudgeEstimate(
        name, len(pairs), summary.cached, len(requests), len(probes), characters,
        options.max_tokens, seen,
    )  # fmt: skip


def _pool_of(
    database: Database, options: AutojudgeOptions
) -> tuple[list[PoolPair], list[GradeLabel]]:
    """The pairs ``options`` asks of the pool, and the campaign's grades."""
    with database.reading() as session:
        grades = scale(session)
        pool = pool_settings(session)
        check_known(options.queries, query_external_ids(session), "query", "queries",
                    database.describe())  # fmt: skip
        pairs = pool_pairs(
            session,
            options.depth or pool.depth,
            runs=pool.runs,
            queries=options.queries,
            limit=options.limit,
            body_chars=options.body_chars,
        )
    if not pairs:
        raise JudgeAppError(f"{database.describe()}: no pooled pair to judge (import a run)")
    return pairs, list(grades)


def _to_ask(
    pairs: list[PoolPair],
    grades: list[GradeLabel],
    known: dict[tuple[int, int], tuple[str | None, bool]],
    options: AutojudgeOptions,
    summary: AutojudgeSummary,
) -> list[_Request]:
    """The questions of ``pairs`` not answered before with the same request (``known``: by
    pair, its request hash and whether it failed), the others counted as cached."""
    assert options.model is not None  # checked
    model, template = options.model.strip(), options.prompt_template
    requests = []
    for pair in pairs:
        rendered = messages(template, _prompt_pair(pair), grades, options.body_chars)
        sha = request_sha(model, rendered)
        earlier = known.get((pair.query_id, pair.document_id))
        if _kept(earlier, sha, options):
            summary.cached += 1
            summary.cached_failures += earlier is not None and earlier[1]
        else:
            requests.append(_Request(pair, rendered, sha))
    return requests


def _kept(earlier: tuple[str | None, bool] | None, sha: str, options: AutojudgeOptions) -> bool:
    """Is the answer given before (its request hash, whether it failed) kept, not asked
    again: its request is the same, and it did not fail or failures are not retried."""
    return earlier is not None and earlier[0] == sha and not (earlier[1] and options.retry_failed)


def _probes_to_ask(
    pairs: list[PoolPair],
    grades: list[GradeLabel],
    known: dict[tuple[str, int, int], tuple[str | None, bool]],
    options: AutojudgeOptions,
    summary: AutojudgeSummary,
) -> list[_Request]:
    """The probes of ``options.probes`` pairs drawn from ``pairs`` not answered before with
    the same request (``known``: by probe and pair), the others counted as cached."""
    assert options.model is not None  # checked
    model, template = options.model.strip(), options.prompt_template
    chosen = probe_sample(pairs, options.probes)
    summary.probe_pairs = len(chosen)
    summary.probe_kinds = probes_of(template) if chosen else ()
    requests = []
    for probe in summary.probe_kinds:
        for pair in chosen:
            shown = probe_pair(probe, _prompt_pair(pair), options.body_chars)
            rendered = messages(probe_template(probe, template), shown, grades, None)
            sha = request_sha(model, rendered)
            if _kept(known.get((probe, pair.query_id, pair.document_id)), sha, options):
                summary.probes_cached += 1
            else:
                requests.append(_Request(pair, rendered, sha, probe))
    return requests


def agreement(database: Database, judge: str) -> JudgeQuality | None:
    """The ``judge``'s agreement with the humans on the pairs both graded (None: it has
    graded nothing yet)."""
    from judge_app.commands.campaign import load_campaign
    from judge_app.errors import UsageError
    from judge_app.evaluation.judge_quality import judge_quality

    campaign = load_campaign(database, queries=False)
    try:
        graded = campaign.judge_graded(judge)
    except UsageError:
        return None
    return judge_quality(judge, campaign.graded, graded)


def _messages(request: _Request) -> list[dict[str, str]]:
    return request.messages


def _grade_of(request: _Request, reply: Reply, summary: AutojudgeSummary) -> AutoGrade:
    """The answer to write for ``reply``, counted in ``summary``."""
    summary.retried += max(0, reply.attempts - 1)
    summary.prompt_tokens += reply.prompt_tokens or 0
    summary.completion_tokens += reply.completion_tokens or 0
    failure = reply.failure
    grade = None
    if failure is None:
        prefix = answer_prefix(request.messages)
        verdict = parse_grade(prefix + (reply.answer or "") if prefix else reply.answer)
        grade, failure = verdict.grade, verdict.failure
    if request.probe is not None:
        summary.probed += 1
        summary.probes_failed += failure is not None
    elif failure is None:
        summary.graded += 1
    else:
        summary.failed += 1
        summary.first_failure = summary.first_failure or failure
        kind = failure_kind(failure)
        summary.failures[kind] = summary.failures.get(kind, 0) + 1
    return AutoGrade(
        query_id=request.pair.query_id,
        document_id=request.pair.document_id,
        grade=None if grade is None else float(grade),
        failure=failure,
        answer=reply.answer,
        prompt_sha=request.sha,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        duration_ms=reply.duration_ms,
    )


class _BatchWriter:
    """Commits a judge's answers (to its pairs and to its probes) every BATCH_ANSWERS answers
    or BATCH_SECONDS."""

    def __init__(self, database: Database, rater_id: int) -> None:
        self.database = database
        self.rater_id = rater_id
        self.batch: list[tuple[str | None, AutoGrade]] = []
        self.since = time.monotonic()

    def add(self, grade: AutoGrade, probe: str | None = None) -> None:
        self.batch.append((probe, grade))
        if len(self.batch) >= BATCH_ANSWERS or time.monotonic() - self.since >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        batch, self.batch = self.batch, []
        self.since = time.monotonic()
        grades = [grade for probe, grade in batch if probe is None]
        probes = [(probe, grade) for probe, grade in batch if probe is not None]
        if batch:
            self.database.write(
                lambda session: (
                    write_grades(session, self.rater_id, grades),
                    write_probes(session, self.rater_id, probes),
                )
            )


def failure_kind(failure: str) -> str:
    """A failure's reason without what varies from pair to pair (the answer quoted, the
    attempts): "no final score in the answer", "no answer within 60 s", "HTTP 500"."""
    return re.sub(r" \(after \d+ attempts\)$", "", failure).split(":")[0]


def _prompt_pair(pair: PoolPair) -> Pair:
    return Pair(
        query_id=pair.query_external_id,
        query=pair.query_text,
        description=pair.description,
        doc_id=pair.doc_external_id,
        title=pair.title,
        url=pair.url,
        body=pair.body,
    )
