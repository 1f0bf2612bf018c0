"""``judge-app eval``: load runs and judgments (files or a database), evaluate, compare, format.

Evaluating files imports neither SQLAlchemy nor Qt: the store is loaded only for ``--db``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from judge_app.errors import JudgeAppError, quoted
from judge_app.io.errors import ImportFileError, Problem, nothing_in
from judge_app.io.text import file_format
from judge_app.metrics import formats
from judge_app.metrics.aggregation import aggregate_grades, parse_method
from judge_app.metrics.comparison import Comparison, compare_runs
from judge_app.metrics.ranking import (
    Evaluation,
    Frame,
    RepeatedDocument,
    Settings,
    evaluate,
    k_label,
)
from judge_app.names import similar_name, similar_reason

if TYPE_CHECKING:
    import pandas as pd


class UsageError(JudgeAppError):
    """The options do not make sense together (exit code 2)."""


@dataclass
class EvalRequest:
    """Everything ``judge-app eval`` was asked; see its ``--help``."""

    qrels: Path | None = None
    run_files: list[Path] = field(default_factory=list)
    db: str | None = None
    runs: list[str] | None = None
    aggregate: str = "mean"
    adjudicated: str = "prefer"
    raters: list[str] | None = None
    ks: list[str] = field(default_factory=lambda: ["10"])
    gain: str = "linear"
    ideal: str = "judged"
    unjudged: str = "zero"
    threshold: float = 1.0
    complete: bool = False
    per_query: bool = False
    per_rater: bool = False
    compare: bool = False
    output: str = "table"
    digits: int = 4
    permutations: int = 10_000
    seed: int = 0


def require_whole(
    option: str, value: int, low: int, high: int | None = None, note: str = ""
) -> None:
    """A usage error unless ``option``'s ``value`` is a whole number from ``low`` (to ``high``)."""
    if value < low or (high is not None and value > high):
        span = f"from {low}" + ("" if high is None else f" to {high}")
        raise UsageError(f"{option} takes a whole number {span}{note}")


def require_finite(option: str, value: float) -> None:
    """A usage error unless ``option``'s ``value`` is a finite number (not nan or inf)."""
    if not math.isfinite(value):
        raise UsageError(f"{option} takes a finite number (not nan or inf)")


def check_raters(raters: list[str] | None) -> None:
    """A usage error if ``--raters`` names nobody, or a rater twice."""
    if raters is None:
        return
    if not raters:
        raise UsageError("--raters needs at least one name: --raters a,b,c")
    if len(set(raters)) != len(raters):
        raise UsageError("--raters names a rater twice")


def parse_ks(values: list[str]) -> tuple[int | None, ...]:
    """``["10"]``, ``["5,10,20"]``, ``["all", "10"]`` → cut-offs, None for all, in order given."""
    ks: list[int | None] = []
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part == "all":
                k = None
            elif part.isdigit() and int(part) > 0:
                k = int(part)
            else:
                raise UsageError(f"--k {quoted(value)}: use whole numbers from 1, or all")
            if k not in ks:
                ks.append(k)
    return tuple(ks)


@dataclass
class Outcome:
    """What an evaluation request computed: per run, its evaluation; the comparisons (with
    ``compare``); each rater's own means (with ``per_rater``); the NDCG cut-offs asked for
    (``settings.ks`` may hold more, as trec_eval prints P and recall at 5 and 10); and the
    grades evaluated against."""

    settings: Settings
    ndcg_ks: tuple[int | None, ...]
    evaluations: dict[str, Evaluation]
    comparisons: list[Comparison] = field(default_factory=list)
    raters: pd.DataFrame | None = None
    qrels: Frame | None = None  # the grades evaluated against: one per (query, document)


ADJUDICATED_CHOICES = ("prefer", "ignore")


def evaluate_request(request: EvalRequest) -> Outcome:
    """Load, aggregate, evaluate and compare as ``request`` asks."""
    if request.db is not None:
        if request.qrels or request.run_files:
            raise UsageError("give either --db or --qrels with --run-file, not both")
        _checked(request)  # usage errors before the database is read
        judgments, runs = _from_database(request)
    elif request.qrels and request.run_files:
        _checked(request)
        judgments, runs = _from_files(request)
    else:
        raise UsageError("give --qrels QRELS and at least one --run-file RUN, or --db DB")
    return evaluate_loaded(request, judgments, runs)


