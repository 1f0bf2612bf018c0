"""The one evaluation engine: a campaign's runs evaluated against its grades, on integer codes
(``metrics.codes``), as one ``EvaluationRequest`` asks. Files are coded where they are read
(``commands.evaluate``), so a database and files take the same path to the same numbers."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import UsageError
from judge_app.evaluation import corrected as prediction_powered
from judge_app.evaluation.judge_quality import judge_quality
from judge_app.evaluation.options import EvaluationRequest, SignificanceOptions
from judge_app.evaluation.result import EvaluationResult
from judge_app.metrics.aggregation import aggregate, parse_method
from judge_app.metrics.ranking import Evaluation, evaluate_codes, k_label
from judge_app.metrics.significance import Significance, compare_runs
from judge_app.option_declarations import AGGREGATE, MEASURES, RATERS, RUNS
from judge_app.options import check_known

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.evaluation.campaign import Campaign
    from judge_app.evaluation.preferences import PreferenceEvaluation
    from judge_app.metrics.codes import Coded, Graded

WITH_RATERS = "needs judgments with raters: --db, or a judgments CSV"


def evaluate(request: EvaluationRequest, campaign: Campaign) -> EvaluationResult:
    """Evaluate the chosen runs of ``campaign`` as ``request`` asks: against the chosen
    raters' grades combined (or an automatic judge's), each run's values of every measure;
    with the runs compared, the curve's cut-offs, each rater's own means, the per-query table
    and the means corrected by the judge where asked. Usage errors name the option and
    ``campaign.source``."""
    options = request.checked().options
    source = campaign.source
    _check_raters(request, campaign)
    if options.grade_source == "automatic":
        if request.per_rater:
            raise UsageError("is of human raters: --grades automatic has none", "per-rater")
        assert options.judge is not None
        graded = campaign.judge_graded(options.judge)
    else:
        graded = _chosen(campaign.graded, options.raters, source)
    runs = _coded_runs(campaign, options.runs)
    method = parse_method(options.aggregate)
    if method.startswith("rater:"):
        check_known([method[6:]], graded.rater_names(), "rater", AGGREGATE.name, source)
    qrels = aggregate(graded, method, options.adjudicated)
    settings = request.settings()
    queries = [str(name) for name in graded.queries]
    evaluations = {
        name: evaluate_codes(queries, run, qrels, settings) for name, run in runs.items()
    }
    if options.measures:
        from judge_app.metrics.named import named_values

        for name, evaluation in evaluations.items():
            evaluation.values.update(
                named_values(
                    graded.queries,
                    graded.docs,
                    runs[name],
                    qrels,
                    options.named_measures(),
                    evaluation.query_ids,
                    options.complete,
                )
            )
    result = EvaluationResult(request, settings, evaluations, graded, qrels)
    if options.preference_measures:
        result.preferences = _by_preferences(request, campaign, list(evaluations))
    if request.per_rater:
        from judge_app.metrics.raters import rater_means

        result.per_rater = rater_means(graded, runs, options.settings())
    if options.grade_source == "corrected":
        result.corrected = _prediction_powered(result, campaign)
    if request.comparison is not None and len(evaluations) >= 2:
        result.significance = compare_evaluations(
            evaluations, options.measure, request.comparison, source
        )
    if request.table:
        result.table = per_query_table(result, campaign.queries)
    return result


def _by_preferences(
    request: EvaluationRequest, campaign: Campaign, runs: list[str]
) -> PreferenceEvaluation:
    """The runs scored by the preference measures asked for; a usage error where the
    campaign holds no preference judgments."""
    from judge_app.evaluation.preferences import evaluate_preferences

    preferences = campaign.preferences
    if preferences is None or not len(preferences):
        raise UsageError(
            f"{campaign.source} holds no preference judgments: import some with "
            "judge-app preferences import",
            MEASURES.name,
        )
    return evaluate_preferences(
        preferences,
        campaign.results,
        runs,
        request.options.named_preference_measures(),
        request.comparison,
        campaign.source,
    )


def _check_raters(request: EvaluationRequest, campaign: Campaign) -> None:
    """A usage error for an option of raters asked of judgments without raters."""
    if campaign.with_raters:
        return
    options = request.options
    for option, asked in (
        ("per-rater", request.per_rater),
        (RATERS.name, options.raters is not None),
        (AGGREGATE.name, options.aggregate != AGGREGATE.default),
    ):
        if asked:
            raise UsageError(WITH_RATERS, option)


def _chosen(graded: Graded, raters: tuple[str, ...] | None, source: str) -> Graded:
    """The judgments of ``raters`` (all, without); a usage error naming any with no graded
    judgment in ``source``."""
    if raters is None:
        return graded
    check_known(raters, graded.rater_names(), "rater", RATERS.name, source)
    chosen = [graded.rater_code(name) for name in raters]
    return graded.where(np.isin(graded.rater, chosen))


def _coded_runs(campaign: Campaign, names: tuple[str, ...] | None) -> dict[str, Coded]:
    """Each chosen run's (query, document, rank) codes, in the campaign's order of runs; a
    usage error naming a run asked for that the campaign does not hold."""
    source, results = campaign.source, campaign.coded_results
    if not len(results.run):
        raise UsageError(f"{source} holds no run results: import a run first")
    check_known(names, results.run_names(), "run", RUNS.name, source)
    coded = results.by_run(list(names) if names else None)
    return {name: coded[name] for name in campaign.runs if name in coded}


def _prediction_powered(
    result: EvaluationResult, campaign: Campaign
) -> prediction_powered.PredictionPowered:
    """``result`` (on the human grades) corrected by the options' judge: the same runs
    evaluated on the judge's grades, then ``corrected.estimate``."""
    options = result.options
    assert options.judge is not None
    judge = EvaluationRequest(replace(options, grades="automatic"))
    automatic = evaluate(judge, campaign).evaluations
    graded = result.graded
    counts = np.bincount(graded.query, minlength=len(graded.queries))
    grades_per_query = {str(name): int(count) for name, count in zip(graded.queries, counts)}
    estimated = prediction_powered.estimate(
        options, result.evaluations, automatic, grades_per_query, _design(campaign, options.judge)
    )
    quality = judge_quality(estimated.judge, graded, campaign.judge_graded(options.judge))
    if quality.learned_nothing:
        estimated = prediction_powered.humans_alone(estimated)
    return replace(estimated, quality=quality)


