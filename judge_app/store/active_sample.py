"""The active sample drawn for an automatic judge (``commands.active_sampling``): each query's
predicted residual scale and sequential Poisson key.

Only the evaluation reads it whole; the queue's order (``store.rater_queue.rater_queue``) reads each
query's place alone (the view ``active_order``): nothing a rater sees carries a scale or a
key. Every function takes a Session and does not commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import column, delete, select, table
from sqlalchemy.orm import Session

from judge_app.store.models import ActiveSample, Query, Rater, utcnow

if TYPE_CHECKING:  # the judging window reads the order, never a frame: no pandas at its start
    import pandas as pd

ACTIVE_ORDER = table("active_order", column("query_id"), column("place"))
"""The view of each sampled query's place in the order (migration 0007)."""


@dataclass(frozen=True)
class Drawn:
    """One query of a sample (the database's query id)."""

    query_id: int
    scale: float
    key: float


def replace_active_sample(session: Session, judge_id: int, drawn: Iterable[Drawn]) -> int:
    """Make ``drawn`` the active sample (of the judge ``judge_id``), in place of any earlier
    one; returns how many queries it holds."""
    session.execute(delete(ActiveSample))
    now = utcnow()
    rows = [
        {
            "query_id": item.query_id,
            "judge_id": judge_id,
            "scale": float(item.scale),
            "key": float(item.key),
            "drawn_at": now,
        }
        for item in drawn
    ]
    if rows:
        session.execute(ActiveSample.__table__.insert(), rows)
    session.flush()
    return len(rows)


def replace_named_active_sample(
    session: Session, judge: str, drawn: Iterable[tuple[str, float, float]]
) -> int:
    """``replace_active_sample`` of the automatic judge called ``judge``, the queries given by
    their external ids: (query, scale, key)."""
    from judge_app.store.automatic import judge as named_judge

    judge_id = named_judge(session, judge).rater_id
    ids = {external: id_ for external, id_ in session.execute(select(Query.external_id, Query.id))}
    return replace_active_sample(
        session, judge_id, [Drawn(ids[query], scale, key) for query, scale, key in drawn]
    )


def has_active_sample(session: Session) -> bool:
    """Whether a sample has been drawn."""
    return session.scalar(select(ActiveSample.query_id).limit(1)) is not None


def places_of(session: Session, query_ids: Iterable[int]) -> dict[int, int]:
    """Query id → its place in the sample's order (1 for the lowest key; equal keys share a
    place), for the queries of ``query_ids`` in the sample: read from the view
    ``active_order``, which a rater's login on a team database may read, unlike the keys."""
    ids = list(query_ids)
    places: dict[int, int] = {}
    for start in range(0, len(ids), 500):
        statement = select(ACTIVE_ORDER.c.query_id, ACTIVE_ORDER.c.place).where(
            ACTIVE_ORDER.c.query_id.in_(ids[start : start + 500])
        )
        places.update({query_id: int(place) for query_id, place in session.execute(statement)})
    return places


def active_sample_frame(session: Session) -> pd.DataFrame:
    """The sample as ``query_id, judge, scale, key`` (external query id, the judge's name),
    in ascending key."""
    statement = (
        select(
            Query.external_id.label("query_id"),
            Rater.name.label("judge"),
            ActiveSample.scale,
            ActiveSample.key,
        )
        .join(Query, Query.id == ActiveSample.query_id)
        .join(Rater, Rater.id == ActiveSample.judge_id)
        .order_by(ActiveSample.key, Query.external_id)
    )
    import numpy as np

    from judge_app.store.reads import read_frame

    frame = read_frame(session, statement)
    for name in ("scale", "key"):
        frame[name] = frame[name].astype(np.float64)
    return frame


def sample_judge(session: Session) -> str | None:
    """The name of the judge the active sample was drawn for (None: none drawn)."""
    statement = select(Rater.name).join(ActiveSample, ActiveSample.judge_id == Rater.id).limit(1)
    return session.scalar(statement)
