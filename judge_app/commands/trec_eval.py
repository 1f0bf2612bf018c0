"""``judge-app trec-eval``: trec_eval 10.0's command, its options and output byte for byte,
for qrels and TREC results files (``judge_app.trec_eval`` computes).

trec_eval's command line is read as it reads it (getopt: ``-q -c -M100 -l2 -mP.5,10``, long
options, options after the files). Where trec_eval stops (a judged query without results,
a document twice in a query) the output printed until then is kept and the status is
trec_eval's; file problems name the file and line. Starts without pandas, SQLAlchemy or Qt.
"""

from __future__ import annotations

import getopt
from collections.abc import Sequence
from dataclasses import dataclass

from judge_app.io.errors import ImportFileError
from judge_app.trec_eval import catalog, specs
from judge_app.trec_eval.errors import EVALUATION, INPUT, USAGE, TrecEvalError
from judge_app.trec_eval.ranked import Ranked, Settings, missing_before, rank
from judge_app.trec_eval.reading import atol, lines_of, read_qrels, read_results

VERSION = "10.0"
SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"
LONG_OPTIONS = {
    "help": "h", "version": "v", "query_eval_wanted": "q", "measure=": "m",
    "complete_rel_info_wanted": "c", "level_for_rel=": "l", "nosummary": "n",
    "Debug_level=": "D", "Judged_docs_only": "J", "Number_docs_in_coll=": "N",
    "Max_retrieved_per_topic=": "M", "Rel_info_format=": "R", "Results_format=": "T",
    "Output_old_results_format=": "o", "Zscore=": "Z",
}  # fmt: skip
USAGE_TEXT = (
    "usage: judge-app trec-eval [-h] [-q] [-n] [-c] [-J] [-l LEVEL] [-M NUM] [-N NUM]\n"
    "                           {-m MEASURE[.PARAMS]}* QRELS RESULTS\n"
)


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's options: the files, ``-m`` arguments as given (none: ``official``),
    ``-q`` per query, ``-n`` no summary, ``-c``, ``-l``, ``-M`` (None: all), ``-J`` and ``-N``."""

    qrels: str
    results: str
    measures: tuple[str, ...] = ()
    per_query: bool = False
    summary: bool = True
    complete: bool = False
    relevance_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    docs_in_collection: int = 0

    def checked(self) -> TrecEvalOptions:
        """These options, or TrecEvalError naming what is wrong (the measures included)."""
        self.specs()
        if self.relevance_level < 0:
            raise TrecEvalError("-l takes a relevance level of 0 or more", USAGE)
        if self.max_docs is not None and self.max_docs < 0:
            raise TrecEvalError("-M takes a number of documents of 0 or more", USAGE)
        return self

    def specs(self) -> list[specs.Spec]:
        """The measures asked for, in trec_eval's order."""
        return specs.selected(self.measures)

    def settings(self) -> Settings:
        return Settings(
            relevance_level=self.relevance_level,
            max_docs=self.max_docs,
            judged_only=self.judged_only,
            complete=self.complete,
            docs_in_collection=self.docs_in_collection,
        )


@dataclass(frozen=True)
class TrecEvalOutcome:
    """trec_eval's standard output, and the error it stopped at after printing it (if any)."""

    text: str
    stop: TrecEvalError | None = None


def trec_eval(options: TrecEvalOptions) -> TrecEvalOutcome:
    """Evaluate the results file against the qrels as trec_eval 10.0 does; its output."""
    from judge_app.trec_eval.compute import compute
    from judge_app.trec_eval.output import query_lines, summary_lines

    chosen = options.checked().specs()
    try:
        qrels, results = read_qrels(options.qrels), read_results(options.results)
    except ImportFileError as error:
        raise TrecEvalError(str(error), INPUT) from None
    ranked = rank(qrels, results, options.settings())
    values = compute(ranked, chosen)
    stop = _stop(ranked, chosen, options)
    upto = ranked.n if stop is None else stop[0]
    lines = list(query_lines(ranked, chosen, values, upto)) if options.per_query else []
    if stop is not None:
        return TrecEvalOutcome("".join(lines), stop[1])
    if options.summary:
        lines.extend(summary_lines(ranked, chosen, values))
    return TrecEvalOutcome("".join(lines))


