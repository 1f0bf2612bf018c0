"""The whole agreement picture of a set of judgments: overall coefficients, every pair of
raters, every rater, every query with its adjudication list, and (given) ranking stability.

Units are (query, document) pairs, values are grades 0–5, a rater may leave a unit out and
skipped judgments are left out. A statistic that is undefined for the data (one rater, no
common units, a single grade used) is None, and ``reasons`` says why in plain words.

Choices, documented here and in the command's help:
- percent agreement: over units with two or more grades, each unit's share of agreeing pairs
  of grades, averaged (Gwet's p_a); within one: pairs at most one grade apart.
- per rater, ``alpha_contribution`` (leave-one-out): ordinal alpha of all chosen raters minus
  ordinal alpha of the others without this rater, on the same units. Above 0 the rater raises
  the group's agreement; below 0 the others agree better without them.
- per query, the adjudication list: the documents whose grades differ by two or more, each
  with the lead's decision once there is one; ``adjudications`` tells those a lead decided
  from those that await adjudication.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from judge_app.agreement import coefficients as co
from judge_app.agreement.stability import RankingStability
from judge_app.metrics.codes import Graded

if TYPE_CHECKING:
    import pandas as pd

LEVELS = co.LEVELS
ADJUDICATION_SPREAD = 2


def unique_inverse(values: np.ndarray, bound: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of a 1-D array of whole numbers, faster:
    counted where they lie below a ``bound`` no larger than their number, else sorted
    stably, which merges sorted runs (judgments come by rater, then unit) instead of sorting
    every value afresh (a seventh of the time for a million judgments)."""
    if bound is not None and bound <= len(values):
        present = np.bincount(values, minlength=bound) > 0
        return np.flatnonzero(present), (np.cumsum(present) - 1)[values]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.ones(len(values), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(values), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


@dataclass(frozen=True)
class Ratings:
    """Grades of units by raters: ``grades[unit, rater]``, -1 where the rater left the unit
    out. Units are in order of query id, then document id; ``unit_query`` indexes ``queries``
    (the units' query ids, in order)."""

    queries: np.ndarray
    unit_query: np.ndarray
    doc_ids: np.ndarray
    raters: tuple[str, ...]
    grades: np.ndarray

    @classmethod
    def from_frame(cls, judgments: pd.DataFrame, raters: list[str] | None = None) -> Ratings:
        """From judgments (``query_id, doc_id, rater, grade[, skipped]``): skipped judgments
        and those without a grade are left out; ``raters`` (default: every rater, sorted)
        chooses and orders the raters. ValueError for a grade outside 0–5 or a rater who
        graded one unit twice."""
        return cls.from_graded(Graded.from_frame(judgments), raters)

    @classmethod
    def from_graded(cls, graded: Graded, raters: list[str] | None = None) -> Ratings:
        """From coded judgments, as :meth:`from_frame`."""
        if raters is None:
            raters = graded.rater_names()
        chosen = np.full(len(graded.raters) + 1, -1, dtype=np.int64)
        places = {str(name): code for code, name in enumerate(graded.raters)}
        for index, rater in enumerate(raters):
            chosen[places.get(rater, -1)] = index
        rater_codes = chosen[graded.rater]
        kept = rater_codes >= 0
        if not kept.all():
            graded, rater_codes = graded.where(kept), rater_codes[kept]
        grades = graded.grade
        if np.any((grades != np.round(grades)) | (grades < 0) | (grades > co.GRADES[-1])):
            raise ValueError("grades must be whole numbers from 0 to 5")
        width = max(len(graded.docs), 1)
        unit_keys, units = unique_inverse(graded.query * width + graded.doc)
        n_units, n_raters = len(unit_keys), len(raters)
        if len(units) and np.bincount(units * n_raters + rater_codes).max() > 1:
            raise ValueError("a rater graded the same (query, document) more than once")
        matrix = np.full((n_units, n_raters), -1, dtype=np.int8)
        matrix[units, rater_codes] = grades.astype(np.int8)
        used, unit_query = unique_inverse(unit_keys // width)
        return cls(
            queries=graded.queries[used],
            unit_query=unit_query,
            doc_ids=graded.docs[unit_keys % width],
            raters=tuple(raters),
            grades=matrix,
        )

    @property
    def n_units(self) -> int:
        return len(self.grades)

    @cached_property
    def counts(self) -> np.ndarray:
        """``counts[unit, grade]``: how many raters gave the unit that grade."""
        return co.grade_counts(self.grades)

    @cached_property
    def shares(self) -> np.ndarray:
        """Each unit's share of pairs of grades that agree (NaN: fewer than two grades)."""
        return co.unit_agreement(self.counts)


@dataclass
class PairAgreement:
    """Two raters on their common units."""

    rater_a: str
    rater_b: str
    n_units: int
    percent_agreement: float | None
    cohen_kappa: float | None
    cohen_kappa_linear: float | None
    cohen_kappa_quadratic: float | None
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass
class RaterAgreement:
    """One rater: how much, how high, and how their grades move the group's ordinal alpha."""

    rater: str
    n_units: int
    mean_grade: float | None
    grades: tuple[int, ...]
    alpha_without_rater: float | None
    alpha_contribution: float | None
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass
class Disagreement:
    """A document of a query whose grades differ by ``spread`` (two or more: to adjudicate);
    ``decided`` is the lead's adjudicated grade once there is one."""

    doc_id: str
    grades: dict[str, int]
    spread: int
    decided: int | None = None


@dataclass
class QueryAgreement:
    """One query's documents: agreement on them and those graded two or more apart
    (``adjudicate``, whether a lead decided them or not: see :func:`adjudications`)."""

    query_id: str
    n_units: int
    n_raters: int
    percent_agreement: float | None
    krippendorff_alpha_ordinal: float | None
    adjudicate: list[Disagreement]
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Adjudications:
    """The documents graded two or more apart, as (query id, disagreement), split in two:
    those a lead ``decided`` (an adjudicated grade) and those ``awaiting`` adjudication. The
    one count of what is decided that the agreement outputs, the report and the window show."""

    decided: tuple[tuple[str, Disagreement], ...]
    awaiting: tuple[tuple[str, Disagreement], ...]

    @property
    def disputed(self) -> int:
        """How many documents are graded two or more apart, decided or not."""
        return len(self.decided) + len(self.awaiting)


def adjudications(queries: Iterable[QueryAgreement]) -> Adjudications:
    """The documents to adjudicate of ``queries`` (in their order), split into those a lead
    decided and those still awaiting adjudication."""
    items = [(query.query_id, item) for query in queries for item in query.adjudicate]
    return Adjudications(
        decided=tuple(pair for pair in items if pair[1].decided is not None),
        awaiting=tuple(pair for pair in items if pair[1].decided is None),
    )


@dataclass
class AgreementReport:
    """Every statistic of ``judge-app agreement``; ``reasons`` names each None at the top
    level (nested keys dotted: ``krippendorff_alpha.ordinal``)."""

    raters: list[str]
    n_units: int
    n_multi_rated: int
    percent_agreement: float | None
    within_one_agreement: float | None
    krippendorff_alpha: dict[str, float | None]
    krippendorff_alpha_ci: dict[str, tuple[float, float] | None]
    resamples: int
    fleiss_kappa: float | None
    fleiss_units: int
    gwet_ac1: float | None
    gwet_ac2: dict[str, float | None]
    pairwise: list[PairAgreement]
    """The pairs of raters who share a unit (never a pair who share none: with thousands of
    raters they would be millions)."""
    pairs_apart: int
    """How many pairs of raters share no unit (not in ``pairwise``)."""
    per_rater: list[RaterAgreement]
    per_query: list[QueryAgreement]
    ranking_stability: RankingStability | None
    reasons: dict[str, str]

    @property
    def n_raters(self) -> int:
        return len(self.raters)


def _take(estimate: co.Estimate, key: str, reasons: dict[str, str]) -> float | None:
    """The estimate's value; its reason goes to ``reasons[key]`` when it has none."""
    if estimate.value is None:
        reasons[key] = estimate.reason or "undefined"
    return estimate.value


def build_report(
    ratings: Ratings,
    resamples: int = 1000,
    seed: int = 0,
    ranking: RankingStability | None = None,
    ranking_reason: str = "no runs were given",
) -> AgreementReport:
    """Compute everything for ``ratings``; ``resamples`` bootstrap resamples (0: none) of the
    ordinal alpha, seeded. ``ranking`` is attached as it is (None: ``ranking_reason``)."""
    counts = ratings.counts
    reasons: dict[str, str] = {}
    few = _too_few_raters(ratings.raters)

    def overall(key: str, compute: Callable[[], co.Estimate]) -> float | None:
        return _take(co.Estimate.undefined(few) if few else compute(), key, reasons)

    matrix = co.coincidences(counts)
    alpha = {
        level: overall(
            f"krippendorff_alpha.{level}", lambda: co.alpha_of_coincidences(matrix, level)
        )
        for level in LEVELS
    }
    if few:
        interval = co.Interval(None, few)
    elif alpha["ordinal"] is None:
        why = reasons["krippendorff_alpha.ordinal"]
        interval = co.Interval(None, f"ordinal alpha is undefined: {why}")
    else:
        interval = co.alpha_interval(counts, "ordinal", resamples=resamples, seed=seed)
    if interval.bounds is None:
        reasons["krippendorff_alpha_ci.ordinal"] = interval.reason or "undefined"
    fleiss, fleiss_units = _fleiss(counts, len(ratings.raters))
    exact = co.mean_agreement(ratings.shares)
    pairwise, apart = _pairs(ratings)
    report = AgreementReport(
        raters=list(ratings.raters),
        n_units=ratings.n_units,
        n_multi_rated=int((counts.sum(axis=1) >= 2).sum()),
        percent_agreement=overall("percent_agreement", lambda: exact),
        within_one_agreement=overall(
            "within_one_agreement",
            lambda: co.percent_agreement(counts, co.agreement_weights(co.GRADES, "within_one")),
        ),
        krippendorff_alpha=alpha,
        krippendorff_alpha_ci={"ordinal": interval.bounds},
        resamples=resamples,
        fleiss_kappa=overall("fleiss_kappa", lambda: fleiss),
        fleiss_units=fleiss_units,
        gwet_ac1=overall(
            "gwet_ac1",
            lambda: co.gwet_ac(counts, co.agreement_weights(co.GRADES, "identity"), exact),
        ),
        gwet_ac2={
            kind: overall(
                f"gwet_ac2.{kind}",
                lambda: co.gwet_ac(counts, co.agreement_weights(co.GRADES, kind)),
            )
            for kind in ("linear", "quadratic")
        },
        pairwise=pairwise,
        pairs_apart=apart,
        per_rater=_raters(ratings, alpha["ordinal"], reasons.get("krippendorff_alpha.ordinal")),
        per_query=_queries(ratings, few),
        ranking_stability=ranking,
        reasons=reasons,
    )
    if ranking is None:
        reasons["ranking_stability"] = ranking_reason
    return report


def per_query(ratings: Ratings) -> list[QueryAgreement]:
    """Each query's agreement and documents to adjudicate: the report's ``per_query`` alone."""
    return _queries(ratings, _too_few_raters(ratings.raters))


def per_rater(ratings: Ratings) -> list[RaterAgreement]:
    """Each rater's grades and contribution to the ordinal alpha: the report's ``per_rater``
    alone (``raters`` needs no pair of raters)."""
    few = _too_few_raters(ratings.raters)
    alpha = (
        co.Estimate.undefined(few)
        if few
        else co.alpha_of_coincidences(co.coincidences(ratings.counts), "ordinal")
    )
    return _raters(ratings, alpha.value, alpha.reason)


def _too_few_raters(raters: tuple[str, ...]) -> str | None:
    if len(raters) >= 2:
        return None
    if not raters:
        return "there are no judgments"
    return f"agreement needs two or more raters; there is only {raters[0]}"


def _fleiss(counts: np.ndarray, n_raters: int) -> tuple[co.Estimate, int]:
    """Fleiss' kappa over the units graded by every chosen rater, and how many those are."""
    if n_raters < 2:
        return co.Estimate.undefined("it needs two or more raters"), 0
    complete = counts[counts.sum(axis=1) == n_raters]
    if len(complete) == 0:
        everyone = "both raters" if n_raters == 2 else f"all {n_raters:,} raters"
        return co.Estimate.undefined(f"no unit was graded by {everyone}"), 0
    return co.fleiss_kappa(complete), len(complete)


def _pairs(ratings: Ratings) -> tuple[list[PairAgreement], int]:
    """The agreement of every pair of raters who share a unit, and how many pairs share
    none. The pairs come from each unit's raters (never by trying every pair of raters), and
    their figures from sums over all pairs at once (``co.cohen_kappas``): 10,000 raters
    sharing a million pairs took 62 s one pair at a time."""
    unit, rater = np.nonzero(ratings.grades >= 0)  # by unit, then rater
    grade = ratings.grades[unit, rater].astype(np.int64)
    first, second = [], []
    for step in range(1, int(np.bincount(unit).max(initial=0))):
        same = unit[step:] == unit[:-step]
        first.append(np.flatnonzero(same))
        second.append(first[-1] + step)
    a = np.concatenate(first or [np.zeros(0, np.int64)])
    b = np.concatenate(second or [np.zeros(0, np.int64)])
    n_raters = len(ratings.raters)
    keys, pair = unique_inverse(rater[a] * n_raters + rater[b], n_raters * n_raters)
    figures = co.cohen_kappas(pair, grade[a], grade[b], len(keys))
    pairs = []
    for index, key in enumerate(keys.tolist()):
        reasons: dict[str, str] = {}
        kappas = {
            weighting: _take(
                figures.kappas[weighting][index],
                "cohen_kappa" + ("" if weighting == "none" else f"_{weighting}"),
                reasons,
            )
            for weighting in co.WEIGHTINGS
        }
        pairs.append(
            PairAgreement(
                rater_a=ratings.raters[key // n_raters],
                rater_b=ratings.raters[key % n_raters],
                n_units=int(figures.units[index]),
                percent_agreement=float(figures.agreement[index]),
                cohen_kappa=kappas["none"],
                cohen_kappa_linear=kappas["linear"],
                cohen_kappa_quadratic=kappas["quadratic"],
                reasons=reasons,
            )
        )
    return pairs, n_raters * (n_raters - 1) // 2 - len(pairs)


def _raters(
    ratings: Ratings, alpha_all: float | None, alpha_reason: str | None
) -> list[RaterAgreement]:
    counts = ratings.counts
    rows = []
    for index, rater in enumerate(ratings.raters):
        column = ratings.grades[:, [index]]
        given = column[column >= 0]
        histogram = np.bincount(given, minlength=len(co.GRADES))
        reasons: dict[str, str] = {}
        mean = (
            co.Estimate(float(given.mean()))
            if len(given)
            else co.Estimate.undefined(f"{rater} graded no unit")
        )
        if len(ratings.raters) < 2:
            without = co.Estimate.undefined("there are no other raters")
        else:
            without = co.krippendorff_alpha(counts - co.grade_counts(column), "ordinal")
        alpha_without = _take(without, "alpha_without_rater", reasons)
        if alpha_all is None:
            contribution = co.Estimate.undefined(f"ordinal alpha is undefined: {alpha_reason}")
        elif alpha_without is None:
            contribution = co.Estimate.undefined(f"ordinal alpha without {rater} is undefined")
        else:
            contribution = co.Estimate(alpha_all - alpha_without)
        rows.append(
            RaterAgreement(
                rater=rater,
                n_units=len(given),
                mean_grade=_take(mean, "mean_grade", reasons),
                grades=tuple(int(count) for count in histogram),
                alpha_without_rater=alpha_without,
                alpha_contribution=_take(contribution, "alpha_contribution", reasons),
                reasons=reasons,
            )
        )
    return rows


def _queries(ratings: Ratings, few: str | None) -> list[QueryAgreement]:
    codes, names = ratings.unit_query, ratings.queries
    n_queries = len(names)
    if n_queries == 0:
        return []
    counts = ratings.counts
    units = np.bincount(codes, minlength=n_queries)
    unit, rater = np.nonzero(ratings.grades >= 0)
    n_raters = len(ratings.raters)
    query_raters = np.unique(codes[unit] * n_raters + rater) // max(n_raters, 1)
    raters = np.bincount(query_raters, minlength=n_queries)
    shares = ratings.shares
    rated = ~np.isnan(shares)
    share_sums = np.bincount(codes[rated], shares[rated], n_queries)
    share_counts = np.bincount(codes[rated], minlength=n_queries)
    alphas = co.krippendorff_alpha_by_group(counts, codes, n_queries, "ordinal", what="document")
    adjudicate = _adjudication_lists(ratings, codes, n_queries)
    rows = []
    for q, (name, n_units, n_raters, share_sum, share_count) in enumerate(
        zip(names, units.tolist(), raters.tolist(), share_sums, share_counts)
    ):
        reasons: dict[str, str] = {}
        if few:
            agreement = alpha = co.Estimate.undefined(few)
        else:
            agreement = (
                co.Estimate(float(share_sum / share_count))
                if share_count
                else co.Estimate.undefined("no document was graded by two or more raters")
            )
            alpha = alphas[q]
        rows.append(
            QueryAgreement(
                query_id=str(name),
                n_units=n_units,
                n_raters=n_raters,
                percent_agreement=_take(agreement, "percent_agreement", reasons),
                krippendorff_alpha_ordinal=_take(alpha, "krippendorff_alpha_ordinal", reasons),
                adjudicate=adjudicate[q],
                reasons=reasons,
            )
        )
    return rows


def adjudication_list(
    ratings: Ratings, min_spread: int = ADJUDICATION_SPREAD
) -> list[tuple[str, Disagreement]]:
    """Every document to adjudicate, as (query id, disagreement), in order of query, widest
    spread first: the agreement report's per-query lists, flattened; with ``min_spread``,
    the documents whose grades differ by that much or more instead of two."""
    lists = _adjudication_lists(ratings, ratings.unit_query, len(ratings.queries), min_spread)
    return [
        (str(query_id), item) for query_id, items in zip(ratings.queries, lists) for item in items
    ]


def _adjudication_lists(
    ratings: Ratings, codes: np.ndarray, n_queries: int, min_spread: int = ADJUDICATION_SPREAD
) -> list[list[Disagreement]]:
    """Per query, its documents whose grades differ by ``min_spread`` (two) or more, widest
    spread first."""
    grades = ratings.grades.astype(np.int16)
    present = grades >= 0
    highest = np.where(present, grades, -1).max(axis=1, initial=-1)
    lowest = np.where(present, grades, 99).min(axis=1, initial=99)
    spread = highest - lowest
    flagged = np.flatnonzero((present.sum(axis=1) >= 2) & (spread >= min_spread))
    # units are in order of document within a query, and lexsort keeps that order in ties
    order = np.lexsort((-spread[flagged], codes[flagged]))
    flagged = flagged[order]
    found = list(
        map(
            Disagreement,
            map(str, ratings.doc_ids[flagged].tolist()),
            _given_grades(ratings.raters, grades[flagged]),
            spread[flagged].tolist(),
        )
    )
    ends = np.searchsorted(codes[flagged], np.arange(n_queries + 1)).tolist()
    return [found[start:end] for start, end in zip(ends, ends[1:])]


def _given_grades(raters: tuple[str, ...], grades: np.ndarray) -> list[dict[str, int]]:
    """Each row's grades by rater, those left out (-1) omitted (read from the grades given
    only: 5,000 rows of 10,000 raters as Python lists took 7 s)."""
    rows, columns = np.nonzero(grades >= 0)
    names = [raters[column] for column in columns.tolist()]
    values = grades[rows, columns].tolist()
    ends = np.searchsorted(rows, np.arange(len(grades) + 1)).tolist()
    return [dict(zip(names[start:end], values[start:end])) for start, end in zip(ends, ends[1:])]
