"""How far an automatic judge can stand in for the human raters (``judge-app calibrate``, the
Automatic judges page): on the (query, document) pairs both graded — the humans' grades
combined per pair as the evaluation combines them — Cohen's quadratic kappa and Krippendorff's
ordinal alpha of the rounded grades with intervals over queries, the confusion matrix, the
judge's bias per human grade; the runs ranked by mean NDCG@k with the humans' grades and with
the judge's, on the same queries, and Kendall's tau between the two orders (over all runs and
among the best half, where LLM judges are known to lose their way); the queries that disagree
most.

Both rankings come from the one evaluation (``commands.evaluate.evaluate``): the judge's
grades are given to it as the only rater's. Nothing here writes. What the figures are is
``judge_app.evaluation.calibration``; their table, CSV, JSON and words are
``judge_app.writers.calibration``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from judge_app.agreement import coefficients as co
from judge_app.agreement.stability import kendall_tau_b
from judge_app.automatic_judges.probes import PROBES, instructions_in
from judge_app.errors import UsageError, quoted
from judge_app.evaluation.calibration import (
    GRADES,
    PROBE_SHIFT,
    WORDING_KAPPA,
    Calibration,
    CalibrationOptions,
    Figure,
    GradeBias,
    InstructingDocument,
    ProbeEffect,
    QueryDisagreement,
    Ranking,
    RunScore,
    best_half,
)
from judge_app.evaluation.judge_quality import whole_grades
from judge_app.metrics.intervals import CONFIDENCE
from judge_app.writers.calibration import NO_JUDGE_HINT

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.orm import Session

    from judge_app.evaluation.campaign import Campaign
    from judge_app.store import Database
    from judge_app.store.automatic import Judge


@dataclass(frozen=True)
class Overview:
    """What the Automatic judges page shows: every automatic ``judges``, and the
    ``calibration`` of the one chosen, or why there is none (``reason``)."""

    judges: tuple[Judge, ...]
    calibration: Calibration | None
    reason: str | None


def calibrate_of(database: Database | str, options: CalibrationOptions) -> Calibration:
    """The calibration of ``options.judge`` against the humans of ``database`` (an open one,
    or a path or URL, opened read-only), read in one snapshot; a usage error naming the judge
    and the reason if there is none."""
    from judge_app.store.database import opened

    options.checked()
    with opened(database, read_only=True) as found:
        overview = _read(found, options)
    if overview.calibration is None:
        raise UsageError(overview.reason or "no calibration")
    return overview.calibration


def overview_of(database: Database | str, options: CalibrationOptions) -> Overview:
    """The automatic judges of ``database`` (an open one, or a path or URL, opened read-only)
    and the calibration of ``options.judge`` (the first judge if None, or if it is gone), or
    why there is none."""
    from judge_app.store.database import opened

    options.checked()
    with opened(database, read_only=True) as found:
        return _read(found, options, first_if_gone=True)


def _read(database: Database, options: CalibrationOptions, first_if_gone: bool = False) -> Overview:
    """The judges of ``database`` and the calibration of the one ``options`` names (the first
    if it names none, or, ``first_if_gone``, one there is not), or why there is none."""
    from judge_app.commands.campaign import campaign_of
    from judge_app.store import automatic

    source = database.describe()
    with database.reading() as session:
        judges = tuple(automatic.judges(session))
        if first_if_gone and options.judge not in {judge.name for judge in judges}:
            options = replace(options, judge=None)
        if options.judge is None and not judges:
            return Overview(judges, None, f"{source} has no automatic judge yet: {NO_JUDGE_HINT}")
        try:
            chosen = automatic.judge(session, options.judge or judges[0].name, source)
        except UsageError as error:
            return Overview(judges, None, str(error))
        read = JudgeReads.of(session, chosen)
        campaign = campaign_of(session, source, automatic=False)  # its grades: read above
    options = replace(options, judge=chosen.name)
    try:
        return Overview(judges, read.calibration(campaign, options), None)
    except UsageError as error:
        return Overview(judges, None, str(error))


@dataclass(frozen=True)
class JudgeReads:
    """What a calibration reads of a ``judge``: its ``grades``, its answers to ``probes`` and
    the documents it graded that address a judge (``instructing``: query id, document id,
    the words)."""

    judge: Judge
    grades: pd.DataFrame
    probes: pd.DataFrame
    instructing: tuple[tuple[str, str, str], ...]

    @classmethod
    def of(cls, session: Session, judge: Judge) -> JudgeReads:
        """Read them within ``session``."""
        from judge_app.store import automatic

        read = judge.details.get("body_chars")  # an LLM judge reads this much of a text
        chars = read if isinstance(read, int) and read > 0 else None
        instructing = tuple(
            (query, document, words)
            for query, document, text in automatic.document_texts(session, judge.rater_id, chars)
            if (words := instructions_in(text)) is not None
        )
        return cls(
            judge,
            automatic.auto_grades_frame(session, judge.rater_id),
            automatic.probes_frame(session, judge.rater_id),
            instructing,
        )

    def calibration(self, campaign: Campaign, options: CalibrationOptions) -> Calibration:
        """The judge's calibration against the humans of ``campaign``."""
        return calibration_of(
            campaign, self.judge, self.grades, options, self.probes, self.instructing
        )


