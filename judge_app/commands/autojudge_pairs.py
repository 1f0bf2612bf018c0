"""Ask an LLM which of two documents better answers a query (``judge-app autojudge-pairs``),
over the chat-completions protocol of ``commands.autojudge``, with the prompt of
``automatic_judges.pair_prompt``.

The pairs are those the humans chose on (``human``: a choice other than ``skipped``, so that
the judge can be calibrated against them) or those of a CSV file with the columns
``query_id, doc_a, doc_b`` (more columns are ignored: a ``preferences export`` file will
do), each query's unordered pair once, in the order given; ``limit`` keeps the first N.
Every pair is asked twice, with document a shown first and with b shown first; the two
answers make one choice (``pair_prompt.combined``), and a pair either of whose answers
failed or could not be read is written as a failure with both answers kept, never guessed.
A pair asked before with the same two requests is not asked again. The answers are an
automatic judge's (``store.auto_preferences``), never a rater's preferences; they are
committed in batches as pairs are answered, and cancelling keeps them (a pair with one
order answered is asked again next time). The API key is read from an environment variable
and never stored.
"""

from __future__ import annotations

import csv
import hashlib
import io
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.automatic_judges.llm import (
    MAX_TOKENS,
    EndpointError,
    Reply,
    keyless,
    public_url,
    replies,
)
from judge_app.automatic_judges.pair_prompt import (
    PAIR_TEMPLATE,
    PairQuestion,
    Shown,
    as_choice,
    combined,
    pair_answer_schema,
    pair_messages,
    pair_prompt_version,
    parse_preference,
)
from judge_app.automatic_judges.prompt import request_sha
from judge_app.commands.autojudge import (
    API_KEY_ENV,
    BATCH_ANSWERS,
    BATCH_SECONDS,
    Cancelled,
    ChatRunSummary,
    Progress,
    Retrying,
    asking,
    check_asking,
    failure_kind,
)
from judge_app.errors import JudgeAppError, UsageError, typed
from judge_app.io.errors import Problem, ProblemList
from judge_app.names import normal_id
from judge_app.options import require_whole
from judge_app.store import bulk
from judge_app.store.auto_preferences import (
    AutoChoice,
    PairKey,
    PairText,
    document_texts,
    human_pairs,
    preferences_cached,
    query_texts,
    write_auto_preferences,
)
from judge_app.store.automatic import add_judge
from judge_app.store.database import Database, opened
from judge_app.store.preferences import canonical

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

HUMAN = "human"
"""``pairs``: every pair a human chose on."""
FILE_COLUMNS = ("query_id", "doc_a", "doc_b")


@dataclass(frozen=True)
class PairJudgeOptions:
    """How to judge pairs: the judge's ``name`` (None: the model's and " pairs"); the
    chat-completions ``endpoint`` and ``model``; the environment variable holding the API
    key; the ``pairs`` (``HUMAN`` or a CSV file's path) and the first ``limit`` of them (None:
    all); requests at once (``concurrency``; None: ``autojudge.auto_concurrency``), the
    ``timeout`` of one in seconds, ``retries`` and the first pause between them; each text
    cut to ``body_chars``; the most tokens an answer may take; a ``structured`` answer (a
    JSON object, ``pair_prompt.pair_answer_schema``) or free text; ``retry_failed``: ask
    again the pairs that failed with the same requests."""

    endpoint: str | None = None
    model: str | None = None
    name: str | None = None
    api_key_env: str = API_KEY_ENV
    pairs: str | Path = HUMAN
    limit: int | None = None
    concurrency: int | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    body_chars: int = 2000
    max_tokens: int = MAX_TOKENS
    structured: bool = True
    retry_failed: bool = False

    def checked(self) -> PairJudgeOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.pairs != HUMAN and not isinstance(self.pairs, Path):
            raise UsageError(f"takes {HUMAN} or a CSV file of query_id,doc_a,doc_b", "pairs")
        if self.limit is not None:
            require_whole("limit", self.limit, 1)
        if self.name is not None and not normal_id(self.name):
            raise UsageError("needs a name", "name")
        check_asking(self)
        require_whole("body-chars", self.body_chars, 1)
        return self

    @property
    def judge_name(self) -> str:
        """The name the judge's preferences are kept under."""
        return normal_id(self.name or f"{(self.model or '').strip()} pairs")


