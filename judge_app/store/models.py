"""SQLAlchemy 2 models of the judging store (DESIGN section 2)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, ClassVar

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    FetchedValue,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

GRADE_MIN, GRADE_MAX = 0, 5


def utcnow() -> datetime:
    """The current time in UTC as a naive datetime: every timestamp in the store is UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    if TYPE_CHECKING:  # SQLAlchemy types it FromClause; every model here maps a Table
        __table__: ClassVar[Table]


def _grade_check(column: str) -> str:
    return f"{column} IS NULL OR ({column} >= {GRADE_MIN} AND {column} <= {GRADE_MAX})"


class Query(Base):
    __tablename__ = "query"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), unique=True)
    text: Mapped[str | None] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Document(Base):
    __tablename__ = "document"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), unique=True)
    title: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(Text)
    body: Mapped[str | None] = mapped_column(Text)


class Run(Base):
    __tablename__ = "run"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    imported_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Result(Base):
    __tablename__ = "result"
    __table_args__ = (
        UniqueConstraint("run_id", "query_id", "document_id"),
        UniqueConstraint("run_id", "query_id", "rank"),
        CheckConstraint("rank >= 1", name="rank_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), index=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    rank: Mapped[int] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)


HUMAN, AUTOMATIC = "human", "automatic"


class Rater(Base):
    """A person who judges (``kind`` human), or an automatic judge whose grades live in
    ``auto_judgment`` only, never in ``judgment``: see ``AutomaticJudge``."""

    __tablename__ = "rater"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    kind: Mapped[str] = mapped_column(String(16), default=HUMAN, server_default=HUMAN)
    """``HUMAN`` or ``AUTOMATIC`` (set by ``store.automatic`` only)."""
    login: Mapped[str | None] = mapped_column(String(63), unique=True, index=True)
    """On a team database, the PostgreSQL login that judges as this rater (``store.team``)."""


class Judgment(Base):
    """One rater's current judgment of one (query, document) pair.

    A row exists only while the pair is graded or skipped: clearing a judgment deletes
    the row, and its history stays in ``judgment_event``.
    """

    __tablename__ = "judgment"
    __table_args__ = (
        # (query, document) first: the same index finds all raters' judgments of a pair
        UniqueConstraint("query_id", "document_id", "rater_id"),
        CheckConstraint(_grade_check("grade"), name="grade_range"),
        CheckConstraint(
            "(skipped AND grade IS NULL) OR (NOT skipped AND grade IS NOT NULL)",
            name="grade_or_skipped",
        ),
        CheckConstraint("duration_ms IS NULL OR duration_ms >= 0", name="duration_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    grade: Mapped[int | None] = mapped_column(Integer)
    skipped: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str | None] = mapped_column(Text)
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    duration_ms: Mapped[int | None] = mapped_column(Integer)


class JudgmentEvent(Base):
    """Append-only history: one row per change of a judgment, with its state before and after.

    A state is (grade, skipped, note); ``old_skipped``/``new_skipped`` are NULL where the
    judgment did not exist before (or no longer exists after) the change. ``reverts`` points
    at the event an undo or redo reverted.
    """

    __tablename__ = "judgment_event"
    __table_args__ = (
        CheckConstraint(_grade_check("old_grade"), name="old_grade_range"),
        CheckConstraint(_grade_check("new_grade"), name="new_grade_range"),
        CheckConstraint(
            "action IN ('set', 'skip', 'clear', 'note', 'undo', 'redo', 'import', 'merge')",
            name="action_known",
        ),
        Index(None, "rater_id", "id"),
        # only undo and redo events revert another: index just those rows (the migration
        # makes it partial on PostgreSQL too; ``postgresql_where`` here would load the
        # PostgreSQL dialect at every start of a window on SQLite, a tenth of its start)
        Index(None, "reverts", sqlite_where=text("reverts IS NOT NULL")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"))
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    action: Mapped[str] = mapped_column(String(16))
    old_grade: Mapped[int | None] = mapped_column(Integer)
    old_skipped: Mapped[bool | None] = mapped_column(Boolean)
    old_note: Mapped[str | None] = mapped_column(Text)
    new_grade: Mapped[int | None] = mapped_column(Integer)
    new_skipped: Mapped[bool | None] = mapped_column(Boolean)
    new_note: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    reverts: Mapped[int | None] = mapped_column(ForeignKey("judgment_event.id"))
    # a change of the rater's hidden repeat of the pair (``RepeatJudgment``), not of their
    # judgment: evaluation, agreement, exports and packets never read these
    repeat: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    login: Mapped[str | None] = mapped_column(String(63), server_default=FetchedValue())
    """The database login that wrote the event: on PostgreSQL the column's default,
    ``session_user`` (on a team database a rater's login can write no other: ``store.team``);
    None on SQLite, which has no logins, and on events older than the column."""


class Assignment(Base):
    __tablename__ = "assignment"

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)


class Setting(Base):
    __tablename__ = "setting"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Packet(Base):
    """A rater packet this database issued: to whom, when, and how far it has been merged.

    ``base_event`` is the last history event the packet was made with (of its rater, in its
    queue): the packet's own events after it are the rater's offline work. ``merged_through``
    is the last of those merged here, None until one is.
    """

    __tablename__ = "packet"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    issued_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    base_event: Mapped[int] = mapped_column(Integer)
    merged_through: Mapped[int | None] = mapped_column(Integer)


class RepeatJudgment(Base):
    """A hidden repeat: a pair the rater graded (``first_grade``), shown to them again later
    as a new item to measure self-agreement. Pending (``judged_at`` None) until they judge it
    again; the second judgment is stored here, never over the first (``Judgment``), and
    counts only in the raters' quality figures. Its changes are ``JudgmentEvent`` rows
    marked ``repeat``. Once answered it stays the rater's view of the pair for the rest of
    that session (``store.repeats.open_repeat``); after it, the pair is their judgment again."""

    __tablename__ = "repeat_judgment"
    __table_args__ = (
        CheckConstraint(_grade_check("first_grade"), name="first_grade_range"),
        CheckConstraint(_grade_check("grade"), name="grade_range"),
        CheckConstraint("NOT (skipped AND grade IS NOT NULL)", name="grade_or_skipped"),
        CheckConstraint("duration_ms IS NULL OR duration_ms >= 0", name="duration_positive"),
    )

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    scheduled_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    first_grade: Mapped[int] = mapped_column(Integer)
    grade: Mapped[int | None] = mapped_column(Integer)
    skipped: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str | None] = mapped_column(Text)
    judged_at: Mapped[datetime | None] = mapped_column(DateTime)
    duration_ms: Mapped[int | None] = mapped_column(Integer)


class GoldItem(Base):
    """A (query, document) pair whose grade a lead knows: raters judge it like any item,
    and their grades are checked against ``grade``. It is no rater's judgment."""

    __tablename__ = "gold_item"
    __table_args__ = (CheckConstraint(_grade_check("grade"), name="grade_range"),)

    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    grade: Mapped[int] = mapped_column(Integer)
    marked_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class AutomaticJudge(Base):
    """How an automatic rater grades: ``method`` ``llm`` (a chat-completions ``model`` at
    ``endpoint`` with the prompt ``template``, whose hash is ``prompt_version``) or ``local``
    (a model learned from the campaign's human grades; ``details`` is its JSON report) or
    ``ensemble`` (its members' grades combined: ``details`` names them and the rule). One
    judge is one model and one prompt: another of either is another judge."""

    __tablename__ = "automatic_judge"
    __table_args__ = (
        CheckConstraint("method IN ('llm', 'local', 'ensemble')", name="method_known"),
    )

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    method: Mapped[str] = mapped_column(String(16))
    model: Mapped[str] = mapped_column(String(255))
    prompt_version: Mapped[str | None] = mapped_column(String(64))
    template: Mapped[str | None] = mapped_column(Text)
    endpoint: Mapped[str | None] = mapped_column(Text)
    details: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class AutoJudgment(Base):
    """An automatic judge's grade of a pair (a real number 0–5: a local model's expected
    grade), or its failure to give one (``grade`` None, ``failure`` the reason). No human
    sees it, agreement never counts it, and evaluation reads it only when asked to.
    ``prompt_sha`` is the hash of the exact request: the cache key of a rerun."""

    __tablename__ = "auto_judgment"
    __table_args__ = (
        CheckConstraint("grade IS NULL OR (grade >= 0 AND grade <= 5)", name="grade_range"),
        CheckConstraint("(grade IS NULL) <> (failure IS NULL)", name="grade_or_failure"),
    )

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    grade: Mapped[float | None] = mapped_column(Float)
    failure: Mapped[str | None] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(Text)
    prompt_sha: Mapped[str | None] = mapped_column(String(64))
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class AutoProbe(Base):
    """An LLM judge's answer to a ``probe`` of a pair: the pair asked again with something
    changed (``automatic_judges.probes``: instructions injected into the document, the query's words
    stuffed into it, the prompt worded otherwise), to measure how far the change moves its
    grade. Never a grade of the pair: calibration alone reads it."""

    __tablename__ = "auto_probe"
    __table_args__ = (
        CheckConstraint("grade IS NULL OR (grade >= 0 AND grade <= 5)", name="grade_range"),
        CheckConstraint("(grade IS NULL) <> (failure IS NULL)", name="grade_or_failure"),
    )

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    probe: Mapped[str] = mapped_column(String(16), primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    grade: Mapped[float | None] = mapped_column(Float)
    failure: Mapped[str | None] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(Text)
    prompt_sha: Mapped[str | None] = mapped_column(String(64))
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ActiveSample(Base):
    """A query's place in the active sample drawn for an automatic judge: its predicted
    residual ``scale`` (u_q) and sequential Poisson ``key`` (U_q / u_q). With the pool's query
    order ``active`` raters take their queries in ascending key; no rater reads the scale or
    the key (``store.active_sample``)."""

    __tablename__ = "active_sample"
    __table_args__ = (CheckConstraint("scale > 0", name="scale_positive"),)

    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    judge_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    scale: Mapped[float] = mapped_column(Float)
    key: Mapped[float] = mapped_column(Float)
    drawn_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


PREFERENCE_CHOICES = ("a", "b", "equal", "neither", "skipped")
"""A rater's choice between a pair's documents: ``a`` (document a is better), ``b``, ``equal``
(equally good), ``neither`` (both not relevant) or ``skipped`` (cannot judge)."""
_CHOICES_CHECK = "{0} IN ('a', 'b', 'equal', 'neither', 'skipped')"


class Preference(Base):
    """One rater's current preference between two documents for a query.

    The pair is stored in one canonical order, ``document_a_id < document_b_id``, so that the
    unordered pair is unique per rater and query; ``choice`` is relative to it and
    ``left_document_id`` says which of the two was shown on the left (None where unknown, as
    for an imported preference). Like a judgment, a row exists only while the pair has a
    choice; its history is ``preference_event``.
    """

    __tablename__ = "preference"
    __table_args__ = (
        UniqueConstraint("query_id", "document_a_id", "document_b_id", "rater_id"),
        CheckConstraint("document_a_id < document_b_id", name="canonical_pair"),
        CheckConstraint(_CHOICES_CHECK.format("choice"), name="choice_known"),
        CheckConstraint(
            "left_document_id IS NULL OR left_document_id IN (document_a_id, document_b_id)",
            name="left_of_pair",
        ),
        CheckConstraint("duration_ms IS NULL OR duration_ms >= 0", name="duration_positive"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"))
    document_a_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    document_b_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    choice: Mapped[str] = mapped_column(String(16))
    left_document_id: Mapped[int | None] = mapped_column(ForeignKey("document.id"))
    note: Mapped[str | None] = mapped_column(Text)
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    duration_ms: Mapped[int | None] = mapped_column(Integer)


class PreferenceEvent(Base):
    """Append-only history of preferences, as ``judgment_event`` is of judgments: one row per
    change, with the choice and note before and after (``old_choice`` None: there was no
    preference; ``new_choice`` None: there is none after). ``reverts`` points at the event an
    undo or redo reverted; ``login`` is the database login that wrote it (PostgreSQL)."""

    __tablename__ = "preference_event"
    __table_args__ = (
        CheckConstraint(
            "old_choice IS NULL OR " + _CHOICES_CHECK.format("old_choice"), name="old_choice_known"
        ),
        CheckConstraint(
            "new_choice IS NULL OR " + _CHOICES_CHECK.format("new_choice"), name="new_choice_known"
        ),
        CheckConstraint(
            "action IN ('set', 'clear', 'note', 'undo', 'redo', 'import', 'merge')",
            name="action_known",
        ),
        Index(None, "rater_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"))
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"))
    document_a_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    document_b_id: Mapped[int] = mapped_column(ForeignKey("document.id"))
    action: Mapped[str] = mapped_column(String(16))
    old_choice: Mapped[str | None] = mapped_column(String(16))
    old_note: Mapped[str | None] = mapped_column(Text)
    new_choice: Mapped[str | None] = mapped_column(String(16))
    new_note: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    reverts: Mapped[int | None] = mapped_column(ForeignKey("preference_event.id"))
    login: Mapped[str | None] = mapped_column(String(63), server_default=FetchedValue())
    """As ``JudgmentEvent.login``: ``session_user`` on PostgreSQL, None on SQLite."""


AUTO_CHOICES = ("a", "b", "equal", "neither")
"""An automatic judge's choices between a pair's documents (it never skips)."""
_AUTO_CHOICES_CHECK = "{0} IS NULL OR {0} IN ('a', 'b', 'equal', 'neither')"


class AutoPreference(Base):
    """An automatic judge's preference between two documents for a query, never a rater's
    ``preference`` row (``store.auto_preferences``). The pair is in the canonical order of
    ``preference`` (``document_a_id < document_b_id``) and was asked twice: ``choice_ab`` is
    the answer with document a shown first, ``choice_ba`` with b shown first, both relative to
    the canonical order (None where that answer failed) with the model's words in
    ``answer_ab`` and ``answer_ba``; ``choice`` is the two combined
    (``automatic_judges.pair_prompt.combined``), or None and ``failure`` says why.
    ``prompt_sha`` is the hash of both requests: the cache key of a rerun."""

    __tablename__ = "auto_preference"
    __table_args__ = (
        CheckConstraint("document_a_id < document_b_id", name="canonical_pair"),
        CheckConstraint(_AUTO_CHOICES_CHECK.format("choice"), name="choice_known"),
        CheckConstraint(_AUTO_CHOICES_CHECK.format("choice_ab"), name="choice_ab_known"),
        CheckConstraint(_AUTO_CHOICES_CHECK.format("choice_ba"), name="choice_ba_known"),
        CheckConstraint("(choice IS NULL) <> (failure IS NULL)", name="choice_or_failure"),
    )

    rater_id: Mapped[int] = mapped_column(ForeignKey("rater.id"), primary_key=True)
    query_id: Mapped[int] = mapped_column(ForeignKey("query.id"), primary_key=True)
    document_a_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    document_b_id: Mapped[int] = mapped_column(ForeignKey("document.id"), primary_key=True)
    choice: Mapped[str | None] = mapped_column(String(16))
    failure: Mapped[str | None] = mapped_column(Text)
    choice_ab: Mapped[str | None] = mapped_column(String(16))
    choice_ba: Mapped[str | None] = mapped_column(String(16))
    answer_ab: Mapped[str | None] = mapped_column(Text)
    answer_ba: Mapped[str | None] = mapped_column(Text)
    prompt_sha: Mapped[str | None] = mapped_column(String(64))
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    judged_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