def calibration_of(
    campaign: Campaign,
    judge: Judge,
    grades: pd.DataFrame,
    options: CalibrationOptions,
    probes: pd.DataFrame | None = None,
    instructing: Sequence[tuple[str, str, str]] = (),
) -> Calibration:
    """The calibration of ``judge``'s ``grades`` (``query_id, doc_id, grade``) against the
    humans of ``campaign``, with its answers to ``probes`` (``probe, query_id, doc_id,
    grade``) and the documents it graded that address a judge (``instructing``: query id,
    document id, the words); a usage error if the judge and the humans share no pair."""
    options.checked()
    source = campaign.source
    humans = campaign.aggregated_grades(options.aggregate, options.adjudicated)
    graded = grades[grades["grade"].notna()]
    shared = humans.merge(
        graded[["query_id", "doc_id", "grade"]], on=["query_id", "doc_id"], suffixes=("", "_judge")
    ).rename(columns={"grade": "human", "grade_judge": "judge"})
    if shared.empty:
        why = (
            "it has no grade yet"
            if graded.empty
            else f"none of its {len(graded):,} grades is of a pair the human raters graded"
            if not humans.empty
            else f"{source} has no human grade yet"
        )
        raise UsageError(
            f"the automatic judge {quoted(judge.name)} shares no (query, document) pair with "
            f"the human raters: {why}"
        )
    shared = shared.sort_values(["query_id", "doc_id"], ignore_index=True)
    human = shared["human"].to_numpy(dtype=np.float64)
    judged = shared["judge"].to_numpy(dtype=np.float64)
    human_grade, judge_grade = whole_grades(human), whole_grades(judged)
    queries, query_code = np.unique(shared["query_id"].astype(str).to_numpy(), return_inverse=True)
    confusion = co.confusion_matrix(human_grade, judge_grade)
    per_query = np.zeros((len(queries), 6 * 6), dtype=np.float64)
    np.add.at(per_query, (query_code, human_grade * 6 + judge_grade), 1.0)
    kappa, alpha = _agreement(confusion, per_query, options)
    difference = judged - human
    by_grade = []
    for grade in GRADES:
        mine = human_grade == grade
        count = int(mine.sum())
        by_grade.append(
            GradeBias(
                grade,
                count,
                float(judged[mine].mean()) if count else None,
                float(difference[mine].mean()) if count else None,
            )
        )
    ranking, reason, scores = _ranking(campaign, judge, graded, options)
    best = ranking.runs[0].run if ranking is not None and ranking.runs else None
    disagreeing = _disagreeing(shared, difference, best, scores, campaign.queries, options.top)
    diagonal = np.trace(confusion)
    near = sum(int(confusion[i, j]) for i in GRADES for j in GRADES if abs(i - j) <= 1)
    return Calibration(
        source=source,
        options=options,
        judge=judge,
        pairs=len(shared),
        queries=len(queries),
        kappa=kappa,
        alpha=alpha,
        exact=float(diagonal / len(shared)),
        within_one=float(near / len(shared)),
        bias=float(difference.mean()),
        mean_absolute=float(np.abs(difference).mean()),
        confusion=tuple(tuple(int(n) for n in row) for row in confusion),
        by_grade=tuple(by_grade),
        ranking=ranking,
        ranking_reason=reason,
        disagreeing=disagreeing,
        best_run=best,
        probes=() if probes is None else _probe_effects(graded, probes, options),
        instructing=_instructing(instructing, graded, humans),
    )