@dataclass
class PairJudgeSummary(ChatRunSummary):
    """What a run of ``autojudge-pairs`` did (``ChatRunSummary``): ``chosen`` of the pairs
    asked, and of those, ``both_read`` whose two answers were read and ``consistent`` of them
    the same both times."""

    chosen: int = 0
    both_read: int = 0
    consistent: int = 0

    @property
    def asked(self) -> int:
        """The pairs answered in both orders (chosen or failed)."""
        return self.chosen + self.failed

    def sentence(self) -> str:
        """The run in words, as the command line says it."""
        text = self._opening(
            f"{self.asked:,} asked in both orders: {self.chosen:,} chosen, {self.failed:,} failed"
        )
        if self.both_read:
            text += (
                f"; position consistency {100 * self.consistent / self.both_read:.1f}% "
                f"({self.consistent:,} of {self.both_read:,} the same in both orders)"
            )
        return text + self._tokens() + self._closing()


def next_steps(db: str, judge: str) -> str:
    """What to run after ``autojudge-pairs`` on ``db`` (as the user gave it)."""
    return f"Next: judge-app preferences calibrate {shlex.quote(db)} --judge {typed(judge)}"


@dataclass(frozen=True)
class _Request:
    """One question: the pair, whether document a is shown first, the messages and their
    hash, and the first document's id (to name the order in a failure)."""

    key: PairKey
    a_first: bool
    messages: list[dict[str, str]]
    sha: str
    first_id: str


def autojudge_pairs(
    database: Database | str,
    options: PairJudgeOptions,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    retrying: Retrying | None = None,
) -> PairJudgeSummary:
    """Ask the pairs of ``options`` of ``database`` (an open one, or a path or URL) in both
    orders and write the judge's choices; ``progress`` hears (requests answered, to ask),
    ``retrying`` each retry, and ``cancelled`` is read between requests."""
    options = options.checked()
    with opened(database) as found:
        return _judged(found, options, progress, cancelled or (lambda: False), retrying)


def _judged(
    database: Database,
    options: PairJudgeOptions,
    progress: Progress | None,
    cancelled: Cancelled,
    retrying: Retrying | None,
) -> PairJudgeSummary:
    """``autojudge_pairs`` on the open ``database``."""
    started = time.monotonic()
    assert options.model is not None  # checked
    questions = _questions(database, options, options.model.strip())
    settings, concurrency = asking(options)
    model, endpoint = settings.model, settings.base_url
    judge = database.write(
        lambda session: add_judge(
            session,
            options.judge_name,
            method="llm",
            model=model,
            prompt_version=pair_prompt_version(options.body_chars),
            template=PAIR_TEMPLATE,
            endpoint=public_url(endpoint),
            details={
                "task": "pairs",
                "temperature": 0,
                "body_chars": options.body_chars,
                "api_key_env": options.api_key_env,
            },
        )
    )
    with database.reading() as session:
        known = preferences_cached(session, judge.rater_id)
    summary = PairJudgeSummary(judge.name, pairs=len(questions), concurrency=concurrency)
    requests = []
    for key, (forward, backward) in questions.items():
        earlier = known.get(key)
        if (
            earlier is not None
            and earlier[0] == _pair_sha(forward, backward)
            and not (earlier[1] and options.retry_failed)
        ):
            summary.cached += 1
            summary.cached_failures += earlier[1]
        else:
            requests += [forward, backward]
    writer = _BatchWriter(database, judge.rater_id)
    waiting: dict[PairKey, _Request] = {}
    first_replies: dict[PairKey, Reply] = {}  # of a pair's one order, the other to come
    try:
        for request, reply in replies(
            settings, requests, _messages, pair_answer_schema(), concurrency, progress=progress,
            cancelled=cancelled, retrying=retrying, answered_as=summary.set_answer_format,
            name="autojudge-pairs",
        ):  # fmt: skip
            if reply is None:  # cut short by a cancel: the pair is not answered
                continue
            other = waiting.pop(request.key, None)
            if other is None:
                waiting[request.key], first_replies[request.key] = request, reply
                continue
            held = first_replies.pop(request.key)
            if other.a_first:
                writer.add(_choice_of(other, held, request, reply, summary))
            else:
                writer.add(_choice_of(request, reply, other, held, summary))
        summary.cancelled = bool(waiting) or summary.asked * 2 < len(requests)
    except EndpointError as error:
        raise keyless(error, settings, options.api_key_env) from None
    finally:
        writer.flush()
        summary.seconds = time.monotonic() - started
    return summary


