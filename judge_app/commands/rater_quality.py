"""Rater quality control (``judge-app raters``, View ▸ Raters, the report's raters section):
per rater, progress, speed, self-agreement on hidden repeats, accuracy on gold items,
agreement with the others and its drift over days and blocks of judgments, with a warning in
plain words where a figure is out of line.

Definitions (the command's help and the page say the same):
- speed: over the rater's timed judgments (idle time left out; imported ones have no time);
  too fast: under the lead's fastest credible judgment.
- self-agreement: each answered repeat's grade beside the rater's first grade of the pair.
- gold: the rater's grades of gold items beside the gold grade; bias is grade minus gold.
- alpha with others: ordinal alpha of the rater against the rest (``agreement.raters``);
  alpha contribution: the agreement page's (all raters' alpha minus alpha without them).
- drift: those figures per day (UTC) and per block of 50 judgments, in the order judged.
- preferences: the preference judgments made (skips included), and the share of intransitive
  triples (x over y over z over x) among the triples of a query's documents whose three pairs
  the rater ordered (``agreement.preference_agreement.intransitive_triples``).

Here the campaign is read and the figures computed; what the report holds is
``judge_app.agreement.quality``, its table, CSV and JSON ``judge_app.writers.raters``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judge_app.agreement import coefficients as co
from judge_app.agreement import raters as figures
from judge_app.agreement.preference_agreement import intransitive_triples
from judge_app.agreement.quality import (
    NO_TRIPLES,
    DriftPoint,
    PreferenceFigures,
    RaterQuality,
    RatersReport,
)
from judge_app.agreement.report import RaterAgreement, Ratings, per_rater, unique_inverse
from judge_app.errors import UsageError
from judge_app.io.exports import write_flagged_csv
from judge_app.io.outputs import check_output
from judge_app.metrics.codes import Judged, code_of
from judge_app.names import ADJUDICATED
from judge_app.store.rater_facts import RaterFacts, rater_facts
from judge_app.store.rater_queue import Progress
from judge_app.store.settings import QualitySettings

if TYPE_CHECKING:
    from judge_app.store import Database

MICROSECONDS_A_DAY = 86_400_000_000
TOO_FAST_WARNING = 0.10
"""A share of too-fast judgments above this is out of line."""
SELF_KAPPA_WARNING = 0.6
GOLD_WITHIN_ONE_WARNING = 0.8
"""Gold accuracy within one grade below this is out of line (exact agreement on a six-grade
scale is low even for careful raters)."""
GOLD_BIAS_WARNING = 0.75
CONTRIBUTION_WARNING = -0.05
DRIFT_WARNING = 0.2
"""A fall of the rater's alpha with the others, first block to last, of this much."""
MIN_PAIRS = 5
"""Self-agreement and gold figures warn only from this many pairs on: fewer say too little."""


@dataclass(frozen=True)
class RatersOptions:
    """The raters' quality figures: ``min_seconds``, the fastest credible judgment (None:
    the lead's stored setting); ``too_fast_out``, a CSV file to write the judgments faster
    than that to."""

    min_seconds: float | None = None
    too_fast_out: Path | None = None

    def checked(self) -> RatersOptions:
        """These options, or a usage error (an export error for a file it cannot write)."""
        if self.min_seconds is not None and not (
            math.isfinite(self.min_seconds) and 0 <= self.min_seconds <= 600
        ):
            raise UsageError("takes a number of seconds from 0 to 600", "min-seconds")
        if self.too_fast_out is not None:
            check_output(self.too_fast_out)
        return self


def rater_quality_of(database: Database | str, options: RatersOptions) -> RatersReport:
    """Every rater's quality figures of ``database`` (an open one, or a path or URL, opened
    read-only), read in one snapshot; the too-fast judgments written where the options
    ask."""
    from judge_app.commands.campaign import judged_of
    from judge_app.store.database import opened
    from judge_app.store.reads import judged_codes

    options.checked()
    with opened(database, read_only=True) as found, found.reading() as session:
        source, facts = found.describe(), rater_facts(session)
        judged = judged_of(judged_codes(session))
    report = quality_report(source, facts, judged, options)
    if options.too_fast_out is not None:
        write_flagged_csv(report.flagged, options.too_fast_out)
    return report


