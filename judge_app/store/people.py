"""Raters and the queries assigned to them.

A name is one rater however it is typed: trimmed and without case ("  Ben  " is "ben"). The
campaign's raters are the names that judge, with a judgment or an assignment, never the lead's
role ``adjudicated``: a name typed to open the window (a lead's) is no rater until it judges.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, and_, delete, func, or_, select
from sqlalchemy.orm import Session

from judge_app.errors import quoted
from judge_app.names import (
    ADJUDICATED,
    is_role,
    known_name,
    normal_id,
    similar_name,
    similar_reason,
)
from judge_app.store.errors import SimilarRaterError, StoreError
from judge_app.store.models import AUTOMATIC, Assignment, Judgment, Query, Rater


def add_rater(session: Session, name: str, *, similar_ok: bool = False) -> Rater:
    """Create a rater called ``new_rater_name(name)``: refused as that refuses it."""
    rater = Rater(name=new_rater_name(session, name, similar_ok=similar_ok))
    session.add(rater)
    session.flush()
    return rater


def new_rater_name(session: Session, name: str, *, similar_ok: bool = False) -> str:
    """``name`` as a new rater's (trimmed, in NFC); StoreError if it is empty or taken
    (without case or extra spaces), and SimilarRaterError if it differs from a rater's only
    by the spaces between words, unless ``similar_ok`` (a person said they are two)."""
    name = normal_id(name)
    if not name:
        raise StoreError("a rater needs a name")
    names = list(session.scalars(select(Rater.name).order_by(Rater.name)))
    taken = known_name(name, names)
    if taken is not None:
        raise StoreError(f"there is already a rater called {quoted(taken)}")
    similar = similar_name(name, names)
    if similar is not None and not similar_ok:
        raise SimilarRaterError(similar_reason(name, similar), similar)
    return name


def find_rater(session: Session, name: str) -> Rater | None:
    """The rater called ``name`` (trimmed, in NFC; else without case or extra spaces), or
    None."""
    normal = normal_id(name)
    found = session.scalars(select(Rater).where(Rater.name == normal)).first()
    if found is not None:
        return found
    known = known_name(normal, session.scalars(select(Rater.name)))
    if known is None:
        return None
    return session.scalars(select(Rater).where(Rater.name == known)).one()


def named_rater(
    session: Session, name: str, *, create: bool = True, similar_ok: bool = False
) -> Rater | None:
    """The rater a person names (the rater chooser, ``--rater``, ``assign --raters``): the
    rater it names (``find_rater``), else with ``create`` a new one (``add_rater``), else
    None. StoreError for the lead's role ``adjudicated``, never a rater to judge as or assign."""
    if is_role(name):
        raise StoreError(
            f"{quoted(normal_id(name))} is where a lead's adjudicated grades are kept, not a "
            "rater: choose another name"
        )
    found = find_rater(session, name)
    if found is not None and found.kind == AUTOMATIC:
        raise StoreError(
            f"{quoted(found.name)} is an automatic judge, not a person: choose another name"
        )
    if found is not None or not create:
        return found
    return add_rater(session, name, similar_ok=similar_ok)


def campaign_raters(session: Session, *, assignable: bool = False) -> list[tuple[int, str]]:
    """(id, name) of the campaign's raters, by name: those with a judgment or an assignment,
    never the role ``adjudicated``; with ``assignable``, only those not retired. The one
    definition the rater chooser, Assign, ``info`` and the report's counts use."""
    statement = select(Rater.id, Rater.name).where(in_campaign())
    if assignable:
        statement = statement.where(Rater.active)
    rows = session.execute(statement.order_by(Rater.name))
    return [(rater_id, name) for rater_id, name in rows]


def rater_by_id(session: Session, rater_id: int) -> Rater:
    """The rater ``rater_id``."""
    return session.get_one(Rater, rater_id)


def rater_kinds(session: Session) -> list[tuple[str, str]]:
    """(name, kind) of every rater, people and automatic judges, by name."""
    rows = session.execute(select(Rater.name, Rater.kind).order_by(Rater.name))
    return [(name, kind) for name, kind in rows]


def raters_active(session: Session) -> dict[int, bool]:
    """Whether each rater (by id) is active, not retired."""
    return {
        rater_id: active for rater_id, active in session.execute(select(Rater.id, Rater.active))
    }


def in_campaign() -> ColumnElement[bool]:
    """Whether a ``Rater`` row is one of the campaign's (``campaign_raters``). Each table is
    read once (``IN``, not a correlated EXISTS: the judgments have no index by rater, and a
    scan of them per rater took 12 s at 10,000 raters)."""
    judges = or_(Rater.id.in_(select(Judgment.rater_id)), Rater.id.in_(select(Assignment.rater_id)))
    return and_(judges, Rater.name != ADJUDICATED)


def rater(session: Session, name: str) -> Rater:
    """The rater called ``name``, or StoreError naming the raters there are."""
    found = find_rater(session, name)
    if found is None:
        names = ", ".join(session.scalars(select(Rater.name).order_by(Rater.name))) or "none yet"
        raise StoreError(f"no rater called {quoted(name)} (raters: {names})")
    return found


def set_rater_active(session: Session, rater_id: int, active: bool) -> None:
    """Retire a rater (kept with their judgments) or bring them back."""
    session.get_one(Rater, rater_id).active = active


def assign_queries(session: Session, rater_id: int, query_ids: Sequence[int]) -> int:
    """Append queries to a rater's queue, in the order given; returns how many were new."""
    assigned = set(
        session.scalars(select(Assignment.query_id).where(Assignment.rater_id == rater_id))
    )
    last = session.scalar(
        select(func.max(Assignment.position)).where(Assignment.rater_id == rater_id)
    )
    position = -1 if last is None else last
    added = 0
    for query_id in dict.fromkeys(query_ids):
        if query_id in assigned:
            continue
        position += 1
        added += 1
        session.add(Assignment(rater_id=rater_id, query_id=query_id, position=position))
    session.flush()
    return added


def unassign_queries(session: Session, rater_id: int, query_ids: Sequence[int]) -> None:
    """Take queries out of a rater's queue (their judgments stay)."""
    session.execute(
        delete(Assignment).where(
            Assignment.rater_id == rater_id, Assignment.query_id.in_(list(query_ids))
        )
    )


def assigned_queries(session: Session, rater_id: int) -> list[int]:
    """The rater's queue in order; every query when nothing is assigned to them."""
    queue = list(
        session.scalars(
            select(Assignment.query_id)
            .where(Assignment.rater_id == rater_id)
            .order_by(Assignment.position)
        )
    )
    return queue or all_query_ids(session)


def all_query_ids(session: Session) -> list[int]:
    """Every query's id, in the order of their external ids."""
    return list(session.scalars(select(Query.id).order_by(Query.external_id)))