def evaluate_loaded(request: EvalRequest, judgments: Frame, runs: dict[str, Frame]) -> Outcome:
    """Aggregate, evaluate and compare judgments and runs already loaded, as ``request`` asks
    (its sources aside): ``judge-app eval`` and the evaluation view both come through here."""
    settings, method = _checked(request)
    by_rater = "rater" in (
        judgments.column_names if isinstance(judgments, pa.Table) else judgments.columns
    )
    if request.per_rater and not by_rater:
        raise UsageError("--per-rater needs judgments with raters: --db, or a judgments CSV")
    source = str(request.db or request.qrels)
    prefer = request.adjudicated == "prefer"
    qrels = aggregated(judgments, method, source, prefer) if by_rater else judgments
    ndcg_ks = settings.ks
    if request.output == "trec":  # trec_eval always prints P and recall at 5 and 10
        cuts = tuple(k for k in formats.TREC_ALWAYS_CUTS if k not in settings.ks)
        settings = replace(settings, ks=settings.ks + cuts)
    try:
        evaluations = {name: evaluate(run, qrels, settings) for name, run in runs.items()}
    except RepeatedDocument as repeat:
        _explain(repeat, request)
    outcome = Outcome(settings, ndcg_ks, evaluations, qrels=qrels)
    if request.compare:
        measure = f"ndcg@{k_label(settings.ks[0])}"
        outcome.comparisons = compare_evaluations(
            evaluations, measure, permutations=request.permutations, seed=request.seed
        )
    if request.per_rater:
        from judge_app.metrics.raters import per_rater_means

        outcome.raters = per_rater_means(judgments, runs, settings)
    return outcome


def run_evaluation(request: EvalRequest) -> str:
    """Evaluate as asked and return the text to print."""
    outcome = evaluate_request(request)
    evaluations, comparisons, raters = outcome.evaluations, outcome.comparisons, outcome.raters
    if request.output == "trec":
        return formats.trec_text(evaluations, outcome.ndcg_ks, request.digits)
    if request.output == "csv":
        return formats.csv_text(evaluations, request.digits)
    if request.output == "json":
        record = _settings_record(request, outcome.settings)
        return formats.json_text(evaluations, comparisons, record, request.digits, raters)
    text = formats.summary_table(evaluations, request.digits, request.per_query)
    if raters is not None:
        text += "\nEach rater's own mean NDCG (over the queries they judged)\n"
        text += raters.round(request.digits).to_string(index=False) + "\n"
    return text + "".join("\n" + item.describe(request.digits) + "\n" for item in comparisons)


def _checked(request: EvalRequest) -> tuple[Settings, str]:
    """The settings and aggregation method of ``request``; a usage error if any is wrong."""
    settings = _settings(request)
    try:
        method = parse_method(request.aggregate)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if request.adjudicated not in ADJUDICATED_CHOICES:
        raise UsageError(f"--adjudicated must be one of {', '.join(ADJUDICATED_CHOICES)}")
    check_raters(request.raters)
    return settings, method