def _stop(
    ranked: Ranked, chosen: list[specs.Spec], options: TrecEvalOptions
) -> tuple[int, TrecEvalError] | None:
    """Where trec_eval would stop, as (queries printed before, the error): at the first
    judged query without results, or (for measures that rank) at the first query with a
    document twice, whichever comes first (the former, at the same query)."""
    found: list[tuple[int, int, TrecEvalError]] = []
    if ranked.missing:
        query = ranked.missing[0]
        message = (
            f"query '{query}' is judged in {options.qrels} but has no results in "
            f"{options.results} (trec_eval: result qid '{query}' not found in qrels); "
            "-c scores such queries 0"
        )
        found.append((missing_before(ranked, query), 0, TrecEvalError(message, EVALUATION)))
    if any(spec.measure.name not in ("runid", "num_q") for spec in chosen):
        for rank_of, repeat in enumerate(ranked.repeats, start=1):
            path = options.results if repeat.source == "results" else options.qrels
            query = ranked.queries[repeat.query]
            lines = lines_of(path, repeat.source, query, repeat.doc)
            where = f" lines {', '.join(map(str, lines))}" if lines else ""
            verb = "retrieved" if repeat.source == "results" else "judged"
            message = (
                f"{path}{where}: document {repeat.doc} {verb} twice for query {query} "
                "(trec_eval: duplicate docs)"
            )
            found.append((repeat.query, rank_of, TrecEvalError(message, EVALUATION)))
    if not found:
        return None
    upto, _, error = min(found, key=lambda item: item[:2])
    return upto, error


def options_from_arguments(arguments: Sequence[str]) -> TrecEvalOptions | str:
    """trec_eval's command line as options, or the text ``-h`` (or ``-v``) asks for;
    TrecEvalError for a command line trec_eval refuses."""
    long_options = list(LONG_OPTIONS)
    try:
        given, files = getopt.gnu_getopt(list(arguments), SHORT_OPTIONS, long_options)
    except getopt.GetoptError as error:
        raise TrecEvalError(f"{error}\n{USAGE_TEXT}", USAGE) from None
    measures: list[str] = []
    per_query = complete = judged_only = False
    summary, wants = True, ""
    level, max_docs, documents = 1, None, 0
    for option, value in given:
        letter = LONG_OPTIONS.get(option[2:] + "=", LONG_OPTIONS.get(option[2:], option[1:]))
        if letter in ("h", "v"):
            wants = wants or letter
        elif letter == "m":
            measures.append(value)
        elif letter in ("q", "c", "J", "n"):
            per_query, complete = per_query or letter == "q", complete or letter == "c"
            judged_only, summary = judged_only or letter == "J", summary and letter != "n"
        elif letter == "l":
            level = atol(value.encode())
        elif letter == "M":
            max_docs = atol(value.encode())
        elif letter == "N":
            documents = atol(value.encode())
        else:
            _refuse(letter, value)
    if wants == "h":
        return help_text()
    if wants == "v":
        return f"trec_eval version {VERSION} (judge-app trec-eval)\n"
    if len(files) != 2:
        raise TrecEvalError(f"give the qrels file and the results file\n{USAGE_TEXT}", USAGE)
    return TrecEvalOptions(
        files[0],
        files[1],
        tuple(measures),
        per_query=per_query,
        summary=summary,
        complete=complete,
        relevance_level=level,
        max_docs=max_docs,
        judged_only=judged_only,
        docs_in_collection=documents,
    ).checked()


def _refuse(letter: str, value: str) -> None:
    """TrecEvalError for trec_eval's options for other formats, debugging and Z scores (``-o``,
    obsolete, and the defaults ``-R qrels``, ``-T trec_results``, ``-D 0`` pass)."""
    if letter == "R" and value != "qrels":
        raise TrecEvalError(f"-R {value}: judge-app trec-eval reads qrels only", USAGE)
    if letter == "T" and value != "trec_results":
        raise TrecEvalError(f"-T {value}: judge-app trec-eval reads trec_results only", USAGE)
    if letter == "D" and atol(value.encode()) != 0:
        raise TrecEvalError("-D (debugging output) is not supported by judge-app trec-eval", USAGE)
    if letter == "Z":
        raise TrecEvalError("-Z (Z scores) is not supported by judge-app trec-eval", USAGE)


def help_text() -> str:
    """What ``judge-app trec-eval -h`` prints: the options and every measure."""
    lines = [
        USAGE_TEXT,
        "Evaluate RESULTS (a TREC run: qid Q0 docno rank score runid; '-' reads standard",
        "input) against QRELS (qid iter docno rel) as trec_eval 10.0 does, with its output.",
        "",
        "options:",
        "  -q              a line per query and measure, then the summary",
        "  -n              no summary",
        "  -m MEASURE[.P]  add a measure or a set of them (repeatable; default: official);",
        "                  parameters after a dot: -m P.5,10  -m ndcg.1=3,2=9  -m relstring.20",
        "  -c              average over every judged query; one without results scores 0",
        "  -l LEVEL        lowest relevant grade (default 1)",
        "  -M NUM          evaluate only the top NUM documents of each query",
        "  -J              judged documents only (unjudged ones removed before ranking)",
        "  -N NUM          documents in the collection (for utility)",
        "  -h, -v          this help; the version",
        "",
        "sets: "
        + "; ".join(f"{name} ({len(names)} measures)" for name, names in catalog.NICKNAMES.items()),
        "",
        "measures (default parameters in brackets):",
    ]
    for measure in catalog.MEASURES:
        defaults = ",".join(str(value) for value in measure.defaults)
        suffix = f" [{defaults}]" if defaults else ""
        lines.append(f"  {measure.name:<22} {measure.about}{suffix}")
    return "\n".join(lines) + "\n"