def _agreement(
    confusion: np.ndarray, per_query: np.ndarray, options: CalibrationOptions
) -> tuple[Figure, Figure]:
    """Quadratic kappa and ordinal alpha of the humans and the judge (two raters: the
    coincidences are the confusion matrix plus its transpose), each with a percentile
    interval from resampling the queries (``per_query``: each query's confusion, flat)."""
    kappa = co.cohen_kappa(confusion, "quadratic")
    alpha = co.alpha_of_coincidences(confusion + confusion.T, "ordinal")
    kappa_interval: tuple[float, float] | None = None
    alpha_interval: tuple[float, float] | None = None
    why: str | None = None
    count = len(per_query)
    if options.bootstrap == 0:
        why = "no bootstrap resamples were asked for"
    elif count < 2:
        why = "one query: no interval over queries"
    else:
        rng = np.random.default_rng(options.seed)
        draws = rng.multinomial(count, np.full(count, 1 / count), size=options.bootstrap)
        matrices = (draws @ per_query).reshape(-1, 6, 6)
        kappas = [co.cohen_kappa(matrix, "quadratic").value for matrix in matrices]
        alphas = co.alphas_of_coincidences(matrices + matrices.transpose(0, 2, 1), "ordinal")
        kappa_interval = _percentiles([k for k in kappas if k is not None])
        alpha_interval = _percentiles([a.value for a in alphas if a.value is not None])
    return (
        Figure(kappa.value, kappa_interval, kappa.reason, why if kappa_interval is None else None),
        Figure(alpha.value, alpha_interval, alpha.reason, why if alpha_interval is None else None),
    )


def _probe_effects(
    graded: pd.DataFrame, probes: pd.DataFrame, options: CalibrationOptions
) -> tuple[ProbeEffect, ...]:
    """How far each probe moved the judge's grades (``graded``) on the pairs it probed."""
    effects = []
    for probe in PROBES:
        answers = probes[probes["probe"] == probe]
        if answers.empty:
            continue
        both = answers.dropna(subset=["grade"]).merge(
            graded[["query_id", "doc_id", "grade"]], on=["query_id", "doc_id"],
            suffixes=("_probe", ""),
        )  # fmt: skip
        own = both["grade"].to_numpy(dtype=np.float64)
        moved = both["grade_probe"].to_numpy(dtype=np.float64)
        shift = _mean_with_interval(moved - own, options)
        kappa = _self_kappa(own, moved, options)
        below = own < 5
        flagged = (
            kappa.value is not None and kappa.value < WORDING_KAPPA
            if probe == "wording"
            else shift.value is not None and shift.value >= PROBE_SHIFT
        )
        effects.append(
            ProbeEffect(
                probe=probe,
                asked=len(answers),
                failed=int(answers["grade"].isna().sum()),
                pairs=len(both),
                shift=shift,
                raised=int((moved > own).sum()),
                lowered=int((moved < own).sum()),
                below_top=int(below.sum()),
                to_top=int((below & (moved >= 5)).sum()),
                kappa=kappa,
                flagged=flagged,
            )
        )
    return tuple(effects)


def _mean_with_interval(values: np.ndarray, options: CalibrationOptions) -> Figure:
    """The mean of ``values`` with a percentile interval from resampling them."""
    if not len(values):
        return Figure(None, reason="no pair was graded both ways")
    interval, why = _over_pairs(len(values), options, lambda draw: float(values[draw].mean()))
    return Figure(float(values.mean()), interval, interval_reason=why)


