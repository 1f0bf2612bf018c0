"""The ``judge-app`` command line; ``judge-app`` alone opens the judging window.

A thin adapter: each command parses its arguments into the options of a use case of
``judge_app.commands``, calls it and prints what it returns. Exit codes: 0 success, 1 a data
error (the message on stderr, never a traceback), 2 a usage error.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge_app.errors import JudgeAppError, UsageError, in_words
from judge_app.io.exchange.format_names import FORMAT_NAMES
from judge_app.option_declarations import (
    ADJUDICATED,
    AGGREGATE,
    CUTOFF,
    GAIN,
    GRADES,
    IDEAL,
    JUDGE,
    MEASURES,
    RATERS,
    RUNS,
    UNJUDGED,
    Option,
    flag_of,
)

if TYPE_CHECKING:
    from judge_app.commands.importing import ImportProgress
    from judge_app.evaluation.options import EvaluationOptions, SignificanceOptions

DB_HELP = "the database: a SQLite file, or a PostgreSQL URL (postgresql+psycopg://…)"
DIGITS_HELP = "round numbers to N digits (tables: 4; JSON and CSV: in full unless given)"
RATER_COMMANDS = {"init", "gui", "team"}
"""What a rater's login may run on a team database (``team`` checks its own: the owner's);
every other command is a lead's."""
PASSWORD_ENV = "JUDGE_APP_PASSWORD"
"""Where ``team add`` reads a new login's password from, when set."""


class Once(argparse.Action):
    """An option given at most once: argparse would keep the last of two and drop the first
    without a word (``import --run A --run B`` imported B alone)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} is given twice: import one at a time")
        setattr(namespace, self.dest, values)


def _add_db(parser: argparse.ArgumentParser) -> None:
    """The database a command works on: its first argument."""
    parser.add_argument("db", metavar="DB", help=DB_HELP)


def _add_format(parser: argparse._ActionsContainer, *more: str) -> None:
    """--format: a table for people, or (``more``) csv, and json, in full precision."""
    choices = ["table", *more, "json"]
    parser.add_argument(
        "--format",
        choices=choices,
        default="table",
        help=f"table for people (rounded), or {' or '.join(choices[1:])} in full precision "
        "(default table)",
    )


def add_to(
    parser: argparse._ActionsContainer, option: Option[Any], more_help: str = "", **settings: Any
) -> argparse.Action:
    """Add ``option`` to ``parser`` as its declaration says: its flag, choices, default,
    metavar and help, then ``more_help`` (what only the flag takes); ``settings`` are
    argparse's own (``action="append"``) or override the declaration's."""
    declared: dict[str, Any] = {"default": option.default, "help": option.help + more_help}
    if option.choices:
        declared["choices"] = list(option.choices)
    if option.metavar is not None:
        declared["metavar"] = option.metavar
    return parser.add_argument(option.flag, **(declared | settings))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-app",
        description="Relevance judging and ranking evaluation. DB is a SQLite file path or a "
        "database URL (postgresql+psycopg://user@host/db).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    init = commands.add_parser("init", help="create a database (or upgrade an existing one)")
    _add_db(init)

    load = commands.add_parser(
        "import",
        help="import queries, documents, a run and judgments (all or nothing)",
        description="Import files into DB in one transaction: a problem in any file changes "
        "nothing. Formats follow the file extension: .csv, .tsv, .jsonl; anything else is read "
        "as a TREC run or TREC qrels.",
    )
    _add_db(load)
    load.add_argument(
        "--queries", type=Path, action=Once, metavar="FILE", help="query_id,text[,description]"
    )
    load.add_argument(
        "--documents", type=Path, action=Once, metavar="FILE", help="doc_id[,title,url,body]"
    )
    load.add_argument(
        "--run",
        type=Path,
        action=Once,
        metavar="FILE",
        help="query_id,doc_id,rank[,score] or TREC run",
    )
    load.add_argument(
        "--run-name",
        action=Once,
        metavar="NAME",
        help="name of the run (default: TREC tag or file name)",
    )
    load.add_argument(
        "--judgments",
        type=Path,
        action=Once,
        metavar="FILE",
        help="query_id,doc_id,rater,grade[,note] or TREC qrels",
    )
    load.add_argument(
        "--rater",
        action=Once,
        metavar="NAME",
        help="the rater of a qrels file (or of a file without a rater column)",
    )
    load.add_argument(
        "--strict",
        action="store_true",
        help="refuse queries and documents the database does not know",
    )
    load.add_argument(
        "--from",
        dest="source",
        type=Path,
        action=Once,
        metavar="PATH",
        help="another tool's file (a BEIR folder): its queries, documents and judgments",
    )
    load.add_argument(
        "--format",
        action=Once,
        choices=FORMAT_NAMES,
        help="the format of --from (default: recognised by its shape)",
    )
    load.add_argument(
        "--grade-map",
        action=Once,
        metavar="FROM=TO,…",
        help="turn --from's grades into 0–5, e.g. 1=0,2=0,3=1,…,10=5 (a grade it does not "
        "name is refused)",
    )

    export = commands.add_parser(
        "export", help="export judgments as CSV, aggregated qrels, or their history as CSV"
    )
    _add_db(export)
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--judgments", type=Path, metavar="OUT.csv", help="one row per rater judgment"
    )
    target.add_argument("--qrels", type=Path, metavar="OUT", help="TREC qrels, one grade per pair")
    target.add_argument(
        "--history",
        type=Path,
        metavar="OUT.csv",
        help="every change of every judgment: from what to what, when, and the database login "
        "that made it",
    )
    target.add_argument(
        "--to",
        type=Path,
        metavar="OUT",
        help="another tool's format, given by --format (a BEIR export is a new folder)",
    )
    export.add_argument(
        "--format", choices=FORMAT_NAMES, help="for --to: the format to write (required)"
    )
    add_to(export, AGGREGATE, choices=None, help=f"for --qrels and --to: {AGGREGATE.help}")
    add_to(export, ADJUDICATED)

    info = commands.add_parser(
        "info", help="what the database holds: counts, raters, runs, coverage"
    )
    _add_db(info)

    demo = commands.add_parser("demo", help="create DB filled with the demo data set")
    _add_db(demo)

    gui = commands.add_parser(
        "gui",
        help="open the judging window on DB (judge-app alone opens the last database used)",
    )
    _add_db(gui)
    gui.add_argument(
        "--rater", metavar="NAME", help="judge as NAME (created if DB does not know it yet)"
    )
    assign = commands.add_parser(
        "assign",
        help="assign the queries to raters, with overlap for agreement",
        description="Put DB's queries in the raters' queues: every query to N of the raters "
        "(--copies N, in rotation, so each gets the same load give or take one), or a share of "
        "the queries to every rater and each other query to one of them in turn (--share P), "
        "or each disputed query to one more rater (--where-disputed): one who has neither "
        "judged it nor has it in their queue (a rater with no queue who has judged has every "
        "query), the one given the fewest so far first, in the order of --raters. Disputed is "
        "what the agreement page shows: a document whose raters' grades differ by --min-gap or "
        "more, or the query's ordinal alpha below --max-alpha; a document a lead decided "
        "(adjudicated) counts no more. A disputed query no rater is free for is named. "
        "Raters DB does not know yet are added. Queries already in a rater's queue stay "
        "(--replace makes the plan their whole queue; judgments are never touched).",
    )
    _add_db(assign)
    assign.add_argument("--raters", required=True, metavar="A,B,C", help="who judges")
    overlap = assign.add_mutually_exclusive_group(required=True)
    overlap.add_argument("--copies", type=int, metavar="N", help="raters per query")
    overlap.add_argument(
        "--share", type=float, metavar="P", help="percent of the queries every rater judges"
    )
    overlap.add_argument(
        "--where-disputed",
        action="store_true",
        help="each disputed query to one more rater",
    )
    assign.add_argument("--replace", action="store_true", help="replace the raters' queues")
    assign.add_argument(
        "--min-gap",
        type=int,
        metavar="G",
        help="with --where-disputed: grades this far apart (1-5, default 2) dispute a document",
    )
    assign.add_argument(
        "--max-alpha",
        type=float,
        metavar="A",
        help="with --where-disputed: a query whose ordinal alpha is below A (-1 to 1) is "
        "disputed too",
    )
    _add_raters_parser(commands)
    _add_gold_parser(commands)
    _add_eval_parser(commands)
    _add_agreement_parser(commands)
    _add_packet_parser(commands)
    _add_preferences_parser(commands)
    _add_report_parser(commands)
    commands.add_parser(
        "trec-eval",
        add_help=False,
        help="trec_eval 10.0's command: its options, measures and output byte for byte "
        "(judge-app trec-eval -h)",
    )
    _add_plan_parser(commands)
    _add_calibrate_parser(commands)
    _add_autojudge_parser(commands)
    _add_autojudge_pairs_parser(commands)
    _add_fetch_parser(commands)
    _add_ensemble_parser(commands)
    _add_sample_parser(commands)
    _add_settings_parser(commands)
    return parser


def _add_raters_parser(commands: argparse._SubParsersAction) -> None:
    raters = commands.add_parser(
        "raters",
        help="each rater's quality figures: speed, self-agreement, gold, agreement, drift",
        description="Per rater: assigned, done, remaining and skipped work; median seconds "
        "per judgment, judgments per active hour and the share faster than the fastest "
        "credible judgment; self-agreement on hidden repeats (exact, within one, quadratic "
        "kappa); accuracy on gold items (exact, within one, mean absolute error, bias = "
        "grade minus gold); ordinal alpha against the other raters and the agreement page's "
        "alpha contribution; their drift by day and by block of 50 judgments (JSON). A "
        "warning in plain words names each figure out of line.",
    )
    _add_db(raters)
    _add_format(raters, "csv")
    raters.add_argument(
        "--min-seconds",
        type=float,
        metavar="S",
        help="the fastest credible judgment for this report (default: the lead's setting)",
    )
    raters.add_argument(
        "--too-fast",
        type=Path,
        metavar="OUT.csv",
        help="also write the judgments made faster than that, one per row",
    )


def _add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """The options of an evaluation, the same for ``eval`` and ``report``."""
    chosen = parser.add_argument_group("what is evaluated")
    add_to(chosen, RUNS, "; repeat the flag for several", action="append")
    add_to(chosen, AGGREGATE, choices=None)  # a rater's own too: rater:NAME
    add_to(chosen, ADJUDICATED)
    add_to(chosen, RATERS)
    add_to(chosen, JUDGE)
    add_to(chosen, GRADES, choices=None)  # checked by EvaluationOptions, naming its choices
    measures = parser.add_argument_group("measures")
    # appended to no default: the declared one is taken when none is given
    several = "; several: 5,10,20 or the flag repeated, the first leading"
    add_to(measures, CUTOFF, several, action="append", default=None)
    guide = " (repeatable; the names, and trec_eval's, in docs/measures.md)"
    add_to(measures, MEASURES, guide, action="append")
    add_to(measures, GAIN)
    add_to(measures, IDEAL)
    add_to(measures, UNJUDGED)
    measures.add_argument(
        "--threshold",
        type=float,
        default=1.0,
        help="lowest relevant grade for P, recall, RR, AP (default 1)",
    )
    measures.add_argument(
        "--complete",
        action="store_true",
        help="judged queries missing from a run score 0 (trec_eval -c)",
    )
    statistics = parser.add_argument_group("statistics")
    statistics.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        metavar="N",
        help="of the randomization test and the randomized Tukey HSD (default 10,000)",
    )
    statistics.add_argument(
        "--seed", type=int, default=0, help="of the randomized tests (default 0)"
    )


def _evaluation_options(args: argparse.Namespace) -> EvaluationOptions:
    """The evaluation's options as the arguments give them, checked."""
    from judge_app.evaluation.options import EvaluationOptions, measure_names, parse_ks
    from judge_app.options import names

    return EvaluationOptions(
        ks=parse_ks(args.k or [str(CUTOFF.default)]),
        gain=args.gain,
        ideal=args.ideal,
        unjudged=args.unjudged,
        threshold=args.threshold,
        complete=args.complete,
        aggregate=args.aggregate,
        adjudicated=args.adjudicated == "prefer",
        runs=names(",".join(args.run), RUNS.name, "run") if args.run else None,
        raters=names(args.raters, RATERS.name),
        seed=args.seed,
        permutations=args.permutations,
        measures=measure_names(args.measure),
        judge=args.judge,
        grades=args.grades,
    ).checked()


