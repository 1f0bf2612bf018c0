"""Compatibility: how close a run's ranking is to the ideal ranking of a query.

Clarke, Vtyurina and Smucker, "Assessing top-k preferences", ACM TOIS 39(3), article 33, 2021
(doi:10.1145/3451161), after Clarke, Smucker and Vtyurina, CIKM 2020. As their reference code
(github.com/claclark/Compatibility, ``compatibility.py``) computes it:

- the ideal ranking holds the relevant documents, best first; documents tied in it are put in
  the run's order (those the run lacks after them): ties are resolved in the run's favour;
- RBO(R, I) = Σ_{d=1..D} p^{d−1} · |R_{1..d} ∩ I_{1..d}| / d, divided by Σ_{d=1..D} p^{d−1}
  (rank-biased overlap, Webber, Moffat and Zobel, TOIS 2010, truncated at depth D);
- compatibility = RBO(R, I) / RBO(I, I), normalised by the ideal's own best (the TOIS paper's
  normalisation for short ideal rankings); 0 when the ideal ranking is empty;
- persistence p = 0.95 (their default, "roughly NSCG@20") and D = 1000.

``depth=None`` truncates at max(|R|, |I|) instead, as ir_measures' ``Compat`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PERSISTENCE = 0.95
DEPTH = 1000


def ideal_order(groups: Sequence[Sequence[str]], run: Sequence[str]) -> list[str]:
    """The ideal ranking ``groups`` (tied documents, best first) as one list, each group in
    the order of ``run``, documents the run lacks after the others (in the group's order)."""
    rank = {doc: place for place, doc in enumerate(run)}
    absent = len(run)
    ordered: list[str] = []
    for group in groups:
        ordered.extend(sorted(group, key=lambda doc: rank.get(doc, absent)))
    return ordered


def rbo(
    run: Sequence[str], ideal: Sequence[str], p: float = PERSISTENCE, depth: int | None = DEPTH
) -> float:
    """Rank-biased overlap of two rankings truncated at ``depth`` (None: the longer's length),
    its weights summing to 1."""
    depth = max(len(run), len(ideal)) if depth is None else depth
    if depth < 1:
        return 0.0
    place = {doc: d for d, doc in enumerate(run[:depth], start=1)}
    # a document in both lists counts in the overlap from the depth both have reached it
    joins = [max(a, place[doc]) for a, doc in enumerate(ideal[:depth], start=1) if doc in place]
    overlap = np.cumsum(np.bincount(np.asarray(joins, dtype=np.int64), minlength=depth + 1))[1:]
    d = np.arange(1, depth + 1)
    weights = p ** (d - 1.0)
    return float((weights * overlap / d).sum() / weights.sum())


def compatibility(
    run: Sequence[str],
    groups: Sequence[Sequence[str]],
    p: float = PERSISTENCE,
    depth: int | None = DEPTH,
    normalize: bool = True,
) -> float:
    """The compatibility of the ranked ``run`` with the ideal ranking ``groups`` (tied documents
    best first), ties resolved in the run's favour; 0 for an empty ideal ranking."""
    if not 0 < p < 1:
        raise ValueError(f"persistence must be between 0 and 1, not {p}")
    ideal = ideal_order(groups, run)
    if not ideal:
        return 0.0
    if depth is None:
        depth = max(len(run), len(ideal))
    score = rbo(run, ideal, p, depth)
    return score / rbo(ideal, ideal, p, depth) if normalize else score
