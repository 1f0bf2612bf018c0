"""Which pairs of results a rater compares for a query, without a database: a plan that needs
far fewer than all pairs.

Scheme. Compatibility (``metrics.compatibility``) scores a run against the ideal order of the
*relevant* documents, weighted towards the top, so preferences are worth most among the best
documents and worthless among the irrelevant ones. The plan therefore works on a query's
``top`` candidates only (``candidates``: by their mean human grade where graded, documents every
grader called 0 left out; the rest by their reciprocal-rank fusion over the pooled runs),
and spends at most ``budget`` choices of each rater on them:

1. **Seed pairs**: each candidate against the next in that order (``top − 1`` pairs), the same
   for every rater of the query, so that each pair is chosen on by every rater assigned the
   query (the overlap agreement is measured on) and the comparison graph is connected from
   the first pairs on.
2. **Adaptive pairs**: then, one at a time, the pair whose order is most uncertain under the
   Bradley–Terry fit of every rater's choices so far (``metrics.preferences``: the Laplace
   probability ``P`` that one document ranks above the other; uncertainty ``min(P, 1 − P)``),
   weighted by ``WEIGHT ** place`` (the higher document's place in the current order, as
   compatibility weights depth), among the pairs this rater has not chosen on and whose two
   documents are not called not relevant. The plan stops early once every such pair is
   settled (uncertainty below ``SETTLED``).

Cost per query: at most ``budget`` choices of each rater (default 10 of the 15 pairs of six
candidates, against 45 for all pairs of a pool of ten, or 190 of twenty), and a Bradley–Terry
fit of ``top`` documents per choice (a Newton solve of a ``top``×``top`` system: well under a
millisecond).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from itertools import combinations

from judge_app.metrics.preferences import comparisons, ideal_ranking

SETTLED = 0.1
"""A pair whose order is more certain than 1 − SETTLED is not worth a rater's time."""
WEIGHT = 0.9
"""How much less an uncertain pair one place lower is worth (a top-weighted plan)."""

DocPair = tuple[int, int]
"""Two documents' ids in canonical order (the smaller first, as the store keeps a pair)."""
Choice = tuple[int, int, str]
"""(document a, document b, choice) of one preference, ``choice`` relative to a and b."""


def candidates(
    grades: Mapping[int, Sequence[int]], fused: Mapping[int, float], top: int
) -> list[int]:
    """The ``top`` documents worth comparing, best first: by mean human grade (``grades``: each
    document's grades by every rater; a document all of whose grades are 0 is left out), then
    ungraded ones by ``fused`` (their reciprocal-rank fusion over the runs), then by id."""
    documents = set(fused) | set(grades)

    def key(doc: int) -> tuple[int, float, float, int]:
        given = grades.get(doc) or ()
        mean = sum(given) / len(given) if given else 0.0
        return (0 if given else 1, -mean, -fused.get(doc, 0.0), doc)

    kept = [doc for doc in documents if not (grades.get(doc) and not any(grades[doc]))]
    return sorted(kept, key=key)[:top]


def pair_of(first: int, second: int) -> DocPair:
    """The pair of two documents in canonical order."""
    return (first, second) if first < second else (second, first)


def seed_pairs(ranked: Sequence[int], shuffle: random.Random | None = None) -> list[DocPair]:
    """Each candidate against the next; in that order (best first), or in ``shuffle``'s, so
    that the order a rater meets them in says nothing of the candidates' order."""
    pairs = [pair_of(ranked[k], ranked[k + 1]) for k in range(len(ranked) - 1)]
    if shuffle is not None:
        shuffle.shuffle(pairs)
    return pairs


def next_pair(
    seeds: Sequence[DocPair],
    ranked: Sequence[int],
    everyone: Sequence[Choice],
    mine: set[DocPair],
    budget: int,
) -> DocPair | None:
    """The next pair for a rater who has chosen on ``mine`` of the query, given its ``seeds``
    and candidates ``ranked`` and ``everyone``'s choices (theirs too): the first seed pair they
    lack, else the adaptive pair; None once ``budget`` pairs are chosen on or nothing is worth
    asking."""
    if len(mine) >= budget:
        return None
    for pair in seeds:
        if pair not in mine:
            return pair
    return adaptive_pair(ranked, everyone, mine)


def adaptive_pair(
    ranked: Sequence[int], everyone: Sequence[Choice], mine: set[DocPair]
) -> DocPair | None:
    """The pair of ``ranked`` most worth a rater's choice (see the module's scheme), or None."""
    counted = [c for c in everyone if c[0] in ranked and c[1] in ranked]
    # the fit names documents by text; ids as text keep them apart all the same
    data = comparisons([str(c[0]) for c in counted], [str(c[1]) for c in counted],
                       [c[2] for c in counted])  # fmt: skip
    ideal = ideal_ranking(data) if data.docs else None
    index = {int(doc): place for place, doc in enumerate(data.docs)}
    order = {int(doc): place for place, doc in enumerate(ideal.documents if ideal else ())}
    left_out = {int(doc) for doc in (ideal.not_relevant if ideal else ())}
    best: tuple[float, DocPair] | None = None
    for first, second in combinations(sorted(ranked), 2):
        pair = (first, second)
        if pair in mine or first in left_out or second in left_out:
            continue
        if ideal is not None and first in index and second in index:
            above = ideal.strengths.above(index[first], index[second])
            uncertainty = min(above, 1.0 - above)
        else:
            uncertainty = 0.5  # a document nobody compared yet: nothing is known
        place = min(order.get(first, len(order)), order.get(second, len(order)))
        worth = uncertainty * WEIGHT**place
        if uncertainty >= SETTLED and (best is None or worth > best[0]):
            best = (worth, pair)
    return None if best is None else best[1]


def seeded(*parts: object) -> random.Random:
    """A random generator fixed by ``parts`` (a seed, a rater, a query, …): the same every
    time, so that a pair comes back shown as it was."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def left_first(seed: int, rater_id: int, query_id: int, pair: DocPair) -> bool:
    """Whether the pair's first document is shown on the left: a coin fixed per rater, query
    and pair, so that the side says nothing of the plan's order."""
    return seeded(seed, rater_id, query_id, *pair).random() < 0.5