def _add_eval_parser(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="NDCG@k and its family for runs, from files or a database",
        description="Evaluate runs as trec_eval does: from files (--qrels with one or more "
        "--run-file) or from a database (--db). A run's values are means over the queries "
        "that have judgments and results (sums for the counts NumQ, NumRet and NumRel, as "
        "trec_eval's all line); the others are reported.",
    )
    source = evaluate.add_argument_group("source")
    source.add_argument("--qrels", type=Path, metavar="QRELS", help="TREC qrels, or judgments CSV")
    source.add_argument(
        "--run-file",
        type=Path,
        action="append",
        default=[],
        metavar="RUN",
        help="TREC run (or results CSV); repeat for several runs",
    )
    source.add_argument("--db", metavar="DB", help="a judge_app database")
    _add_evaluation_options(evaluate)
    output = evaluate.add_argument_group("output")
    output.add_argument("--per-query", action="store_true", help="a row per query too")
    output.add_argument(
        "--per-rater", action="store_true", help="each rater's own mean NDCG of every run"
    )
    output.add_argument(
        "--compare",
        action="store_true",
        help="compare the runs: every pair (or each against --baseline) by the paired "
        "t-test, Wilcoxon signed-rank, sign and randomization tests, each p-value also "
        "adjusted by Holm and Benjamini-Hochberg, and by randomized Tukey HSD with its "
        "groups; effects: mean difference with the interval of the test the verdict comes "
        "from, Cohen's d_z (noncentral-t interval), wins/ties/losses. CSV: a row per pair",
    )
    output.add_argument(
        "--tests",
        metavar="T,…",
        help="of --compare, among hsd, randomization, t, wilcoxon, sign (default all, in "
        "that order); the first decides the verdicts",
    )
    output.add_argument(
        "--adjust",
        choices=["holm", "bh", "none"],
        help="of --compare: the adjustment of the paired tests' p-values the verdicts use "
        "(default holm; both are always computed)",
    )
    output.add_argument(
        "--baseline", metavar="RUN", help="of --compare: each run against RUN, not every pair"
    )
    output.add_argument(
        "--format",
        choices=["table", "csv", "json", "trec", "latex", "markdown"],
        default="table",
        help="latex (booktabs) and markdown (GitHub) give each run's means for a paper, the "
        "best in bold, † where a run is significantly better than the first (‡ worse)",
    )
    output.add_argument("--digits", type=int, metavar="N", help=DIGITS_HELP)


def _add_gold_parser(commands: argparse._SubParsersAction) -> None:
    gold = commands.add_parser(
        "gold",
        help="gold items: pairs whose grade a lead knows, to check the raters against",
        description="A gold item is a (query, document) pair whose grade a lead knows. Raters "
        "judge it like any pair, unaware; their grades are compared with the gold grade, "
        "which is nobody's judgment: evaluation and agreement do not change. A pair must be "
        "one raters can see: a known query and document that a run retrieved for the query "
        "(one outside the pool depth is marked with a warning). Changes are all or nothing. "
        "Without an action, lists the gold items.",
    )
    _add_db(gold)
    action = gold.add_mutually_exclusive_group()
    action.add_argument(
        "--import",
        dest="import_path",
        type=Path,
        metavar="FILE.csv",
        help="mark the pairs of a file with the header query_id,doc_id,grade (.csv, .tsv or "
        ".jsonl) gold, replacing their earlier gold grades",
    )
    action.add_argument("--list", action="store_true", help="list the gold items (the default)")
    action.add_argument(
        "--mark",
        metavar="Q:D=G[,…]",
        help="mark pairs gold: query id, a colon, document id, =, grade; e.g. q1:d3=2,q2:d9=0",
    )
    action.add_argument(
        "--remove",
        metavar="Q:D[,…]",
        help="unmark pairs: query id, a colon (the first one splits), document id; several "
        "separated by commas, e.g. q1:d3,q2:d9",
    )
    action.add_argument(
        "--export",
        dest="export_path",
        type=Path,
        metavar="OUT.csv",
        help="write the gold items as query_id,doc_id,grade, which --import reads back",
    )
    gold.add_argument(
        "--format",
        choices=["table", "csv", "json"],
        help="of --list: table (default), or csv and json with every item's marked_at",
    )