def _self_kappa(own: np.ndarray, moved: np.ndarray, options: CalibrationOptions) -> Figure:
    """The quadratic kappa of the judge's grades of the same pairs asked two ways, with a
    percentile interval from resampling the pairs."""
    if not len(own):
        return Figure(None, reason="no pair was graded both ways")
    first, second = whole_grades(own), whole_grades(moved)

    def kappa_of(draw: np.ndarray) -> float | None:
        return co.cohen_kappa(co.confusion_matrix(first[draw], second[draw]), "quadratic").value

    kappa = co.cohen_kappa(co.confusion_matrix(first, second), "quadratic")
    if kappa.value is None:
        return Figure(None, reason=kappa.reason)
    interval, why = _over_pairs(len(own), options, kappa_of)
    return Figure(kappa.value, interval, interval_reason=why)


def _over_pairs(
    count: int, options: CalibrationOptions, statistic: Callable[[np.ndarray], float | None]
) -> tuple[tuple[float, float] | None, str | None]:
    """A percentile interval of ``statistic`` over ``options.bootstrap`` resamples of the
    ``count`` pairs (the statistic of the indices drawn), or None and why there is none."""
    if options.bootstrap == 0:
        return None, "no bootstrap resamples were asked for"
    if count < 2:
        return None, "one pair: no interval"
    rng = np.random.default_rng(options.seed)
    draws = rng.integers(0, count, size=(options.bootstrap, count))
    values = [value for draw in draws if (value := statistic(draw)) is not None]
    return _percentiles(values), None


def _instructing(
    found: Sequence[tuple[str, str, str]], graded: pd.DataFrame, humans: pd.DataFrame
) -> tuple[InstructingDocument, ...]:
    """The documents that address a judge, with the judge's and the humans' grades."""
    if not found:
        return ()
    judge = {
        (q, d): g for q, d, g in graded[["query_id", "doc_id", "grade"]].itertuples(index=False)
    }
    human = {
        (q, d): g for q, d, g in humans[["query_id", "doc_id", "grade"]].itertuples(index=False)
    }
    return tuple(
        InstructingDocument(
            str(query),
            str(document),
            words,
            _float(judge.get((query, document))),
            _float(human.get((query, document))),
        )  # fmt: skip
        for query, document, words in found
    )


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def _percentiles(values: list[float]) -> tuple[float, float] | None:
    if not values:
        return None
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


Scores = dict[str, tuple[dict[str, float], dict[str, float]]]
"""Each run's per-query NDCG@k with the humans' grades and with the judge's, by query id."""


def _ranking(
    campaign: Campaign, judge: Judge, grades: pd.DataFrame, options: CalibrationOptions
) -> tuple[Ranking | None, str | None, Scores]:
    """The runs ranked with the humans' and with the judge's grades, on the queries both
    evaluate, through the one evaluation both; or None and why."""
    from judge_app.commands.evaluate import evaluate
    from judge_app.evaluation.campaign import Campaign
    from judge_app.evaluation.options import EvaluationRequest
    from judge_app.metrics.codes import Graded, Results

    if not campaign.runs:
        return None, f"{campaign.source} holds no run results: import runs to rank them", {}
    evaluation = options.evaluation()
    measure = evaluation.measure
    humans = evaluate(EvaluationRequest(evaluation), campaign)
    coded = Graded.from_frame(grades.assign(rater=judge.name))
    results = Results.from_frame(campaign.results, coded)
    results = results.where(results.query >= 0)
    scores: Scores = {}
    if len(results.run):
        own = Campaign(campaign.source, coded, results, campaign.queries, campaign.stamp)
        # the judge's grades as they are: real numbers (a mean of raters takes whole grades)
        alone = replace(evaluation, aggregate=f"rater:{judge.name}")
        judged = evaluate(EvaluationRequest(alone), own)
        for run, human_run in humans.evaluations.items():
            mine = judged.evaluations.get(run)
            if mine is None:
                continue
            theirs = dict(zip(human_run.query_ids, human_run.values[measure].tolist()))
            ours = dict(zip(mine.query_ids, mine.values[measure].tolist()))
            common = sorted(theirs.keys() & ours.keys())
            if common:
                scores[run] = ({q: theirs[q] for q in common}, {q: ours[q] for q in common})
    left_out = tuple(
        f"{run}: no query scored with both the humans' grades and the judge's"
        for run in humans.evaluations
        if run not in scores
    )
    if not scores:
        return None, "no query with run results was graded by both the humans and the judge", {}
    runs = list(scores)
    human_means = np.array([np.mean(list(scores[run][0].values())) for run in runs])
    judge_means = np.array([np.mean(list(scores[run][1].values())) for run in runs])
    human_ranks, judge_ranks = _ranks(human_means), _ranks(judge_means)
    order = sorted(range(len(runs)), key=lambda i: (human_ranks[i], judge_ranks[i], runs[i]))
    rows = tuple(
        RunScore(
            runs[i],
            len(scores[runs[i]][0]),
            float(human_means[i]),
            float(judge_means[i]),
            int(human_ranks[i]),
            int(judge_ranks[i]),
        )
        for i in order
    )
    top = best_half(len(rows))
    return (
        Ranking(
            options.label,
            rows,
            _tau(rows, options.label),
            top,
            _top_tau(rows, top, options.label),
            left_out,
        ),
        None,
        scores,
    )


