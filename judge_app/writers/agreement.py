"""An :class:`AgreementReport` as ``judge-app agreement --format`` writes it (:func:`as_text`):
a short table report, long-form CSV, or JSON; and the words the report and the agreement page
say of it: Krippendorff's reading of an alpha (:func:`alpha_reading`), the count of what
awaits adjudication (:func:`adjudication_summary`) and the note under the kappa heat map
(``KAPPA_MATRIX_NOTE``).

JSON has null (never NaN) where a statistic is undefined and says why under ``reasons``; every
pair, rater and query entry has its own ``reasons``. CSV is long: one statistic a row, with
the columns that say what it is about. Each lists the documents graded two or more apart as
``adjudicate`` (awaiting adjudication) or ``decided`` (with the lead's grade), and counts them
(``adjudication``), as :func:`~judge_app.agreement.report.adjudications` splits them.
"""

from __future__ import annotations

import heapq
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from judge_app.agreement.coefficients import GRADES, LEVELS
from judge_app.agreement.report import adjudications
from judge_app.errors import UsageError, some_of
from judge_app.writers.json_document import json_document

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.agreement.report import (
        Adjudications,
        AgreementReport,
        Disagreement,
        QueryAgreement,
    )
    from judge_app.agreement.stability import RankingStability

CSV_COLUMNS = [
    "section",
    "rater_a",
    "rater_b",
    "query_id",
    "doc_id",
    "run",
    "statistic",
    "value",
    "reason",
]
OUTPUTS = ("table", "csv", "json")
TABLE_DIGITS = 4
WORST_QUERIES = 10
ADJUDICATION_LINES = 20
TABLE_ROWS = 50
Row = TypeVar("Row")
"""Pairs and raters a table lists (the CSV and JSON list every one): 10,000 raters share
a million pairs."""
KAPPA_MATRIX_NOTE = (
    "The heat map shows each pair's quadratic weighted κ; its diagonal is left empty: a rater "
    "is not compared with themselves."
)


def as_text(report: AgreementReport, output: str, digits: int | None = None) -> str:
    """The report as ``agreement --format`` prints it: ``json`` and ``csv`` in full precision
    unless ``digits``; ``table`` for people, to 4 digits unless ``digits``."""
    if output not in OUTPUTS:
        raise UsageError(f"must be one of {', '.join(OUTPUTS)}", "format")
    if output == "json":
        return json_text(report, digits)
    if output == "csv":
        return csv_text(report, digits)
    return table_text(report, TABLE_DIGITS if digits is None else digits)


def _round(value: float | None, digits: int | None) -> float | None:
    """``value`` rounded to ``digits`` (None: in full)."""
    if value is None or digits is None:
        return value
    return round(value, digits)


# --------------------------------------------------------------------------- JSON


def report_record(report: AgreementReport, digits: int | None = None) -> dict[str, Any]:
    """The report as plain JSON-ready data, numbers in full unless rounded to ``digits``."""

    def r(value: float | None) -> float | None:
        return _round(value, digits)

    interval = report.krippendorff_alpha_ci["ordinal"]
    split = adjudications(report.per_query)
    return {
        "n_units": report.n_units,
        "n_raters": report.n_raters,
        "raters": report.raters,
        "percent_agreement": r(report.percent_agreement),
        "within_one_agreement": r(report.within_one_agreement),
        "krippendorff_alpha": {level: r(report.krippendorff_alpha[level]) for level in LEVELS},
        "krippendorff_alpha_ci": {
            "ordinal": None if interval is None else [r(v) for v in interval]
        },
        "fleiss_kappa": r(report.fleiss_kappa),
        "fleiss_units": report.fleiss_units,
        "gwet_ac1": r(report.gwet_ac1),
        "gwet_ac2": {kind: r(value) for kind, value in report.gwet_ac2.items()},
        "adjudication": {
            "disputed": split.disputed,
            "decided": len(split.decided),
            "awaiting": len(split.awaiting),
        },
        "pairwise": [
            {
                "rater_a": pair.rater_a,
                "rater_b": pair.rater_b,
                "n_units": pair.n_units,
                "percent_agreement": r(pair.percent_agreement),
                "cohen_kappa": r(pair.cohen_kappa),
                "cohen_kappa_linear": r(pair.cohen_kappa_linear),
                "cohen_kappa_quadratic": r(pair.cohen_kappa_quadratic),
                "reasons": pair.reasons,
            }
            for pair in report.pairwise
        ],
        "pairs_without_common_units": report.pairs_apart,
        "per_rater": [
            {
                "rater": rater.rater,
                "n_units": rater.n_units,
                "mean_grade": r(rater.mean_grade),
                "grades": {str(grade): count for grade, count in zip(GRADES, rater.grades)},
                "alpha_without_rater": r(rater.alpha_without_rater),
                "alpha_contribution": r(rater.alpha_contribution),
                "reasons": rater.reasons,
            }
            for rater in report.per_rater
        ],
        "per_query": [
            {
                "query_id": query.query_id,
                "n_units": query.n_units,
                "n_raters": query.n_raters,
                "percent_agreement": r(query.percent_agreement),
                "krippendorff_alpha_ordinal": r(query.krippendorff_alpha_ordinal),
                **_adjudication_record(query),
                "reasons": query.reasons,
            }
            for query in report.per_query
        ],
        "ranking_stability": _ranking_record(report.ranking_stability, digits),
        "reasons": report.reasons,
    }