def _add_agreement_parser(commands: argparse._SubParsersAction) -> None:
    agreement = commands.add_parser(
        "agreement",
        help="inter-annotator agreement of the raters' grades, and what lowers it",
        description="Agreement of raters on (query, document) units, from a judgments CSV "
        "(query_id,doc_id,rater,grade) or a database: percent agreement, Cohen's, Fleiss' and "
        "Krippendorff's coefficients, Gwet's AC1/AC2, each rater's contribution to ordinal "
        "alpha (alpha of all minus alpha without the rater), each query's alpha and the "
        "documents whose grades differ by two or more (those a lead decided apart from those "
        "that await adjudication); with --db and two or more runs, how "
        "the run ranking by NDCG@k changes with the rater. Undefined values are shown as "
        "missing with the reason, never invented.",
    )
    source = agreement.add_argument_group("source")
    source.add_argument("--db", metavar="DB", help="a judge_app database")
    source.add_argument(
        "--judgments", type=Path, metavar="FILE.csv", help="query_id,doc_id,rater,grade"
    )
    source.add_argument("--raters", metavar="A,B,C", help="only these raters (default all)")
    source.add_argument("--query", metavar="QID", help="only this query's documents")
    options = agreement.add_argument_group("statistics and output")
    options.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="resamples of the ordinal alpha's 95%% interval (default 1,000; 0: none)",
    )
    options.add_argument("--seed", type=int, default=0, help="of the bootstrap (default 0)")
    options.add_argument(
        "--k", type=int, default=10, metavar="K", help="NDCG cut-off of ranking stability"
    )
    _add_format(options, "csv")
    options.add_argument("--digits", type=int, metavar="N", help=DIGITS_HELP)


def _add_report_parser(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="the campaign as an HTML or PDF report: NDCG per run and query, charts, agreement",
        description="Write a report of DB: what was judged and its coverage, the settings, mean "
        "NDCG@k per run with its 95% t interval, the runs compared (as eval --compare: the "
        "matrix of runs, the Tukey HSD's groups, each pair's tests and effects), charts, the "
        "per-query table and the raters' agreement. The "
        "numbers are those of judge-app eval --db and judge-app agreement --db with the same "
        "options. An .html file is self-contained (charts embedded); a .pdf is the same "
        "document on A4 pages.",
    )
    _add_db(report)
    report.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="FILE.html|FILE.pdf",
        help="the report to write: HTML, or PDF by its suffix",
    )
    _add_evaluation_options(report)
    report.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="resamples of the agreement's ordinal alpha interval (default 1,000; 0: none)",
    )
    report.add_argument("--title", help="the report's title")


def _add_plan_parser(commands: argparse._SubParsersAction) -> None:
    plan = commands.add_parser(
        "plan",
        help="how many queries are enough to detect a difference in mean NDCG@k, and their cost",
        description="The queries a two-sided paired t-test needs to detect a difference of "
        "--delta in mean NDCG@k with --power at --alpha (Sakai's topic set size design: the "
        "normal approximation, then the smallest n whose noncentral t power is enough). The "
        "variance of the per-query differences is pooled over every pair of runs (with one "
        "run: twice the variance of its scores, a conservative bound). Judging cost: queries "
        "× the distinct documents of a query's pool (the top --pool-depth of the runs, "
        "measured per query) × raters per query, in judgments; × the median seconds of the "
        "campaign's timed judgments, in hours. Also the queries needed for a few other "
        "differences.",
    )
    _add_db(plan)
    plan.add_argument(
        "--delta", type=float, required=True, metavar="D", help="the difference to detect"
    )
    plan.add_argument("--power", type=float, default=0.8, help="1 − β (default 0.8)")
    plan.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    plan.add_argument("--k", default="10", metavar="K", help="NDCG cut-off: 10 (default) or all")
    plan.add_argument("--run", action="append", metavar="NAME", help="a run of DB (default all)")
    plan.add_argument(
        "--pool-depth", type=int, metavar="D", help="a query's pool: the top D of the runs (K)"
    )
    plan.add_argument(
        "--raters-per-query",
        type=float,
        metavar="R",
        help="raters judging each query (default: the campaign's mean)",
    )
    _add_format(plan, "csv")


def _add_calibrate_parser(commands: argparse._SubParsersAction) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="how far an automatic judge agrees with the human raters, and ranks runs as they do",
        description="On the (query, document) pairs both the human raters (their grades "
        "combined per pair as eval --aggregate combines them) and the automatic judge graded, "
        "grades rounded half up: Cohen's quadratic kappa and Krippendorff's ordinal alpha with "
        "95% bootstrap intervals over queries, the confusion matrix, the judge's bias "
        "(judge − human: above 0, lenient) per human grade; the runs ranked by mean NDCG@k "
        "with the humans' grades and with the judge's on the same queries, Kendall's tau-b "
        "between the two orders over all runs and among the best half; the queries whose "
        "grades differ most; how far probes moved an LLM judge (instructions injected into a "
        "document, the query's words stuffed into it, the prompt worded otherwise: autojudge "
        "--probes) and the documents it graded that address a judge.",
    )
    _add_db(calibrate)
    calibrate.add_argument("--judge", required=True, metavar="NAME", help="an automatic judge")
    calibrate.add_argument(
        "--k", default="10", metavar="K", help="NDCG cut-off: 10 (default) or all"
    )
    calibrate.add_argument(
        "--top", type=int, default=10, metavar="N", help="queries that disagree most (10)"
    )
    add_to(calibrate, AGGREGATE, choices=None)  # a rater's own too: rater:NAME
    add_to(calibrate, ADJUDICATED)
    calibrate.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="resamples of the queries for the 95%% intervals (default 1,000; 0: none)",
    )
    calibrate.add_argument("--seed", type=int, default=0, help="of the bootstrap (default 0)")
    _add_format(calibrate, "csv")


def _add_settings_parser(commands: argparse._SubParsersAction) -> None:
    settings = commands.add_parser(
        "settings",
        help="the rubric, the pooling, the preference pairs and the quality checks: show them, "
        "or change some",
        description="Without a change, shows the campaign's settings. A change names only what "
        "it changes (the rest is kept) and is written whole or not at all; the settings after "
        "it are shown. The window's Lead ▸ Rubric…, Pooling… and Quality checks… change the "
        "same settings.",
    )
    _add_db(settings)
    settings.add_argument(
        "--grade",
        nargs="+",
        action="append",
        metavar=("N LABEL", "DESCRIPTION"),
        help="what grade N (0-5) is called and, optionally, means: --grade 3 Relevant "
        "'Answers the question' (repeat for more grades)",
    )
    settings.add_argument("--pool-depth", type=int, metavar="D", help="raters judge the top D")
    settings.add_argument("--pool-runs", metavar="A,B|all", help="of these runs (all: every run)")
    settings.add_argument(
        "--result-order",
        choices=["run", "shuffle"],
        help="results shown as a run ranks them, or shuffled per rater and query",
    )
    settings.add_argument("--order-run", metavar="RUN", help="the run whose order is shown")
    settings.add_argument("--shuffle-seed", type=int, metavar="S", help="the shuffle's seed")
    settings.add_argument(
        "--query-order",
        choices=["assigned", "active"],
        help="raters take their queries as assigned, or in the active sample's order "
        "(judge-app sample)",
    )
    settings.add_argument(
        "--pairs-top",
        type=int,
        metavar="N",
        help="preference judging compares each query's N best candidates (2-20)",
    )
    settings.add_argument(
        "--pairs-budget",
        type=int,
        metavar="N",
        help="at most N pairs of them per rater and query (at least 1)",
    )
    settings.add_argument(
        "--min-seconds",
        type=float,
        metavar="S",
        help="the fastest credible judgment, in seconds (0-600)",
    )
    settings.add_argument(
        "--repeat-share",
        type=float,
        metavar="P",
        help="the share of each rater's judged items shown again for self-agreement (0-0.5)",
    )
    _add_format(settings)


def _add_ensemble_parser(commands: argparse._SubParsersAction) -> None:
    from judge_app.automatic_judges.combine import COMBINE

    ensemble = commands.add_parser(
        "ensemble",
        help="combine automatic judges into one (its own calibration, usable by eval --judge)",
        description="On each pair every member graded, the ensemble's grade is "
        + "; ".join(f"{name}: {words}" for name, words in COMBINE.items())
        + ". A pair a member failed to grade is left without a grade, naming it. The ensemble "
        "is an automatic judge like any: calibrate it, use it with eval --judge. Run again "
        "after its members graded more, it is combined afresh.",
    )
    _add_db(ensemble)
    ensemble.add_argument(
        "--judges", required=True, metavar="A,B,...", help="two or more automatic judges"
    )
    ensemble.add_argument(
        "--combine",
        choices=list(COMBINE),
        default="mean",
        help="each pair's mean, median or majority grade (a tie: the lowest; default mean)",
    )
    ensemble.add_argument(
        "--name", metavar="NAME", help="the ensemble's name (default: e.g. 'mean of a, b')"
    )


