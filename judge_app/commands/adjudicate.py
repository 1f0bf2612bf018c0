"""Adjudication: a lead's own grade of a document the raters disagree on, stored as a
judgment of the rater ``adjudicated`` (never over a rater's, never counted in agreement,
preferred by the evaluation unless told otherwise).

``read_disputes`` gives the documents to decide (the agreement report's list, with every
rater's grade, note and time); an ``Adjudication`` holds a lead's decisions on them: each
decision is shown at once and written later as one unit of work (``Decision.write``), the
last ones undone in turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy.orm import Session

from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.store import Database
from judge_app.store.grade_labels import GradeLabel
from judge_app.store.judgments import clear, set_grade
from judge_app.store.models import JudgmentEvent
from judge_app.store.people import add_rater, find_rater
from judge_app.store.settings import scale

MAX_RATER_KEYS = 9
"""Raters whose grade one key accepts: keys 1–9."""


@dataclass(frozen=True)
class Opinion:
    """One rater's judgment of a disputed document: a grade, or skipped (grade None)."""

    rater: str
    grade: int | None
    skipped: bool
    note: str | None
    duration_ms: int | None


@dataclass(frozen=True)
class Dispute:
    """A document the raters grade two or more apart, with what it takes to decide it."""

    query_id: str
    doc_id: str
    query: int  # the database's own ids, for the write
    document: int
    query_text: str | None
    title: str | None
    url: str | None
    body: str | None
    spread: int
    opinions: tuple[Opinion, ...]  # the raters', by name; the adjudicator's is ``decided``
    decided: int | None  # the lead's grade as read

    @property
    def grades(self) -> list[int]:
        """The raters' grades, lowest first."""
        return sorted(o.grade for o in self.opinions if o.grade is not None)


@dataclass(frozen=True)
class Disputes:
    """Every document to adjudicate, in the agreement report's order, and the scale."""

    items: list[Dispute]
    scale: list[GradeLabel]


def read_disputes(database: Database | str) -> Disputes:
    """The documents the raters of ``database`` (an open one, or a path or URL, opened
    read-only) grade two or more apart (``commands.agree.disputed``), each with every
    rater's grade, note and time and the lead's decision so far."""
    from judge_app.commands.agree import disputed
    from judge_app.commands.campaign import campaign_of
    from judge_app.store import reads
    from judge_app.store.database import opened

    with opened(database, read_only=True) as found, found.reading() as session:
        listed = disputed(
            campaign_of(session, found.describe(), queries=False, automatic=False).graded
        )
        pairs = [(query_id, item.doc_id) for query_id, item in listed]
        judgments = reads.pair_judgments(session, pairs)
        labels = scale(session)
    by_pair = {pair: rows for pair, rows in judgments.groupby(["query_id", "doc_id"], sort=False)}
    items = [
        _dispute(query_id, item.spread, item.decided, by_pair[(query_id, item.doc_id)])
        for query_id, item in listed
    ]
    return Disputes(items, labels)


def _dispute(query_id: str, spread: int, decided: int | None, rows: pd.DataFrame) -> Dispute:
    first = rows.iloc[0]
    raters = rows[rows["rater"] != ADJUDICATED]
    return Dispute(
        query_id=query_id,
        doc_id=str(first["doc_id"]),
        query=int(first["query"]),
        document=int(first["document"]),
        query_text=_text(first["query_text"]),
        title=_text(first["doc_title"]),
        url=_text(first["doc_url"]),
        body=_text(first["doc_body"]),
        spread=spread,
        opinions=tuple(
            Opinion(
                rater=str(row.rater),
                grade=None if pd.isna(row.grade) or row.skipped else int(row.grade),
                skipped=bool(row.skipped),
                note=_text(row.note),
                duration_ms=None if pd.isna(row.duration_ms) else int(row.duration_ms),
            )
            for row in raters.itertuples(index=False)
        ),
        decided=decided,
    )


