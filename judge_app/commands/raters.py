"""Who judges: the rater a window judges as (``judge-app gui --rater NAME``, the rater
chooser), found by name or added."""

from __future__ import annotations

from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError, quoted
from judge_app.store import Database
from judge_app.store.people import add_rater, find_rater


def rater_for(database: Database, name: str, create: bool = False) -> tuple[int, str]:
    """The id and name of the rater called ``name``; with ``create``, added if the database
    lacks one (the only write, once per name; a name that differs from a rater's only by
    case or spaces is refused)."""
    with database.reading() as session:
        known = find_rater(session, name)
        if known is not None:
            return known.id, known.name
    if not create:
        raise JudgeAppError(f"no rater called {quoted(name)}")

    def added(session: Session) -> tuple[int, str]:
        rater = find_rater(session, name) or add_rater(session, name)
        return rater.id, rater.name

    return database.write(added)
