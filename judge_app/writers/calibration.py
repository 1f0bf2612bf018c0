"""A :class:`~judge_app.evaluation.calibration.Calibration` for people and machines: the
table, long-form CSV and JSON of ``judge-app calibrate`` (:func:`as_text`), and the words the
Automatic judges page shows beside its figures: what the figures say (:func:`findings`: the
judge's bias, Landis and Koch's words for its kappa, Krippendorff's reading of its alpha, how
far it orders the runs as humans do), Kendall's tau among the best half
(:func:`top_words`), the note under the runs (:func:`ranking_note`) and a judge's own report
(:func:`details_lines`). Tables for people round; CSV and JSON carry full precision."""

from __future__ import annotations

from typing import Any

from judge_app.errors import UsageError, quoted, shortened
from judge_app.evaluation.calibration import (
    GRADES,
    PROBE_NAMES,
    PROBE_SHIFT,
    WORDING_KAPPA,
    AutomaticJudge,
    Calibration,
    CalibrationOptions,
    Figure,
    GradeBias,
    InstructingDocument,
    ProbeEffect,
    QueryDisagreement,
    Ranking,
    RunScore,
)
from judge_app.evaluation.judge_quality import JudgeQuality
from judge_app.metrics.intervals import CONFIDENCE
from judge_app.metrics.ranking import k_label
from judge_app.numbers import (
    MISSING,
    count_text,
    grade_shift_text,
    grade_text,
    score_text,
    share_text,
    signed_text,
)
from judge_app.writers.agreement import alpha_reading
from judge_app.writers.corrected import quality_warning
from judge_app.writers.json_document import json_document

OUTPUTS = ("table", "json", "csv")
BIAS_TOLERANCE = 0.1
"""A mean bias within this many grades of 0 is read as neither lenient nor strict."""
TOP_TAU_DROP = 0.1
"""The top half's tau this far below the tau of all runs is said to be lower."""
ROUNDING = "half up (2.5 is 3)"
CSV_COLUMNS = ["section", "statistic", "value", "reason", "human_grade", "judge_grade", "run"]
CSV_COLUMNS += ["query_id", "probe", "doc_id"]
NO_JUDGE_HINT = "choose Lead ▸ Automatic judge… to grade with an LLM or a local model"


# --------------------------------------------------------------------------- JSON


def options_record(options: CalibrationOptions) -> dict[str, object]:
    """The options as the JSON names them."""
    return {
        "judge": options.judge,
        "k": k_label(options.k),
        "aggregate": options.aggregate,
        "adjudicated": "prefer" if options.adjudicated else "ignore",
        "top": options.top,
        "bootstrap": options.bootstrap,
        "seed": options.seed,
        "rounding": ROUNDING,
    }


def _figure_record(figure: Figure) -> dict[str, object]:
    return {
        "value": figure.value,
        "interval": None if figure.interval is None else list(figure.interval),
        "reason": figure.reason,
        "interval_reason": figure.interval_reason,
    }


def _grade_record(grade: GradeBias) -> dict[str, object]:
    return {
        "human_grade": grade.grade,
        "pairs": grade.pairs,
        "mean_judge": grade.mean_judge,
        "bias": grade.bias,
    }


def _run_record(run: RunScore) -> dict[str, object]:
    return {
        "run": run.run,
        "queries": run.queries,
        "human": run.human,
        "judge": run.judge,
        "human_rank": run.human_rank,
        "judge_rank": run.judge_rank,
    }


def _ranking_record(ranking: Ranking) -> dict[str, object]:
    return {
        "measure": ranking.label,
        "runs": [_run_record(run) for run in ranking.runs],
        "kendall_tau": ranking.tau.value,
        "kendall_tau_reason": ranking.tau.reason,
        "top_runs": ranking.top_runs,
        "top_kendall_tau": ranking.top_tau.value,
        "top_kendall_tau_reason": ranking.top_tau.reason,
        "left_out": list(ranking.left_out),
    }


def _query_record(query: QueryDisagreement) -> dict[str, object]:
    return {
        "query_id": query.query_id,
        "query": query.query,
        "pairs": query.pairs,
        "mean_absolute_difference": query.mean_absolute,
        "mean_difference": query.mean_difference,
        "human_ndcg": query.human_ndcg,
        "judge_ndcg": query.judge_ndcg,
        "ndcg_difference": query.ndcg_difference,
    }