def _add_chat_arguments(parser: argparse.ArgumentParser, body_chars: int) -> None:
    """The arguments of a command that asks a chat model (autojudge, autojudge-pairs): the
    database, the endpoint, model and key, how many, how fast and how patiently it asks, and
    how much of each document it shows."""
    parser.add_argument("db", metavar="DB", nargs="?", help=DB_HELP)
    parser.add_argument("--endpoint", metavar="URL", help="base URL: http://localhost:11434/v1")
    parser.add_argument("--model", metavar="NAME", help="the model the endpoint serves")
    parser.add_argument(
        "--api-key-env",
        default="JUDGE_APP_API_KEY",
        metavar="VAR",
        help="the environment variable holding the API key (JUDGE_APP_API_KEY)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N pairs")
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="C",
        help="requests at once (default: as many as the server says it works on at once, as "
        "llama.cpp does; else 1 for a server on this machine and 4 for one elsewhere)",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="seconds a request may take (60)"
    )
    parser.add_argument(
        "--retries", type=int, default=3, metavar="R", help="retries of a failed request (3)"
    )
    parser.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        metavar="S",
        help="the first pause before a retry, doubled each time (1 s; a Retry-After wins)",
    )
    parser.add_argument(
        "--body-chars",
        type=int,
        default=body_chars,
        metavar="N",
        help=f"each document's text is cut to N characters ({body_chars})",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=1024,
        metavar="N",
        help="the most tokens an answer may take (1024): a rambling answer is cut there",
    )


def _add_autojudge_parser(commands: argparse._SubParsersAction) -> None:
    autojudge = commands.add_parser(
        "autojudge",
        help="grade the pooled pairs with an LLM (an automatic judge, kept apart from people)",
        description="Ask a model over the OpenAI-compatible chat-completions protocol "
        "(Ollama, vLLM, llama.cpp's server, LM Studio, hosted services) to grade each pooled "
        "pair (the top --depth of the pooled runs, each query and document once) on the "
        "campaign's 0-5 rubric. The grades are an automatic judge's, stored apart from the "
        "raters' judgments. A pair already graded with the same model and prompt is not asked "
        "again. Requests meeting 429, 5xx, a timeout or a dropped connection are retried with "
        "a growing pause; an answer that is not a grade is recorded as a failure. The API key "
        "is read from the environment variable --api-key-env and never stored. A template "
        "(--show-template prints the default) has a [system] line and [user] and [assistant] "
        "lines starting its messages (turns before the last [user] are examples; an "
        "[assistant] after it starts the answer), and the placeholders {query}, {query_id}, "
        "{description}, {doc_id}, {title}, {url}, {body} and {rubric}; {{ and }} are braces. "
        "Ctrl+C stops asking and keeps what was answered.",
    )
    _add_chat_arguments(autojudge, body_chars=4000)
    autojudge.add_argument("--name", metavar="NAME", help="the judge's name (default: the model)")
    autojudge.add_argument("--queries", metavar="A,B", help="only these queries (default all)")
    autojudge.add_argument(
        "--depth", type=int, metavar="D", help="the top D of each run (default: the pooling's)"
    )
    autojudge.add_argument(
        "--probes",
        type=int,
        metavar="N",
        help="pairs asked again with instructions injected into the document, the query's "
        "words stuffed into it and the prompt worded otherwise, to measure how far these move "
        "the judge (calibrate shows it; default 20, 0: none)",
    )
    autojudge.add_argument(
        "--estimate",
        action="store_true",
        help="say what the run would ask (pairs, prompt and completion tokens) and ask nothing",
    )
    autojudge.add_argument(
        "--retry-failed",
        action="store_true",
        help="ask again the pairs whose answer failed (default: kept; at temperature 0 a "
        "model fails the same way)",
    )
    autojudge.add_argument(
        "--free-text",
        action="store_true",
        help="ask for the answer in free text (default: a JSON object of a reason and the "
        "final score, which a server that enforces a schema answers in nothing else)",
    )
    autojudge.add_argument(
        "--template", type=Path, metavar="FILE", help="the prompt template (--show-template)"
    )
    autojudge.add_argument(
        "--show-template",
        action="store_true",
        help="print the default prompt template, to copy and edit",
    )
    autojudge.add_argument(
        "--local",
        action="store_true",
        help="the local model learned from the raters' grades instead of an LLM",
    )


def _add_autojudge_pairs_parser(commands: argparse._SubParsersAction) -> None:
    pairs = commands.add_parser(
        "autojudge-pairs",
        help="ask an LLM which of two results is better, in both orders (an automatic judge)",
        description="Ask a model over the OpenAI-compatible chat-completions protocol, as "
        "autojudge does, which of two documents better answers a query: A, B, equal or "
        "neither (both not relevant). Each pair is asked twice, each document shown first "
        "once; the two answers agree or the pair counts as equal (a document wins only when "
        "it wins in both orders), and the share of pairs answered alike in both orders is "
        "the position consistency. An answer that is not one of the four is a failure, not "
        "a guess. The pairs are those the raters chose on (--pairs human, the default) or "
        "those of a CSV file with the columns query_id, doc_a, doc_b. The choices are an "
        "automatic judge's, kept apart from the raters' preferences; a pair asked before "
        "with the same requests is not asked again. preferences calibrate compares them "
        "with the raters'. Ctrl+C stops asking and keeps what was answered.",
    )
    _add_chat_arguments(pairs, body_chars=2000)
    pairs.add_argument(
        "--name", metavar="NAME", help="the judge's name (default: the model's and \" pairs\")"
    )
    pairs.add_argument(
        "--pairs",
        default="human",
        metavar="human|FILE",
        help="the pairs the raters chose on (human, the default) or a CSV file of "
        "query_id,doc_a,doc_b",
    )
    pairs.add_argument(
        "--retry-failed", action="store_true", help="ask again the pairs whose answers failed"
    )
    pairs.add_argument(
        "--free-text",
        action="store_true",
        help="ask for the answer in free text (default: a JSON object of a reason and the "
        "preference)",
    )
    pairs.add_argument(
        "--show-template", action="store_true", help="print the prompt the model is asked"
    )


def _add_fetch_parser(commands: argparse._SubParsersAction) -> None:
    fetch = commands.add_parser(
        "fetch",
        help="make a run from a live search engine (Elasticsearch, OpenSearch, Solr, any "
        "JSON service over HTTP)",
        description="Send each query of the database through a request template to a live "
        "engine and store the top --depth hits of each answer as a new run (a snapshot: "
        "fetching again makes another run, so two days compare), with the documents the "
        "database has not seen. The template is the JSON body sent: Elasticsearch's or "
        "OpenSearch's query DSL, the body of Solr's JSON Request API (its params take any "
        "request parameter), or any JSON; {query} and {query_id} stand inside JSON strings, "
        "{depth} as a number. The hits are read by JMESPath paths, with defaults per engine "
        "(--field NAME=PATH changes one: hits, id, title, url, body, score). Credentials "
        "come from the environment variable --auth-env ('ApiKey …', 'Bearer …' or "
        "user:password) and are never stored nor sent to another host on a redirect. "
        "Requests go one at a time at --rate; 429, 5xx, timeouts and dropped connections "
        "are retried with a growing pause (a Retry-After wins). A query that fails is named "
        "and the others kept. Ctrl+C stops and stores nothing.",
    )
    fetch.add_argument("db", metavar="DB", nargs="?", help=DB_HELP)
    fetch.add_argument(
        "--engine",
        default="elasticsearch",
        metavar="ENGINE",
        help="elasticsearch (default), opensearch, solr or http (any JSON service)",
    )
    fetch.add_argument(
        "--url",
        metavar="URL",
        help="the search address: http://localhost:9200/INDEX/_search, "
        "http://localhost:8983/solr/CORE/select",
    )
    fetch.add_argument(
        "--template", type=Path, metavar="FILE", help="the request body (--show-template)"
    )
    fetch.add_argument(
        "--queries", metavar="A,B", help="only these query ids of the database (default all)"
    )
    fetch.add_argument("--depth", type=int, default=10, metavar="N", help="hits kept a query (10)")
    fetch.add_argument(
        "--run-name", metavar="NAME", help="the new run's name (default: the engine and the time)"
    )
    fetch.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="where the answer keeps a field (JMESPath): hits=hits.hits, id=_id, "
        "title=_source.name, body=highlight.body, …; an empty PATH reads nothing",
    )
    fetch.add_argument(
        "--auth-env",
        default="JUDGE_APP_ENGINE_AUTH",
        metavar="VAR",
        help="the environment variable holding the credentials (JUDGE_APP_ENGINE_AUTH)",
    )
    fetch.add_argument(
        "--rate",
        type=float,
        default=10.0,
        metavar="R",
        help="requests a second at most (10; 0: no limit)",
    )
    fetch.add_argument(
        "--timeout", type=float, default=30.0, metavar="S", help="seconds a request may take (30)"
    )
    fetch.add_argument(
        "--retries", type=int, default=3, metavar="R", help="retries of a failed request (3)"
    )
    fetch.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        metavar="S",
        help="the first pause before a retry, doubled each time (1 s; a Retry-After wins)",
    )
    fetch.add_argument(
        "--show-template",
        action="store_true",
        help="print the engine's default template, to copy and edit",
    )