def _ranks(means: np.ndarray) -> np.ndarray:
    """1 for the highest mean; equal means share the better rank."""
    return np.array([1 + int(np.count_nonzero(means > mean)) for mean in means])


def _tau(runs: tuple[RunScore, ...], label: str, every: str = "every run has") -> Figure:
    """Kendall's tau-b of the runs' means with the humans' and the judge's grades; ``every``
    names the runs where all have one mean."""
    if len(runs) < 2:
        return Figure(None, reason=f"needs two or more runs; there {_are(len(runs))}")
    human = np.array([run.human for run in runs])
    judge = np.array([run.judge for run in runs])
    for who, means in (("the humans'", human), ("the judge's", judge)):
        if np.all(means == means[0]):
            return Figure(None, reason=f"{every} the same mean {label} with {who} grades")
    return Figure(kendall_tau_b(human, judge))


def _top_tau(runs: tuple[RunScore, ...], top: int, label: str) -> Figure:
    """Kendall's tau-b among the best ``top`` of ``runs`` (ordered best first by the
    humans), or why there is none."""
    if top < 2:  # the best half holds two runs from three on
        return Figure(
            None,
            reason=f"needs three or more runs, two in the best half; there {_are(len(runs))}",
        )
    return _tau(runs[:top], label, f"the best {top} runs have")


def _are(count: int) -> str:
    return "is one" if count == 1 else f"are {count}"


def _disagreeing(
    shared: pd.DataFrame,
    difference: np.ndarray,
    best: str | None,
    scores: Scores,
    texts: dict[str, str],
    top: int,
) -> tuple[QueryDisagreement, ...]:
    """The ``top`` queries with the largest mean |judge − human| over their shared pairs."""
    frame = shared.assign(difference=difference, absolute=np.abs(difference))
    frame = frame.assign(query_id=frame["query_id"].astype(str))
    summary = frame.groupby("query_id", sort=True).agg(
        pairs=("difference", "size"),
        mean_absolute=("absolute", "mean"),
        mean_difference=("difference", "mean"),
    )
    summary = summary.reset_index().sort_values(
        ["mean_absolute", "query_id"], ascending=[False, True], kind="stable"
    )
    human, judge = scores.get(best, ({}, {})) if best is not None else ({}, {})
    return tuple(
        QueryDisagreement(
            query_id=row.query_id,
            query=texts.get(row.query_id, ""),
            pairs=int(row.pairs),
            mean_absolute=float(row.mean_absolute),
            mean_difference=float(row.mean_difference),
            human_ndcg=human.get(row.query_id),
            judge_ndcg=judge.get(row.query_id),
        )
        for row in summary.head(top).itertuples(index=False)
    )