def _adjudication_record(query: QueryAgreement) -> dict[str, list[dict[str, Any]]]:
    """A query's documents graded two or more apart: ``adjudicate`` those awaiting
    adjudication, ``decided`` those a lead decided, with the lead's grade."""

    def unit(item: Disagreement) -> dict[str, Any]:
        return {"doc_id": item.doc_id, "grades": item.grades, "spread": item.spread}

    split = adjudications([query])
    return {
        "adjudicate": [unit(item) for _query, item in split.awaiting],
        "decided": [unit(item) | {"decided": item.decided} for _query, item in split.decided],
    }


def _ranking_record(ranking: RankingStability | None, digits: int | None) -> dict[str, Any] | None:
    if ranking is None:
        return None
    return {
        "measure": ranking.measure,
        "n_queries": ranking.n_queries,
        "raters": ranking.raters,
        "left_out": ranking.left_out,
        "orders": [
            {
                "rater": rater,
                "runs": [
                    {"run": run, ranking.measure: _round(value, digits)} for run, value in runs
                ],
            }
            for rater, runs in ranking.orders.items()
        ],
        "kendall_tau": [
            {
                "rater_a": tau.rater_a,
                "rater_b": tau.rater_b,
                "tau": _round(tau.tau, digits),
                "reasons": {} if tau.reason is None else {"tau": tau.reason},
            }
            for tau in ranking.taus
        ],
    }


def json_text(report: AgreementReport, digits: int | None = None) -> str:
    return json_document(report_record(report, digits))


# --------------------------------------------------------------------------- CSV


