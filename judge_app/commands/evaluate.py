"""Evaluate runs: NDCG and its family, the runs compared, each run's mean with its interval,
the means corrected by an automatic judge, the runs scored by preference judgments; of a
database (``eval --db``, the evaluation page, the report) or of files (``eval --qrels …
--run-file …``). Every caller makes one call, :func:`evaluate`, with one ``EvaluationRequest``
(the evaluation page and the report: :func:`evaluate_shown`); files are coded where they are
read, so both take the one engine (``judge_app.evaluation.engine``) to the same numbers.

Evaluating files imports neither SQLAlchemy, Qt nor pandas (TREC files are read with
pyarrow): the store is loaded for a database only, pandas where a frame is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.errors import JudgeAppError, UsageError
from judge_app.evaluation import engine
from judge_app.evaluation.campaign import Campaign
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest
from judge_app.evaluation.result import EvaluationResult
from judge_app.io.errors import ImportFileError, Problem, nothing_in
from judge_app.io.text import file_format
from judge_app.metrics.codes import RepeatedDocument, code_frames
from judge_app.option_declarations import JUDGE, RUNS

if TYPE_CHECKING:
    from judge_app.metrics.codes import Frame


@dataclass(frozen=True)
class Files:
    """Judgments (TREC qrels, or raters' judgments as CSV, TSV or JSONL) and run files (TREC
    runs, or results as CSV, TSV or JSONL) to evaluate."""

    qrels: Path
    runs: tuple[Path, ...]


Source = Campaign | Files | str
"""What an evaluation is of: a campaign already read, files, or a database (path or URL)."""


def evaluate(request: EvaluationRequest, source: Source) -> EvaluationResult:
    """The evaluation ``request`` asks for, of ``source``: a campaign read already (the
    window's, the report's), files (read and coded here) or the database at a path or URL
    (read once, read-only: the queries' texts only for the per-query table, the automatic
    grades only with a judge)."""
    if isinstance(source, Files):
        return _of_files(request, source)
    if isinstance(source, str):
        from judge_app.commands.campaign import read_campaign

        options = request.options
        source = read_campaign(source, queries=request.table, automatic=options.judge is not None)
    result = engine.evaluate(request, source)
    if result.table is not None and result.preferences is not None:
        from judge_app.evaluation.preferences import with_per_query_columns

        result.table = with_per_query_columns(result.table, result.preferences, source.queries)
    return result


def evaluate_shown(options: EvaluationOptions, campaign: Campaign) -> EvaluationResult:
    """The evaluation as the evaluation page and the report show it
    (``EvaluationRequest.shown``): where ``campaign`` holds preference judgments, the runs
    scored by their compatibility too, as ``eval --db --measure Compat --compare`` scores
    them (``evaluation.preferences.shown_measures``)."""
    from judge_app.evaluation.preferences import shown_measures

    shown = shown_measures(options, campaign.preferences)
    return evaluate(EvaluationRequest.shown(shown), campaign)


def _of_files(request: EvaluationRequest, files: Files) -> EvaluationResult:
    """``evaluate`` of files: a document twice for one query is refused with its file and
    lines, as trec_eval refuses it."""
    options = request.options
    if options.runs is not None:
        raise UsageError("chooses among a database's runs: give files with --run-file", RUNS.name)
    if options.judge is not None:
        raise UsageError("chooses a database's automatic judge: evaluate it with --db", JUDGE.name)
    judgments, runs = read_files(files.qrels, files.runs)
    try:
        graded, results = code_frames(judgments, runs)
    except RepeatedDocument as repeat:
        from judge_app.io import trec

        for path in [files.qrels] if repeat.source == "qrels" else files.runs:
            if file_format(path) == "trec":
                trec.explain_repeats(path, repeat.source)  # raises, naming the lines
        raise JudgeAppError(str(repeat)) from None
    columns = judgments.column_names if hasattr(judgments, "column_names") else judgments.columns
    campaign = Campaign(
        str(files.qrels), graded, results, {}, with_raters="rater" in columns, run_order=tuple(runs)
    )
    return engine.evaluate(request, campaign)


def read_files(qrels: Path, run_files: Sequence[Path]) -> tuple[Frame, dict[str, Frame]]:
    """Qrels (``query_id, doc_id, grade``) or raters' judgments, and the runs, by name. TREC
    files are read without pandas; the CSV, TSV and JSONL readers use it."""
    from judge_app.io import trec

    if file_format(qrels) == "trec":
        judgments: Frame = trec.read_qrels_file(qrels)
    else:
        from judge_app.io import readers

        judgments = readers.read_judgments(qrels)
    _refuse_empty(qrels, judgments, "judgments")
    runs: dict[str, Frame] = {}
    for path in run_files:
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
