"""A database's campaign read for evaluation and the analyses beside it, in one snapshot:
graded judgments, run results and (where a judge's grades may be evaluated) the automatic
judges' grades, as integer codes (``judge_app.evaluation.campaign.Campaign``); and the stamp
that says when it must be read again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judge_app.evaluation.campaign import Campaign
from judge_app.metrics.codes import Graded, Judged, Results

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge_app.store import Database
    from judge_app.store.reads import JudgedCodes


def load_campaign(database: Database, queries: bool = True, automatic: bool = True) -> Campaign:
    """Read the graded judgments, the results, (``queries``) the queries' texts and
    (``automatic``) the automatic judges' grades and the active sample of ``database``, in one
    snapshot; the judges' names always. Readers that never evaluate a judge's grades (agreement,
    assignment, planning) leave ``automatic`` out."""
    with database.reading() as session:
        return campaign_of(session, database.describe(), queries, automatic)


def campaign_of(
    session: Session,
    source: str,
    queries: bool = True,
    automatic: bool = True,
    timed: bool = False,
) -> Campaign:
    """``load_campaign`` within a reading ``session`` of the database ``source``; with
    ``timed``, every judgment with its time too (``Campaign.judged``), from the same read."""
    from judge_app.store import active_sample, reads
    from judge_app.store.automatic import judge_names
    from judge_app.store.preferences import preferences_frame
    from judge_app.store.rater_queue import pool_settings

    stamp = reads.change_stamp(session)
    judges = tuple(judge_names(session))
    automatic = automatic and bool(judges)
    judgments = None
    if timed:
        (graded, results, judged, names), timed_codes = reads.timed_campaign_codes(
            session, automatic
        )
        judgments = judged_of(timed_codes)
    else:
        graded, results, judged, names = reads.campaign_codes(session, automatic)
    texts = reads.queries_frame(session) if queries else None
    preferences = preferences_frame(session)

    def coded(rows: dict[str, np.ndarray], raters: np.ndarray) -> Graded:
        return Graded(
            rows["query_id"],
            rows["doc_id"],
            rows["rater"],
            rows["grade"].astype(np.float64),
            names["query_id"],
            names["doc_id"],
            raters,
        )

    return Campaign(
        source=source,
        graded=coded(graded, names["rater"]),
        coded_results=Results(
            results["run"], results["query_id"], results["doc_id"], results["rank"], names["run"]
        ),
        queries={} if texts is None else dict(zip(texts["query_id"], texts["text"].fillna(""))),
        stamp=stamp,
        judges=judges,
        automatic=coded(judged, names["judge"]) if automatic else None,
        active=active_sample.active_sample_frame(session)
        if automatic and pool_settings(session).query_order == "active"
        else None,
        judged=judgments,
        preferences=preferences,
    )


def judged_of(codes: JudgedCodes) -> Judged:
    """The columns of ``store.reads.judged_codes`` as ``Judged``."""
    rows, names = codes
    return Judged(
        rows["query_id"],
        rows["doc_id"],
        rows["rater"],
        rows["grade"],
        rows["at"],
        rows["duration_ms"],
        names["query_id"],
        names["doc_id"],
        names["rater"],
    )


def read_campaign(db: str, queries: bool = True, automatic: bool = True) -> Campaign:
    """``load_campaign`` of the database ``db`` (a path or URL), opened read-only."""
    from judge_app.store import open_database

    with open_database(db, read_only=True) as database:
        return load_campaign(database, queries, automatic)
