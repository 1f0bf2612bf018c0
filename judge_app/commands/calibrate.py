"""How far an automatic judge can stand in for the human raters (``judge-app calibrate``, the
Automatic judges page): on the (query, document) pairs both graded — the humans' grades
combined per pair as the evaluation combines them — Cohen's quadratic kappa and Krippendorff's
ordinal alpha of the rounded grades with intervals over queries, the confusion matrix, the
judge's bias per human grade; the runs ranked by mean NDCG@k with the humans' grades and with
the judge's, on the same queries, and Kendall's tau between the two orders (over all runs and
among the best half, where LLM judges are known to lose their way); the queries that disagree
most.

Both rankings come from the one evaluation (``commands.evaluate.evaluate``): the judge's
grades are given to it as the only rater's. Nothing here writes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from judge_app.agreement import coefficients as co
from judge_app.agreement.stability import kendall_tau_b
from judge_app.errors import UsageError, quoted
from judge_app.evaluation.judge_quality import JudgeQuality, whole_grades
from judge_app.evaluation.options import EvaluationOptions
from judge_app.metrics.aggregation import parse_method
from judge_app.metrics.ranking import k_label
from judge_app.numbers import MISSING, score_text, share_text, signed_text
from judge_app.options import require_whole
from judge_app.writers.agreement import alpha_reading
from judge_app.writers.corrected import quality_warning

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.evaluation.campaign import Campaign
    from judge_app.store import Database
    from judge_app.store.automatic import Judge

GRADES = tuple(range(6))
OUTPUTS = ("table", "json", "csv")
BIAS_TOLERANCE = 0.1
"""A mean bias within this many grades of 0 is read as neither lenient nor strict."""
TOP_TAU_DROP = 0.1
"""The top half's tau this far below the tau of all runs is said to be lower."""
ROUNDING = "half up (2.5 is 3)"
CONFIDENCE = 0.95
CSV_COLUMNS = ["section", "statistic", "value", "reason", "human_grade", "judge_grade", "run"]
CSV_COLUMNS += ["query_id"]
NO_JUDGE_HINT = "choose Lead ▸ Automatic judge… to grade with an LLM or a local model"


@dataclass(frozen=True)
class CalibrationOptions:
    """Which automatic ``judge`` (None: the first by name) is compared with the humans, whose
    grades are combined per pair by ``aggregate`` (as ``eval --aggregate``) with the lead's
    adjudicated grades preferred (``adjudicated``) or left out; the runs ranked by NDCG@``k``
    (None: all); the ``top`` queries that disagree most listed; the kappa's and alpha's
    intervals from ``bootstrap`` resamples of the queries (0: none), drawn with ``seed``."""

    judge: str | None = None
    k: int | None = 10
    aggregate: str = "mean"
    adjudicated: bool = True
    top: int = 10
    bootstrap: int = 1000
    seed: int = 0

    def checked(self) -> CalibrationOptions:
        """These options, or a usage error naming the first that is wrong."""
        if self.judge is not None and not self.judge.strip():
            raise UsageError("--judge needs the name of an automatic judge")
        if self.k is not None:
            require_whole("--k", self.k, 1, note=", or all")
        require_whole("--top", self.top, 1)
        require_whole("--bootstrap", self.bootstrap, 0, note=" (0: no interval)")
        require_whole("--seed", self.seed, 0)
        try:
            parse_method(self.aggregate)
        except ValueError as error:
            raise UsageError(str(error)) from None
        return self

    def evaluation(self) -> EvaluationOptions:
        """The evaluation both rankings come from: NDCG@k, the humans' grades combined as
        asked (the judge's, its only rater's, are taken as they are)."""
        return EvaluationOptions(
            ks=(self.k,), aggregate=self.aggregate, adjudicated=self.adjudicated, seed=self.seed
        )

    @property
    def label(self) -> str:
        return f"NDCG@{k_label(self.k)}"

    def record(self) -> dict[str, object]:
        return {
            "judge": self.judge,
            "k": k_label(self.k),
            "aggregate": self.aggregate,
            "adjudicated": "prefer" if self.adjudicated else "ignore",
            "top": self.top,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "rounding": ROUNDING,
        }


@dataclass(frozen=True)
class Figure:
    """A statistic's value with its interval over queries, or None and the reason."""

    value: float | None
    interval: tuple[float, float] | None = None
    reason: str | None = None
    interval_reason: str | None = None

    def record(self) -> dict[str, object]:
        return {
            "value": self.value,
            "interval": None if self.interval is None else list(self.interval),
            "reason": self.reason,
            "interval_reason": self.interval_reason,
        }


