"""Evaluate runs: NDCG and its family, the runs compared, each run's mean with its interval;
from files (``judge-app eval --qrels … --run-file …``) or a database (``eval --db``, the
evaluation page, the report), always through ``evaluate`` with one ``EvaluationOptions``.

Evaluating files imports neither SQLAlchemy, Qt nor pandas (TREC files are read with
pyarrow): the store is loaded for a database only, pandas where a frame is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from judge_app.commands import prediction_powered
from judge_app.commands.options import EvaluationOptions, check_known
from judge_app.commands.prediction_powered import PredictionPowered
from judge_app.commands.significance import SignificanceOptions, compare_evaluations
from judge_app.errors import JudgeAppError, UsageError
from judge_app.io.errors import ImportFileError, Problem, nothing_in
from judge_app.io.text import file_format
from judge_app.metrics.aggregation import (
    ADJUDICATED,
    aggregate_codes,
    aggregate_grades,
    parse_method,
)
from judge_app.metrics.codes import Coded, Graded, Results
from judge_app.metrics.comparison import Comparison, MeanInterval, bootstrap_interval
from judge_app.metrics.ranking import (
    Evaluation,
    Frame,
    RepeatedDocument,
    Settings,
    evaluate_codes,
    k_label,
)
from judge_app.metrics.ranking import (
    evaluate as run_metrics,
)
from judge_app.metrics.significance import Significance

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.orm import Session

    from judge_app.store import Database

Stamp = tuple[object, ...]


@dataclass(frozen=True)
class Campaign:
    """What a database holds for evaluation, read at one moment (``stamp``): the graded
    judgments and the run results as integer codes, the queries' texts."""

    source: str
    graded: Graded  # graded judgments only
    coded_results: Results  # coded with ``graded``'s query and document names
    queries: dict[str, str]  # query id → text
    stamp: Stamp
    judges: tuple[str, ...] = ()  # the automatic judges, by name
    automatic: pd.DataFrame | None = None  # their grades: ``query_id, doc_id, rater, grade``
    active: pd.DataFrame | None = None  # the active sample raters follow: ``query_id, judge,
    # scale, key`` in ascending key (``store.active_sample``); None in the assigned order

    def automatic_grades(self, judge: str) -> pd.DataFrame:
        """``query_id, doc_id, grade``: the automatic ``judge``'s grades; a usage error naming
        the judges there are if it is none of them."""
        from judge_app.names import known_name

        name = known_name(judge, self.judges)
        if name is None:
            names = ", ".join(self.judges) or "none yet: grade with judge-app autojudge"
            raise UsageError(f"--judge: {self.source} has no automatic judge {judge!r} ({names})")
        grades = self.automatic
        assert grades is not None, "a campaign read without its automatic grades"
        if not (grades["rater"] == name).any():
            raise UsageError(f"--judge: the automatic judge {name!r} has graded nothing yet")
        return grades.loc[grades["rater"] == name, ["query_id", "doc_id", "grade"]]

    @cached_property
    def judgments(self) -> pd.DataFrame:
        """``query_id, doc_id, rater, grade, skipped``: the graded judgments as a frame."""
        return self.graded.frame()

    @cached_property
    def results(self) -> pd.DataFrame:
        """``run, query_id, doc_id, rank``, in order of run, query and rank."""
        return self.coded_results.frame(self.graded)

    @property
    def runs(self) -> list[str]:
        return self.coded_results.run_names()

    @property
    def raters(self) -> list[str]:
        """The raters who graded something, the adjudicator left out."""
        return [name for name in self.graded.rater_names() if name != ADJUDICATED]

    @property
    def adjudicated(self) -> int:
        """How many grades a lead adjudicated."""
        return int(np.count_nonzero(self.graded.rater == self.graded.rater_code(ADJUDICATED)))

    def grade_counts(self) -> dict[str, list[int]]:
        """Each rater's number of grades 0 … 5."""
        graded = self.graded
        counts = np.bincount(
            graded.rater * 6 + graded.grade.astype(np.int64), minlength=6 * len(graded.raters)
        ).reshape(-1, 6)
        return {name: counts[graded.rater_code(name)].tolist() for name in self.raters}