def _add_sample_parser(commands: argparse._SubParsersAction) -> None:
    sample = commands.add_parser(
        "sample",
        help="what to judge next: an order of queries for raters that narrows the intervals of "
        "eval --judge fastest",
        description="Draw an active sample of DB's queries for the automatic judge NAME and show "
        "it: an order of queries where those the judge is least certain of the grades that "
        "count, or where the runs differ, come first (sequential Poisson sampling, probability "
        "proportional to each query's predicted residual scale), with the 95% half-width "
        "expected at a few budgets beside a uniform random sample's. Nothing is stored unless "
        "--apply is given: it makes the order the one raters take their assigned queries in, "
        "and eval --judge NAME then weights the longest start of that order judged completely "
        "by the inverse of its queries' inclusion probabilities.",
    )
    _add_db(sample)
    sample.add_argument("--judge", metavar="NAME", help="the automatic judge (judge-app autojudge)")
    sample.add_argument("--seed", type=int, default=0, help="the draw's seed (default 0)")
    sample.add_argument("--k", default="10", metavar="K", help="NDCG cut-off: 10 (default) or all")
    sample.add_argument(
        "--budget",
        type=int,
        action="append",
        metavar="N",
        help="show the expected half-width at N queries (default: 10%%, 25%%, 50%% of them)",
    )
    sample.add_argument(
        "--apply",
        action="store_true",
        help="store the sample and make it the raters' query order (the same options and seed "
        "give the same order as without it)",
    )
    sample.add_argument(
        "--off", action="store_true", help="back to the order queries were assigned in"
    )
    _add_format(sample)


def _add_packet_parser(commands: argparse._SubParsersAction) -> None:
    packet = commands.add_parser(
        "packet",
        help="rater packets: one rater's work to judge offline, and merging it back",
        description="A packet is a SQLite file with one rater's queue (assigned queries, or "
        "all), their results and documents, the rubric and that rater's own judgments; the "
        "rater opens it in judge-app like any database. The database records each packet it "
        "issues; merging brings the changes back with their history, as the rater the packet "
        "was issued to, and refuses a packet it did not issue or that names anyone else. "
        "Merging the same packet twice changes nothing.",
    )
    actions = packet.add_subparsers(dest="packet_command", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write a rater's packet")
    _add_db(export)
    export.add_argument("--rater", required=True, metavar="NAME", help="whose packet")
    export.add_argument(
        "--out", required=True, type=Path, metavar="FILE.judge", help="the packet file to write"
    )
    export.add_argument(
        "--pairs",
        action="store_true",
        help="also carry the preference pairs the rater is asked to compare (judge-app settings "
        "--pairs-top, --pairs-budget), planned on every rater's grades and choices here",
    )
    merge = actions.add_parser("merge", help="merge a packet back into the database it came from")
    _add_db(merge)
    merge.add_argument("packet", type=Path, metavar="FILE.judge", help="the packet, judged")

    team = commands.add_parser(
        "team",
        help="a team on a PostgreSQL server: roles that keep raters apart, and logins",
        description="On a PostgreSQL database, make the campaign's two roles (run by the "
        "database's owner: team init) and a login for each person (team add). The server "
        "itself then lets a rater's login read the queries, documents, results and rubric and "
        "see and change only that rater's judgments; a lead's login sees and changes "
        "everything. The password of a new login comes from JUDGE_APP_PASSWORD, or is asked "
        "for; judge_app never stores it.",
    )
    actions = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    _add_db(actions.add_parser("init", help="make the roles and the rules (the owner)"))
    add = actions.add_parser("add", help="a login for a rater (or a lead)")
    _add_db(add)
    add.add_argument("name", metavar="NAME", help="the rater (added if new); the login's name")
    add.add_argument("--lead", action="store_true", help="a lead's login: sees everything")
    remove = actions.add_parser("remove", help="drop a login; the rater's work stays")
    _add_db(remove)
    remove.add_argument("name", metavar="NAME", help="the login to remove")
    _add_db(actions.add_parser("list", help="the team's logins"))


def _add_preferences_parser(commands: argparse._SubParsersAction) -> None:
    preferences = commands.add_parser(
        "preferences",
        help="preference judgments: import, export, and what they say",
        description="Preference judgments say which of two results is better for a query "
        "(choice a, b, equal, neither: both not relevant, or skipped). A file holds "
        "query_id, doc_a, doc_b, rater, choice and optionally shown_left, note, judged_at, "
        "duration_ms, as CSV or JSON Lines; an import is all or nothing. Runs are scored by "
        "them with eval --measure Compat.",
    )
    actions = preferences.add_subparsers(
        dest="preferences_command", metavar="ACTION", required=True
    )
    load = actions.add_parser("import", help="import a CSV or JSON Lines file of preferences")
    _add_db(load)
    load.add_argument("file", type=Path, metavar="FILE", help="the preferences")
    save = actions.add_parser("export", help="write every preference (.jsonl: JSON Lines)")
    _add_db(save)
    save.add_argument("file", type=Path, metavar="FILE", help="where to write them (- for stdout)")
    summary = actions.add_parser(
        "summary", help="counts, agreement between raters and each rater's intransitive triples"
    )
    _add_db(summary)
    calibrate = actions.add_parser(
        "calibrate",
        help="how far an automatic judge's preferences agree with the raters' majority",
        description="On the pairs with a raters' majority (the choice more raters made than "
        "any other; skipped is no choice, a tie no majority) and the judge's choice "
        "(autojudge-pairs): the share agreeing, Cohen's kappa and the confusion table, and "
        "the same share for each order's answer alone; over every pair it answered in both "
        "orders, the position consistency (the share answered alike) and how many chose the "
        "document shown first both times, or the one shown second.",
    )
    _add_db(calibrate)
    calibrate.add_argument("--judge", required=True, metavar="NAME", help="an automatic judge")
    _add_format(calibrate)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code once Arrow's threads are idle (see
    :func:`_settle_arrow`)."""
    try:
        return _main(argv)
    finally:
        _settle_arrow()


def _main(argv: Sequence[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["trec-eval"]:  # trec_eval's own command line, not argparse's
        _use_system_allocator()
        return _trec_eval(arguments[1:])
    parser = _parser()
    args = parser.parse_args(arguments)
    if args.command is None:
        args = argparse.Namespace(command="gui", db=None, rater=None)
    if args.command != "gui":
        _use_system_allocator()
    try:
        _check_lead(args)
        text = COMMANDS[args.command](args)
    except UsageError as error:  # an option it names, by its flag
        print(f"judge-app {args.command}: {in_words(error, flag_of)}", file=sys.stderr)
        return 2
    except JudgeAppError as error:
        print(f"judge-app {args.command}: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # a file the command reads or writes: named, with the reason
        print(f"judge-app {args.command}: {in_words(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; nothing of the unfinished step was written", file=sys.stderr)
        return 130
    if isinstance(text, int):  # the window's exit code
        return text
    # what was written, said where it does not mix with a file written to standard output
    said = sys.stderr if _writes_standard_output(args) else sys.stdout
    said.write(text if text.endswith("\n") else text + "\n")
    return 0


def _use_system_allocator() -> None:
    """Have Arrow allocate with the C library's malloc (unless the user chose otherwise): a
    command is a process that reads its data once and ends, and malloc gives back the large
    blocks Arrow frees (the CSV reader's, a sort's) where mimalloc keeps them. Measured at a
    million lines (issue 34): ``trec-eval -m all_trec`` peaks 45 MiB lower, ``eval`` of files
    80 MiB lower and 0.2 s sooner. Arrow reads the variable when it first allocates; the
    window, which runs for hours, keeps Arrow's own allocator."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