@dataclass(frozen=True)
class GradeBias:
    """On the ``pairs`` the humans graded ``grade`` (rounded), the judge's mean grade and its
    ``bias``: mean of judge − human (None where no pair)."""

    grade: int
    pairs: int
    mean_judge: float | None
    bias: float | None

    def record(self) -> dict[str, object]:
        return {
            "human_grade": self.grade,
            "pairs": self.pairs,
            "mean_judge": self.mean_judge,
            "bias": self.bias,
        }


@dataclass(frozen=True)
class RunScore:
    """A run's mean NDCG@k over ``queries`` with the humans' grades and with the judge's,
    and its rank by each (1: best; equal means share the better rank)."""

    run: str
    queries: int
    human: float
    judge: float
    human_rank: int
    judge_rank: int

    def record(self) -> dict[str, object]:
        return {
            "run": self.run,
            "queries": self.queries,
            "human": self.human,
            "judge": self.judge,
            "human_rank": self.human_rank,
            "judge_rank": self.judge_rank,
        }


@dataclass(frozen=True)
class Ranking:
    """The runs by the humans' mean NDCG@k, best first, beside the judge's; Kendall's tau-b
    of the two orders over all runs and among the ``top_runs`` best by the humans (the best
    half, rounded up: :func:`best_half`)."""

    label: str
    runs: tuple[RunScore, ...]
    tau: Figure
    top_runs: int
    top_tau: Figure
    left_out: tuple[str, ...] = ()

    def top_label(self) -> str:
        """``the best 2 of the 3 runs`` (by the humans), or ``the best half of the runs``
        while it holds fewer than two."""
        if self.top_runs < 2:
            return "the best half of the runs"
        return f"the best {self.top_runs} of the {len(self.runs)} runs"

    def top_words(self) -> str:
        """Kendall's tau among the best half, as the table and the window say it: ``among the
        best 2 of the 3 runs: 0.3333``, or a dash and why there is none."""
        return f"among {self.top_label()}: {_figure(self.top_tau)}"

    def record(self) -> dict[str, object]:
        return {
            "measure": self.label,
            "runs": [run.record() for run in self.runs],
            "kendall_tau": self.tau.value,
            "kendall_tau_reason": self.tau.reason,
            "top_runs": self.top_runs,
            "top_kendall_tau": self.top_tau.value,
            "top_kendall_tau_reason": self.top_tau.reason,
            "left_out": list(self.left_out),
        }


@dataclass(frozen=True)
class QueryDisagreement:
    """A query's ``pairs`` graded by both, the judge's mean absolute and mean signed
    difference from the humans there, and the best run's (by the humans) NDCG@k with each
    one's grades (None where that run has no score for the query)."""

    query_id: str
    query: str
    pairs: int
    mean_absolute: float
    mean_difference: float
    human_ndcg: float | None
    judge_ndcg: float | None

    @property
    def ndcg_difference(self) -> float | None:
        """The best run's NDCG@k with the judge's grades minus with the humans'."""
        if self.human_ndcg is None or self.judge_ndcg is None:
            return None
        return self.judge_ndcg - self.human_ndcg

    def record(self) -> dict[str, object]:
        return {
            "query_id": self.query_id,
            "query": self.query,
            "pairs": self.pairs,
            "mean_absolute_difference": self.mean_absolute,
            "mean_difference": self.mean_difference,
            "human_ndcg": self.human_ndcg,
            "judge_ndcg": self.judge_ndcg,
            "ndcg_difference": self.ndcg_difference,
        }


