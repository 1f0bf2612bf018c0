"""Raters and the queries assigned to them."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from judge_app.errors import quoted
from judge_app.names import normal_id, similar_name, similar_reason
from judge_app.store.errors import StoreError
from judge_app.store.models import Assignment, Query, Rater


def add_rater(session: Session, name: str) -> Rater:
    """Create a rater (the name trimmed, in NFC); StoreError if the name is empty or taken, or
    differs from a rater's only by case or spaces."""
    name = normal_id(name)
    if not name:
        raise StoreError("a rater needs a name")
    if find_rater(session, name) is not None:
        raise StoreError(f"there is already a rater called {quoted(name)}")
    similar = similar_name(name, session.scalars(select(Rater.name).order_by(Rater.name)))
    if similar is not None:
        raise StoreError(similar_reason(name, similar))
    rater = Rater(name=name)
    session.add(rater)
    session.flush()
    return rater


def find_rater(session: Session, name: str) -> Rater | None:
    """The rater called ``name`` (trimmed, in NFC), or None."""
    return session.scalars(select(Rater).where(Rater.name == normal_id(name))).first()


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