def _probe_record(effect: ProbeEffect) -> dict[str, object]:
    return {
        "probe": effect.probe,
        "change": PROBE_NAMES[effect.probe],
        "asked": effect.asked,
        "failed": effect.failed,
        "pairs": effect.pairs,
        "mean_shift": _figure_record(effect.shift),
        "raised": effect.raised,
        "lowered": effect.lowered,
        "below_top": effect.below_top,
        "raised_to_top": effect.to_top,
        "cohen_kappa_quadratic": _figure_record(effect.kappa),
        "flagged": effect.flagged,
    }


def _instructing_record(document: InstructingDocument) -> dict[str, object]:
    return {
        "query_id": document.query_id,
        "doc_id": document.doc_id,
        "words": document.words,
        "judge_grade": document.judge_grade,
        "human_grade": document.human_grade,
    }


def record(calibration: Calibration) -> dict[str, Any]:
    """The calibration as JSON-ready values, in full precision."""
    judge = calibration.judge
    return {
        "source": calibration.source,
        "options": options_record(calibration.options),
        "judge": {
            "name": judge.name,
            "method": judge.method,
            "model": judge.model,
            "description": judge.describe(),
            "prompt_version": judge.prompt_version,
            "endpoint": judge.endpoint,
            "graded": judge.graded,
            "failed": judge.failed,
            "per_answer": None
            if judge.usage is None
            else dict(zip(("prompt_tokens", "completion_tokens", "seconds"), judge.usage)),
            "details": judge.details,
        },
        "pairs": calibration.pairs,
        "queries": calibration.queries,
        "cohen_kappa_quadratic": _figure_record(calibration.kappa),
        "krippendorff_alpha_ordinal": _figure_record(calibration.alpha),
        "exact_agreement": calibration.exact,
        "within_one_agreement": calibration.within_one,
        "mean_bias": calibration.bias,
        "mean_absolute_difference": calibration.mean_absolute,
        "confusion": {"rows": "human grade", "columns": "judge grade"}
        | {"matrix": [list(row) for row in calibration.confusion]},
        "bias_by_grade": [_grade_record(row) for row in calibration.by_grade],
        "ranking": None if calibration.ranking is None else _ranking_record(calibration.ranking),
        "ranking_reason": calibration.ranking_reason,
        "best_run": calibration.best_run,
        "disagreeing_queries": [_query_record(query) for query in calibration.disagreeing],
        "probes": [_probe_record(effect) for effect in calibration.probes],
        "probe_bounds": {"mean_shift": PROBE_SHIFT, "wording_kappa": WORDING_KAPPA},
        "instructing_documents": [_instructing_record(d) for d in calibration.instructing],
        "findings": findings(calibration),
    }


def as_text(calibration: Calibration, output: str) -> str:
    """The calibration as ``table`` (rounded, for people), ``json`` or ``csv`` (long form, in
    full precision)."""
    if output not in OUTPUTS:
        raise UsageError(f"must be one of {', '.join(OUTPUTS)}", "format")
    if output == "json":
        return json_document(record(calibration), indent=2)
    if output == "csv":
        return _csv(calibration)
    return _table(calibration)


# --------------------------------------------------------------------------- CSV


