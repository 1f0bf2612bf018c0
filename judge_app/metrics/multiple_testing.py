"""Many runs compared at once: p-values adjusted over a family of comparisons (Holm,
Benjamini–Hochberg), the randomized Tukey HSD test of every pair of runs (Carterette, "Multiple
testing in statistical analysis of systems-based information retrieval experiments", ACM
TOIS 30(1), 2012) and the groups of runs it cannot tell apart, as letters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count, product
from string import ascii_lowercase

import numpy as np

from judge_app.metrics.comparison import sign_flips

_CHUNK_CELLS = 1 << 20
"""Permuted scores held in memory at once."""

_Method = Callable[[np.ndarray], np.ndarray]
"""An adjustment of p-values sorted in ascending order (before capping at 1)."""

_TIE_TOLERANCE = 1e-9
"""Permuted ranges within this fraction of the largest |score| below an observed difference
count as reaching it (the same means summed in another order differ in the last bits)."""


def holm(p_values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of ``p_values`` (family-wise error): the i-th smallest
    becomes max over j ≤ i of (m − j + 1)·p₍ⱼ₎, at most 1; statsmodels' ``multipletests(…,
    "holm")``. NaN values (comparisons that could not be tested) stay NaN and are not
    counted in m."""
    return _adjusted(p_values, _holm)


