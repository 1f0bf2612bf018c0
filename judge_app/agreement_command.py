"""``judge-app agreement``: load judgments (a CSV file or a database), compute the agreement
report, and with a database also the stability of the run ranking across raters.

Reading a file imports neither SQLAlchemy nor Qt: the store is loaded only for ``--db``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.agreement import formats
from judge_app.agreement.report import AgreementReport, Ratings, build_report
from judge_app.errors import JudgeAppError, quoted
from judge_app.evaluation import UsageError, check_raters, of_raters, require_whole
from judge_app.metrics.aggregation import ADJUDICATED

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.stability import RankingStability

OUTPUTS = ("table", "csv", "json")


@dataclass
class AgreementRequest:
    """Everything ``judge-app agreement`` was asked; see its ``--help``."""

    db: str | None = None
    judgments: Path | None = None
    raters: list[str] | None = None
    query: str | None = None
    bootstrap: int = 1000
    seed: int = 0
    k: int = 10
    output: str = "table"
    digits: int = 4


def run_agreement(request: AgreementRequest) -> str:
    """Compute the agreement report as asked and return the text to print."""
    report = agreement_report(request)
    if request.output == "json":
        return formats.json_text(report, request.digits)
    if request.output == "csv":
        return formats.csv_text(report, request.digits)
    return formats.table_text(report, request.digits)


def agreement_report(request: AgreementRequest) -> AgreementReport:
    """The agreement report ``request`` asks for (its ``output`` and ``digits`` aside)."""
    _check(request)
    if request.db is not None:
        judgments, results = _from_database(request.db)
        source = request.db
    else:
        assert request.judgments is not None
        from judge_app.io.readers import read_judgments

        judgments, results = read_judgments(request.judgments), None
        source = str(request.judgments)
    return agreement_of(request, judgments, results, source)


def agreement_of(
    request: AgreementRequest,
    judgments: pd.DataFrame,
    results: pd.DataFrame | None,
    source: str,
) -> AgreementReport:
    """The agreement report of judgments (and, for the ranking stability, a database's
    results) already loaded from ``source``, as ``request`` asks."""
    _check(request)
    judgments = _chosen(judgments, request, source)
    raters = request.raters or sorted(judgments["rater"].unique())
    ratings = Ratings.from_frame(judgments, raters)
    ranking, why = None, "needs --db: the runs come from the database"
    if results is not None:
        ranking, why = _ranking(judgments, results, raters, request)
    return build_report(
        ratings, request.bootstrap, request.seed, ranking=ranking, ranking_reason=why
    )


def _check(request: AgreementRequest) -> None:
    if (request.db is None) == (request.judgments is None):
        raise UsageError("give either --db DB or --judgments FILE.csv (one of them)")
    require_whole("--bootstrap", request.bootstrap, 0, note=" (0: no interval)")
    require_whole("--seed", request.seed, 0)
    require_whole("--k", request.k, 1)
    require_whole("--digits", request.digits, 0, 15)
    if request.output not in OUTPUTS:
        raise UsageError(f"--format must be one of {', '.join(OUTPUTS)}")
    check_raters(request.raters)


def _chosen(judgments: pd.DataFrame, request: AgreementRequest, source: str) -> pd.DataFrame:
    """The graded judgments of the chosen raters and query; a data error if any is unknown."""
    graded = judgments[judgments["grade"].notna() & ~judgments["skipped"].astype(bool)]
    if not request.raters:  # a lead's decision, not a rater's opinion
        graded = graded[graded["rater"] != ADJUDICATED]
    if graded.empty:
        raise JudgeAppError(f"{source} holds no graded judgments (skipped ones are left out)")
    graded = of_raters(graded, request.raters, source)
    if request.query is not None:
        graded = graded[graded["query_id"] == request.query]
        if graded.empty:
            by = f" by {', '.join(request.raters)}" if request.raters else ""
            raise JudgeAppError(
                f"{source} has no graded judgments of query {quoted(request.query)}{by}"
            )
    return graded


def _from_database(db: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The raters' judgments (skipped left out) and every run's results."""
    from judge_app.store import open_database, reads

    with open_database(db, read_only=True) as database, database.reading() as session:
        judgments = reads.grades_frame(session)
        results = reads.results_frame(session)
    return judgments, results


def _ranking(
    judgments: pd.DataFrame, results: pd.DataFrame, raters: list[str], request: AgreementRequest
) -> tuple[RankingStability | None, str]:
    """Runs ordered by mean NDCG@k with each rater's judgments, for the raters who judged
    every query that has both results and judgments; or None and the reason."""
    from judge_app.agreement.stability import ranking_stability, raters_judging_all
    from judge_app.metrics.ranking import Settings
    from judge_app.metrics.raters import per_rater_means

    names = list(dict.fromkeys(results["run"]))
    if len(names) < 2:
        return None, f"needs two or more runs; {request.db} holds {len(names)}"
    query_ids = set(results["query_id"].unique()) & set(judgments["query_id"].unique())
    if not query_ids:
        return None, "no judged query has run results"
    complete, left_out = raters_judging_all(judgments, query_ids, raters)
    if len(complete) < 2:
        who = ", ".join(f"{rater} {why}" for rater, why in left_out.items())
        return None, f"needs two or more raters who judged all {len(query_ids)} queries ({who})"
    runs = {
        name: group[["query_id", "doc_id", "rank"]]
        for name, group in results[results["query_id"].isin(query_ids)].groupby("run", sort=False)
    }
    settings = Settings(ks=(request.k,))
    chosen = judgments[judgments["rater"].isin(complete)]
    means = per_rater_means(chosen, runs, settings)
    measure = f"ndcg@{request.k}"
    return ranking_stability(means, measure, len(query_ids), left_out, complete), ""