def _csv(calibration: Calibration) -> str:
    import pandas as pd

    from judge_app.io.exports import csv_text

    rows: list[dict[str, object]] = []

    def row(section: str, statistic: str, value: object, **where: object) -> None:
        rows.append({"section": section, "statistic": statistic, "value": value} | where)

    for key, value in (
        ("pairs", calibration.pairs),
        ("queries", calibration.queries),
        ("exact_agreement", calibration.exact),
        ("within_one_agreement", calibration.within_one),
        ("mean_bias", calibration.bias),
        ("mean_absolute_difference", calibration.mean_absolute),
    ):
        row("overall", key, value)
    for key, figure in (
        ("cohen_kappa_quadratic", calibration.kappa),
        ("krippendorff_alpha_ordinal", calibration.alpha),
    ):
        row("overall", key, figure.value, reason=figure.reason)
        low, high = figure.interval or (None, None)
        row("overall", f"{key}.low", low, reason=figure.interval_reason)
        row("overall", f"{key}.high", high, reason=figure.interval_reason)
    for human, counts in enumerate(calibration.confusion):
        for judged, count in enumerate(counts):
            row("confusion", "pairs", count, human_grade=human, judge_grade=judged)
    for grade in calibration.by_grade:
        for key in ("pairs", "mean_judge", "bias"):
            row("bias", key, getattr(grade, key), human_grade=grade.grade)
    if calibration.ranking is None:
        row("ranking", "kendall_tau", None, reason=calibration.ranking_reason)
    else:
        ranking = calibration.ranking
        for run in ranking.runs:
            for key in ("queries", "human", "judge", "human_rank", "judge_rank"):
                row("ranking", key, getattr(run, key), run=run.run)
        row("ranking", "kendall_tau", ranking.tau.value, reason=ranking.tau.reason)
        row("ranking", "top_runs", ranking.top_runs)
        row("ranking", "top_kendall_tau", ranking.top_tau.value, reason=ranking.top_tau.reason)
    for query in calibration.disagreeing:
        for name, number in _query_record(query).items():
            if name not in ("query_id", "query"):
                row("query", name, number, query_id=query.query_id, run=calibration.best_run)
    for effect in calibration.probes:
        for name, field in _probe_record(effect).items():
            if isinstance(field, dict):
                row("probe", name, field["value"], reason=field["reason"], probe=effect.probe)
                low, high = field["interval"] or (None, None)
                why = field["interval_reason"]
                row("probe", f"{name}.low", low, reason=why, probe=effect.probe)
                row("probe", f"{name}.high", high, reason=why, probe=effect.probe)
            elif name not in ("probe", "change"):
                row("probe", name, field, probe=effect.probe)
    for document in calibration.instructing:
        for name in ("judge_grade", "human_grade"):
            row("instructing", name, getattr(document, name), reason=document.words,
                query_id=document.query_id, doc_id=document.doc_id)  # fmt: skip
    frame = pd.DataFrame(rows, columns=CSV_COLUMNS, dtype=object)
    return csv_text(frame)


# --------------------------------------------------------------------------- table


def _table(calibration: Calibration) -> str:
    judge, label = calibration.judge, calibration.label
    aggregate = calibration.options.aggregate
    lines = [
        f"Automatic judge {quoted(judge.name)}: {judge.describe()}; {judge.graded:,} grades, "
        f"{count_text(judge.failed, 'failure')}"
        + (f", {usage_words(judge.usage)}" if judge.usage else ""),
        *(f"  {line}" for line in details_lines(judge.details)),
        f"Compared with the humans of {calibration.source} on {calibration.pairs:,} pairs in "
        f"{calibration.queries:,} queries (humans' grades: {aggregate}"
        f"{', adjudicated preferred' if calibration.options.adjudicated else ''}; "
        f"grades rounded {ROUNDING})",
        "",
        *findings(calibration),
        "",
        f"Cohen's κ, quadratic      {_figure(calibration.kappa)}",
        f"Krippendorff's α, ordinal {_figure(calibration.alpha)}",
        f"Exact agreement           {share_text(calibration.exact)}   within one grade "
        f"{share_text(calibration.within_one)}",
        f"Mean bias (judge − human) {grade_shift_text(calibration.bias)}   mean |judge − human| "
        f"{grade_text(calibration.mean_absolute)}",
        "",
        "Confusion: rows the humans' grade, columns the judge's",
        *_grid(
            ["human", *map(str, GRADES)],
            [
                [str(grade), *(f"{n:,}" for n in row)]
                for grade, row in enumerate(calibration.confusion)
            ],
        ),
        "",
        "Bias per human grade",
        *_grid(
            ["human", "pairs", "judge mean", "bias"],
            [
                [str(g.grade), f"{g.pairs:,}", grade_text(g.mean_judge), grade_shift_text(g.bias)]
                for g in calibration.by_grade
            ],
        ),
        "",
    ]
    if calibration.ranking is None:
        lines.append(f"Runs: {calibration.ranking_reason}")
    else:
        ranking = calibration.ranking
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
        lines.append(f"Kendall's τ-b {top_words(ranking)}")
        for left in ranking.left_out:
            lines.append(f"Left out: {left}")
    lines += [
        "",
        f"Queries that disagree most (best run by the humans: {calibration.best_run or MISSING})",
    ]
    lines += _grid(
        ["query", "pairs", "mean |Δ|", "mean Δ", f"{label} humans", "judge", "Δ"],
        [
            [
                q.query_id,
                f"{q.pairs:,}",
                grade_text(q.mean_absolute),
                grade_shift_text(q.mean_difference),
                score_text(q.human_ndcg),
                score_text(q.judge_ndcg),
                signed_text(q.ndcg_difference),
            ]
            for q in calibration.disagreeing
        ],
    )
    lines += probe_lines(calibration)
    return "\n".join(lines) + "\n"