def _settings(request: EvalRequest) -> Settings:
    require_whole("--digits", request.digits, 0, 15)
    require_whole("--permutations", request.permutations, 1)
    require_whole("--seed", request.seed, 0)
    require_finite("--threshold", request.threshold)
    try:
        return Settings(
            ks=parse_ks(request.ks),
            gain=request.gain,
            ideal=request.ideal,
            unjudged=request.unjudged,
            threshold=request.threshold,
            complete=request.complete,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None


def _settings_record(request: EvalRequest, settings: Settings) -> dict:
    return {
        "k": [k_label(k) for k in settings.ks],
        "gain": settings.gain,
        "ideal": settings.ideal,
        "unjudged": settings.unjudged,
        "threshold": settings.threshold,
        "complete": settings.complete,
        "aggregate": request.aggregate,
        "adjudicated": request.adjudicated,
        "raters": request.raters,
    }


def _explain(repeat: RepeatedDocument, request: EvalRequest) -> None:
    """Raise the error naming the file and lines of a document twice for one query."""
    from judge_app.io import trec

    paths = [request.qrels] if repeat.source == "qrels" else request.run_files
    for path in paths:
        if path is not None and file_format(path) == "trec":
            trec.explain_repeats(path, repeat.source)
    raise JudgeAppError(str(repeat))


def _from_files(request: EvalRequest) -> tuple[Frame, dict[str, Frame]]:
    """Qrels (``query_id, doc_id, grade``) or raters' judgments, and the runs. (TREC files
    are read without pandas; the CSV, TSV and JSONL readers use it.)"""
    from judge_app.io import trec

    assert request.qrels is not None
    if file_format(request.qrels) == "trec":
        judgments = trec.read_qrels_file(request.qrels)
    else:
        from judge_app.io import readers

        judgments = readers.read_judgments(request.qrels)
    _refuse_empty(request.qrels, judgments, "judgments")
    if request.raters is not None:
        if isinstance(judgments, pa.Table):
            raise UsageError("--raters needs judgments with raters: --db, or a judgments CSV")
        judgments = of_raters(judgments, request.raters, str(request.qrels))
    runs: dict[str, Frame] = {}
    for path in request.run_files:
        if file_format(path) == "trec":
            run, name = trec.read_run_file(path)
        else:
            from judge_app.io import readers

            run = readers.read_results(path)[["query_id", "doc_id", "rank"]]
            name = path.stem
        _refuse_empty(path, run, "results")
        if name in runs:
            name = f"{name} ({path.name})"
        runs[name] = run
    return judgments, runs


def _refuse_empty(path: Path, rows: Frame, noun: str) -> None:
    """A data error if the file at ``path`` gave no ``rows``."""
    if not len(rows):
        raise ImportFileError(
            [Problem(str(path), None, None, nothing_in(noun, "nothing to evaluate"))]
        )


def _from_database(request: EvalRequest) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The raters' judgments and the runs of the database."""
    from judge_app.store import open_database, reads

    assert request.db is not None
    with open_database(request.db, read_only=True) as database, database.reading() as session:
        judgments = reads.grades_frame(session)
        results = reads.results_frame(session, request.runs)
    judgments = of_raters(judgments, request.raters, request.db)
    return judgments, runs_of(results, request.runs, request.db)


def runs_of(results: pd.DataFrame, names: list[str] | None, source: str) -> dict[str, pd.DataFrame]:
    """Each run's ``query_id, doc_id, rank`` (in order of run name), from a database's
    results; a usage error if a run asked for has none."""
    if names:
        unknown = sorted(set(names) - set(results["run"]))
        if unknown:
            raise UsageError(f"no results for run(s) {', '.join(unknown)} in {source}")
        results = results[results["run"].isin(names)]
    if results.empty:
        raise UsageError(f"{source} holds no run results: import a run first")
    return {
        name: group[["query_id", "doc_id", "rank"]]
        for name, group in results.groupby("run", sort=False)
    }


def of_raters(judgments: pd.DataFrame, raters: list[str] | None, source: str) -> pd.DataFrame:
    """The ``judgments`` by ``raters`` (all, without), read from ``source``; a data error
    naming any of them with no graded judgment."""
    if raters is None:
        return judgments
    graded = judgments.loc[judgments["grade"].notna(), "rater"].unique()
    unknown = [name for name in raters if name not in set(graded)]
    if unknown:
        raise JudgeAppError(unknown_raters(source, "graded judgments", unknown, graded))
    return judgments[judgments["rater"].isin(raters)]


def unknown_raters(source: str, what: str, unknown: list[str], known: Iterable[str]) -> str:
    """``source`` has no ``what`` by the ``unknown`` raters: the raters it knows, and those
    meant where a name differs from one only by case or spaces."""
    known = sorted(known)
    text = f"{source} has no {what} by {', '.join(map(quoted, unknown))}"
    text += f" (raters: {', '.join(known) or 'none'})"
    for name in unknown:
        similar = similar_name(name, known)
        if similar is not None:
            text += "; " + similar_reason(name, similar)
    return text


def aggregated(judgments: pd.DataFrame, method: str, source: str, prefer: bool) -> pd.DataFrame:
    """One grade per (query, document) of the raters' ``judgments`` read from ``source``
    (``aggregate_grades``); a data error if the one rater asked for has none."""
    raters = judgments["rater"].unique()
    if method.startswith("rater:") and method[len("rater:") :] not in set(raters):
        raise JudgeAppError(unknown_raters(source, "judgments", [method[6:]], raters))
    return aggregate_grades(judgments, method, prefer)


def compare_evaluations(
    evaluations: dict[str, Evaluation], measure: str, *, permutations: int, seed: int
) -> list[Comparison]:
    """Each run against the first on ``measure``, over the queries both have."""
    if len(evaluations) < 2:
        raise UsageError("--compare needs at least two runs")
    import pandas as pd

    scores = pd.concat(
        [
            evaluation.per_query[["query_id", measure]].assign(run=name)
            for name, evaluation in evaluations.items()
        ]
    )
    baseline, *others = evaluations
    return [
        compare_runs(scores, baseline, other, measure, permutations=permutations, seed=seed)
        for other in others
    ]
