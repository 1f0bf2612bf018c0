"""Stability of the system ranking across raters: order the runs by mean NDCG@k once with each
rater's judgments, and measure with Kendall's tau how much those orders agree (does the choice
of rater change which system wins?).

The means are each rater's own NDCG of every run (``metrics.raters.rater_means``, as ``eval --db``'s
per-rater means); the rest chooses the raters, orders the runs and compares the orders.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RankTau:
    """Kendall's tau-b between two raters' orders of the runs, or None with the reason."""

    rater_a: str
    rater_b: str
    tau: float | None
    reason: str | None = None


@dataclass
class RankingStability:
    """Each compared rater's order of the runs (best first, with the mean of ``measure``) and
    Kendall's tau between every two of those orders."""

    measure: str
    n_queries: int
    orders: dict[str, list[tuple[str, float | None]]]
    taus: list[RankTau]
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def raters(self) -> list[str]:
        return list(self.orders)


def raters_judging_all(
    queries_judged: dict[str, int], n_queries: int, raters: list[str]
) -> tuple[list[str], dict[str, str]]:
    """The raters (of ``raters``, in that order) who judged all ``n_queries`` queries
    (``queries_judged``: how many of them each rater judged), and for each of the others why
    they are left out."""
    complete, left_out = [], {}
    for rater in raters:
        count = queries_judged.get(rater, 0)
        if count == n_queries:
            complete.append(rater)
        else:
            left_out[rater] = f"judged {count} of the {n_queries} queries"
    return complete, left_out


def ranking_stability(
    means: pd.DataFrame,
    measure: str,
    n_queries: int,
    left_out: dict[str, str] | None = None,
    raters: list[str] | None = None,
) -> RankingStability:
    """From ``means`` (``rater, run, <measure>``: each rater's mean of each run), each rater's
    order of the runs and Kendall's tau-b between every two raters' means of the runs; raters
    in the order of ``raters`` (default: as they come in ``means``)."""
    table = means.pivot(index="run", columns="rater", values=measure)
    present = set(means["rater"])
    raters = [r for r in raters or dict.fromkeys(means["rater"]) if r in present]
    orders = {}
    for rater in raters:
        column = table[rater].sort_index()
        ordered = column.sort_values(ascending=False, kind="stable", na_position="last")
        orders[rater] = [
            (str(run), None if np.isnan(value) else float(value)) for run, value in ordered.items()
        ]
    taus = []
    for rater_a, rater_b in combinations(raters, 2):
        pair = table[[rater_a, rater_b]].dropna()
        if len(pair) < 2:
            reason = "fewer than two runs have a mean with both raters' judgments"
            taus.append(RankTau(rater_a, rater_b, None, reason))
            continue
        constant = [rater for rater in (rater_a, rater_b) if pair[rater].nunique() == 1]
        if constant:
            reason = f"every run has the same mean {measure} with {constant[0]}'s judgments"
            taus.append(RankTau(rater_a, rater_b, None, reason))
            continue
        tau = kendall_tau_b(pair[rater_a].to_numpy(), pair[rater_b].to_numpy())
        taus.append(RankTau(rater_a, rater_b, tau))
    return RankingStability(measure, n_queries, orders, taus, dict(left_out or {}))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two equally long sequences, as ``scipy.stats.kendalltau`` computes
    it (the same counts, combined in the same order), by comparing every pair: the runs a
    campaign ranks are few. NaN when either sequence is constant."""
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    upper = np.triu_indices(len(x), k=1)
    dx, dy = dx[upper], dy[upper]
    total = len(dx)
    x_ties, y_ties = int(np.count_nonzero(dx == 0)), int(np.count_nonzero(dy == 0))
    if x_ties == total or y_ties == total:
        return math.nan
    both_ties = int(np.count_nonzero((dx == 0) & (dy == 0)))
    discordant = int(np.count_nonzero(dx * dy < 0))
    difference = total - x_ties - y_ties + both_ties - 2 * discordant
    tau = difference / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
    return float(np.minimum(1.0, max(-1.0, tau)))
