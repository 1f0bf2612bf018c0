"""What an export to another tool's format is written from: a campaign's queries,
documents, every rater's judgments and one combined grade per pair, read from the database
by the export use case (the io layer reads no database)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from judge_app.errors import quoted
from judge_app.io.errors import ExportError
from judge_app.io.exports import format_grade


@dataclass(frozen=True)
class Judgment:
    """One rater's judgment of a pair: a grade, or skipped; ``judged_at`` in ISO 8601 UTC."""

    query_id: str
    doc_id: str
    rater: str
    grade: int | None
    skipped: bool
    note: str | None
    judged_at: str | None
    duration_ms: int | None


@dataclass(frozen=True)
class Campaign:
    """A database's campaign, as the writers of other formats need it. ``grades`` hold one
    grade per graded pair, the raters' combined by ``aggregate``; ``pairs`` every pair a run
    retrieved or a rater judged (what Label Studio's tasks are made of)."""

    name: str
    aggregate: str
    queries: dict[str, tuple[str | None, str | None]]  # id → (text, description)
    documents: dict[str, tuple[str | None, str | None, str | None]]  # id → (title, url, body)
    judgments: list[Judgment]
    grades: list[tuple[str, str, float]]
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def query_text(self, query_id: str) -> str:
        """The query's text, or its id where it has none."""
        text = self.queries.get(query_id, (None, None))[0]
        return text if text is not None else query_id

    def whole_grades(self, title: str) -> list[tuple[str, str, int]]:
        """``grades`` as whole numbers, or an ExportError: ``title`` holds no other."""
        whole = []
        for query_id, doc_id, grade in self.grades:
            if not float(grade).is_integer():
                raise ExportError(
                    f"{title} holds whole grades only, and the raters' {self.aggregate} grade "
                    f"of query {quoted(query_id)}, document {quoted(doc_id)} is "
                    f"{format_grade(grade)}: export with --aggregate majority, or one rater's"
                )
            whole.append((query_id, doc_id, int(grade)))
        return whole


@dataclass
class Written:
    """What a writer wrote: ``count`` of ``rows``, and what it could not write, counted."""

    count: int
    rows: str
    not_written: Counter[str] = field(default_factory=Counter)


def combined_not_written(campaign: Campaign) -> Counter[str]:
    """What a format of one grade per pair leaves out of the raters' judgments."""
    lost: Counter[str] = Counter()
    raters = {judgment.rater for judgment in campaign.judgments}
    if len(raters) > 1:
        lost[f"raters' own grades (combined by {campaign.aggregate})"] = len(campaign.judgments)
    lost["rater names"] = len(raters) if raters else 0
    lost["skipped judgments"] = sum(judgment.skipped for judgment in campaign.judgments)
    lost["notes"] = sum(judgment.note is not None for judgment in campaign.judgments)
    return +lost