def benjamini_hochberg(p_values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Benjamini and Hochberg's step-up adjustment of ``p_values`` (false discovery rate):
    the i-th smallest becomes min over j ≥ i of m·p₍ⱼ₎ / j, at most 1; statsmodels'
    ``multipletests(…, "fdr_bh")``. NaN values stay NaN and are not counted in m."""
    return _adjusted(p_values, _benjamini_hochberg)


def _adjusted(p_values: np.ndarray | Sequence[float], method: _Method) -> np.ndarray:
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"expected a 1-D sequence of p-values, got shape {p.shape}")
    tested = ~np.isnan(p)
    if np.any((p[tested] < 0) | (p[tested] > 1)):
        raise ValueError("p-values must lie between 0 and 1")
    adjusted = np.full(p.shape, np.nan)
    if tested.any():
        finite = p[tested]
        order = np.argsort(finite, kind="stable")
        result = np.empty(finite.size)
        result[order] = np.minimum(1.0, method(finite[order]))
        adjusted[tested] = result
    return adjusted


def _holm(ordered: np.ndarray) -> np.ndarray:
    m = ordered.size
    return np.maximum.accumulate(ordered * np.arange(m, 0, -1))


def _benjamini_hochberg(ordered: np.ndarray) -> np.ndarray:
    m = ordered.size
    scaled = ordered * (m / np.arange(1, m + 1))
    return np.minimum.accumulate(scaled[::-1])[::-1]


@dataclass(frozen=True)
class TukeyHSD:
    """The randomized Tukey HSD test of ``runs`` over the ``n`` queries every run scored:
    ``p[i, j]`` the share of the ``permutations`` (the observed arrangement counted among
    them) whose range of run means reaches |mean i − mean j|; two runs differ at ``alpha``
    when ``p < alpha``, exactly when |mean i − mean j| exceeds ``critical``, so the
    simultaneous interval ``difference ± critical`` excludes 0 exactly then."""

    runs: list[str]
    means: np.ndarray
    p: np.ndarray
    critical: float
    n: int
    permutations: int
    seed: int
    alpha: float

    def p_value(self, a: str, b: str) -> float:
        return float(self.p[self.runs.index(a), self.runs.index(b)])

    def interval(self, a: str, b: str) -> tuple[float, float, float]:
        """``(difference, low, high)``: mean of ``b`` − mean of ``a`` ± ``critical``."""
        difference = float(self.means[self.runs.index(b)] - self.means[self.runs.index(a)])
        return difference, difference - self.critical, difference + self.critical

    def groups(self) -> list[tuple[str, list[str]]]:
        """The groups of runs this test cannot tell apart (see :func:`letter_groups`), each
        named by a letter: ``a`` the group of the best run, each best run first."""
        groups = letter_groups(self.runs, self.means, self.p < self.alpha)
        return list(zip(_letter_names(), groups))

    def letters(self) -> dict[str, str]:
        """Each run's letters: two runs share a letter exactly when the test does not tell
        them apart (a compact letter display)."""
        letters = {run: "" for run in self.runs}
        for letter, group in self.groups():
            for run in group:
                letters[run] += letter
        return letters


def randomized_tukey_hsd(
    runs: Sequence[str],
    scores: np.ndarray,
    *,
    permutations: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    flipped: np.ndarray | None = None,
) -> TukeyHSD:
    """The randomized Tukey HSD test of ``scores`` (a row per query, a column per run, every
    value finite): each permutation shuffles every query's scores across the runs
    (``Generator.permuted`` of ``default_rng(seed)``) and records the largest run mean minus
    the smallest; the p-value of a pair is ``(1 + #{ranges ≥ |difference|}) / (1 +
    permutations)``: the observed arrangement is one of the permutations, so p is never 0
    and p ≤ α has probability at most α when no run differs. Fewer than two queries: NaN.

    Two runs: a shuffle of a query's two scores flips the sign of their difference, and the
    range is |the flipped sum| / n: the shuffles are the paired randomization test's sign
    flips of this seed (:func:`~judge_app.metrics.comparison.sign_flips` of the second run
    minus the first), so the two tests are one and give one p-value; ``flipped``: those
    flipped sums, when the randomization test has drawn them."""
    x = np.asarray(scores, dtype=np.float64)
    names = list(runs)
    if x.ndim != 2 or x.shape[1] != len(names) or len(names) < 2:
        raise ValueError(f"expected a query × run matrix of two or more runs, got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite (no NaN or infinity)")
    if permutations < 1:
        raise ValueError(f"permutations must be at least 1, not {permutations}")
    n, k = x.shape
    means = np.mean(x, axis=0) if n else np.full(k, np.nan)
    if n < 2:
        nan = np.full((k, k), np.nan)
        return TukeyHSD(names, means, nan, math.nan, n, permutations, seed, alpha)
    tolerance = _TIE_TOLERANCE * float(np.max(np.abs(x)))
    if k == 2:
        ranges = _flipped_ranges(x, permutations, seed, flipped)
    else:
        ranges = _permuted_ranges(x, permutations, seed)
    reached = np.sort(ranges + tolerance)  # ascending
    differences = np.abs(means[:, None] - means[None, :])
    beyond = reached.size - np.searchsorted(reached, differences, side="left")
    p = (1 + beyond) / (1 + permutations)
    allowed = int(np.count_nonzero((1 + np.arange(permutations + 1)) / (1 + permutations) < alpha))
    # significant ⇔ at most allowed − 1 ranges reach |difference| ⇔ |difference| > the
    # allowed-th largest range: the critical difference (none: never significant)
    critical = float(reached[reached.size - allowed]) if allowed else math.inf
    return TukeyHSD(names, means, p, critical, n, permutations, seed, alpha)


def _flipped_ranges(
    x: np.ndarray, permutations: int, seed: int, flipped: np.ndarray | None
) -> np.ndarray:
    """Two runs' ranges from the sign flips of their differences (drawn here when not
    given): |flipped sum| / n."""
    if flipped is None:
        flipped = sign_flips((x[:, 1] - x[:, 0])[:, None], permutations, seed)[0]
    return np.abs(np.reshape(flipped, permutations)) / x.shape[0]


def _permuted_ranges(x: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """For each permutation, the range (max − min) of the run means after every query's
    scores are shuffled across the runs. A query every run scores alike adds the same to
    every mean whatever the shuffle: only the others are shuffled."""
    n, k = x.shape
    varying = np.ascontiguousarray(x[np.ptp(x, axis=1) > 0].T)  # run × query
    width = varying.shape[1]
    if width == 0:
        return np.zeros(permutations)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_CELLS // (width * k))
    ranges = np.empty(permutations)
    for start in range(0, permutations, per_chunk):
        rows = min(per_chunk, permutations - start)
        shuffled = rng.permuted(np.tile(varying, rows), axis=0)
        sums = shuffled.reshape(k, rows, width).sum(axis=2)
        ranges[start : start + rows] = (sums.max(axis=0) - sums.min(axis=0)) / n
    return ranges


def letter_groups(runs: Sequence[str], means: np.ndarray, different: np.ndarray) -> list[list[str]]:
    """Groups of ``runs`` within which no two are ``different`` (a symmetric boolean
    matrix), covering every pair that is not: Piepho's insert-and-absorb ("An algorithm for
    a letter-based representation of all-pairwise comparisons", J. Comput. Graph. Stat.
    13(2), 2004). Runs in a group by descending mean; groups by their best run's mean."""
    names = list(runs)
    k = len(names)
    groups: list[frozenset[int]] = [frozenset(range(k))]
    for i in range(k):
        for j in range(i + 1, k):
            if not different[i, j]:
                continue
            split: list[frozenset[int]] = []
            for group in groups:
                if i in group and j in group:
                    split += [group - {i}, group - {j}]
                else:
                    split.append(group)
            groups = [
                group
                for index, group in enumerate(split)
                if not any(
                    group < other or (group == other and index > at)
                    for at, other in enumerate(split)
                )
            ]
    rank = {run: place for place, run in enumerate(np.argsort(-means, kind="stable"))}
    ordered = [sorted(group, key=rank.__getitem__) for group in groups]
    ordered.sort(key=lambda group: [rank[run] for run in group])
    return [[names[run] for run in group] for group in ordered]


def _letter_names() -> Iterator[str]:
    """a … z, then aa, ab, … without end."""
    for length in count(1):
        for letters in product(ascii_lowercase, repeat=length):
            yield "".join(letters)