def quality_report(
    source: str,
    facts: RaterFacts,
    judgments: Judged,
    options: RatersOptions,
    contributions: list[RaterAgreement] | None = None,
) -> RatersReport:
    """The report of what was read of ``source``: ``facts`` (``store.rater_facts``) and
    every judgment with its time, the options' fastest credible judgment in place of the
    lead's where they give one. ``contributions``: each rater's alpha contribution where the
    caller has computed them already (an agreement report of every rater's grades)."""
    stored = facts.settings
    settings = QualitySettings(
        stored.min_seconds if options.min_seconds is None else options.min_seconds,
        stored.repeat_share,
    )
    repeats, progress, active, pending = facts.repeats, facts.progress, facts.active, facts.pending
    raters_only = judgments.rater != code_of(judgments.raters, ADJUDICATED)
    judged = _Judged.of(judgments.where(raters_only), facts.gold)
    contribution = {
        rater.rater: (
            co.Estimate(rater.alpha_contribution)
            if rater.alpha_contribution is not None
            else co.Estimate.undefined(rater.reasons.get("alpha_contribution", "undefined"))
        )
        for rater in contributions or per_rater(judged.ratings)
    }
    answered = repeats[~repeats["skipped"]]
    answered_grades = answered["grade"].to_numpy(dtype=np.int64)
    first_grades = answered["first_grade"].to_numpy(dtype=np.int64)
    answered_by = answered.groupby("rater").indices if len(answered) else {}
    preferring = _preference_figures(facts.preferences)
    raters = []
    for name in sorted(set(progress) | set(judged.rows) | set(preferring)):
        rows = judged.rows.get(name, np.zeros(0, dtype=np.int64))
        own_repeats = answered_by.get(name, np.zeros(0, dtype=np.int64))
        queue = progress.get(name, Progress())
        whole = judged.periods(rows, np.zeros(len(rows), dtype=np.int64), ["all"])[0]
        gold_rows = rows[(judged.gold[rows] >= 0) & (judged.grade[rows] >= 0)]
        rater = RaterQuality(
            rater=name,
            active=active.get(name, True),
            assigned=queue.total,
            done=len(rows),
            skipped=int(judged.skipped[rows].sum()),
            remaining=queue.total - queue.done,
            speed=figures.speed(judged.seconds[rows] * 1000, settings.min_seconds),
            repeats_pending=pending.get(name, 0),
            self_agreement=figures.consistency(
                answered_grades[own_repeats], first_grades[own_repeats], "repeats"
            ),
            gold=figures.consistency(judged.grade[gold_rows], judged.gold[gold_rows], "gold items"),
            alpha_with_others=whole.alpha_with_others,
            alpha_contribution=contribution.get(
                name, co.Estimate.undefined(f"{name} graded no unit")
            ),
            by_day=judged.periods(rows, *judged.days(rows)),
            by_block=judged.periods(rows, *_blocks(len(rows))),
            preferences=preferring.get(name, PreferenceFigures()),
        )
        raters.append(_with_warnings(rater, settings))
    return RatersReport(
        source,
        settings.min_seconds,
        settings.repeat_share,
        raters,
        judged.frame(np.flatnonzero(judged.seconds < settings.min_seconds)),
    )


def _preference_figures(preferences: pd.DataFrame) -> dict[str, PreferenceFigures]:
    """Each rater's preference figures, of those who made one."""
    if not len(preferences):
        return {}
    counts = preferences.groupby("rater").size()
    skipped = (preferences["choice"] == "skipped").groupby(preferences["rater"]).sum()
    triples = intransitive_triples(preferences).set_index("rater")
    figures = {}
    for name in counts.index:
        ordered = int(triples.at[name, "triples"]) if name in triples.index else 0
        figures[str(name)] = PreferenceFigures(
            int(counts[name]),
            int(skipped[name]),
            int(triples.at[name, "cyclic"]) if ordered else 0,
            ordered,
            co.Estimate(float(triples.at[name, "share"]))
            if ordered
            else co.Estimate.undefined(NO_TRIPLES),
        )
    return figures