def csv_text(report: AgreementReport, digits: int | None = None) -> str:
    """Long form: ``section, rater_a, rater_b, query_id, doc_id, run, statistic, value,
    reason``; sections overall, pair, rater, query, adjudicate (awaiting adjudication),
    decided (by a lead), ranking. Text cells are inert; values are numbers."""
    import pandas as pd

    from judge_app.io import exports

    rows: list[dict[str, Any]] = []

    def row(
        section: str, statistic: str, value: Any, reason: str | None = None, **where: str
    ) -> None:
        rows.append(
            {"section": section, "statistic": statistic, "value": value, "reason": reason} | where
        )

    record = report_record(report, 15)
    reasons = report.reasons
    for key in ("n_units", "n_raters", "percent_agreement", "within_one_agreement"):
        row("overall", key, record[key], reasons.get(key))
    for level in LEVELS:
        key = f"krippendorff_alpha.{level}"
        row("overall", key, record["krippendorff_alpha"][level], reasons.get(key))
    bounds = record["krippendorff_alpha_ci"]["ordinal"] or [None, None]
    for end, value in zip(("low", "high"), bounds):
        key = "krippendorff_alpha_ci.ordinal"
        row("overall", f"{key}.{end}", value, reasons.get(key))
    for key in ("fleiss_kappa", "fleiss_units", "gwet_ac1"):
        row("overall", key, record[key], reasons.get(key))
    for kind, value in record["gwet_ac2"].items():
        row("overall", f"gwet_ac2.{kind}", value, reasons.get(f"gwet_ac2.{kind}"))
    for key, count in record["adjudication"].items():
        row("overall", f"adjudication.{key}", count)
    for pair in record["pairwise"]:
        names = {"rater_a": pair["rater_a"], "rater_b": pair["rater_b"]}
        for key in ("n_units", "percent_agreement", "cohen_kappa", "cohen_kappa_linear",
                    "cohen_kappa_quadratic"):  # fmt: skip
            row("pair", key, pair[key], pair["reasons"].get(key), **names)
    for rater in record["per_rater"]:
        name = {"rater_a": rater["rater"]}
        for key in ("n_units", "mean_grade"):
            row("rater", key, rater[key], rater["reasons"].get(key), **name)
        for grade, count in rater["grades"].items():
            row("rater", f"grade_{grade}", count, **name)
        for key in ("alpha_without_rater", "alpha_contribution"):
            row("rater", key, rater[key], rater["reasons"].get(key), **name)
    for query in record["per_query"]:
        qid = {"query_id": query["query_id"]}
        for key in ("n_units", "n_raters", "percent_agreement", "krippendorff_alpha_ordinal"):
            row("query", key, query[key], query["reasons"].get(key), **qid)
        row("query", "adjudicate", len(query["adjudicate"]), **qid)
        row("query", "decided", len(query["decided"]), **qid)
    for section in ("adjudicate", "decided"):
        for query in record["per_query"]:
            for unit in query[section]:
                where = {"query_id": query["query_id"], "doc_id": unit["doc_id"]}
                if section == "decided":
                    row(section, "decided", unit["decided"], **where)
                for rater, grade in unit["grades"].items():
                    row(section, "grade", grade, **where, rater_a=rater)
    ranking = record["ranking_stability"]
    if ranking is None:
        row("ranking", "ranking_stability", None, reasons.get("ranking_stability"))
    else:
        for rater, why in ranking["left_out"].items():
            row("ranking", "left_out", None, why, rater_a=rater)
        for order in ranking["orders"]:
            for rank, entry in enumerate(order["runs"], start=1):
                where = {"rater_a": order["rater"], "run": entry["run"]}
                row("ranking", ranking["measure"], entry[ranking["measure"]], **where)
                row("ranking", "rank", rank, **where)
        for tau in ranking["kendall_tau"]:
            names = {"rater_a": tau["rater_a"], "rater_b": tau["rater_b"]}
            row("ranking", "kendall_tau", tau["tau"], tau["reasons"].get("tau"), **names)
    frame = pd.DataFrame(rows, columns=CSV_COLUMNS, dtype=object)
    return exports.csv_text(frame, float_format=None if digits is None else f"%.{digits}f")


# --------------------------------------------------------------------------- table


def alpha_reading(alpha: float) -> str:
    """Krippendorff's reading of an alpha (Content Analysis, 2nd ed., 2004, p. 241)."""
    if alpha >= 0.8:
        return "reliable, good enough to draw conclusions from (alpha >= 0.800)"
    if alpha >= 0.667:
        return "tentative, good enough for tentative conclusions only (0.667 <= alpha < 0.800)"
    if alpha > 0:
        return "unreliable, too low to draw conclusions from (alpha < 0.667)"
    return "no better than chance: the raters disagree as much as random grades would, or more"


def adjudication_summary(split: Adjudications) -> str:
    """``23 documents are graded two or more apart; a lead decided 1; 22 await
    adjudication``."""
    count, waiting = split.disputed, len(split.awaiting)
    return (
        f"{count:,} document{' is' if count == 1 else 's are'} graded two or more apart; "
        f"a lead decided {len(split.decided):,}; "
        f"{waiting:,} await{'s' if waiting == 1 else ''} adjudication"
    )