@dataclass(frozen=True)
class Calibration:
    """The judge compared with the humans on the ``pairs`` (in ``queries`` queries) both
    graded; see the module's description."""

    source: str
    options: CalibrationOptions
    judge: Judge
    pairs: int
    queries: int
    kappa: Figure
    alpha: Figure
    exact: float
    within_one: float
    bias: float
    mean_absolute: float
    confusion: tuple[tuple[int, ...], ...]
    by_grade: tuple[GradeBias, ...]
    ranking: Ranking | None
    ranking_reason: str | None
    disagreeing: tuple[QueryDisagreement, ...]
    best_run: str | None

    @property
    def label(self) -> str:
        return self.options.label

    def findings(self) -> list[str]:
        """What the figures say, in plain words, one sentence each."""
        lines = [bias_words(self.bias)]
        if self.kappa.value is not None:
            lines.append(
                f"Quadratic κ {score_text(self.kappa.value)}: {kappa_words(self.kappa.value)}"
            )
            warning = quality_warning(JudgeQuality(self.judge.name, self.kappa.value, self.pairs))
            if warning is not None:
                lines.insert(0, warning)  # what a lead must read first
        if self.alpha.value is not None:
            lines.append(
                f"Ordinal α {score_text(self.alpha.value)}: {alpha_reading(self.alpha.value)}"
            )
        if self.ranking is not None:
            lines += tau_words(self.ranking)
        return lines

    def record(self) -> dict[str, Any]:
        """The calibration as JSON-ready values, in full precision."""
        judge = self.judge
        return {
            "source": self.source,
            "options": self.options.record(),
            "judge": {
                "name": judge.name,
                "method": judge.method,
                "model": judge.model,
                "description": judge.describe(),
                "prompt_version": judge.prompt_version,
                "endpoint": judge.endpoint,
                "graded": judge.graded,
                "failed": judge.failed,
                "details": judge.details,
            },
            "pairs": self.pairs,
            "queries": self.queries,
            "cohen_kappa_quadratic": self.kappa.record(),
            "krippendorff_alpha_ordinal": self.alpha.record(),
            "exact_agreement": self.exact,
            "within_one_agreement": self.within_one,
            "mean_bias": self.bias,
            "mean_absolute_difference": self.mean_absolute,
            "confusion": {"rows": "human grade", "columns": "judge grade"}
            | {"matrix": [list(row) for row in self.confusion]},
            "bias_by_grade": [row.record() for row in self.by_grade],
            "ranking": None if self.ranking is None else self.ranking.record(),
            "ranking_reason": self.ranking_reason,
            "best_run": self.best_run,
            "disagreeing_queries": [query.record() for query in self.disagreeing],
            "findings": self.findings(),
        }

    def as_text(self, output: str) -> str:
        """The calibration as ``table`` (rounded, for people), ``json`` or ``csv`` (long
        form, in full precision)."""
        if output not in OUTPUTS:
            raise UsageError(f"--format must be one of {', '.join(OUTPUTS)}")
        if output == "json":
            return json.dumps(self.record(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        if output == "csv":
            return self._csv()
        return self._table()

    def _csv(self) -> str:
        import pandas as pd

        from judge_app.io.exports import csv_text

        rows: list[dict[str, object]] = []

        def row(section: str, statistic: str, value: object, **where: object) -> None:
            rows.append({"section": section, "statistic": statistic, "value": value} | where)

        for key, value in (
            ("pairs", self.pairs),
            ("queries", self.queries),
            ("exact_agreement", self.exact),
            ("within_one_agreement", self.within_one),
            ("mean_bias", self.bias),
            ("mean_absolute_difference", self.mean_absolute),
        ):
            row("overall", key, value)
        for key, figure in (
            ("cohen_kappa_quadratic", self.kappa),
            ("krippendorff_alpha_ordinal", self.alpha),
        ):
            row("overall", key, figure.value, reason=figure.reason)
            low, high = figure.interval or (None, None)
            row("overall", f"{key}.low", low, reason=figure.interval_reason)
            row("overall", f"{key}.high", high, reason=figure.interval_reason)
        for human, counts in enumerate(self.confusion):
            for judged, count in enumerate(counts):
                row("confusion", "pairs", count, human_grade=human, judge_grade=judged)
        for grade in self.by_grade:
            for key in ("pairs", "mean_judge", "bias"):
                row("bias", key, getattr(grade, key), human_grade=grade.grade)
        if self.ranking is None:
            row("ranking", "kendall_tau", None, reason=self.ranking_reason)
        else:
            ranking = self.ranking
            for run in ranking.runs:
                for key in ("queries", "human", "judge", "human_rank", "judge_rank"):
                    row("ranking", key, getattr(run, key), run=run.run)
            row("ranking", "kendall_tau", ranking.tau.value, reason=ranking.tau.reason)
            row("ranking", "top_runs", ranking.top_runs)
            row("ranking", "top_kendall_tau", ranking.top_tau.value, reason=ranking.top_tau.reason)
        for query in self.disagreeing:
            for name, number in query.record().items():
                if name not in ("query_id", "query"):
                    row("query", name, number, query_id=query.query_id, run=self.best_run)
        frame = pd.DataFrame(rows, columns=CSV_COLUMNS, dtype=object)
        return csv_text(frame)

    def _table(self) -> str:
        judge, label = self.judge, self.label
        aggregate = self.options.aggregate
        lines = [
            f"Automatic judge {quoted(judge.name)}: {judge.describe()}; {judge.graded:,} grades, "
            f"{judge.failed:,} failure{'' if judge.failed == 1 else 's'}",
            *(f"  {line}" for line in details_lines(judge.details)),
            f"Compared with the humans of {self.source} on {self.pairs:,} pairs in "
            f"{self.queries:,} queries (humans' grades: {aggregate}"
            f"{', adjudicated preferred' if self.options.adjudicated else ''}; "
            f"grades rounded {ROUNDING})",
            "",
            *self.findings(),
            "",
            f"Cohen's κ, quadratic      {_figure(self.kappa)}",
            f"Krippendorff's α, ordinal {_figure(self.alpha)}",
            f"Exact agreement           {share_text(self.exact)}   within one grade "
            f"{share_text(self.within_one)}",
            f"Mean bias (judge − human) {signed_text(self.bias)}   mean |judge − human| "
            f"{score_text(self.mean_absolute)}",
            "",
            "Confusion: rows the humans' grade, columns the judge's",
            *_grid(
                ["human", *map(str, GRADES)],
                [
                    [str(grade), *(f"{n:,}" for n in row)]
                    for grade, row in enumerate(self.confusion)
                ],
            ),
            "",
            "Bias per human grade",
            *_grid(
                ["human", "pairs", "judge mean", "bias"],
                [
                    [str(g.grade), f"{g.pairs:,}", score_text(g.mean_judge), signed_text(g.bias)]
                    for g in self.by_grade
                ],
            ),
            "",
        ]
        if self.ranking is None:
            lines.append(f"Runs: {self.ranking_reason}")
        else:
            ranking = self.ranking
            lines.append(f"Runs by mean {label}, with the humans' grades and with the judge's")
            lines += _grid(
                ["run", "queries", "humans", "rank", "judge", "rank"],
                [
                    [
                        run.run,
                        f"{run.queries:,}",
                        score_text(run.human),
                        str(run.human_rank),
                        score_text(run.judge),
                        str(run.judge_rank),
                    ]
                    for run in ranking.runs
                ],
            )
            lines.append(f"Kendall's τ-b: {_figure(ranking.tau)}")
            lines.append(f"Kendall's τ-b {ranking.top_words()}")
            for left in ranking.left_out:
                lines.append(f"Left out: {left}")
        lines += [
            "",
            f"Queries that disagree most (best run by the humans: {self.best_run or MISSING})",
        ]
        lines += _grid(
            ["query", "pairs", "mean |Δ|", "mean Δ", f"{label} humans", "judge", "Δ"],
            [
                [
                    q.query_id,
                    f"{q.pairs:,}",
                    score_text(q.mean_absolute),
                    signed_text(q.mean_difference),
                    score_text(q.human_ndcg),
                    score_text(q.judge_ndcg),
                    signed_text(q.ndcg_difference),
                ]
                for q in self.disagreeing
            ],
        )
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Overview:
    """What the Automatic judges page shows: every automatic ``judges``, and the
    ``calibration`` of the one chosen, or why there is none (``reason``)."""

    judges: tuple[Judge, ...]
    calibration: Calibration | None
    reason: str | None


# --------------------------------------------------------------------------- words


def bias_words(bias: float) -> str:
    """``the judge grades 0.62 higher than humans on average — lenient``."""
    size = f"{abs(bias):.2f}"
    if bias > BIAS_TOLERANCE:
        return f"The judge grades {size} higher than humans on average — lenient"
    if bias < -BIAS_TOLERANCE:
        return f"The judge grades {size} lower than humans on average — strict"
    return (
        f"The judge grades within {BIAS_TOLERANCE:g} of humans on average ({signed_text(bias, 2)})"
        " — neither lenient nor strict"
    )


def kappa_words(kappa: float) -> str:
    """Landis and Koch's (1977) words for a kappa."""
    for bound, words in (
        (0.8, "almost perfect agreement"),
        (0.6, "substantial agreement"),
        (0.4, "moderate agreement"),
        (0.2, "fair agreement"),
        (0.0, "slight agreement"),
    ):
        if kappa > bound:
            return words
    return "no better than chance"


def tau_words(ranking: Ranking) -> list[str]:
    """What the two rankings' taus say: how far the judge orders the runs as humans do, and
    whether it tells the best runs apart worse."""
    tau, top = ranking.tau.value, ranking.top_tau.value
    if tau is None:
        return [f"Kendall's τ undefined: {ranking.tau.reason}"]
    if tau >= 0.9:
        how = "orders the runs as humans do"
    elif tau >= 0.7:
        how = "orders the runs much as humans do"
    elif tau >= 0.4:
        how = "orders the runs only roughly as humans do"
    else:
        how = "does not order the runs as humans do"
    lines = [f"Kendall's τ {score_text(tau)} over {len(ranking.runs)} runs: the judge {how}"]
    if top is not None and top < tau - TOP_TAU_DROP:
        lines.append(
            f"Among {ranking.top_label()} τ is only {score_text(top)}: the judge is less able "
            "to tell the best systems apart"
        )
    return lines


def details_lines(details: dict[str, Any]) -> list[str]:
    """A judge's report (a local model's held-out figures, its features) as lines of
    ``name: value``, numbers to four decimals, yes or no, "–" where a value is absent (null),
    nested reports indented by their name."""
    lines = []
    for key, value in details.items():
        name = str(key).replace("_", " ")
        if isinstance(value, dict):
            lines.append(f"{name}:")
            lines += [f"  {line}" for line in details_lines(value)]
        elif value is None:
            lines.append(f"{name}: {MISSING}")
        elif isinstance(value, bool):
            lines.append(f"{name}: {'yes' if value else 'no'}")
        elif isinstance(value, float):
            lines.append(f"{name}: {score_text(value)}")
        elif isinstance(value, list | tuple):
            lines.append(f"{name}: {', '.join(map(str, value))}")
        else:
            lines.append(f"{name}: {value}")
    return lines


def _figure(figure: Figure) -> str:
    if figure.value is None:
        return f"{MISSING} ({figure.reason})"
    text = score_text(figure.value)
    if figure.interval is not None:
        low, high = figure.interval
        text += f"   {CONFIDENCE:.0%} interval over queries {score_text(low)} – {score_text(high)}"
    return text


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    """Rows under a header, the first column left-aligned, the others right-aligned."""
    table = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return [
        "  "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        )
        for row in table
    ]


# --------------------------------------------------------------------------- computing


def calibrate(database: Database, options: CalibrationOptions) -> Calibration:
    """The calibration of ``options.judge`` against the humans of ``database``, read in one
    snapshot; a usage error naming the judge and the reason if there is none."""
    options.checked()
    overview = _read(database, options)
    if overview.calibration is None:
        raise UsageError(overview.reason or "no calibration")
    return overview.calibration


def calibrate_of(db: str, options: CalibrationOptions) -> Calibration:
    """``calibrate`` the database ``db`` (a path or URL), opened read-only."""
    from judge_app.store import open_database

    options.checked()
    with open_database(db, read_only=True) as database:
        return calibrate(database, options)


def overview_of(db: str, options: CalibrationOptions) -> Overview:
    """The automatic judges of the database ``db`` (opened read-only) and the calibration of
    ``options.judge`` (the first judge if None, or if it is gone), or why there is none."""
    from judge_app.store import open_database

    options.checked()
    with open_database(db, read_only=True) as database:
        return _read(database, options, first_if_gone=True)


def _read(database: Database, options: CalibrationOptions, first_if_gone: bool = False) -> Overview:
    """The judges of ``database`` and the calibration of the one ``options`` names (the first
    if it names none, or, ``first_if_gone``, one there is not), or why there is none."""
    from judge_app.commands.campaign import campaign_of
    from judge_app.store import automatic
    from judge_app.store.errors import StoreError

    source = database.describe()
    with database.reading() as session:
        judges = tuple(automatic.judges(session))
        if first_if_gone and options.judge not in {judge.name for judge in judges}:
            options = replace(options, judge=None)
        if not judges:
            reason = f"{source} has no automatic judge yet: {NO_JUDGE_HINT}"
            if options.judge is not None:
                reason = f"no automatic judge called {quoted(options.judge)}: " + reason
            return Overview(judges, None, reason)
        if options.judge is None:
            chosen = judges[0]
        else:
            try:
                chosen = automatic.judge(session, options.judge)
            except StoreError as error:
                return Overview(judges, None, str(error))
        grades = automatic.auto_grades_frame(session, chosen.rater_id)
        campaign = campaign_of(session, source, automatic=False)  # its grades: read above
    options = replace(options, judge=chosen.name)
    try:
        return Overview(judges, calibration_of(campaign, chosen, grades, options), None)
    except UsageError as error:
        return Overview(judges, None, str(error))


def calibration_of(
    campaign: Campaign, judge: Judge, grades: pd.DataFrame, options: CalibrationOptions
) -> Calibration:
    """The calibration of ``judge``'s ``grades`` (``query_id, doc_id, grade``) against the
    humans of ``campaign``; a usage error if they share no pair."""
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


def best_half(runs: int) -> int:
    """How many runs the best half of ``runs`` holds, rounded up: 2 of 3, 3 of 6."""
    return math.ceil(runs / 2)


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