def _design(campaign: Campaign, judge: str | None) -> prediction_powered.Design | None:
    """The active sample raters follow, if it was drawn for ``judge`` (else None: the
    queries were judged in their assigned order)."""
    from judge_app.names import known_name

    sample = campaign.active
    if sample is None or not len(sample) or judge is None:
        return None
    if not (sample["judge"] == known_name(judge, campaign.judges)).all():
        return None
    return prediction_powered.Design(
        tuple(sample["query_id"].astype(str)), tuple(sample["scale"].astype(float))
    )


def compare_evaluations(
    evaluations: dict[str, Evaluation], measure: str, options: SignificanceOptions, source: str
) -> Significance:
    """Compare the runs of ``evaluations`` on ``measure`` as ``options`` say, each pair over
    the queries both scored (in query id order); a usage error naming a ``baseline`` that
    ``source`` has no run of, or fewer than two runs."""
    options.checked()
    runs = list(evaluations)
    if len(runs) < 2:
        raise UsageError("needs at least two runs", "compare")
    if options.baseline is not None:
        check_known([options.baseline], runs, "run", "baseline", source)
    queries = sorted({query for each in evaluations.values() for query in each.query_ids})
    row = {query: index for index, query in enumerate(queries)}
    scores = np.full((len(queries), len(runs)), np.nan)
    for column, evaluation in enumerate(evaluations.values()):
        rows = np.fromiter((row[q] for q in evaluation.query_ids), np.int64, evaluation.n_queries)
        scores[rows, column] = evaluation.values[measure]
    return compare_runs(
        runs,
        scores,
        measure,
        tests=options.tests,
        adjustment=options.adjustment,
        baseline=options.baseline,
        permutations=options.permutations,
        seed=options.seed,
    )


def per_query_table(result: EvaluationResult, queries: dict[str, str]) -> pd.DataFrame:
    """A row per query evaluated by any run: ``query_id, query``, each run's ``RUN NDCG`` (at
    the leading k), with two or more runs ``difference`` (second run − first), each run's
    ``RUN NAME`` of every named measure, ``RUN judged``, ``RUN DCG`` and ``RUN IDCG``, and
    ``incomplete`` (the top k of some run is not fully judged)."""
    import pandas as pd

    label = k_label(result.options.k)
    table: pd.DataFrame | None = None
    for run, evaluation in result.evaluations.items():
        values = evaluation.values
        columns = pd.DataFrame(
            {
                "query_id": evaluation.query_ids,
                f"{run} judged": values[f"judged@{label}"],
                f"{run} DCG": values[f"dcg@{label}"],
                f"{run} IDCG": values[f"idcg@{label}"],
                f"{run} NDCG": values[f"ndcg@{label}"],
                **{f"{run} {name}": values[name] for name in result.options.measures},
            }
        )
        table = columns if table is None else table.merge(columns, on="query_id", how="outer")
    assert table is not None
    runs = list(result.evaluations)
    if len(runs) >= 2:
        table["difference"] = table[f"{runs[1]} NDCG"] - table[f"{runs[0]} NDCG"]
    judged = table[[f"{run} judged" for run in runs]]
    table["incomplete"] = (judged < 1).any(axis=1)
    table.insert(1, "query", table["query_id"].map(queries).fillna(""))
    ndcg = [f"{run} NDCG" for run in runs] + (["difference"] if len(runs) >= 2 else [])
    named = [f"{run} {name}" for name in result.options.measures for run in runs]
    details = [f"{run} {name}" for run in runs for name in ("judged", "DCG", "IDCG")]
    order = ["query_id", "query", *ndcg, *named, *details, "incomplete"]
    return table[order].sort_values("query_id", ignore_index=True)