def change_stamp(session: Session) -> Stamp:
    """Values that change whenever a judgment, a result, an automatic judge's answer or the
    active sample does, cheap enough to poll: a judgment added gets a new id, every change of
    one is a history event, a run imported again gets new result rows; automatic answers have
    no id, so their counts, the sum of their grades and the latest time stand for them, and
    the active sample's size, time and whether raters follow it."""
    row = session.connection().exec_driver_sql(
        "SELECT (SELECT coalesce(max(id), 0) FROM judgment), "
        "(SELECT coalesce(max(id), 0) FROM judgment_event), "
        "(SELECT coalesce(max(id), 0) FROM result), (SELECT count(*) FROM run), "
        "(SELECT count(*) FROM automatic_judge), (SELECT count(*) FROM auto_judgment), "
        "(SELECT count(grade) FROM auto_judgment), (SELECT sum(grade) FROM auto_judgment), "
        "(SELECT max(judged_at) FROM auto_judgment), (SELECT count(*) FROM active_sample), "
        "(SELECT max(drawn_at) FROM active_sample), "
        "(SELECT max(value) FROM setting WHERE key = 'pool.query_order')"
    )
    return tuple(_stamp_value(value) for value in row.one())


def _stamp_value(value: object) -> object:
    """A stamp's value the same however the database returns it: a time as text, nothing
    (an empty table's sum or time) as 0."""
    if value is None:
        return 0
    return value.isoformat(sep=" ") if isinstance(value, datetime) else value


def load_campaign(database: Database, queries: bool = True, automatic: bool = True) -> Campaign:
    """Read the graded judgments, the results, (``queries``) the queries' texts and
    (``automatic``) the automatic judges' grades and the active sample of ``database``, in one
    snapshot; the judges' names always. Readers that never evaluate a judge's grades (agreement,
    assignment, planning) leave ``automatic`` out."""
    with database.reading() as session:
        return campaign_of(session, database.describe(), queries, automatic)


def campaign_of(
    session: Session, source: str, queries: bool = True, automatic: bool = True
) -> Campaign:
    """``load_campaign`` within a reading ``session`` of the database ``source``."""
    from judge_app.store import active_sample, reads
    from judge_app.store.automatic import judge_names
    from judge_app.store.queue import pool_settings

    stamp = change_stamp(session)
    graded, results, names = reads.campaign_codes(session)
    texts = reads.queries_frame(session) if queries else None
    judges = tuple(judge_names(session))
    automatic = automatic and bool(judges)
    return Campaign(
        source=source,
        graded=Graded(
            graded["query_id"],
            graded["doc_id"],
            graded["rater"],
            graded["grade"].astype(np.float64),
            names["query_id"],
            names["doc_id"],
            names["rater"],
        ),
        coded_results=Results(
            results["run"], results["query_id"], results["doc_id"], results["rank"], names["run"]
        ),
        queries={} if texts is None else dict(zip(texts["query_id"], texts["text"].fillna(""))),
        stamp=stamp,
        judges=judges,
        automatic=reads.automatic_grades_frame(session) if automatic else None,
        active=active_sample.active_sample_frame(session)
        if automatic and pool_settings(session).query_order == "active"
        else None,
    )


def read_campaign(db: str, queries: bool = True, automatic: bool = True) -> Campaign:
    """``load_campaign`` of the database ``db`` (a path or URL), opened read-only."""
    from judge_app.store import open_database

    with open_database(db, read_only=True) as database:
        return load_campaign(database, queries, automatic)