def alpha_headline(report: AgreementReport, digits: int = 4) -> str:
    """``Ordinal alpha 0.9433 [0.9175, 0.9602]: reliable, …`` (the interval the bootstrap's),
    or why it is undefined."""
    alpha = report.krippendorff_alpha["ordinal"]
    if alpha is None:
        return f"Ordinal alpha: undefined ({report.reasons['krippendorff_alpha.ordinal']})"
    interval = report.krippendorff_alpha_ci["ordinal"]
    shown = "" if interval is None else f" [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"
    return f"Ordinal alpha {alpha:.{digits}f}{shown}: {alpha_reading(alpha)}"


def table_text(report: AgreementReport, digits: int = 4) -> str:
    """A short report: the headline, the coefficients, pairs, raters, the worst queries with
    what awaits adjudication, ranking stability, and why anything is missing."""
    import pandas as pd

    def f(value: float | None) -> str:
        return "–" if value is None else f"{value:.{digits}f}"

    queries = len(report.per_query)
    lines = [
        f"Agreement of {report.n_raters:,} rater{'s' * (report.n_raters != 1)} "
        f"({some_of(report.raters)}) on {report.n_units:,} documents of {queries:,} "
        f"quer{'ies' if queries != 1 else 'y'}; {report.n_multi_rated:,} graded by two or more",
        "",
    ]
    lines.append(alpha_headline(report, digits))
    if report.krippendorff_alpha["ordinal"] is not None and report.krippendorff_alpha_ci["ordinal"]:
        lines.append(
            f"  95% bootstrap interval from {report.resamples:,} resamples of the documents"
        )
    alphas = "  ".join(f"{level} {f(report.krippendorff_alpha[level])}" for level in LEVELS)
    ac2 = "  ".join(f"{kind} {f(value)}" for kind, value in report.gwet_ac2.items())
    lines += [
        "",
        f"  percent agreement     {f(report.percent_agreement)}  exact, over the documents "
        "graded by two or more",
        f"  within one grade      {f(report.within_one_agreement)}",
        f"  Krippendorff's alpha  {alphas}",
        f"  Fleiss' kappa         {f(report.fleiss_kappa)}"
        + (
            f"  over the {report.fleiss_units:,} documents graded by all {report.n_raters:,} raters"
            if report.fleiss_units
            else ""
        ),
        f"  Gwet's AC1            {f(report.gwet_ac1)}",
        f"  Gwet's AC2            {ac2}",
    ]
    if report.pairwise:
        shown, which = _first_rows(
            report.pairwise, lambda p: -p.n_units, "pairs", "with the most common documents"
        )
        pairs = pd.DataFrame(
            {
                "rater_a": [p.rater_a for p in shown],
                "rater_b": [p.rater_b for p in shown],
                "common": [p.n_units for p in shown],
                "agreement": [f(p.percent_agreement) for p in shown],
                "kappa": [f(p.cohen_kappa) for p in shown],
                "linear": [f(p.cohen_kappa_linear) for p in shown],
                "quadratic": [f(p.cohen_kappa_quadratic) for p in shown],
            }
        )
        lines += ["", f"Pairs (Cohen's kappa on common documents{which})", _indent(pairs)]
    if report.pairs_apart:
        lines += ["", f"  {apart_sentence(report.pairs_apart)}"]
    shown_raters, which = _first_rows(
        report.per_rater,
        lambda r: (r.alpha_contribution is None, r.alpha_contribution or 0),
        "raters",
        "who lower the agreement most",
    )
    raters = pd.DataFrame(
        {
            "rater": [r.rater for r in shown_raters],
            "documents": [r.n_units for r in shown_raters],
            "mean": [f(r.mean_grade) for r in shown_raters],
            **{str(g): [r.grades[g] for r in shown_raters] for g in range(len(GRADES))},
            "alpha_without": [f(r.alpha_without_rater) for r in shown_raters],
            "contribution": [f(r.alpha_contribution) for r in shown_raters],
        }
    )
    lines += [
        "",
        "Raters (grades 0-5: how many of each; contribution: ordinal alpha of all minus alpha "
        f"without the rater, below 0 the others agree better without them{which})",
        _indent(raters),
    ]
    lines += _worst_queries(report, f)
    lines += _ranking_lines(report.ranking_stability, f)
    undefined: dict[str, list[str]] = {}
    for key, why in report.reasons.items():
        undefined.setdefault(why, []).append(key)
    for pair in report.pairwise:
        for key, why in pair.reasons.items():
            undefined.setdefault(why, []).append(f"{pair.rater_a}/{pair.rater_b} {key}")
    for rater in report.per_rater:
        for key, why in rater.reasons.items():
            undefined.setdefault(why, []).append(f"{rater.rater} {key}")
    if undefined:
        lines += ["", "Undefined (shown as –)"]
        for why, keys in undefined.items():
            text = f"{some_of(keys)}: {why}"
            lines += textwrap.wrap(text, 98, initial_indent="  ", subsequent_indent="    ")
    return "\n".join(lines) + "\n"


