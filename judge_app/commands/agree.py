"""How far the raters agree: the agreement report of judgments from a CSV file
(``judge-app agreement --judgments``) or a database (``agreement --db``, the agreement page,
the report), and with a database the stability of the run ranking across raters.

Reading a file imports neither SQLAlchemy nor Qt: the store is loaded for a database only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.agreement import formats
from judge_app.agreement.report import AgreementReport, Ratings, build_report
from judge_app.commands.evaluate import of_raters
from judge_app.commands.options import require_whole
from judge_app.errors import JudgeAppError, UsageError, quoted
from judge_app.metrics.aggregation import ADJUDICATED

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.stability import RankingStability

OUTPUTS = ("table", "csv", "json")
TABLE_DIGITS = 4


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
        require_whole("--bootstrap", self.bootstrap, 0, note=" (0: no interval)")
        require_whole("--seed", self.seed, 0)
        require_whole("--k", self.k, 1)
        if self.raters is not None and (
            not self.raters or len(set(self.raters)) < len(self.raters)
        ):
            raise UsageError("--raters needs names, each once")
        return self


def agreement_of_file(options: AgreementOptions, path: Path) -> AgreementReport:
    """The agreement of the judgments CSV at ``path``."""
    from judge_app.io.readers import read_judgments

    options.checked()
    return agreement(options, read_judgments(path), None, str(path))


def agreement_of_database(options: AgreementOptions, db: str) -> AgreementReport:
    """The agreement of the database ``db``'s judgments, with the ranking stability."""
    from judge_app.store import open_database, reads

    options.checked()
    with open_database(db, read_only=True) as database, database.reading() as session:
        judgments = reads.grades_frame(session)
        results = reads.results_frame(session)
    return agreement(options, judgments, results, db)


def agreement(
    options: AgreementOptions,
    judgments: pd.DataFrame,
    results: pd.DataFrame | None,
    source: str,
) -> AgreementReport:
    """The agreement report of judgments (and, for the ranking stability, a database's
    results) already read from ``source``."""
    options.checked()
    judgments = _chosen(judgments, options, source)
    raters = list(options.raters or sorted(judgments["rater"].unique()))
    ratings = Ratings.from_frame(judgments, raters)
    ranking, why = None, "needs --db: the runs come from the database"
    if results is not None:
        ranking, why = _ranking(judgments, results, raters, options.k, source)
    return build_report(
        ratings, options.bootstrap, options.seed, ranking=ranking, ranking_reason=why
    )


def as_text(report: AgreementReport, output: str, digits: int | None = None) -> str:
    """The report as ``agreement --format`` prints it: ``json`` and ``csv`` in full precision
    unless ``digits``; ``table`` for people, to 4 digits unless ``digits``."""
    if output not in OUTPUTS:
        raise UsageError(f"--format must be one of {', '.join(OUTPUTS)}")
    if output == "json":
        return formats.json_text(report, digits)
    if output == "csv":
        return formats.csv_text(report, digits)
    return formats.table_text(report, TABLE_DIGITS if digits is None else digits)


def _chosen(judgments: pd.DataFrame, options: AgreementOptions, source: str) -> pd.DataFrame:
    """The graded judgments of the chosen raters and query; an error if any is unknown."""
    graded = judgments[judgments["grade"].notna() & ~judgments["skipped"].astype(bool)]
    if not options.raters:  # a lead's decision, not a rater's opinion
        graded = graded[graded["rater"] != ADJUDICATED]
    if graded.empty:
        raise JudgeAppError(f"{source} holds no graded judgments (skipped ones are left out)")
    graded = of_raters(graded, options.raters, source)
    if options.query is not None:
        graded = graded[graded["query_id"] == options.query]
        if graded.empty:
            by = f" by {', '.join(options.raters)}" if options.raters else ""
            raise JudgeAppError(
                f"{source} has no graded judgments of query {quoted(options.query)}{by}"
            )
    return graded


def _ranking(
    judgments: pd.DataFrame, results: pd.DataFrame, raters: Sequence[str], k: int, source: str
) -> tuple[RankingStability | None, str]:
    """Runs ordered by mean NDCG@k with each rater's judgments, for the raters who judged
    every query that has both results and judgments; or None and the reason."""
    from judge_app.agreement.stability import ranking_stability, raters_judging_all
    from judge_app.metrics.ranking import Settings
    from judge_app.metrics.raters import per_rater_means

    names = list(dict.fromkeys(results["run"]))
    if len(names) < 2:
        return None, f"needs two or more runs; {source} holds {len(names)}"
    query_ids = set(results["query_id"].unique()) & set(judgments["query_id"].unique())
    if not query_ids:
        return None, "no judged query has run results"
    complete, left_out = raters_judging_all(judgments, query_ids, list(raters))
    if len(complete) < 2:
        who = ", ".join(f"{rater} {why}" for rater, why in left_out.items())
        return None, f"needs two or more raters who judged all {len(query_ids)} queries ({who})"
    runs = {
        name: group[["query_id", "doc_id", "rank"]]
        for name, group in results[results["query_id"].isin(query_ids)].groupby("run", sort=False)
    }
    chosen = judgments[judgments["rater"].isin(complete)]
    means = per_rater_means(chosen, runs, Settings(ks=(k,)))
    return ranking_stability(means, f"ndcg@{k}", len(query_ids), left_out, complete), ""