@dataclass
class EvaluationResult:
    """What an evaluation computed: each run's per-query ``evaluations`` under ``settings``
    (the options' cut-offs, then any more asked for: the curve's, trec_eval's), the grades
    evaluated against (``qrels``), the raters' ``judgments`` they came from (both frames made
    when first asked for), the runs compared (``significance``; its pairs against the first
    run, or the baseline asked for, are ``comparisons``) and, if asked for, each rater's own
    means."""

    options: EvaluationOptions
    settings: Settings
    evaluations: dict[str, Evaluation]
    qrels_of: Callable[[], Frame] = field(repr=False)
    judgments_of: Callable[[], Frame] = field(repr=False)
    comparisons: list[Comparison] = field(default_factory=list)
    significance: Significance | None = None
    per_rater: pd.DataFrame | None = None
    table: pd.DataFrame | None = None  # a campaign's per-query table (``per_query_table``)
    corrected: PredictionPowered | None = None  # with ``grades`` ``corrected``
    _intervals: dict[tuple[str, int | None], MeanInterval] = field(default_factory=dict, repr=False)

    @cached_property
    def qrels(self) -> Frame:
        """``query_id, doc_id, grade``: the grades evaluated against."""
        return self.qrels_of()

    @cached_property
    def judgments(self) -> Frame:
        """The chosen raters' judgments the grades came from."""
        return self.judgments_of()

    @property
    def label(self) -> str:
        return self.options.label

    def interval(self, run: str, k: int | None = None) -> MeanInterval:
        """``run``'s mean NDCG@k (the leading k by default) with its bootstrap interval, drawn
        with the options' resamples and seed (computed once)."""
        k = self.options.k if k is None else k
        if (run, k) not in self._intervals:
            self._intervals[(run, k)] = bootstrap_interval(
                self.evaluations[run].values[f"ndcg@{k_label(k)}"],
                resamples=self.options.resamples,
                seed=self.options.seed,
            )
        return self._intervals[(run, k)]

    def scores(self, run: str) -> np.ndarray:
        """``run``'s per-query NDCG at the leading k."""
        return self.evaluations[run].values[self.options.measure]

    def curves(self) -> dict[str, tuple[list[int], list[float]]]:
        """Each run's mean NDCG@k for k = 1 … 20 (evaluated with ``curves=True``)."""
        ks = self.options.curve_ks()
        return {
            run: (ks, [float(evaluation.values[f"ndcg@{k}"].mean()) for k in ks])
            for run, evaluation in self.evaluations.items()
        }

    def differences(self) -> tuple[str, str, np.ndarray] | None:
        """(first run, second run, per-query second − first over the queries both have)."""
        if len(self.evaluations) < 2:
            return None
        import numpy as np

        (first, a), (second, b) = list(self.evaluations.items())[:2]
        measure = self.options.measure
        other = dict(zip(b.query_ids, b.values[measure]))
        values = [
            other[q] - value for q, value in zip(a.query_ids, a.values[measure]) if q in other
        ]
        return first, second, np.asarray(values, dtype=float)


def evaluate(
    options: EvaluationOptions,
    judgments: Frame,
    runs: dict[str, Frame],
    source: str,
    *,
    compare: bool = True,
    curves: bool = False,
    per_rater: bool = False,
    more_ks: Sequence[int | None] = (),
    significance: SignificanceOptions | None = None,
) -> EvaluationResult:
    """Evaluate ``runs`` against ``judgments`` read from ``source``, as ``options`` say: the
    chosen raters' grades, combined; the runs compared when two or more (``compare``, as
    ``significance`` says: by default with the options' permutations and seed); at the
    curve's cut-offs too (``curves``); each rater's own means (``per_rater``)."""
    options.checked()
    by_rater = "rater" in (
        judgments.column_names if isinstance(judgments, pa.Table) else judgments.columns
    )
    if not by_rater:
        for option, asked in (
            ("--per-rater", per_rater),
            ("--raters", options.raters),
            ("--aggregate", options.aggregate != "mean"),
        ):
            if asked:
                raise UsageError(f"{option} needs judgments with raters: --db, or a judgments CSV")
    if by_rater:
        judgments = of_raters(judgments, options.raters, source)
        qrels = aggregated(judgments, options.aggregate, source, options.adjudicated)
    else:
        qrels = judgments
    settings = options.settings([*(options.curve_ks() if curves else ()), *more_ks])
    evaluations = {name: run_metrics(run, qrels, settings) for name, run in runs.items()}
    if options.measures:
        from judge_app.metrics.named import named_values

        for name, evaluation in evaluations.items():
            evaluation.values.update(
                named_values(
                    runs[name],
                    qrels,
                    options.named_measures(),
                    evaluation.query_ids,
                    options.complete,
                )
            )
    result = EvaluationResult(options, settings, evaluations, lambda: qrels, lambda: judgments)
    if per_rater:
        from judge_app.metrics.raters import per_rater_means

        result.per_rater = per_rater_means(judgments, runs, options.settings())
    return _compared(result, compare, significance, source)


