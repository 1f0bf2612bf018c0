"""A rater's changes to their judgments as the judging screen asks for them and hears back,
without a database: what a key asks for (``Change``), what its writing did (``Outcome``) and
which of the key map's actions change a judgment. The judging screen shows these before the
store is loaded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.store.models import JudgmentEvent

NOTHING_TO_UNDO = "Nothing to undo in this session: earlier grades are changed by grading again"
READ_ONLY = "Read-only: grades cannot be saved"
CHANGES = ("grade", "skip", "clear", "note", "undo", "redo")
"""The key map's actions that change a judgment: these, and those named from them ("grade3");
one missing here is not refused at once on a read-only database, but fails as unsaved."""
Pair = tuple[int, int]
"""(query id, document id): what a judgment is about."""


@dataclass(frozen=True)
class Outcome:
    """What a written change did: ``message`` for the status bar, ``error`` when it failed,
    and the ``event`` written (None when nothing changed)."""

    message: str
    error: str | None = None
    event: JudgmentEvent | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Change:
    """A change the rater asked for, aimed when the key was pressed at one result (``pair``;
    None for undo and redo, which the store aims); ``write`` commits it on a session."""

    write: Callable[[Session], JudgmentEvent | None]
    pending: str  # what is being saved: "grade 3"
    done: str  # what was saved: "grade 3 (Relevant)"; for undo and redo: "Undone"
    pair: Pair | None = None
    where: str = ""  # "d12 (query q01)"


def changes(action: str) -> bool:
    """Whether the key map's ``action`` changes a judgment (a grade, skip, note, undo…)."""
    return action.startswith(CHANGES)