def _text(value: object) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def adjudicator_in(session: Session) -> int:
    """The id of the rater ``adjudicated`` (added the first time): a lead's role, not a rater
    to choose or assign (inactive)."""
    role = find_rater(session, ADJUDICATED) or add_rater(session, ADJUDICATED)
    role.active = False
    return role.id


@dataclass(frozen=True, eq=False)
class Decision:
    """A lead's change of one disputed document: ``grade`` (None: undecided again) in place
    of ``before``; ``source`` says whose grade it is, for the messages."""

    index: int
    query: int
    document: int
    grade: int | None
    before: int | None
    source: str

    def write(self, session: Session) -> JudgmentEvent | None:
        """The change as one unit of work, as the adjudicator's own judgment."""
        lead = adjudicator_in(session)
        if self.grade is None:
            return clear(session, lead, self.query, self.document)
        return set_grade(session, lead, self.query, self.document, self.grade)


@dataclass
class Adjudication:
    """A lead's decisions on ``disputes``: ``decided`` shows each at once; ``settle`` takes
    back one that could not be written; ``undo`` reverts the last ones in turn."""

    disputes: Disputes
    decided: list[int | None] = field(init=False)
    history: list[Decision] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.decided = [item.decided for item in self.disputes.items]

    @property
    def items(self) -> list[Dispute]:
        return self.disputes.items

    def find(self, query_id: str, doc_id: str) -> int | None:
        """The place of (query id, doc id) in the list, or None."""
        return next(
            (
                index
                for index, item in enumerate(self.items)
                if (item.query_id, item.doc_id) == (query_id, doc_id)
            ),
            None,
        )

    def progress(self) -> tuple[int, int]:
        """(decided, total)."""
        return sum(grade is not None for grade in self.decided), len(self.items)

    def progress_text(self) -> str:
        done, total = self.progress()
        return f"{done:,} of {total:,} decided"

    def done(self) -> bool:
        """Is every disagreement decided (and is there one)?"""
        done, total = self.progress()
        return total > 0 and done == total

    def next_undecided(self, index: int, step: int = 1) -> int | None:
        """The next undecided item after ``index`` going ``step`` (1 or -1), round the end
        of the list; None when every item is decided."""
        count = len(self.items)
        for offset in range(1, count + 1):
            candidate = (index + step * offset) % count
            if self.decided[candidate] is None:
                return candidate
        return None

    def accept(self, index: int, number: int) -> Decision | None:
        """Decide item ``index`` with the grade of its ``number``-th rater (from 1); None if
        that rater is not there or gave no grade."""
        opinions = self.items[index].opinions
        if not 1 <= number <= min(len(opinions), MAX_RATER_KEYS):
            return None
        opinion = opinions[number - 1]
        if opinion.grade is None:
            return None
        return self.decide(index, opinion.grade, f"{opinion.rater}'s grade")

    def decide(self, index: int, grade: int, source: str = "your own grade") -> Decision:
        """Decide item ``index`` with ``grade``, shown at once; write the decision returned."""
        item = self.items[index]
        decision = Decision(index, item.query, item.document, grade, self.decided[index], source)
        self.decided[index] = grade
        self.history.append(decision)
        return decision

    def undo(self) -> Decision | None:
        """Take back the last decision still standing: the change to write, or None."""
        if not self.history:
            return None
        last = self.history.pop()
        item = self.items[last.index]
        self.decided[last.index] = last.before
        return Decision(last.index, item.query, item.document, last.before, last.grade, "undo")

    def settle(self, decision: Decision, error: BaseException | None) -> str:
        """A decision was written (or failed: it is taken back where nothing replaced it);
        the words for the status bar."""
        item = self.items[decision.index]
        where = f"{item.query_id} · {item.doc_id}"
        if error is None:
            if decision.grade is None:
                return f"Saved: {where} is undecided again"
            return f"Saved: {where} decided {decision.grade} ({decision.source})"
        if self.decided[decision.index] == decision.grade:
            self.decided[decision.index] = decision.before
            if decision in self.history:
                self.history.remove(decision)
        return f"Not saved: {where}: {error}"