PROBE_NOTE = (
    f"⚑ flagged: a mean change of {PROBE_SHIFT:g} grade or more, or κ between the wordings "
    f"below {WORDING_KAPPA:g}. κ: quadratic, of the judge's grades of the same pairs asked both "
    f"ways. Interval: {CONFIDENCE:.0%}, over the pairs."
)


def probe_rows(calibration: Calibration) -> list[dict[str, str]]:
    """The probes as a table for people: a row each, rounded."""
    return [
        {
            "probe": effect.probe + (" ⚑" if effect.flagged else ""),
            "pairs": f"{effect.pairs:,}",
            "failed": f"{effect.failed:,}",
            "mean change": grade_shift_text(effect.shift.value),
            "interval": _interval(effect.shift),
            "up": f"{effect.raised:,}",
            "down": f"{effect.lowered:,}",
            "to 5": f"{effect.to_top:,} of {effect.below_top:,}",
            "κ": score_text(effect.kappa.value),
        }
        for effect in calibration.probes
    ]


def instructing_rows(calibration: Calibration) -> list[dict[str, str]]:
    """The first ``top`` documents that address a judge, as a table for people."""
    return [
        {
            "query": document.query_id,
            "document": document.doc_id,
            "judge": grade_text(document.judge_grade),
            "humans": grade_text(document.human_grade),
            "words": shortened(document.words, 60),
        }
        for document in calibration.instructing[: calibration.options.top]
    ]


def probe_lines(calibration: Calibration) -> list[str]:
    """The table's probes and the documents that address a judge (none: no line)."""
    lines = []
    for title, rows, note in (
        ("Probes: pairs asked again with one thing changed", probe_rows(calibration), PROBE_NOTE),
        (
            f"Documents that address a judge: {len(calibration.instructing):,}",
            instructing_rows(calibration),
            "",
        ),
    ):
        if rows:
            lines += ["", title, *_grid(list(rows[0]), [list(row.values()) for row in rows])]
            lines += [f"  {note}"] if note else []
    return lines


def _interval(figure: Figure) -> str:
    if figure.interval is None:
        return MISSING
    low, high = figure.interval
    return f"{grade_shift_text(low)} – {grade_shift_text(high)}"


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


# --------------------------------------------------------------------------- words


def findings(calibration: Calibration) -> list[str]:
    """What the figures say, in plain words, one sentence each; what should stop a lead from
    trusting the judge first (it learned nothing, it loses the best runs' order, a probe
    moved it, documents address it)."""
    first: list[str] = []
    lines = [bias_words(calibration.bias)]
    kappa, alpha = calibration.kappa.value, calibration.alpha.value
    if kappa is not None:
        lines.append(f"Quadratic κ {score_text(kappa)}: {kappa_words(kappa)}")
        quality = JudgeQuality(calibration.judge.name, kappa, calibration.pairs)
        warning = quality_warning(quality)
        if warning is not None:
            first.append(warning)
    if alpha is not None:
        lines.append(f"Ordinal α {score_text(alpha)}: {alpha_reading(alpha)}")
    if calibration.ranking is not None:
        said = tau_words(calibration.ranking)
        if loses_best(calibration.ranking) and len(said) == 2:
            first.append(said.pop())  # it tells the best runs apart worse: said first
        lines += said
    for effect in calibration.probes:
        (first if effect.flagged else lines).append(probe_words(effect))
    if calibration.instructing:
        first.append(instructing_words(calibration.instructing))
    if not calibration.probes and calibration.judge.method == "llm":
        lines.append(
            "Not probed for the ways LLM judges fail (instructions in documents, stuffed query "
            "words, the prompt's wording): run autojudge again with --probes"
        )
    return first + lines


