"""Rater quality figures, without a database: speed, self-agreement from hidden repeats,
accuracy on gold items, agreement with the other raters, and how each drifts over time.

Every figure that can be undefined (too few judgments, no variation) is an ``Estimate``:
None with the reason in plain words, never a made-up number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge_app.agreement import coefficients as co

BLOCK = 50
"""Judgments per block of the drift by blocks."""


@dataclass(frozen=True)
class Speed:
    """How fast a rater judges, from the time of each judgment with idle time left out:
    ``timed`` judgments with a time, their ``median_seconds``, ``per_active_hour`` (judgments
    per hour of those times) and how many took less than the fastest credible judgment."""

    timed: int
    median_seconds: co.Estimate
    per_active_hour: co.Estimate
    too_fast: int
    too_fast_share: co.Estimate


def speed(duration_ms: np.ndarray, min_seconds: float) -> Speed:
    """Speed figures of judgments taking ``duration_ms`` (NaN: not timed, as imported ones)."""
    seconds = np.asarray(duration_ms, dtype=np.float64) / 1000
    seconds = seconds[~np.isnan(seconds)]
    if not len(seconds):
        none = co.Estimate.undefined("no judgment was timed (imported or merged grades are not)")
        return Speed(0, none, none, 0, none)
    total = float(seconds.sum())
    too_fast = int((seconds < min_seconds).sum())
    return Speed(
        timed=len(seconds),
        median_seconds=co.Estimate(float(np.median(seconds))),
        per_active_hour=(
            co.Estimate(len(seconds) * 3600 / total)
            if total > 0
            else co.Estimate.undefined("every timed judgment took no time")
        ),
        too_fast=too_fast,
        too_fast_share=co.Estimate(too_fast / len(seconds)),
    )


@dataclass(frozen=True)
class Consistency:
    """Grades set beside reference grades (a rater's first grades, or gold): how many
    ``pairs``, the share ``exact`` and ``within_one``, the mean absolute error, the ``bias``
    (mean of grade minus reference) and Cohen's kappa with quadratic weights."""

    pairs: int
    exact: co.Estimate
    within_one: co.Estimate
    mean_absolute_error: co.Estimate
    bias: co.Estimate
    kappa: co.Estimate


def consistency(grades: np.ndarray, reference: np.ndarray, what: str) -> Consistency:
    """How ``grades`` (whole numbers 0–5) match ``reference``, pair by pair; ``what`` names
    the pairs in a reason ("repeats", "gold items")."""
    grades = np.asarray(grades, dtype=np.int64)
    reference = np.asarray(reference, dtype=np.int64)
    if not len(grades):
        none = co.Estimate.undefined(f"no {what} graded yet")
        return Consistency(0, none, none, none, none, none)
    difference = grades - reference
    kappa = co.cohen_kappa(co.confusion_matrix(reference, grades), "quadratic")
    return Consistency(
        pairs=len(grades),
        exact=co.Estimate(float(np.mean(difference == 0))),
        within_one=co.Estimate(float(np.mean(np.abs(difference) <= 1))),
        mean_absolute_error=co.Estimate(float(np.mean(np.abs(difference)))),
        bias=co.Estimate(float(np.mean(difference))),
        kappa=kappa,
    )


def alpha_with_others(
    own: np.ndarray, others: np.ndarray, groups: np.ndarray, n_groups: int
) -> list[co.Estimate]:
    """Ordinal Krippendorff's alpha of one rater against the rest, per group of their units:
    unit i pairs the rater's grade ``own[i]`` (-1: left out) with the others' grades,
    ``others[i]`` (how many gave each grade, as shares summing to one; zeros: none did), so
    that every unit counts as one pair of values, as two coders' would; ``groups[i]`` in
    0…n_groups-1 says whose figure it joins. With one other rater on every unit, this is the
    two raters' alpha."""
    own = np.asarray(own, dtype=np.int64)
    keep = (own >= 0) & (others.sum(axis=1) > 0)
    size = len(co.GRADES)
    cell = groups[keep] * size + own[keep]  # (group, own grade); np.add.at is ten times slower
    weights = others[keep]
    pairs = np.stack(
        [np.bincount(cell, weights[:, grade], n_groups * size) for grade in range(size)], axis=1
    ).reshape(n_groups, size, size)
    return co.alphas_of_coincidences(pairs + pairs.transpose(0, 2, 1), "ordinal")


def blocks(order: np.ndarray, size: int = BLOCK) -> list[np.ndarray]:
    """``order`` (indices in time order) cut into consecutive blocks of ``size``; a last
    block shorter than half a block joins the one before (it would say little alone)."""
    cuts = [order[start : start + size] for start in range(0, len(order), size)]
    if len(cuts) > 1 and len(cuts[-1]) < size / 2:
        cuts[-2:] = [np.concatenate(cuts[-2:])]
    return cuts
