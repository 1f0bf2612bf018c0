"""How far the raters agree: the agreement report of judgments from a CSV file
(``judge-app agreement --judgments``) or a database (``agreement --db``, the agreement page,
the report), and with a database the stability of the run ranking across raters.

Reading a file imports neither SQLAlchemy nor Qt: the store is loaded for a database only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from judge_app.agreement.report import (
    ADJUDICATION_SPREAD,
    AgreementReport,
    Disagreement,
    QueryAgreement,
    Ratings,
    adjudication_list,
    build_report,
    per_query,
)
from judge_app.errors import JudgeAppError, UsageError, quoted
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.metrics.codes import Graded, Results, code_of
from judge_app.options import check_known, require_whole

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.stability import RankingStability
    from judge_app.store import Database


@dataclass(frozen=True)
class AgreementOptions:
    """Whose agreement (``raters``, None: all but the adjudicator), on which ``query`` (None:
    all), the ordinal alpha's bootstrap ``resamples`` (0: no interval) and ``seed``, and the
    NDCG cut-off ``k`` of the ranking stability."""

    raters: tuple[str, ...] | None = None
    query: str | None = None
    bootstrap: int = 1000
    seed: int = 0
    k: int = 10

    def checked(self) -> AgreementOptions:
        """These options, or a usage error naming the first that is wrong."""
        require_whole("bootstrap", self.bootstrap, 0, note=" (0: no interval)")
        require_whole("seed", self.seed, 0)
        require_whole("k", self.k, 1)
        if self.raters is not None and (
            not self.raters or len(set(self.raters)) < len(self.raters)
        ):
            raise UsageError("needs names, each once", "raters")
        return self


def agreement_of_file(path: Path, options: AgreementOptions) -> AgreementReport:
    """The agreement of the judgments CSV at ``path``."""
    from judge_app.io.readers import read_judgments

    options.checked()
    return agreement(options, read_judgments(path), None, str(path))


def agreement_of(database: Database | str, options: AgreementOptions) -> AgreementReport:
    """The agreement of the judgments of ``database`` (an open one, or a path or URL, opened
    read-only), with the ranking stability."""
    from judge_app.commands.campaign import load_campaign
    from judge_app.store.database import opened

    options.checked()
    with opened(database, read_only=True) as found:
        campaign = load_campaign(found, queries=False, automatic=False)
    source = database if isinstance(database, str) else campaign.source
    return coded_agreement(options, campaign.graded, campaign.coded_results, source)


def agreement(
    options: AgreementOptions,
    judgments: pd.DataFrame,
    results: pd.DataFrame | None,
    source: str,
) -> AgreementReport:
    """The agreement report of judgments (and, for the ranking stability, a database's
    results) already read from ``source``."""
    graded = Graded.from_frame(judgments)
    runs = None if results is None else Results.from_frame(results, graded)
    return coded_agreement(options, graded, runs, source)


def coded_agreement(
    options: AgreementOptions,
    graded: Graded,
    results: Results | None,
    source: str,
    without_runs: str = "needs --db: the runs come from the database",
) -> AgreementReport:
    """The agreement report of coded judgments (and results) read from ``source``; without
    results, no ranking stability, for the reason ``without_runs``."""
    options.checked()
    decided = decided_grades(graded)
    graded = _chosen(graded, options, source)
    raters = list(options.raters or graded.rater_names())
    ratings = Ratings.from_graded(graded, raters)
    ranking, why = None, without_runs
    if results is not None:
        ranking, why = _ranking(graded, results, raters, options.k, source)
    report = build_report(
        ratings, options.bootstrap, options.seed, ranking=ranking, ranking_reason=why
    )
    _mark_decided(((q.query_id, item) for q in report.per_query for item in q.adjudicate), decided)
    return report


def disputed(
    graded: Graded, min_spread: int = ADJUDICATION_SPREAD
) -> list[tuple[str, Disagreement]]:
    """The documents the raters (the adjudicator left out) grade two or more apart, as (query
    id, disagreement) with the lead's decision if any: the same list as the agreement
    report's, which the agreement page, the report and the adjudication screen show; with
    ``min_spread``, those graded that far apart or more (``assign --where-disputed``)."""
    items = adjudication_list(Ratings.from_graded(_raters_only(graded)), min_spread)
    _mark_decided(items, decided_grades(graded))
    return items


def query_agreement(graded: Graded) -> list[QueryAgreement]:
    """Each query's agreement among all the raters (the adjudicator left out), its documents
    to adjudicate and the lead's decisions: the agreement report's ``per_query``, as the
    agreement page shows it, without the rest of the report."""
    rows = per_query(Ratings.from_graded(_raters_only(graded)))
    _mark_decided(
        ((q.query_id, item) for q in rows for item in q.adjudicate), decided_grades(graded)
    )
    return rows


def _raters_only(graded: Graded) -> Graded:
    """The raters' judgments: the adjudicator's (a lead's decisions) left out."""
    return graded.where(graded.rater != graded.rater_code(ADJUDICATED))


def decided_grades(graded: Graded) -> dict[tuple[str, str], int]:
    """The lead's adjudicated grade of each (query id, doc id) that has one."""
    lead = graded.rater == graded.rater_code(ADJUDICATED)
    return {
        (str(graded.queries[query]), str(graded.docs[doc])): int(grade)
        for query, doc, grade in zip(
            graded.query[lead].tolist(), graded.doc[lead].tolist(), graded.grade[lead].tolist()
        )
    }


def _mark_decided(
    items: Iterable[tuple[str, Disagreement]], decided: dict[tuple[str, str], int]
) -> None:
    for query_id, item in items:
        item.decided = decided.get((query_id, item.doc_id))


def _chosen(graded: Graded, options: AgreementOptions, source: str) -> Graded:
    """The graded judgments of the chosen raters and query; an error if any is unknown."""
    keep = np.ones(len(graded.grade), dtype=bool)
    if not options.raters:  # a lead's decision, not a rater's opinion
        keep &= graded.rater != code_of(graded.raters, ADJUDICATED)
    if not keep.any():
        raise JudgeAppError(f"{source} holds no graded judgments (skipped ones are left out)")
    if options.raters is not None:
        check_known(options.raters, graded.rater_names(), "rater", "raters", source)
        keep &= np.isin(graded.rater, [code_of(graded.raters, name) for name in options.raters])
    if options.query is not None:
        keep &= graded.query == code_of(graded.queries, options.query)
        if not keep.any():
            by = f" by {', '.join(options.raters)}" if options.raters else ""
            raise JudgeAppError(
                f"{source} has no graded judgments of query {quoted(options.query)}{by}"
            )
    return graded.where(keep)


def _ranking(
    graded: Graded, results: Results, raters: Sequence[str], k: int, source: str
) -> tuple[RankingStability | None, str]:
    """Runs ordered by mean NDCG@k with each rater's judgments, for the raters who judged
    every query that has both results and judgments; or None and the reason."""
    from judge_app.agreement.stability import ranking_stability, raters_judging_all
    from judge_app.metrics.ranking import Settings
    from judge_app.metrics.raters import rater_means

    n_runs = len(results.run_names())
    if n_runs < 2:
        return None, f"needs two or more runs; {source} holds {n_runs}"
    n_queries = len(graded.queries)
    in_results = np.zeros(n_queries + 1, dtype=bool)
    in_results[results.query] = True  # -1, a query without judgments, marks the extra place
    shared = in_results[:-1] & (np.bincount(graded.query, minlength=n_queries) > 0)
    query_count = int(shared.sum())
    if not query_count:
        return None, "no judged query has run results"
    of_shared = shared[graded.query]
    pairs = graded.rater[of_shared] * n_queries + graded.query[of_shared]
    judged = np.bincount(pairs, minlength=len(graded.raters) * n_queries) > 0
    per_rater = judged.reshape(len(graded.raters), n_queries).sum(axis=1)
    counts = {str(name): int(count) for name, count in zip(graded.raters, per_rater)}
    complete, left_out = raters_judging_all(counts, query_count, list(raters))
    if len(complete) < 2:
        who = ", ".join(f"{rater} {why}" for rater, why in left_out.items())
        return None, f"needs two or more raters who judged all {query_count} queries ({who})"
    runs = results.where(np.append(shared, False)[results.query])
    chosen = np.isin(graded.rater, [code_of(graded.raters, name) for name in complete])
    means = rater_means(graded.where(chosen), runs.by_run(), Settings(ks=(k,)))
    return ranking_stability(means, f"ndcg@{k}", query_count, left_out, complete), ""
