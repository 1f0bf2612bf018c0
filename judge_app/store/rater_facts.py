"""What the raters' quality figures are computed from (``commands.rater_quality``) beside the
judgments themselves (``reads.judged_codes``, read in the same snapshot): the answered
repeats and the gold items, each rater's queue, whether they are active and their repeats
still to judge, their preference judgments, and the lead's quality settings."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from sqlalchemy.orm import Session

from judge_app.store.gold_items import gold_frame
from judge_app.store.people import campaign_raters, raters_active
from judge_app.store.preferences import preferences_frame
from judge_app.store.rater_queue import Progress, pool_settings, raters_progress
from judge_app.store.repeats import answered_repeats_frame, pending_repeats
from judge_app.store.settings import QualitySettings, quality_settings


@dataclass(frozen=True)
class RaterFacts:
    """The campaign as the raters' figures read it beside the judgments: answered
    ``repeats`` (``answered_repeats_frame``), ``gold`` items (``gold_frame``), by
    rater name each campaign rater's queue ``progress``, whether ``active`` and their
    ``pending`` repeats, every rater's ``preferences`` (``preferences_frame``) and the lead's
    quality ``settings``."""

    settings: QualitySettings
    repeats: pd.DataFrame
    gold: pd.DataFrame
    progress: dict[str, Progress]
    active: dict[str, bool]
    pending: dict[str, int]
    preferences: pd.DataFrame


def rater_facts(session: Session) -> RaterFacts:
    """The raters' facts, read on ``session`` (one snapshot)."""
    people = campaign_raters(session)
    active = raters_active(session)
    progress = raters_progress(
        session, [rater_id for rater_id, _name in people], pool_settings(session)
    )
    return RaterFacts(
        settings=quality_settings(session),
        repeats=answered_repeats_frame(session),
        gold=gold_frame(session),
        progress={name: progress[rater_id] for rater_id, name in people},
        active={name: active[rater_id] for rater_id, name in people},
        pending=pending_repeats(session),
        preferences=preferences_frame(session),
    )