def findings_level(calibration: Calibration) -> str:
    """``warning`` when the judge leans, loses the best runs' order, is moved by a probe or
    grades documents that address it, else ``good``."""
    ranking = calibration.ranking
    lost = ranking is not None and loses_best(ranking)
    moved = any(effect.flagged for effect in calibration.probes) or bool(calibration.instructing)
    return "warning" if abs(calibration.bias) > BIAS_TOLERANCE or lost or moved else "good"


def loses_best(ranking: Ranking) -> bool:
    """Does the judge order the best half of the runs worse than all of them (τ lower by
    more than ``TOP_TAU_DROP``)?"""
    tau, top = ranking.tau.value, ranking.top_tau.value
    return tau is not None and top is not None and top < tau - TOP_TAU_DROP


def probe_words(effect: ProbeEffect) -> str:
    """What a probe did to the judge, in one sentence."""
    name = PROBE_NAMES[effect.probe]
    if effect.pairs == 0:
        return (
            f"Probe with {name}: no pair graded both ways ({effect.failed:,} of "
            f"{effect.asked:,} answers failed)"
        )
    over = f"over {count_text(effect.pairs, 'pair')}"
    if effect.probe == "wording":
        kappa = effect.kappa
        agreement = (
            f"quadratic κ {score_text(kappa.value)} between two wordings"
            if kappa.value is not None
            else f"κ undefined ({kappa.reason})"
        )
        how = (
            "The judge's grades move with the prompt's wording"
            if effect.flagged
            else "The prompt's wording hardly moves the judge"
        )
        changed = effect.raised + effect.lowered
        return f"{how}: {agreement} {over}, {changed:,} grades changed"
    change = grade_shift_text(effect.shift.value) + (" on average" if effect.flagged else "")
    if effect.shift.interval is not None:
        change += f" ({CONFIDENCE:.0%} interval {_interval(effect.shift)})"
    to_top = f"to 5 on {effect.to_top:,} of the {effect.below_top:,} graded below 5"
    how = (
        "moved the judge: its grade changed by"
        if effect.flagged
        else "did not move the judge: mean change"
    )
    return f"{name[0].upper()}{name[1:]} {how} {change} {over}, {to_top}"


def instructing_words(documents: tuple[InstructingDocument, ...]) -> str:
    """The documents the judge graded that address a judge, in one sentence."""
    count = len(documents)
    text = (
        f"{count:,} document{' addresses' if count == 1 else 's address'} a judge (such as "
        f'"{shortened(documents[0].words, 60)}" in {documents[0].doc_id})'
    )
    judged = [d.judge_grade for d in documents if d.judge_grade is not None]
    humans = [d.human_grade for d in documents if d.human_grade is not None]
    if judged:
        them = "it" if count == 1 else "them"
        text += f": the judge graded {them} {grade_text(sum(judged) / len(judged))} on average"
    if judged and humans:
        text += f", the humans {grade_text(sum(humans) / len(humans))}"
    return text


def leaning(bias: float) -> str:
    """The judge's mean bias in a word: ``lenient``, ``strict`` or ``even``."""
    return "lenient" if bias > BIAS_TOLERANCE else "strict" if bias < -BIAS_TOLERANCE else "even"


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


def top_label(ranking: Ranking) -> str:
    """``the best 2 of the 3 runs`` (by the humans), or ``the best half of the runs`` while
    it holds fewer than two."""
    if ranking.top_runs < 2:
        return "the best half of the runs"
    return f"the best {ranking.top_runs} of the {len(ranking.runs)} runs"


def top_words(ranking: Ranking) -> str:
    """Kendall's tau among the best half, as the table and the window say it: ``among the
    best 2 of the 3 runs: 0.3333``, or a dash and why there is none."""
    return f"among {top_label(ranking)}: {_figure(ranking.top_tau)}"


FEW_RUNS = 4
"""Fewer runs say nothing of how a judge orders runs: over 2, τ is +1 or −1."""
CLOSE_MEANS = 0.01
"""Runs whose humans' means all lie within this are too close for their order to count."""