def _questions(
    database: Database, options: PairJudgeOptions, model: str
) -> dict[PairKey, tuple[_Request, _Request]]:
    """Each pair of ``options`` with its two requests (a shown first, then b), in order."""
    with database.reading() as session:
        if options.pairs == HUMAN:
            keys = human_pairs(session)
            if not keys:
                raise JudgeAppError(
                    f"{database.describe()}: no human chose on a pair: import preferences "
                    "(judge-app preferences import) or name the pairs (--pairs FILE)"
                )
        else:
            keys = pairs_of_file(session, Path(options.pairs))
        keys = keys[: options.limit]
        queries = query_texts(session, sorted({query for query, _a, _b in keys}))
        documents = document_texts(
            session, sorted({doc for _q, a, b in keys for doc in (a, b)}), options.body_chars
        )
    questions = {}
    for key in keys:
        query, a, b = key
        texts = queries[query]
        forward, backward = (
            _request(key, a_first, texts, documents[first], documents[second], model, options)
            for a_first, first, second in ((True, a, b), (False, b, a))
        )
        questions[key] = (forward, backward)
    return questions


def _request(
    key: PairKey,
    a_first: bool,
    query: tuple[str, str | None, str | None],
    first: PairText,
    second: PairText,
    model: str,
    options: PairJudgeOptions,
) -> _Request:
    shown = [Shown(text.external_id, text.title, text.url, text.body) for text in (first, second)]
    rendered = pair_messages(PairQuestion(*query, *shown), options.body_chars)
    return _Request(key, a_first, rendered, request_sha(model, rendered), first.external_id)


def _pair_sha(forward: _Request, backward: _Request) -> str:
    """The hash of a pair's two requests: its cache key."""
    return hashlib.sha256(f"{forward.sha} {backward.sha}".encode()).hexdigest()