def evaluate_coded(
    options: EvaluationOptions,
    campaign: Campaign,
    *,
    compare: bool = True,
    curves: bool = False,
    per_rater: bool = False,
    more_ks: Sequence[int | None] = (),
    source: str | None = None,
    significance: SignificanceOptions | None = None,
) -> EvaluationResult:
    """``evaluate`` a database's ``campaign`` on its integer codes: the same numbers, without
    a string per judgment. Messages name ``source`` (the campaign's by default). With
    ``grades`` ``automatic``, the judge's grades are evaluated instead (as qrels); with
    ``corrected``, each run's mean is also estimated from both (``corrected``)."""
    options.checked()
    source, graded = source or campaign.source, campaign.graded
    if options.grade_source == "automatic":
        if per_rater:
            raise UsageError("--per-rater is of human raters: --grades automatic has none")
        result = _judge_evaluation(
            options,
            campaign,
            source,
            compare=compare,
            curves=curves,
            more_ks=more_ks,
            significance=significance,
        )
        result.options = options
        return result
    if options.raters is not None:
        check_known(options.raters, graded.rater_names(), "rater", "--raters", source)
        chosen = [graded.rater_code(name) for name in options.raters]
        graded = graded.where(np.isin(graded.rater, chosen))
    runs = _coded_runs(campaign.coded_results, options.runs, source)
    qrels = _coded_qrels(graded, options.aggregate, options.adjudicated, source)
    queries = [str(name) for name in graded.queries]
    settings = options.settings([*(options.curve_ks() if curves else ()), *more_ks])
    evaluations = {
        name: evaluate_codes(queries, run, qrels, settings) for name, run in runs.items()
    }
    if options.measures:
        from judge_app.metrics.named import named_values_of_codes

        for name, evaluation in evaluations.items():
            evaluation.values.update(
                named_values_of_codes(
                    graded.queries,
                    graded.docs,
                    runs[name],
                    qrels,
                    options.named_measures(),
                    evaluation.query_ids,
                    options.complete,
                )
            )

    def qrels_frame() -> pd.DataFrame:
        import pandas as pd

        query, doc, grade = qrels
        return pd.DataFrame(
            {"query_id": graded.queries[query], "doc_id": graded.docs[doc], "grade": grade}
        )

    result = EvaluationResult(options, settings, evaluations, qrels_frame, graded.frame)
    if per_rater:
        from judge_app.agreement.stability import rater_means

        result.per_rater = rater_means(graded, runs, options.settings())
    if options.grade_source == "corrected":
        result.corrected = _prediction_powered(result, campaign, graded, source)
    return _compared(result, compare, significance, source)


def _judge_evaluation(
    options: EvaluationOptions,
    campaign: Campaign,
    source: str,
    *,
    compare: bool = True,
    curves: bool = False,
    more_ks: Sequence[int | None] = (),
    significance: SignificanceOptions | None = None,
) -> EvaluationResult:
    """The chosen runs of ``campaign`` evaluated on the options' judge's grades alone."""
    assert options.judge is not None
    grades = campaign.automatic_grades(options.judge)
    results = campaign.results
    check_known(options.runs, campaign.runs, "run", "--run", source)
    chosen = list(options.runs) if options.runs else campaign.runs
    runs = {
        name: results.loc[results["run"] == name, ["query_id", "doc_id", "rank"]] for name in chosen
    }
    plain = replace(options, judge=None, grades=None)
    return evaluate(
        plain,
        grades,
        runs,
        source,
        compare=compare,
        curves=curves,
        more_ks=more_ks,
        significance=significance,
    )


