"""The ``judge-app`` command line; ``judge-app`` alone opens the judging window.

Exit codes: 0 success, 1 a data error (the message on stderr, never a traceback), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.errors import JudgeAppError

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.store import Database
    from judge_app.store.imports import ImportProgress
    from judge_app.store.judgments import JudgmentState

DEMO_RUNS = ("runs/bm25.txt", "runs/neural.csv")

ADJUDICATED_HELP = (
    "a lead's adjudicated grades (rater 'adjudicated'): prefer them over the raters' "
    "aggregate where there is one (default), or ignore them"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-app",
        description="Relevance judging and ranking evaluation. DB is a SQLite file path or a "
        "database URL (postgresql+psycopg://user@host/db).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    init = commands.add_parser("init", help="create a database (or upgrade an existing one)")
    init.add_argument("db", metavar="DB")

    load = commands.add_parser(
        "import",
        help="import queries, documents, a run and judgments (all or nothing)",
        description="Import files into DB in one transaction: a problem in any file changes "
        "nothing. Formats follow the file extension: .csv, .tsv, .jsonl; anything else is read "
        "as a TREC run or TREC qrels.",
    )
    load.add_argument("db", metavar="DB")
    load.add_argument("--queries", type=Path, metavar="FILE", help="query_id,text[,description]")
    load.add_argument("--documents", type=Path, metavar="FILE", help="doc_id[,title,url,body]")
    load.add_argument(
        "--run", type=Path, metavar="FILE", help="query_id,doc_id,rank[,score] or TREC run"
    )
    load.add_argument(
        "--run-name", metavar="NAME", help="name of the run (default: TREC tag or file name)"
    )
    load.add_argument(
        "--judgments",
        type=Path,
        metavar="FILE",
        help="query_id,doc_id,rater,grade[,note] or TREC qrels",
    )
    load.add_argument(
        "--rater",
        metavar="NAME",
        help="the rater of a qrels file (or of a file without a rater column)",
    )
    load.add_argument(
        "--strict",
        action="store_true",
        help="refuse queries and documents the database does not know",
    )

    export = commands.add_parser("export", help="export judgments as CSV or aggregated qrels")
    export.add_argument("db", metavar="DB")
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--judgments", type=Path, metavar="OUT.csv", help="one row per rater judgment"
    )
    target.add_argument("--qrels", type=Path, metavar="OUT", help="TREC qrels, one grade per pair")
    export.add_argument(
        "--aggregate",
        default="mean",
        metavar="METHOD",
        help="for --qrels: mean (default), median, majority, max, min or rater:NAME",
    )
    export.add_argument(
        "--adjudicated", choices=("prefer", "ignore"), default="prefer", help=ADJUDICATED_HELP
    )

    info = commands.add_parser(
        "info", help="what the database holds: counts, raters, runs, coverage"
    )
    info.add_argument("db", metavar="DB")

    demo = commands.add_parser("demo", help="create DB filled with the demo data set")
    demo.add_argument("db", metavar="DB")

    gui = commands.add_parser(
        "gui",
        help="open the judging window on DB (judge-app alone opens the last database used)",
    )
    gui.add_argument("db", metavar="DB")
    gui.add_argument(
        "--rater", metavar="NAME", help="judge as NAME (created if DB does not know it yet)"
    )
    assign = commands.add_parser(
        "assign",
        help="assign the queries to raters, with overlap for agreement",
        description="Put DB's queries in the raters' queues: every query to N of the raters "
        "(--copies N, in rotation, so each gets the same load give or take one), or a share of "
        "the queries to every rater and each other query to one of them in turn (--share P). "
        "Raters DB does not know yet are added. Queries already in a rater's queue stay "
        "(--replace makes the plan their whole queue; judgments are never touched).",
    )
    assign.add_argument("db", metavar="DB")
    assign.add_argument("--raters", required=True, metavar="A,B,C", help="who judges")
    overlap = assign.add_mutually_exclusive_group(required=True)
    overlap.add_argument("--copies", type=int, metavar="N", help="raters per query")
    overlap.add_argument(
        "--share", type=float, metavar="P", help="percent of the queries every rater judges"
    )
    assign.add_argument("--replace", action="store_true", help="replace the raters' queues")
    _add_eval_parser(commands)
    _add_agreement_parser(commands)
    _add_packet_parser(commands)
    _add_report_parser(commands)
    return parser


def _add_eval_parser(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="NDCG@k and its family for runs, from files or a database",
        description="Evaluate runs as trec_eval does: from files (--qrels with one or more "
        "--run-file) or from a database (--db). Means are over the queries that have "
        "judgments and results; the others are reported.",
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
    source.add_argument("--run", action="append", metavar="NAME", help="a run of DB (default all)")
    source.add_argument(
        "--aggregate",
        default="mean",
        metavar="METHOD",
        help="raters' grades to one: mean (default), median, majority, max, min or rater:NAME",
    )
    source.add_argument(
        "--adjudicated", choices=("prefer", "ignore"), default="prefer", help=ADJUDICATED_HELP
    )
    source.add_argument("--raters", metavar="A,B", help="only these raters' judgments")
    options = evaluate.add_argument_group("measures")
    options.add_argument(
        "--k",
        action="append",
        metavar="K",
        help="cut-off: 10, 5,10,20 or all (repeatable; default 10)",
    )
    options.add_argument("--gain", choices=["linear", "exponential"], default="linear")
    options.add_argument(
        "--ideal",
        choices=["judged", "retrieved"],
        default="judged",
        help="IDCG over all judged documents (trec_eval) or the list's",
    )
    options.add_argument(
        "--unjudged",
        choices=["zero", "condensed"],
        default="zero",
        help="unjudged documents gain 0, or are removed (trec_eval -J)",
    )
    options.add_argument(
        "--threshold",
        type=float,
        default=1.0,
        help="lowest relevant grade for P, recall, RR, AP (default 1)",
    )
    options.add_argument(
        "--complete",
        action="store_true",
        help="judged queries missing from a run score 0 (trec_eval -c)",
    )
    output = evaluate.add_argument_group("output")
    output.add_argument("--per-query", action="store_true", help="a row per query too")
    output.add_argument(
        "--per-rater", action="store_true", help="each rater's own mean NDCG of every run"
    )
    output.add_argument("--compare", action="store_true", help="each run against the first")
    output.add_argument("--format", choices=["table", "csv", "json", "trec"], default="table")
    output.add_argument("--digits", type=int, default=4, metavar="N")
    output.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        metavar="N",
        help="of the randomization test (default 10,000)",
    )
    output.add_argument("--seed", type=int, default=0, help="of the randomization and bootstrap")


def _add_agreement_parser(commands: argparse._SubParsersAction) -> None:
    agreement = commands.add_parser(
        "agreement",
        help="inter-annotator agreement of the raters' grades, and what lowers it",
        description="Agreement of raters on (query, document) units, from a judgments CSV "
        "(query_id,doc_id,rater,grade) or a database: percent agreement, Cohen's, Fleiss' and "
        "Krippendorff's coefficients, Gwet's AC1/AC2, each rater's contribution to ordinal "
        "alpha (alpha of all minus alpha without the rater), each query's alpha and the "
        "documents whose grades differ by two or more; with --db and two or more runs, how "
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
    options = agreement.add_argument_group("options")
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
    options.add_argument("--format", choices=["table", "csv", "json"], default="table")
    options.add_argument("--digits", type=int, default=4, metavar="N")


def _add_report_parser(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="the campaign as an HTML or PDF report: NDCG per run and query, charts, agreement",
        description="Write a report of DB: what was judged and its coverage, the settings, mean "
        "NDCG@k per run with 95%% intervals, the comparison of the runs (paired t-test and "
        "randomization test), charts, the per-query table and the raters' agreement. The "
        "numbers are those of judge-app eval --db and judge-app agreement --db. An .html file "
        "is self-contained (charts embedded); a .pdf is the same document on A4 pages.",
    )
    report.add_argument("db", metavar="DB")
    report.add_argument("--out", required=True, type=Path, metavar="FILE.html|FILE.pdf")
    report.add_argument(
        "--k", action="append", metavar="K", help="cut-offs as for eval (default 10; first leads)"
    )
    report.add_argument("--run", action="append", metavar="NAME", help="only these runs")
    report.add_argument("--aggregate", default="mean", metavar="HOW", help="as for eval")
    report.add_argument(
        "--adjudicated", choices=("prefer", "ignore"), default="prefer", help=ADJUDICATED_HELP
    )
    report.add_argument("--raters", metavar="A,B", help="only these raters' judgments")
    report.add_argument("--bootstrap", type=int, default=1000, metavar="N")
    report.add_argument("--seed", type=int, default=0)
    report.add_argument("--title", help="the report's title")


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
    export.add_argument("db", metavar="DB")
    export.add_argument("--rater", required=True, metavar="NAME")
    export.add_argument("--out", required=True, type=Path, metavar="FILE.judge")
    merge = actions.add_parser("merge", help="merge a packet back into the database it came from")
    merge.add_argument("db", metavar="DB")
    merge.add_argument("packet", type=Path, metavar="FILE.judge")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = argparse.Namespace(command="gui", db=None, rater=None)
    try:
        return COMMANDS[args.command](args)
    except JudgeAppError as error:
        print(f"judge-app {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; nothing of the unfinished step was written", file=sys.stderr)
        return 130


def _init(args: argparse.Namespace) -> int:
    from judge_app.store import open_database

    with open_database(args.db) as database:
        print(f"{database.describe()}: ready")
    return 0


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


def _import(args: argparse.Namespace) -> int:
    from judge_app.store.imports import database_for_import, read_inputs, write_inputs

    files = (args.queries, args.documents, args.run, args.judgments)
    if not any(files):
        print(
            "judge-app import: give at least one of --queries, --documents, --run, --judgments",
            file=sys.stderr,
        )
        return 2
    if sys.stderr.isatty():
        names = ", ".join(str(path) for path in files if path)
        print(f"checking {names} …", file=sys.stderr, flush=True)
    inputs = read_inputs(
        queries=args.queries,
        documents=args.documents,
        run=args.run,
        run_name=args.run_name,
        judgments=args.judgments,
        rater=args.rater,
    )
    with database_for_import(args.db) as database, _progress_bar() as progress:
        summary = write_inputs(database, inputs, strict=args.strict, progress=progress)
    print(summary)
    return 0


def _export(args: argparse.Namespace) -> int:
    from judge_app.evaluation import aggregated
    from judge_app.io.exports import write_judgments_csv, write_qrels
    from judge_app.io.outputs import check_output
    from judge_app.metrics.aggregation import parse_method
    from judge_app.store import open_database, reads

    try:
        method = parse_method(args.aggregate)
    except ValueError as error:
        print(f"judge-app export: {error}", file=sys.stderr)
        return 2
    check_output(args.judgments or args.qrels)  # before the database is read
    with open_database(args.db, read_only=True) as database, database.reading() as session:
        if args.judgments:
            count = write_judgments_csv(reads.judgments_frame(session), args.judgments)
            print(f"{args.judgments}: {count} judgments")
            return 0
        judgments = reads.grades_frame(session)  # all a qrels needs: the graded judgments
    grades = aggregated(judgments, method, args.db, args.adjudicated == "prefer")
    count = write_qrels(grades, args.qrels)
    print(f"{args.qrels}: {count} graded pairs ({method})")
    return 0


def _assign(args: argparse.Namespace) -> int:
    from sqlalchemy.orm import Session

    from judge_app.names import normal_ids
    from judge_app.store import open_database
    from judge_app.store.assignments import AssignmentPlan, plan_assignments, write_assignments
    from judge_app.store.people import add_rater, all_query_ids, find_rater

    names = list(dict.fromkeys(normal_ids(args.raters)))
    if not names:
        print("judge-app assign: --raters needs at least one name: --raters a,b,c", file=sys.stderr)
        return 2
    share = None if args.share is None else args.share / 100

    def assign(session: Session) -> tuple[AssignmentPlan, int]:
        queries = all_query_ids(session)
        if not queries:
            raise JudgeAppError(f"{args.db} holds no queries: import them first")
        raters = [(find_rater(session, name) or add_rater(session, name)).id for name in names]
        plan = plan_assignments(queries, raters, copies=args.copies, share=share)
        return plan, write_assignments(session, plan, replace=args.replace)

    with open_database(args.db, create=False) as database:
        plan, added = database.write(assign)
    judges = plan.judges_per_query()
    fewest, most = min(judges.values()), max(judges.values())
    print(
        f"{len(judges):,} queries assigned to {len(names)} raters, {added:,} assignments new; "
        f"each query judged by {fewest if fewest == most else f'{fewest}–{most}'} of them"
        + (f", {len(plan.shared):,} by all" if share is not None else "")
    )
    for name, load in zip(names, plan.load().values()):
        print(f"  {name}: {load:,} queries")
    return 0


def _info(args: argparse.Namespace) -> int:
    from judge_app.store import open_database

    with open_database(args.db, read_only=True) as database:
        print(describe_database(database))
    return 0


def describe_database(database: Database) -> str:
    """A plain-text overview: table counts, raters, runs with their judged coverage."""
    import pandas as pd

    from judge_app.store import reads

    with database.reading() as session:
        counts = reads.table_counts(session)
        raters = reads.raters_frame(session)
        coverage = reads.coverage_frame(session)
        lacking = reads.ids_without_text(session)
    lines = [database.describe(), ""]
    width = max(map(len, counts))
    lines += [f"  {name:<{width}}  {value:>9,}" for name, value in counts.items()]
    for name, ids in lacking.items():
        if ids:
            more = counts[f"{name} without text"] - len(ids)
            shown = ", ".join(ids) + (f" and {more:,} more" if more else "")
            lines += ["", f"{name.capitalize()} known by id alone (import their file): {shown}"]
    if not raters.empty:
        raters = raters.assign(
            active=raters["active"].astype(bool).map({True: "yes", False: "no"}),
            mean_grade=raters["mean_grade"].map(
                lambda value: "" if pd.isna(value) else f"{value:.2f}"
            ),
        )
        lines += ["", "Raters", _indent(raters.to_string(index=False))]
    if not coverage.empty:
        table = pd.DataFrame(
            {
                "run": coverage["run"],
                "queries": coverage["queries"],
                "results": coverage["results"],
                "judged": _percent(coverage["judged"], coverage["results"]),
                "judged@10": _percent(coverage["judged_at_depth"], coverage["results_at_depth"]),
            }
        )
        lines += ["", "Runs (judged: share of results graded by at least one rater)"]
        lines.append(_indent(table.to_string(index=False)))
    return "\n".join(lines)


def _percent(part: pd.Series, whole: pd.Series) -> list[str]:
    return [f"{100 * p / w:.1f}%" if w else "–" for p, w in zip(part, whole)]


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _demo(args: argparse.Namespace) -> int:
    from judge_app.store import open_database
    from judge_app.store.imports import import_files
    from judge_app.store.people import all_query_ids, assign_queries, find_rater
    from judge_app.store.settings import scale

    demo = resources.files("judge_app.resources") / "demo"
    with resources.as_file(demo) as folder, open_database(args.db) as database:
        import_files(
            database,
            queries=folder / "queries.csv",
            documents=folder / "documents.jsonl",
            judgments=folder / "judgments.csv",
        )
        for run in DEMO_RUNS:
            import_files(database, run=folder / run)
        with database.transaction() as session:
            query_ids = all_query_ids(session)
            for name in ("ana", "ben", "chloe"):
                rater = find_rater(session, name)
                if rater is not None:
                    assign_queries(session, rater.id, query_ids)
            labels = scale(session)
        print(describe_database(database))
        print("\nScale: " + ", ".join(f"{label.grade} {label.label}" for label in labels))
    return 0


def _gui(args: argparse.Namespace) -> int:
    """The judging window on DB; without DB, on the last database used, on first use the
    demo (built in the user's data folder), else the start page."""
    from judge_app.gui import preferences, run

    return run(args.db, args.rater, demo=lambda: _demo_database(preferences.data_folder()))


def _demo_database(folder: Path) -> Path:
    """The demo database in the user's data folder, built the first time it is needed."""
    import io
    from contextlib import redirect_stdout

    path = folder / "demo.sqlite"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / "demo.sqlite.part"  # a build cut short never passes for the demo
        for leftover in (partial, *(Path(f"{partial}{end}") for end in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
        with redirect_stdout(io.StringIO()):
            _demo(argparse.Namespace(db=str(partial)))
        partial.replace(path)
        print(f"judge-app: created the demo database {path}", file=sys.stderr)
    return path


def _eval(args: argparse.Namespace) -> int:
    from judge_app.evaluation import EvalRequest, run_evaluation

    request = EvalRequest(
        qrels=args.qrels,
        run_files=args.run_file,
        db=args.db,
        runs=args.run,
        aggregate=args.aggregate,
        adjudicated=args.adjudicated,
        raters=_names(args.raters),
        ks=args.k or ["10"],
        gain=args.gain,
        ideal=args.ideal,
        unjudged=args.unjudged,
        threshold=args.threshold,
        complete=args.complete,
        per_query=args.per_query,
        per_rater=args.per_rater,
        compare=args.compare,
        output=args.format,
        digits=args.digits,
        permutations=args.permutations,
        seed=args.seed,
    )
    return _printed("eval", lambda: run_evaluation(request))


def _agreement(args: argparse.Namespace) -> int:
    from judge_app.agreement_command import AgreementRequest, run_agreement
    from judge_app.names import normal_id

    request = AgreementRequest(
        db=args.db,
        judgments=args.judgments,
        raters=_names(args.raters),
        query=None if args.query is None else normal_id(args.query),
        bootstrap=args.bootstrap,
        seed=args.seed,
        k=args.k,
        output=args.format,
        digits=args.digits,
    )
    return _printed("agreement", lambda: run_agreement(request))


def _report(args: argparse.Namespace) -> int:
    from judge_app.report_command import ReportRequest, write_report

    request = ReportRequest(
        db=args.db,
        out=args.out,
        ks=args.k or ["10"],
        runs=args.run,
        aggregate=args.aggregate,
        adjudicated=args.adjudicated,
        raters=_names(args.raters),
        bootstrap=args.bootstrap,
        seed=args.seed,
        title=args.title,
    )
    return _printed("report", lambda: f"{write_report(request)}: report of {args.db}\n")


def _names(option: str | None) -> list[str] | None:
    """The names of a ``--raters a,b`` option (trimmed, in NFC), None where it is not given."""
    from judge_app.names import normal_ids

    return None if option is None else normal_ids(option)


def _printed(command: str, produce: Callable[[], str]) -> int:
    """Print the text ``produce`` returns; its UsageError is exit 2, with the message."""
    from judge_app.evaluation import UsageError

    try:
        text = produce()
    except UsageError as error:
        print(f"judge-app {command}: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def _packet(args: argparse.Namespace) -> int:
    from judge_app.store import open_database
    from judge_app.store.packets import export_packet, merge_packet

    with open_database(args.db, create=False) as database:
        if args.packet_command == "export":
            made = export_packet(database, args.rater, args.out)
            print(
                f"{made.path}: packet of {made.rater} with {made.queries:,} queries, "
                f"{made.documents:,} documents, {made.results:,} results and "
                f"{made.judgments:,} of their judgments"
            )
            return 0
        merged = merge_packet(database, args.packet)
    print(
        f"merged {args.packet} ({merged.rater}), judgments: {merged.added:,} added, "
        f"{merged.updated:,} changed, {merged.cleared:,} cleared, {merged.unchanged:,} already "
        f"equal; history events: {merged.events:,}"
    )
    if merged.conflicts:
        print(f"{len(merged.conflicts)} changed both here and in the packet; the packet's kept:")
        for conflict in merged.conflicts:
            print(
                f"  {conflict.query_id} {conflict.doc_id}: here {_said(conflict.database)}, "
                f"packet {_said(conflict.packet)}"
            )
    return 0


def _said(state: JudgmentState | None) -> str:
    """A judgment state in words: ``3``, ``skipped``, ``none``."""
    if state is None:
        return "none"
    return "skipped" if state.skipped else str(state.grade)


COMMANDS = {
    "init": _init,
    "import": _import,
    "export": _export,
    "info": _info,
    "assign": _assign,
    "demo": _demo,
    "gui": _gui,
    "eval": _eval,
    "agreement": _agreement,
    "packet": _packet,
    "report": _report,
}


if __name__ == "__main__":
    sys.exit(main())