def pairs_of_file(session: Session, path: Path) -> list[PairKey]:
    """The pairs of the CSV file at ``path`` (``query_id, doc_a, doc_b``, ids the database
    holds), each query's unordered pair once, in the order of the file; ImportFileError
    naming each line and column that is wrong."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise JudgeAppError(f"{path}: not UTF-8 text ({error.reason})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    problems = ProblemList()
    missing = [name for name in FILE_COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        problems.add(Problem(str(path), 1, None, f"needs the columns {', '.join(FILE_COLUMNS)} "
                             f"(missing: {', '.join(missing)})"))  # fmt: skip
        problems.raise_if_any()
    rows: list[tuple[int, str, str, str]] = []
    for row in reader:
        query, doc_a, doc_b = ((row.get(name) or "").strip() for name in FILE_COLUMNS)
        rows.append((reader.line_num, query, doc_a, doc_b))
    queries = bulk.query_ids(session, {row[1] for row in rows if row[1]}, create=False)
    docs = bulk.document_ids(session, {doc for row in rows for doc in row[2:] if doc}, create=False)
    keys: dict[PairKey, None] = {}
    for line, query, doc_a, doc_b in rows:
        wrong = problems.total
        for name, value, ids in zip(FILE_COLUMNS, (query, doc_a, doc_b), (queries, docs, docs)):
            if not value:
                problems.add(Problem(str(path), line, name, "is empty"))
            elif value not in ids:
                problems.add(Problem(str(path), line, name, f"{value!r} is not in the database"))
        if doc_a and doc_a == doc_b:
            reason = "the same document on both sides: a pair compares two"
            problems.add(Problem(str(path), line, "doc_b", reason))
        if problems.total == wrong:
            a, b, _ = canonical(docs[doc_a], docs[doc_b])
            keys.setdefault((queries[query], a, b), None)
    problems.raise_if_any()
    if not keys:
        raise JudgeAppError(f"{path}: no pair in the file")
    return list(keys)


def _messages(request: _Request) -> list[dict[str, str]]:
    return request.messages


def _choice_of(
    forward: _Request,
    forward_reply: Reply,
    backward: _Request,
    backward_reply: Reply,
    summary: PairJudgeSummary,
) -> AutoChoice:
    """The pair's answer from its two replies (a shown first, b shown first), counted in
    ``summary``."""
    choices: list[str | None] = []
    failures = []
    for request, reply in ((forward, forward_reply), (backward, backward_reply)):
        summary.retried += max(0, reply.attempts - 1)
        failure = reply.failure
        choice = None
        if failure is None:
            verdict = parse_preference(reply.answer)
            failure = verdict.failure
            if verdict.answer is not None:
                choice = as_choice(verdict.answer, request.a_first)
        if failure is not None:
            kind = failure_kind(failure)
            summary.failures[kind] = summary.failures.get(kind, 0) + 1
            failures.append(f"with {request.first_id} shown first: {failure}")
        choices.append(choice)
    forward_choice, backward_choice = choices
    if forward_choice is not None and backward_choice is not None:
        summary.both_read += 1
        summary.consistent += forward_choice == backward_choice
    replies = (forward_reply, backward_reply)
    prompt = [reply.prompt_tokens for reply in replies if reply.prompt_tokens is not None]
    completion = [r.completion_tokens for r in replies if r.completion_tokens is not None]
    summary.prompt_tokens += sum(prompt)
    summary.completion_tokens += sum(completion)
    failure = "; ".join(failures) or None
    if failure is None:
        summary.chosen += 1
    else:
        summary.failed += 1
        summary.first_failure = summary.first_failure or failure
    query, a, b = forward.key
    return AutoChoice(
        query_id=query,
        document_a_id=a,
        document_b_id=b,
        choice=None
        if failure or forward_choice is None or backward_choice is None
        else combined(forward_choice, backward_choice),
        failure=failure,
        choice_ab=forward_choice,
        choice_ba=backward_choice,
        answer_ab=forward_reply.answer,
        answer_ba=backward_reply.answer,
        prompt_sha=_pair_sha(forward, backward),
        prompt_tokens=sum(prompt) if prompt else None,
        completion_tokens=sum(completion) if completion else None,
        duration_ms=forward_reply.duration_ms + backward_reply.duration_ms,
    )


class _BatchWriter:
    """Commits a judge's answers every ``BATCH_ANSWERS`` pairs or ``BATCH_SECONDS``."""

    def __init__(self, database: Database, rater_id: int) -> None:
        self.database = database
        self.rater_id = rater_id
        self.batch: list[AutoChoice] = []
        self.since = time.monotonic()

    def add(self, answer: AutoChoice) -> None:
        self.batch.append(answer)
        if len(self.batch) >= BATCH_ANSWERS or time.monotonic() - self.since >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        batch, self.batch = self.batch, []
        self.since = time.monotonic()
        if batch:
            self.database.write(
                lambda session: write_auto_preferences(session, self.rater_id, batch)
            )