ARROW_SETTLE_SECONDS = 10.0
"""How long a command waits at its end for Arrow's threads (see :func:`_settle_arrow`); past
that, the process ends as it would have without waiting."""
_ARROW_POOLS = (
    "_ZN5arrow2io8internal15GetIOThreadPoolEv",
    "_ZN5arrow8internal16GetCpuThreadPoolEv",
)
_ARROW_TASKS = "_ZN5arrow8internal10ThreadPool11GetNumTasksEv"
"""Arrow's C++ ``io::internal::GetIOThreadPool()``, ``internal::GetCpuThreadPool()`` and
``internal::ThreadPool::GetNumTasks()`` (queued and running), as Linux and macOS name them."""


def _settle_arrow() -> None:
    """Wait, the GIL released, until Arrow's thread pools have no task left, so that none runs
    while the interpreter is torn down.

    Why: an Arrow call may return before every task it started has ended (a plan's last
    future is let go by a pool thread a moment later), and what such a task frees may be
    memory Arrow was lent by Python (a numpy array, bytes): freeing it takes the GIL. A thread
    that asks for the GIL once the interpreter is finalising is ended by CPython
    (pthread_exit), the unwinding meets Arrow's noexcept C++ and std::terminate aborts the
    process: SIGABRT, "terminate called without an active exception", after the output was
    printed (issue 34: 5 in 300 runs of trec-eval). An idle pool thread never touches Python
    again, so waiting here, before the interpreter's teardown, removes the race."""
    counts = _arrow_task_counts()
    deadline = time.monotonic() + ARROW_SETTLE_SECONDS
    while any(count() for count in counts) and time.monotonic() < deadline:
        time.sleep(0.001)  # releases the GIL, which a task may be waiting for


def _arrow_task_counts() -> list[Callable[[], int]]:
    """Per Arrow thread pool (I/O, CPU), a function counting its tasks; none when pyarrow was
    never imported (no Arrow ran) or its library does not have those names (Windows).
    pyarrow does not expose the count: it is read from Arrow's C++ library by ctypes (which
    releases the GIL during each call)."""
    library = sys.modules.get("pyarrow.lib")
    if library is None or library.__file__ is None:
        return []
    import ctypes
    from functools import partial

    try:  # pyarrow.lib is linked to libarrow: looked up from it, libarrow's names are found
        arrow = ctypes.CDLL(library.__file__)
        pools, tasks = [arrow[name] for name in _ARROW_POOLS], arrow[_ARROW_TASKS]
    except (OSError, AttributeError):
        return []
    tasks.argtypes, tasks.restype = [ctypes.c_void_p], ctypes.c_int
    for pool in pools:
        pool.argtypes, pool.restype = [], ctypes.c_void_p
    return [partial(tasks, pool()) for pool in pools]


def _writes_standard_output(args: argparse.Namespace) -> bool:
    """Whether a file the command writes is standard output (``-``)."""
    return any(isinstance(value, Path) and str(value) == "-" for value in vars(args).values())


def _check_lead(args: argparse.Namespace) -> None:
    """Refuse, in words, a lead's command on a team database connected as a rater's login,
    before it reads anything: the database would show it the rater's own rows alone, and a
    number made of them would mislead. What a rater may run is ``RATER_COMMANDS``."""
    db = getattr(args, "db", None)
    if args.command in RATER_COMMANDS or not isinstance(db, str) or not _on_server(db):
        return
    from judge_app.commands.team import check_lead

    check_lead(db, f"run judge-app {args.command}")


def _on_server(db: str) -> bool:
    """Whether ``db`` names a database on a server (a URL, not SQLite's)."""
    return "://" in db and not db.startswith("sqlite")


def _trec_eval(arguments: list[str]) -> int:
    """``judge-app trec-eval``: trec_eval's command line, output and exit statuses."""
    from judge_app.commands.trec_eval import options_from_arguments, trec_eval
    from judge_app.trec_eval.errors import INPUT, TrecEvalError

    try:
        options = options_from_arguments(arguments)
        if isinstance(options, str):  # -h or -v
            sys.stdout.write(options)
            return 0
        outcome = trec_eval(options)
    except TrecEvalError as error:
        print(f"judge-app trec-eval: {error}", file=sys.stderr)
        return error.status
    except (JudgeAppError, OSError) as error:
        print(f"judge-app trec-eval: {in_words(error, flag_of)}", file=sys.stderr)
        return INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    sys.stdout.write(outcome.text)
    if outcome.stop is not None:
        sys.stdout.flush()
        print(f"judge-app trec-eval: {outcome.stop}", file=sys.stderr)
        return outcome.stop.status
    return 0


def _init(args: argparse.Namespace) -> str:
    from judge_app.store import open_database

    with open_database(args.db) as database:
        return f"{database.describe()}: ready"