def _prediction_powered(
    result: EvaluationResult, campaign: Campaign, graded: Graded, source: str
) -> PredictionPowered:
    """``result`` (on the human grades ``graded``) corrected by the options' judge
    (``prediction_powered``)."""
    options = result.options
    judge = replace(options, grades="automatic")
    automatic = _judge_evaluation(judge, campaign, source, compare=False)
    counts = np.bincount(graded.query, minlength=len(graded.queries))
    grades_per_query = {str(name): int(count) for name, count in zip(graded.queries, counts)}
    return prediction_powered.estimate(
        options,
        result.evaluations,
        automatic.evaluations,
        grades_per_query,
        _design(campaign, options.judge),
    )


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


def _compared(
    result: EvaluationResult,
    compare: bool,
    significance: SignificanceOptions | None,
    source: str,
) -> EvaluationResult:
    """``result`` with its runs compared as ``significance`` says (by default: every pair,
    with the evaluation's permutations and seed), if asked and there are two or more."""
    if compare and len(result.evaluations) >= 2:
        options = significance or SignificanceOptions.following(result.options)
        compared = compare_evaluations(result.evaluations, result.options.measure, options, source)
        first = compared.baseline or compared.runs[0]
        result.significance = compared
        result.comparisons = [pair.comparison for pair in compared.pairs if pair.baseline == first]
    return result


def _coded_runs(results: Results, names: Sequence[str] | None, source: str) -> dict[str, Coded]:
    """Each run's (query, document, rank) codes, in order of run name; a usage error naming
    a run asked for that ``source`` does not hold."""
    if not len(results.run):
        raise UsageError(f"{source} holds no run results: import a run first")
    check_known(names, results.run_names(), "run", "--run", source)
    return results.by_run(list(names) if names else None)


def _coded_qrels(graded: Graded, method: str, prefer: bool, source: str) -> Coded:
    """(query, document, grade) codes, in order of query and document, of ``graded``
    combined by ``method`` (``aggregated`` on codes)."""
    method = parse_method(method)
    width = len(graded.docs)
    pairs = graded.query * width + graded.doc
    if method.startswith("rater:"):
        check_known([method[6:]], graded.rater_names(), "rater", "--aggregate", source)
        mine = graded.rater == graded.rater_code(method[6:])
        order = np.argsort(pairs[mine], kind="stable")
        keys, grades = pairs[mine][order], graded.grade[mine][order].astype(np.float64)
    else:
        adjudicated = graded.rater_code(ADJUDICATED)
        keys, grades = aggregate_codes(
            pairs, graded.rater, graded.grade, method, adjudicated, prefer
        )
    return keys // width, keys % width, grades


def evaluate_campaign(
    campaign: Campaign,
    options: EvaluationOptions,
    significance: SignificanceOptions | None = None,
) -> EvaluationResult:
    """``evaluate`` the chosen runs of ``campaign`` (a database's) as the evaluation page and
    the report show them: compared (as ``significance`` says), with the curve and the
    per-query table."""
    result = evaluate_coded(options, campaign, curves=True, significance=significance)
    result.table = per_query_table(result, campaign.queries)
    return result


def of_raters(judgments: pd.DataFrame, raters: Sequence[str] | None, source: str) -> pd.DataFrame:
    """The ``judgments`` by ``raters`` (all, without); a usage error naming any with no
    graded judgment in ``source``."""
    if raters is None:
        return judgments
    graded = judgments.loc[judgments["grade"].notna(), "rater"].unique()
    check_known(raters, graded, "rater", "--raters", source)
    return judgments[judgments["rater"].isin(raters)]


def aggregated(judgments: pd.DataFrame, method: str, source: str, prefer: bool) -> pd.DataFrame:
    """One grade per (query, document) of the raters' ``judgments`` (``aggregate_grades``);
    a usage error if the one rater asked for has none in ``source``."""
    method = parse_method(method)
    if method.startswith("rater:"):
        check_known([method[6:]], judgments["rater"].unique(), "rater", "--aggregate", source)
    return aggregate_grades(judgments, method, prefer)


def read_files(qrels: Path, run_files: Sequence[Path]) -> tuple[Frame, dict[str, Frame]]:
    """Qrels (``query_id, doc_id, grade``) or raters' judgments, and the runs, by name. TREC
    files are read without pandas; the CSV, TSV and JSONL readers use it. A document twice
    for one query is refused with its file and lines, as trec_eval refuses it."""
    from judge_app.io import trec

    if file_format(qrels) == "trec":
        judgments = trec.read_qrels_file(qrels)
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