@dataclass(frozen=True)
class _Judged:
    """Every rater's judgments (``coded``), by rater and in the order judged, as arrays:
    ``seconds`` (NaN: not timed), ``grade`` (-1: skipped), ``others``, the other raters'
    grades of the unit as shares summing to one (zeros for a skip, or where nobody else
    graded it) and ``gold`` (-1: not a gold item)."""

    coded: Judged
    ratings: Ratings
    """The graded ones as units and counts (``agreement.report.Ratings``)."""
    rows: dict[str, np.ndarray]
    """Each rater's rows, in the order judged."""
    seconds: np.ndarray
    grade: np.ndarray
    skipped: np.ndarray
    others: np.ndarray
    gold: np.ndarray
    day: np.ndarray
    """Each row's day (UTC), a number in order of ``day_names``."""
    day_names: list[str]

    @classmethod
    def of(cls, judged: Judged, gold: pd.DataFrame) -> _Judged:
        # by rater, then time; at one time, in order of query and document
        pair = judged.query * max(len(judged.docs), 1) + judged.doc
        judged = judged.where(np.lexsort((pair, judged.at, judged.rater)))
        graded = judged.graded()
        is_graded = judged.grade >= 0
        ratings = Ratings.from_graded(graded)
        counts = ratings.counts
        width = max(len(graded.docs), 1)
        _, unit = unique_inverse(graded.query * width + graded.doc)
        own = graded.grade.astype(np.int64)
        others = np.take(counts.astype(np.float64), unit, axis=0)
        others[np.arange(len(own)), own] -= 1  # the rater's own grade is not the others'
        totals = others.sum(axis=1, keepdims=True)
        np.divide(others, totals, out=others, where=totals > 0)  # a row of 0 where none
        weighted = np.zeros((len(judged.grade), len(co.GRADES)))
        weighted[is_graded] = others
        days, day = unique_inverse(judged.at // MICROSECONDS_A_DAY)
        raters, starts = np.unique(judged.rater, return_index=True)
        ends = np.append(starts[1:], len(judged.rater))
        return cls(
            coded=judged,
            ratings=ratings,
            rows={
                str(judged.raters[rater]): np.arange(start, end)
                for rater, start, end in zip(raters, starts, ends)
            },
            seconds=np.where(judged.duration_ms >= 0, judged.duration_ms / 1000, np.nan),
            grade=judged.grade,
            skipped=~is_graded,
            others=weighted,
            gold=_gold_grades(judged, gold),
            day=day,
            day_names=[str(np.datetime64(int(number), "D")) for number in days],
        )

    def frame(self, rows: np.ndarray) -> pd.DataFrame:
        """``rows`` as ``rater, query_id, doc_id, grade, skipped, seconds, judged_at``."""
        coded = self.coded.where(rows)
        grade = coded.grade
        return pd.DataFrame(
            {
                "rater": coded.raters[coded.rater],
                "query_id": coded.queries[coded.query],
                "doc_id": coded.docs[coded.doc],
                "grade": pd.arrays.IntegerArray(np.maximum(grade, 0), grade < 0),
                "skipped": grade < 0,
                "seconds": self.seconds[rows],
                "judged_at": pd.to_datetime(coded.at, unit="us"),
            }
        )

    def days(self, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """Each of ``rows``' day (UTC) as a group number, and the days' names."""
        used, codes = unique_inverse(self.day[rows])
        return codes, [self.day_names[day] for day in used.tolist()]

    def periods(self, rows: np.ndarray, groups: np.ndarray, labels: list[str]) -> list[DriftPoint]:
        """The figures of ``rows`` in each group (``groups[i]`` numbers ``labels``)."""
        n = len(labels)
        grade, gold = self.grade[rows], self.gold[rows]
        alphas = figures.alpha_with_others(grade, self.others[rows], groups, n)
        checked = (gold >= 0) & (grade >= 0)
        gold_items = np.bincount(groups[checked], minlength=n)
        gold_right = np.bincount(groups[checked & (gold == grade)], minlength=n)
        medians = _medians(self.seconds[rows], groups, n)
        counts = np.bincount(groups, minlength=n)
        no_gold = co.Estimate.undefined("no gold items graded")  # one for every such period
        untimed = co.Estimate.undefined("no judgment was timed")
        return [
            DriftPoint(
                label,
                count,
                alpha,
                items,
                co.Estimate(right / items) if items else no_gold,
                untimed if math.isnan(median) else co.Estimate(median),
            )
            for label, count, alpha, items, right, median in zip(
                labels,
                counts.tolist(),
                alphas,
                gold_items.tolist(),
                gold_right.tolist(),
                medians.tolist(),
            )
        ]


def _gold_grades(judged: Judged, gold: pd.DataFrame) -> np.ndarray:
    """Each judgment's gold grade, -1 where its pair is no gold item."""
    width = max(len(judged.docs), 1)
    query = pd.Index(judged.queries).get_indexer(gold["query_id"])
    doc = pd.Index(judged.docs).get_indexer(gold["doc_id"])
    known = (query >= 0) & (doc >= 0)
    items = pd.Index(query[known] * width + doc[known])
    grades = np.append(gold["grade"].to_numpy(dtype=np.int64)[known], -1)
    return grades[items.get_indexer(judged.query * width + judged.doc)]  # -1: the last


def _medians(values: np.ndarray, groups: np.ndarray, n: int) -> np.ndarray:
    """The median of ``values`` (NaN left out) in each of ``n`` groups; NaN for a group
    without one. (pandas' groupby median took 0.25 ms a call: 7 s for 10,000 raters.)"""
    known = ~np.isnan(values)
    values, groups = values[known], groups[known]
    order = np.lexsort((values, groups))
    values = values[order]
    counts = np.bincount(groups, minlength=n)
    starts = np.cumsum(counts) - counts
    medians = np.full(n, np.nan)
    some = counts > 0
    low = starts[some] + (counts[some] - 1) // 2
    high = starts[some] + counts[some] // 2
    medians[some] = (values[low] + values[high]) / 2
    return medians


def _blocks(count: int) -> tuple[np.ndarray, list[str]]:
    """Blocks of 50 judgments (``figures.blocks``) as group numbers, and their names."""
    groups = np.zeros(count, dtype=np.int64)
    labels = []
    for index, rows in enumerate(figures.blocks(np.arange(count))):
        groups[rows] = index
        labels.append(f"{rows[0] + 1}–{rows[-1] + 1}")
    return groups, labels


def _with_warnings(rater: RaterQuality, settings: QualitySettings) -> RaterQuality:
    """``rater`` with a plain-words warning for each figure out of line."""
    found: dict[str, str] = {}  # figure: warning (``RaterQuality.out_of_line``)
    share = rater.speed.too_fast_share.value
    if share is not None and share > TOO_FAST_WARNING:
        found["too_fast_share"] = f"{share:.0%} of judgments under {settings.min_seconds:g} s"
    kappa = rater.self_agreement.kappa.value
    if kappa is not None and rater.self_agreement.pairs >= MIN_PAIRS and kappa < SELF_KAPPA_WARNING:
        found["self_agreement_kappa"] = (
            f"self-agreement kappa {kappa:.2f} on {rater.self_agreement.pairs} repeats"
        )
    if rater.gold.pairs >= MIN_PAIRS:
        within, bias = rater.gold.within_one.value, rater.gold.bias.value
        if within is not None and within < GOLD_WITHIN_ONE_WARNING:
            found["gold_within_one"] = (
                f"{within:.0%} of {rater.gold.pairs} gold items within one grade"
            )
        if bias is not None and abs(bias) >= GOLD_BIAS_WARNING:
            side = "above" if bias > 0 else "below"
            found["gold_bias"] = f"grades {abs(bias):.1f} {side} gold on average"
    contribution = rater.alpha_contribution.value
    if contribution is not None and contribution < CONTRIBUTION_WARNING:
        found["alpha_contribution"] = (
            f"the others agree better without them (alpha {contribution:+.2f})"
        )
    alphas = [point.alpha_with_others.value for point in rater.by_block]
    known = [alpha for alpha in alphas if alpha is not None]
    if len(known) >= 2 and known[0] - known[-1] >= DRIFT_WARNING:
        found["alpha_with_others"] = (
            f"agreement with the others fell from {known[0]:.2f} to {known[-1]:.2f} "
            "(first and last block of 50)"
        )
    return dataclasses.replace(rater, out_of_line=found)