@contextmanager
def _progress_bar() -> Iterator[ImportProgress | None]:
    """A progress bar on a terminal (stderr); nothing when output goes to a file."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def show(step: str, done: int, total: int) -> None:
        bar = bars.get(step)
        if bar is None:
            bar = bars[step] = tqdm(total=total, desc=step, unit=" rows", file=sys.stderr)
        bar.update(done - bar.n)

    try:
        yield show
    finally:
        for bar in bars.values():
            bar.close()


def _import(args: argparse.Namespace) -> str:
    from judge_app.commands.importing import ImportOptions, import_files

    options = ImportOptions(
        queries=args.queries,
        documents=args.documents,
        run=args.run,
        run_name=args.run_name,
        judgments=args.judgments,
        rater=args.rater,
        strict=args.strict,
        source=args.source,
        format=args.format,
        grade_map=args.grade_map,
    ).checked()
    if sys.stderr.isatty():
        print(f"checking {', '.join(map(str, options.files))} …", file=sys.stderr, flush=True)
    with _progress_bar() as progress:
        return str(import_files(args.db, options, progress=progress))


def _export(args: argparse.Namespace) -> str:
    from judge_app.commands.export import ExportOptions, export

    kind = next(kind for kind in ("judgments", "qrels", "history", "to") if getattr(args, kind))
    options = ExportOptions(
        "format" if kind == "to" else kind,
        getattr(args, kind),
        aggregate=args.aggregate,
        adjudicated=args.adjudicated == "prefer",
        format=args.format,
    )
    return str(export(args.db, options))


def _assign(args: argparse.Namespace) -> str:
    from judge_app.commands.assign import MIN_GAP, AssignOptions, assign
    from judge_app.options import names

    options = AssignOptions(
        names(args.raters, "raters") or (),
        copies=args.copies,
        share=args.share,
        replace=args.replace,
        where_disputed=args.where_disputed,
        min_gap=MIN_GAP if args.min_gap is None else args.min_gap,
        max_alpha=args.max_alpha,
    ).checked()
    return str(assign(args.db, options))


def _gold(args: argparse.Namespace) -> str:
    from judge_app.commands.gold import GoldOptions, as_text, gold, parse_marks, parse_pairs

    options = GoldOptions(
        import_path=args.import_path,
        mark=parse_marks(args.mark) if args.mark is not None else (),
        remove=parse_pairs(args.remove) if args.remove is not None else (),
        export_path=args.export_path,
    ).checked()
    if args.format is not None and options.action != "list":
        raise UsageError("--format is for --list")
    outcome = gold(args.db, options)
    if options.action == "list":
        return as_text(outcome, args.format or "table")
    return str(outcome)


def _info(args: argparse.Namespace) -> str:
    from judge_app.commands.info import info

    return info(args.db)


def _demo(args: argparse.Namespace) -> str:
    from judge_app.commands.demo import build_demo

    return build_demo(args.db)


def _gui(args: argparse.Namespace) -> int:
    """The judging window on DB; without DB, on the last database used, on first use the
    demo (built in the user's data folder), else the start page."""
    from judge_app.gui import preferences, run

    def demo() -> Path:
        from judge_app.commands.demo import demo_database

        folder = preferences.data_folder()
        built = not (folder / "demo.sqlite").exists()
        path = demo_database(folder)
        if built:
            print(f"judge-app: created the demo database {path}", file=sys.stderr)
        return path

    return run(args.db, args.rater, demo=demo)


def _eval(args: argparse.Namespace) -> str:
    from judge_app.commands.evaluate import Files, evaluate
    from judge_app.evaluation.options import EvaluationRequest, SignificanceOptions
    from judge_app.options import check_digits
    from judge_app.writers.evaluation import TREC_ALWAYS_CUTS, as_text

    options = _evaluation_options(args)
    check_digits(args.digits)
    comparison = _significance_options(args, options)
    if comparison is None and args.format in ("latex", "markdown"):
        comparison = SignificanceOptions.following(options)  # for their marks
    request = EvaluationRequest(
        options,
        comparison,
        per_rater=args.per_rater,
        more_ks=TREC_ALWAYS_CUTS if args.format == "trec" else (),
    )
    if args.db is not None:
        if args.qrels or args.run_file:
            raise UsageError("give either --db or --qrels with --run-file, not both")
        result = evaluate(request, args.db)
        _check_compare(args.compare, len(result.evaluations))
    elif args.qrels and args.run_file:
        _check_compare(args.compare, len(args.run_file))
        result = evaluate(request, Files(args.qrels, tuple(args.run_file)))
    else:
        raise UsageError("give --qrels QRELS and at least one --run-file RUN, or --db DB")
    return as_text(result, args.format, args.digits, args.per_query)


def _significance_options(
    args: argparse.Namespace, options: EvaluationOptions
) -> SignificanceOptions | None:
    """How ``--compare`` compares the runs, checked; None without it (and a usage error for
    its options without it)."""
    from judge_app.evaluation.options import SignificanceOptions, parse_tests
    from judge_app.names import normal_id

    if not args.compare:
        for option, value in (("--tests", args.tests), ("--adjust", args.adjust),
                              ("--baseline", args.baseline)):  # fmt: skip
            if value is not None:
                raise UsageError(f"{option} is an option of --compare")
        return None
    return SignificanceOptions(
        tests=parse_tests(args.tests),
        adjustment=args.adjust or "holm",
        baseline=None if args.baseline is None else normal_id(args.baseline),
        permutations=options.permutations,
        seed=options.seed,
    ).checked()


def _check_compare(compare: bool, runs: int) -> None:
    if compare and runs < 2:
        raise UsageError("--compare needs at least two runs")


def _agreement(args: argparse.Namespace) -> str:
    from judge_app.commands import agree
    from judge_app.names import normal_id
    from judge_app.options import check_digits, names
    from judge_app.writers.agreement import as_text

    options = agree.AgreementOptions(
        raters=names(args.raters, "raters"),
        query=None if args.query is None else normal_id(args.query),
        bootstrap=args.bootstrap,
        seed=args.seed,
        k=args.k,
    ).checked()
    check_digits(args.digits)
    if (args.db is None) == (args.judgments is None):
        raise UsageError("give either --db DB or --judgments FILE.csv (one of them)")
    if args.db is not None:
        report = agree.agreement_of(args.db, options)
    else:
        report = agree.agreement_of_file(args.judgments, options)
    return as_text(report, args.format, args.digits)


def _report(args: argparse.Namespace) -> str:
    from judge_app.commands.report import ReportOptions, write_report

    options = ReportOptions(_evaluation_options(args), args.bootstrap, args.title, args.out)
    return f"{write_report(args.db, options)}: report of {args.db}"


def _raters(args: argparse.Namespace) -> str:
    from judge_app.commands.rater_quality import RatersOptions, rater_quality_of
    from judge_app.writers.raters import as_text

    options = RatersOptions(min_seconds=args.min_seconds, too_fast_out=args.too_fast)
    return as_text(rater_quality_of(args.db, options), args.format)


def _plan(args: argparse.Namespace) -> str:
    from judge_app.commands.plan import PlanOptions, plan_of
    from judge_app.evaluation.options import parse_k
    from judge_app.options import names

    options = PlanOptions(
        delta=args.delta,
        power=args.power,
        alpha=args.alpha,
        k=parse_k(args.k),
        runs=names(",".join(args.run), RUNS.name, "run") if args.run else None,
        pool_depth=args.pool_depth,
        raters_per_query=args.raters_per_query,
    ).checked()
    return plan_of(args.db, options).as_text(args.format)


def _calibrate(args: argparse.Namespace) -> str:
    from judge_app.commands.calibrate import calibrate_of
    from judge_app.evaluation.calibration import CalibrationOptions
    from judge_app.evaluation.options import parse_k
    from judge_app.names import normal_id
    from judge_app.writers.calibration import as_text

    options = CalibrationOptions(
        judge=normal_id(args.judge),
        k=parse_k(args.k),
        aggregate=args.aggregate,
        adjudicated=args.adjudicated == "prefer",
        top=args.top,
        bootstrap=args.bootstrap,
        seed=args.seed,
    ).checked()
    return as_text(calibrate_of(args.db, options), args.format)


def _autojudge(args: argparse.Namespace) -> str | int:
    """``judge-app autojudge``: the summary line; exit 1 after it when a pair failed (the
    others are kept); Ctrl+C stops asking, keeps what was answered and exits with 130 after
    the summary."""
    from judge_app.automatic_judges.prompt import DEFAULT_TEMPLATE, read_template
    from judge_app.commands.autojudge import AutojudgeOptions, autojudge, estimate, next_steps
    from judge_app.options import names

    if args.show_template:
        return DEFAULT_TEMPLATE
    if args.db is None:
        raise UsageError("autojudge needs DB (or --show-template)")
    if args.local:
        return _local_judge(args)
    options = AutojudgeOptions(
        endpoint=args.endpoint,
        model=args.model,
        name=args.name,
        api_key_env=args.api_key_env,
        template=None if args.template is None else read_template(args.template),
        queries=names(args.queries, "queries", "query"),
        limit=args.limit,
        depth=args.depth,
        concurrency=args.concurrency,
        timeout=args.timeout,
        retries=args.retries,
        backoff=args.backoff,
        body_chars=args.body_chars,
        max_tokens=args.max_tokens,
        structured=not args.free_text,
        retry_failed=args.retry_failed,
        probes=AutojudgeOptions.probes if args.probes is None else args.probes,
    ).checked()
    if args.estimate:
        return estimate(args.db, options).sentence()
    with closing(_CountBar("judging")) as bar, _interrupt_flag() as interrupted:
        summary = autojudge(
            args.db,
            options,
            progress=bar.show,
            cancelled=interrupted.is_set,
            retrying=bar.retrying,
        )
    if summary.cancelled:
        print(summary.sentence(), file=sys.stderr)
        return 130
    said = f"{summary.sentence()}\n{next_steps(args.db, summary.judge)}"
    if summary.failed:
        print(said)  # what was answered is kept; the exit says not every pair was
        return 1
    return said


def _autojudge_pairs(args: argparse.Namespace) -> str | int:
    """``judge-app autojudge-pairs``: the summary; exit 1 after it when a pair failed (the
    others are kept); Ctrl+C stops asking, keeps what was answered and exits with 130."""
    from judge_app.automatic_judges.pair_prompt import PAIR_TEMPLATE
    from judge_app.commands.autojudge_pairs import (
        HUMAN,
        PairJudgeOptions,
        autojudge_pairs,
        next_steps,
    )

    if args.show_template:
        return PAIR_TEMPLATE
    if args.db is None:
        raise UsageError("autojudge-pairs needs DB (or --show-template)")
    options = PairJudgeOptions(
        endpoint=args.endpoint,
        model=args.model,
        name=args.name,
        api_key_env=args.api_key_env,
        pairs=HUMAN if args.pairs == HUMAN else Path(args.pairs),
        limit=args.limit,
        concurrency=args.concurrency,
        timeout=args.timeout,
        retries=args.retries,
        backoff=args.backoff,
        body_chars=args.body_chars,
        max_tokens=args.max_tokens,
        structured=not args.free_text,
        retry_failed=args.retry_failed,
    ).checked()
    with closing(_CountBar("judging pairs")) as bar, _interrupt_flag() as interrupted:
        summary = autojudge_pairs(
            args.db, options, progress=bar.show, cancelled=interrupted.is_set, retrying=bar.retrying
        )
    if summary.cancelled:
        print(summary.sentence(), file=sys.stderr)
        return 130
    said = f"{summary.sentence()}\n{next_steps(args.db, summary.judge)}"
    if summary.failed:
        print(said)  # what was answered is kept; the exit says not every pair was
        return 1
    return said


def _fetch(args: argparse.Namespace) -> str | int:
    """``judge-app fetch``: the summary; exit 1 after it when a query failed (the others are
    stored); Ctrl+C stops, stores nothing and exits with 130."""
    from judge_app.commands.fetch import DEFAULT_TEMPLATES, FetchOptions, fetch
    from judge_app.engines.fields import parse_fields
    from judge_app.engines.template import RequestTemplate
    from judge_app.options import names

    if args.show_template:
        if args.engine not in DEFAULT_TEMPLATES:
            raise UsageError(f"takes {', '.join(DEFAULT_TEMPLATES)}", "engine")
        return DEFAULT_TEMPLATES[args.engine]
    if args.db is None:
        raise UsageError("fetch needs DB (or --show-template)")
    options = FetchOptions(
        engine=args.engine,
        url=args.url or "",
        template=None if args.template is None else RequestTemplate.read(args.template),
        queries=names(args.queries, "queries", "query"),
        depth=args.depth,
        run_name=args.run_name,
        fields=parse_fields(args.field),
        auth_env=args.auth_env,
        rate=args.rate,
        timeout=args.timeout,
        retries=args.retries,
        backoff=args.backoff,
    ).checked()
    with closing(_CountBar("fetching")) as bar, _interrupt_flag() as interrupted:
        summary = fetch(
            args.db, options, progress=bar.show, cancelled=interrupted.is_set, retrying=bar.retrying
        )
    if summary.cancelled:
        print(summary.sentence(), file=sys.stderr)
        return 130
    if summary.failed:
        print(summary.sentence())  # the others are stored; the exit says not every query was
        return 1
    return summary.sentence()


def _local_judge(args: argparse.Namespace) -> str | int:
    """``judge-app autojudge --local``: the local judge's report; Ctrl+C stops it before
    anything is written and exits with 130 after the report."""
    from judge_app.commands.autojudge import next_steps
    from judge_app.commands.autojudge_local import LocalJudgeOptions, autojudge_local

    llm_only = ("endpoint", "model", "template", "queries", "limit")
    for option in llm_only:
        if getattr(args, option) is not None:
            raise UsageError("is of an LLM judge: --local learns from the human grades "
                             "and grades the whole pool", option)  # fmt: skip
    if args.estimate:
        raise UsageError("is of an LLM judge: --local costs no tokens", "estimate")
    options = LocalJudgeOptions(name=args.name, depth=args.depth).checked()
    with closing(_CountBar("judging")) as bar, _interrupt_flag() as interrupted:
        report = autojudge_local(args.db, options, progress=bar.show, cancelled=interrupted.is_set)
    if report.cancelled:
        print(report.sentence(), file=sys.stderr)
        return 130
    return f"{report.sentence()}\n{next_steps(args.db, report.judge)}"


@contextmanager
def _interrupt_flag() -> Iterator[threading.Event]:
    """An event Ctrl+C sets (in place of KeyboardInterrupt) while the block runs."""
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    previous = signal.signal(signal.SIGINT, lambda _signal, _frame: interrupted.set())
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


class _CountBar:
    """A progress bar of (done, total) on a terminal (stderr), with the retries so far and
    the last one's reason beside it; nothing where stderr is no terminal."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.bar: Any = None
        self.shown = sys.stderr.isatty()

    def show(self, done: int, total: int) -> None:
        if not self.shown:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=self.title, unit=" requests", file=sys.stderr)
        self.bar.update(done - self.bar.n)

    def retrying(self, retries: int, why: str, pause: float) -> None:
        from judge_app.web import retry_words

        if self.bar is not None:
            self.bar.set_postfix_str(retry_words(retries, why, pause))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _settings(args: argparse.Namespace) -> str:
    from judge_app.commands.campaign_settings import (
        SettingsChange,
        change_settings,
        read_settings,
    )
    from judge_app.options import names
    from judge_app.store.grade_labels import GradeLabel

    grades = []
    for given in args.grade or ():
        if not 2 <= len(given) <= 3 or not given[0].isdigit():
            raise UsageError("--grade takes a grade 0-5, its label and optionally what it means")
        grades.append(GradeLabel(int(given[0]), given[1], given[2] if len(given) == 3 else ""))
    pool = {
        name: value
        for name, value in (
            ("depth", args.pool_depth),
            ("order", args.result_order),
            ("order_run", args.order_run),
            ("seed", args.shuffle_seed),
            ("query_order", args.query_order),
        )
        if value is not None
    }
    if args.pool_runs is not None:
        every = args.pool_runs.strip() == "all"
        pool["runs"] = None if every else names(args.pool_runs, "pool-runs", "run")
    quality = {
        name: value
        for name, value in (("min_seconds", args.min_seconds), ("repeat_share", args.repeat_share))
        if value is not None
    }
    pairs = {
        name: value
        for name, value in (("top", args.pairs_top), ("budget", args.pairs_budget))
        if value is not None
    }
    change = SettingsChange(tuple(grades), pool, quality, pairs).checked()
    found = read_settings(args.db) if change.empty else change_settings(args.db, change)
    return found.as_text(args.format)


def _ensemble(args: argparse.Namespace) -> str:
    from judge_app.commands.autojudge import next_steps
    from judge_app.commands.ensemble import EnsembleOptions, ensemble
    from judge_app.options import names

    judges = names(args.judges, "judges", "automatic judge")
    options = EnsembleOptions(
        judges=tuple(judges or ()), combine=args.combine, name=args.name
    ).checked()
    summary = ensemble(args.db, options)
    return f"{summary.sentence()}\n{next_steps(args.db, summary.judge)}"


def _sample(args: argparse.Namespace) -> str:
    from judge_app.commands.active_sampling import ActiveSamplingOptions, sample_queries
    from judge_app.evaluation.options import parse_k

    options = ActiveSamplingOptions(
        judge=args.judge,
        seed=args.seed,
        k=parse_k(args.k),
        budgets=tuple(args.budget or ()),
        apply=args.apply,
        off=args.off,
    ).checked()
    sample = sample_queries(args.db, options)
    if sample is None:
        return "Raters take their queries in the order they were assigned again.\n"
    return sample.as_text(args.format, options.budgets)


def _packet(args: argparse.Namespace) -> str:
    from judge_app.commands.packets import PacketExport, PacketMerge, export_packet, merge_packet

    if args.packet_command == "export":
        return str(export_packet(args.db, PacketExport(args.rater, args.out, args.pairs)))
    return str(merge_packet(args.db, PacketMerge(args.packet)))


def _preferences(args: argparse.Namespace) -> str:
    from judge_app.commands import preferences

    if args.preferences_command == "import":
        return preferences.import_preferences(args.db, args.file)
    if args.preferences_command == "export":
        count = preferences.export_preferences(args.db, args.file)
        return f"{count} preferences written to {args.file}"
    if args.preferences_command == "calibrate":
        from judge_app.commands.calibrate_pairs import PairCalibrationOptions, calibrate_pairs
        from judge_app.writers.json_document import json_document

        calibration = calibrate_pairs(args.db, PairCalibrationOptions(args.judge))
        if args.format == "json":
            return json_document(calibration.record(), indent=2)
        return "\n".join(calibration.lines())
    return preferences.summary_text(preferences.summarise_preferences(args.db))


def _team(args: argparse.Namespace) -> str:
    from judge_app.commands import team

    if args.team_command == "init":
        return team.init(args.db)
    if args.team_command == "add":
        return team.add(args.db, args.name, _new_password(args.name), lead=args.lead)
    if args.team_command == "remove":
        return team.remove(args.db, args.name)
    return team.listing(args.db)


def _new_password(name: str) -> str:
    """A new login's password: JUDGE_APP_PASSWORD, else asked for twice on the terminal."""
    import getpass

    given = os.environ.get(PASSWORD_ENV)
    if given:
        return given
    if not sys.stdin.isatty():
        raise UsageError(f"set {PASSWORD_ENV} to the new login's password (no terminal to ask)")
    first = getpass.getpass(f"password for {name}: ")
    if first != getpass.getpass("again: "):
        raise UsageError("the two passwords differ: nothing was changed")
    return first


COMMANDS: dict[str, Callable[[argparse.Namespace], str | int]] = {
    "init": _init,
    "import": _import,
    "export": _export,
    "info": _info,
    "assign": _assign,
    "gold": _gold,
    "demo": _demo,
    "gui": _gui,
    "eval": _eval,
    "agreement": _agreement,
    "packet": _packet,
    "preferences": _preferences,
    "team": _team,
    "raters": _raters,
    "report": _report,
    "plan": _plan,
    "calibrate": _calibrate,
    "autojudge": _autojudge,
    "autojudge-pairs": _autojudge_pairs,
    "fetch": _fetch,
    "ensemble": _ensemble,
    "settings": _settings,
    "sample": _sample,
}


if __name__ == "__main__":
    sys.exit(main())