def evaluate_files(
    options: EvaluationOptions,
    qrels: Path,
    run_files: Sequence[Path],
    *,
    compare: bool = False,
    per_rater: bool = False,
    more_ks: Sequence[int | None] = (),
    significance: SignificanceOptions | None = None,
) -> EvaluationResult:
    """``evaluate`` the runs of ``run_files`` against the judgments of ``qrels``. A document
    twice for one query is refused with its file and lines, as trec_eval refuses it."""
    if options.runs is not None:
        raise UsageError("--run chooses among a database's runs: give files with --run-file")
    judgments, runs = read_files(qrels, run_files)
    try:
        return evaluate(
            options,
            judgments,
            runs,
            str(qrels),
            compare=compare,
            per_rater=per_rater,
            more_ks=more_ks,
            significance=significance,
        )
    except RepeatedDocument as repeat:
        from judge_app.io import trec

        for path in [qrels] if repeat.source == "qrels" else run_files:
            if file_format(path) == "trec":
                trec.explain_repeats(path, repeat.source)  # raises, naming the lines
        raise JudgeAppError(str(repeat)) from None


def _refuse_empty(path: Path, rows: Frame, noun: str) -> None:
    """A data error if the file at ``path`` gave no ``rows``."""
    if not len(rows):
        raise ImportFileError(
            [Problem(str(path), None, None, nothing_in(noun, "nothing to evaluate"))]
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


TABLE_DIGITS = 4
"""Digits of the numbers in tables for people; machine formats carry full precision."""


def as_text(
    result: EvaluationResult, output: str, digits: int | None = None, per_query: bool = False
) -> str:
    """The evaluation as ``eval --format`` prints it: ``trec`` (as ``trec_eval -q``, 4 digits
    as it prints them), ``json`` and ``csv`` (full precision unless ``digits``; with the runs
    compared, the CSV is a row per pair of runs), ``table``, and each run's means for a
    paper, ``latex`` and ``markdown`` (4 digits unless ``digits``; significance marks from the
    comparison's verdict)."""
    from judge_app.commands import significance as compared
    from judge_app.metrics import formats

    evaluations, ks, significance = result.evaluations, result.options.ks, result.significance
    if output in ("latex", "markdown"):
        from judge_app.metrics import paper_tables

        typeset = paper_tables.latex_table if output == "latex" else paper_tables.markdown_table
        shown = TABLE_DIGITS if digits is None else digits
        return typeset(evaluations, ks, significance, shown, result.options.measures)
    if output == "trec":
        return formats.trec_text(evaluations, ks, TABLE_DIGITS if digits is None else digits)
    corrected = result.corrected
    if output == "csv":
        if corrected is not None:
            import pandas as pd

            from judge_app.io import exports

            frame = pd.DataFrame(corrected.csv_rows())
            return exports.csv_text(frame, float_format=None if digits is None else f"%.{digits}f")
        if significance is not None:
            return compared.csv_text(significance, digits)
        return formats.csv_text(evaluations, digits)
    if output == "json":
        return formats.json_text(
            evaluations,
            result.comparisons,
            result.options.record(),
            digits,
            result.per_rater,
            None if significance is None else compared.as_document(significance, digits),
            None
            if corrected is None
            else (
                corrected.document(digits),
                {run: item.record(digits) for run, item in corrected.runs.items()},
            ),
        )
    shown = TABLE_DIGITS if digits is None else digits
    intervals = {(run, k): result.interval(run, k) for run in evaluations for k in ks}
    text = formats.summary_table(
        evaluations, ks, intervals, shown, per_query, result.options.measures
    )
    if result.per_rater is not None:
        text += "\nEach rater's own mean NDCG (over the queries they judged)\n"
        text += result.per_rater.round(shown).to_string(index=False) + "\n"
    if corrected is not None:
        text += "\n" + corrected.table_text(shown)
    if significance is not None:
        text += "\n" + compared.table_text(significance, shown)
    return text
