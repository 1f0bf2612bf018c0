"""A campaign's settings, read and changed in one place (``judge-app settings``, and the
window's Lead ▸ Rubric…, Pooling… and Quality checks…): the rubric (what each grade 0–5 is
called and means), the pooling (which results raters judge, in which order), the preference
pairs (how many candidates of a query are compared, and at most how many pairs per rater) and
the quality checks (the fastest credible judgment, the share of items shown again).

A change names only what it changes; the rest is kept. It is checked and written in one
transaction, so a change with one wrong value changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judge_app.errors import UsageError
from judge_app.store.database import Database, opened
from judge_app.store.grade_labels import GradeLabel
from judge_app.store.pair_queue import PairSettings, pair_settings, set_pair_settings
from judge_app.store.rater_queue import QUERY_ORDERS, PoolSettings, pool_settings, set_pool_settings
from judge_app.store.settings import (
    QualitySettings,
    quality_settings,
    scale,
    set_grade_label,
    set_quality_settings,
)
from judge_app.writers.json_document import json_document

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

OUTPUTS = ("table", "json")
ORDERS = ("run", "shuffle")
QUERY_ORDER_WORDS = {"assigned": "as assigned", "active": "in the active sample's order"}


@dataclass(frozen=True)
class CampaignSettings:
    """The settings as they are: the ``rubric``, the ``pool``, the preference ``pairs`` and
    the ``quality`` checks."""

    rubric: tuple[GradeLabel, ...]
    pool: PoolSettings
    quality: QualitySettings
    pairs: PairSettings

    def record(self) -> dict[str, Any]:
        """The settings as JSON-ready values."""
        return {
            "rubric": [dataclasses.asdict(label) for label in self.rubric],
            "pool": dataclasses.asdict(self.pool),
            "pairs": dataclasses.asdict(self.pairs),
            "quality": dataclasses.asdict(self.quality),
        }

    def as_text(self, output: str = "table") -> str:
        """The settings for people (``table``) or machines (``json``)."""
        if output not in OUTPUTS:
            raise UsageError(f"must be one of {', '.join(OUTPUTS)}", "format")
        if output == "json":
            return json_document(self.record(), indent=2)
        pool, quality = self.pool, self.quality
        order = (
            f"shuffled per rater and query (seed {pool.seed})"
            if pool.order == "shuffle"
            else f"as {pool.order_run or 'the first run by name'} ranks them"
        )
        lines = ["Rubric"]
        lines += [
            f"  {label.grade}  {label.label}"
            + (f": {label.description}" if label.description else "")
            for label in self.rubric
        ]
        lines += [
            "Pooling",
            f"  the top {pool.depth} of {', '.join(pool.runs) if pool.runs else 'every run'}",
            f"  results shown {order}",
            f"  queries taken {QUERY_ORDER_WORDS[pool.query_order]}",
            "Preference pairs",
            f"  {pair_cost(self.pairs)}",
            "Quality checks",
            f"  fastest credible judgment {quality.min_seconds:g} s",
            f"  shown again for self-agreement {quality.repeat_share:.0%} of each rater's items",
        ]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class SettingsChange:
    """What to change: the ``grades`` whose label and description are given, the ``pool``
    settings named (``PoolSettings``' fields and their values), the ``quality`` settings
    named (``QualitySettings``' fields) and the ``pairs`` settings named (``PairSettings``'
    ``top`` and ``budget``); the rest is kept."""

    grades: tuple[GradeLabel, ...] = ()
    pool: Mapping[str, Any] = field(default_factory=dict)
    quality: Mapping[str, float] = field(default_factory=dict)
    pairs: Mapping[str, int] = field(default_factory=dict)

    def checked(self) -> SettingsChange:
        """This change, or a usage error naming what is wrong."""
        for label in self.grades:
            if label.grade not in range(6):
                raise UsageError(f"the rubric has grades 0 to 5, not {label.grade}")
        if empty := [str(label.grade) for label in self.grades if not label.label.strip()]:
            raise UsageError(f"give grade {', '.join(empty)} a label")
        grades = [label.grade for label in self.grades]
        if len(set(grades)) != len(grades):
            raise UsageError("each grade of the rubric is given once")
        fields = {item.name for item in dataclasses.fields(PoolSettings)}
        if unknown := sorted(set(self.pool) - fields):
            raise UsageError(f"no pooling setting {', '.join(unknown)}")
        if self.pool.get("order", "run") not in ORDERS:
            raise UsageError(f"the results' order is one of {', '.join(ORDERS)}")
        if self.pool.get("query_order", "assigned") not in QUERY_ORDERS:
            raise UsageError(f"the queries' order is one of {', '.join(QUERY_ORDERS)}")
        quality = {item.name for item in dataclasses.fields(QualitySettings)}
        if unknown := sorted(set(self.quality) - quality):
            raise UsageError(f"no quality setting {', '.join(unknown)}")
        pairs = {item.name for item in dataclasses.fields(PairSettings)}
        if unknown := sorted(set(self.pairs) - pairs):
            raise UsageError(f"no preference pair setting {', '.join(unknown)}")
        return self

    @property
    def empty(self) -> bool:
        return not (self.grades or self.pool or self.quality or self.pairs)


def read_settings(database: Database | str) -> CampaignSettings:
    """The campaign's settings of ``database`` (an open one, or a path or URL, opened
    read-only), read in one snapshot."""
    with opened(database, read_only=True) as found, found.reading() as session:
        return _settings_in(session)


def _settings_in(session: Session) -> CampaignSettings:
    return CampaignSettings(
        tuple(scale(session)),
        pool_settings(session),
        quality_settings(session),
        pair_settings(session),
    )


def change_settings(database: Database | str, change: SettingsChange) -> CampaignSettings:
    """Write ``change`` into ``database`` (an open one, or a path or URL) in one transaction
    (nothing when a value is wrong: StoreError or UsageError names it) and return the
    settings after it."""
    change = change.checked()

    def write(session: Session) -> CampaignSettings:
        for label in change.grades:
            set_grade_label(session, label.grade, label.label, label.description)
        if change.pool:
            set_pool_settings(session, dataclasses.replace(pool_settings(session), **change.pool))
        if change.quality:
            quality = dataclasses.replace(quality_settings(session), **change.quality)
            set_quality_settings(session, quality)
        if change.pairs:
            set_pair_settings(session, dataclasses.replace(pair_settings(session), **change.pairs))
        return _settings_in(session)

    with opened(database) as found:
        return found.write(write)


def pair_cost(pairs: PairSettings) -> str:
    """What the pair settings cost a rater, in words: "at most 10 of the 15 pairs of 6
    results per rater and query"."""
    every = pairs.top * (pairs.top - 1) // 2
    if pairs.budget < every:
        asked = f"at most {pairs.budget:,} of the {every:,} pairs"
    else:
        asked = "the one pair" if every == 1 else f"all {every:,} pairs"
    return f"{asked} of {pairs.top} results per rater and query"