def tau_words(ranking: Ranking) -> list[str]:
    """What the two rankings' taus say: how far the judge orders the runs as humans do, and
    whether it tells the best runs apart worse; or that the runs are too few (under
    ``FEW_RUNS``) or too close (``CLOSE_MEANS``) to say it."""
    tau, top = ranking.tau.value, ranking.top_tau.value
    if tau is None:
        return [f"Kendall's τ undefined: {ranking.tau.reason}"]
    count = len(ranking.runs)
    humans = [run.human for run in ranking.runs]
    if count < FEW_RUNS:
        return [
            f"Kendall's τ {score_text(tau)} over {count} runs: too few runs to say whether "
            f"the judge orders runs as humans do (over {count} runs τ takes only "
            f"{count * (count - 1) // 2 + 1} values: judge {FEW_RUNS} or more runs)"
        ]
    if max(humans) - min(humans) < CLOSE_MEANS:
        return [
            f"Kendall's τ {score_text(tau)} over {count} runs, whose mean {ranking.label} with "
            f"the humans' grades lie within {max(humans) - min(humans):.4f}: too close for "
            "their order to say how the judge orders runs"
        ]
    if tau >= 0.9:
        how = "orders the runs as humans do"
    elif tau >= 0.7:
        how = "orders the runs much as humans do"
    elif tau >= 0.4:
        how = "orders the runs only roughly as humans do"
    else:
        how = "does not order the runs as humans do"
    lines = [f"Kendall's τ {score_text(tau)} over {len(ranking.runs)} runs: the judge {how}"]
    if loses_best(ranking):
        lines.append(
            f"Among {top_label(ranking)} τ is only {score_text(top)}: the judge is less "
            "able to tell the best systems apart"
        )
    return lines


def ranking_note(ranking: Ranking) -> str:
    """The note under the window's runs: Kendall's tau-b over all runs and among the best
    half, and the runs left out."""
    tau = ranking.tau
    note = (
        f"Kendall's τ-b {score_text(tau.value)} over {len(ranking.runs)} runs"
        if tau.value is not None
        else f"Kendall's τ undefined: {tau.reason}"
    )
    note += f"; {top_words(ranking)}"
    if ranking.left_out:
        note += ". Left out: " + "; ".join(ranking.left_out)
    return note + "."


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


HELD_OUT = {"quadratic_kappa": "quadratic κ", "mae": "MAE", "spearman": "Spearman"}
"""The held-out figures of a local model's report, as people name them."""


def judge_title(judge: AutomaticJudge) -> str:
    """The judge as a chooser lists it, named once: ``local model (HistGradientBoosting…)``
    when its description begins with its name, else ``lenient-llm — qwen2.5:7b, prompt …``."""
    described = judge.describe()
    return described if described.startswith(judge.name) else f"{judge.name} — {described}"


def held_out_words(details: dict[str, Any]) -> str | None:
    """``held out: quadratic κ 0.8750, MAE 0.62, Spearman 0.8597``: a local model's quality
    on the pairs it did not learn from (its report's ``held_out``); None if it has none."""
    held_out = details.get("held_out")
    if not isinstance(held_out, dict):
        return None
    figures = []
    for key, name in HELD_OUT.items():
        if key in held_out:
            value = held_out[key]
            figures.append(f"{name} {grade_text(value) if key == 'mae' else score_text(value)}")
    return f"held out: {', '.join(figures)}" if figures else None


def judge_facts(judge: AutomaticJudge) -> list[str]:
    """What a judge did, as the Automatic judges page and ``judge-app info`` say it: its
    grades, its failures and its held-out quality where stored."""
    failures = count_text(judge.failed, "failure")
    held_out = held_out_words(judge.details)
    facts = [f"{judge.graded:,} grades", failures, *([held_out] if held_out else [])]
    return facts + ([usage_words(judge.usage)] if judge.usage else [])


def usage_words(usage: tuple[float, float, float]) -> str:
    """What an answer cost a judge: ``536 tokens (480 + 56) and 5.30 s an answer``."""
    prompt, completion, seconds = usage
    return (
        f"{prompt + completion:,.0f} tokens ({prompt:,.0f} + {completion:,.0f}) and "
        f"{seconds:.2f} s an answer"
    )
