"""Where the rater's keys may act, without Qt: a grade or skip moves the selection on, and the
result it lands on keeps the grade it has until the rater selects it (a key typed past the end
of a query never changes a grade the rater did not look at); leaving a query with results
left ungraded is said once, and the same key then leaves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge_app.numbers import count_text

if TYPE_CHECKING:
    from judge_app.judging.session import JudgingSession


class Moves:
    """The last landing of a grade or skip, and the query whose leaving was warned of."""

    def __init__(self) -> None:
        self.landed: int | None = None  # the row a grade or skip moved the selection to
        self.warned: int | None = None  # the query (id) whose ungraded results were named
        self.going = ""  # what the rater was doing when warned ("go on", …)

    def land(self, row: int) -> None:
        """A grade or skip moved the selection to ``row``."""
        self.landed = row

    def choose(self) -> None:
        """The rater chose the current result (a click, a move, an undo): keys may change it."""
        self.landed = None

    def kept(self, session: JudgingSession, row: int) -> str | None:
        """Why the result at ``row`` keeps its judgment (the last grade landed on it, judged
        already), and what to do to change it; None if a key may change it."""
        item = session.items[row]
        if row != self.landed or not item.judged:
            return None
        judgment = "its skip" if item.skipped else f"grade {item.grade}"
        progress = session.query_progress()
        where = (
            "every result of this query is judged"
            if progress.done == progress.total
            else "the grade moved the selection there"
        )
        return (
            f"Not changed: {item.external_id} keeps {judgment} ({where}). To change it, select "
            "it first (↑ ↓ or a click)."
        )

    def leave(self, session: JudgingSession, going: str) -> int:
        """How many results leaving the open query to ``going`` would leave ungraded, when the
        rater must be told first (then 0 the next time: the same key leaves); 0 to leave."""
        assert session.query is not None
        progress = session.query_progress()
        left = progress.total - progress.done
        if left == 0 or self.warned == session.query.id:
            return 0
        self.warned = session.query.id
        self.going = going
        return left

    def warning(self, session: JudgingSession) -> int:
        """The results the open query still leaves ungraded, if its leaving was warned of."""
        if session.query is None or self.warned != session.query.id:
            return 0
        progress = session.query_progress()
        return progress.total - progress.done


def left_text(left: int) -> str:
    """ "3 results are", "1 result is": the start of saying what is not graded yet."""
    return count_text(left, "result is", "results are")