def _worst_queries(report: AgreementReport, f: Callable[[float | None], str]) -> list[str]:
    import pandas as pd

    if not report.per_query:
        return []
    ranked = sorted(
        report.per_query,
        key=lambda q: (q.krippendorff_alpha_ordinal is None, q.krippendorff_alpha_ordinal or 0),
    )
    worst = ranked[:WORST_QUERIES]
    table = pd.DataFrame(
        {
            "query": [q.query_id for q in worst],
            "documents": [q.n_units for q in worst],
            "raters": [q.n_raters for q in worst],
            "agreement": [f(q.percent_agreement) for q in worst],
            "alpha": [f(q.krippendorff_alpha_ordinal) for q in worst],
            "to_adjudicate": [len(adjudications([q]).awaiting) for q in worst],
        }
    )
    title = f"Worst queries (lowest ordinal alpha; {len(worst)} of {len(ranked)})"
    lines = ["", title, _indent(table)]
    split = adjudications(ranked)
    if split.disputed:
        waiting = split.awaiting
        lines += ["", f"To adjudicate ({adjudication_summary(split)})"]
        for query_id, unit in waiting[:ADJUDICATION_LINES]:
            grades = ", ".join(f"{rater} {grade}" for rater, grade in unit.grades.items())
            lines.append(f"  {query_id} {unit.doc_id}: {grades}")
        more = len(waiting) - ADJUDICATION_LINES
        if more > 0:
            lines.append(f"  … and {more:,} more (--format csv or json lists them all)")
    return lines


def _ranking_lines(ranking: RankingStability | None, f: Callable[[float | None], str]) -> list[str]:
    if ranking is None:
        return []
    lines = [
        "",
        f"Ranking stability: runs by mean {ranking.measure} with each rater's judgments "
        f"({ranking.n_queries:,} queries)",
    ]
    width = max(len(rater) for rater in [*ranking.orders, *ranking.left_out])
    for rater, runs in ranking.orders.items():
        order = " > ".join(f"{run} {f(value)}" for run, value in runs)
        lines.append(f"  {rater:<{width}}  {order}")
    for rater, why in ranking.left_out.items():
        lines.append(f"  {rater:<{width}}  left out: {why}")
    for tau in ranking.taus:
        shown = f(tau.tau) if tau.reason is None else f"– ({tau.reason})"
        lines.append(f"  Kendall's tau {tau.rater_a}–{tau.rater_b}: {shown}")
    return lines


def _indent(frame: pd.DataFrame) -> str:
    return "\n".join("  " + line for line in frame.to_string(index=False).splitlines())


def _first_rows(
    rows: list[Row], key: Callable[[Row], Any], noun: str, which: str
) -> tuple[list[Row], str]:
    """All ``rows`` when there are ``TABLE_ROWS`` or fewer; else the first ones by ``key``,
    in their order, and the words that say which they are."""
    if len(rows) <= TABLE_ROWS:
        return rows, ""
    first = set(map(id, heapq.nsmallest(TABLE_ROWS, rows, key=key)))
    shown = [row for row in rows if id(row) in first]
    return shown, (
        f"; the {TABLE_ROWS} of {len(rows):,} {noun} {which}: --format csv or json lists all"
    )


def apart_sentence(apart: int) -> str:
    """The sentence that counts the pairs of raters who share no document (not listed)."""
    pairs = "pair of raters shares" if apart == 1 else "pairs of raters share"
    return f"{apart:,} {pairs} no document: not listed."
