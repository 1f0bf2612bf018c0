"""Who judges: the rater a window judges as (``judge-app gui --rater NAME``, the rater
chooser), found by name however it is typed, or added."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge_app.errors import JudgeAppError, quoted
from judge_app.names import is_role
from judge_app.store import Database
from judge_app.store.people import campaign_raters, find_rater, named_rater
from judge_app.store.team import access


def rater_for(
    database: Database, name: str, create: bool = False, *, similar_ok: bool = False
) -> tuple[int, str]:
    """The id and name of the rater ``name`` names (trimmed, without case); with ``create``,
    added if the database lacks one (the only write, once per name). Refused: the lead's
    role ``adjudicated``, and (SimilarRaterError) a new name that differs from a rater's
    only by spaces, unless ``similar_ok``. A name added so is no rater of the campaign
    (``campaign_raters``) until it judges or is assigned queries: a lead stays a lead. On a
    team database a rater's login judges as its own rater, whatever name it gives."""
    name = access(database).judging_as(name) or name
    with database.reading() as session:
        known = named_rater(session, name, create=False)
        if known is not None:
            return known.id, known.name
    if not create:
        raise JudgeAppError(f"no rater called {quoted(name)}")

    def added(session: Session) -> tuple[int, str]:
        rater = named_rater(session, name, similar_ok=similar_ok)
        assert rater is not None  # named_rater creates
        return rater.id, rater.name

    return database.write(added)


@dataclass(frozen=True)
class RaterChoice:
    """What the rater chooser offers: ``own``, the rater last chosen on this database (None
    if there is none, or they were retired), and behind a lead's switch ``names``, the
    campaign's raters who may judge."""

    own: str | None
    names: list[str]


def rater_choice(database: Database, last: str | None) -> RaterChoice:
    """The rater chooser's offer on ``database``, where ``last`` was chosen last (a rater's
    login on a team database: its own rater, and no other)."""
    team = access(database)
    if team.is_rater:
        return RaterChoice(team.rater, [team.rater] if team.rater else [])
    with database.reading() as session:
        names = [name for _id, name in campaign_raters(session, assignable=True)]
        known = None if last is None else find_rater(session, last)
        own = known.name if known is not None and known.active else None
    return RaterChoice(None if own is None or is_role(own) else own, names)
