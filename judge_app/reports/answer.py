"""The report's first lines: which run wins and how sure (the verdict test and its named
interval, in the words ``eval --compare`` uses), each run's mean, how much was judged and
how far the raters agree."""

from __future__ import annotations

import html

from judge_app.agreement.report import AgreementReport
from judge_app.metrics.ranking import k_label
from judge_app.metrics.significance import Significance
from judge_app.numbers import count_text, share_text
from judge_app.reports.data import ReportData
from judge_app.writers.agreement import alpha_headline
from judge_app.writers.evaluation import interval_text
from judge_app.writers.tables import listed
from judge_app.writers.verdicts import leading_pair, verdict_sentence, verdict_words


def answer_lines(data: ReportData) -> tuple[str, str, list[str]]:
    """(verdict headline, the verdict's tone "better" or "", the sentences that back it)."""
    label = k_label(data.k)
    means = {run: interval.mean for run, interval in data.intervals.items()}
    lines = [_means_line(data, label)]
    if data.preferences is not None:
        lines.append(_preferences_line(data))
    headline, tone = _headline(data, means, label, lines)
    lines.append(_judged_line(data, label))
    if data.agreement is not None:
        lines.append(f"Raters' agreement: {agreement_words(data.agreement, data.digits)}")
    return headline, tone, lines


def answer_html(data: ReportData) -> str:
    """The answer as the report's first block."""
    headline, tone, lines = answer_lines(data)
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return f"<div class='answer'><p class='verdict {tone}'>{html.escape(headline)}</p>{body}</div>"


def agreement_words(report: AgreementReport, digits: int) -> str:
    """The ordinal alpha as ``agreement`` prints it, its interval named."""
    named = (
        f" (in brackets: its 95% bootstrap interval from {report.resamples:,} resamples)"
        if report.krippendorff_alpha["ordinal"] is not None
        and report.krippendorff_alpha_ci["ordinal"] is not None
        else ""
    )
    return f"{alpha_headline(report, digits)}{named}."


def _headline(
    data: ReportData, means: dict[str, float], label: str, lines: list[str]
) -> tuple[str, str]:
    """Which run wins on the measure the runs were compared on (NDCG@k, or the first measure
    named), by the verdict's test; its sentence goes first in ``lines``."""
    significance = data.significance
    if significance is not None:
        means = _compared_means(significance) or means
    pair = None if significance is None else leading_pair(significance, means)
    if significance is None or pair is None:
        [run] = list(means)[:1]
        return f"One run, {run}: nothing to compare it with.", ""
    best = pair.other if means[pair.other] >= means[pair.baseline] else pair.baseline
    rival = pair.baseline if best == pair.other else pair.other
    lines.insert(0, verdict_sentence(significance, pair, data.digits))
    test = verdict_words(significance)
    measure = compared_measure(data, label)
    if significance.significant(pair):
        return (
            f"{best} wins on {measure}: the {test} tells it from {rival} at "
            f"{significance.alpha:g}.",
            "better",
        )
    return (
        f"{best} scores highest on {measure}, but the {test} cannot tell it from {rival} "
        f"at {significance.alpha:g}.",
        "",
    )


def compared_measure(data: ReportData, label: str) -> str:
    """The measure the runs were compared on, as the report names it: the first measure
    named (``--measure``), else NDCG@k."""
    named = [str(name) for name in data.settings.get("measures") or []]  # type: ignore[attr-defined]
    return named[0] if named else f"NDCG@{label}"


def _compared_means(significance: Significance) -> dict[str, float]:
    """Each run's mean on the measure compared, over the queries of its comparisons."""
    means: dict[str, float] = {}
    for pair in significance.pairs:
        comparison = pair.comparison
        means.setdefault(comparison.baseline, comparison.mean_baseline)
        means.setdefault(comparison.other, comparison.mean_other)
    return means


def _means_line(data: ReportData, label: str) -> str:
    interval = next(iter(data.intervals.values()))
    named = ", ".join(
        f"{run} {interval_text(data.intervals[run], data.digits)}"
        for run in sorted(data.intervals, key=lambda run: -data.intervals[run].mean)
    )
    return f"Mean NDCG@{label} ({interval.confidence:.0%} {interval.method} interval): {named}."


def _preferences_line(data: ReportData) -> str:
    """Each run's mean of the leading preference measure with its interval, best first."""
    found = data.preferences
    assert found is not None
    intervals = {run: found.interval(run) for run in found.evaluations}
    scored = [run for run in intervals if intervals[run].n]
    named = ", ".join(
        f"{run} {interval_text(intervals[run], data.digits)}"
        for run in sorted(scored, key=lambda run: -intervals[run].mean)
    )
    interval = next(iter(intervals.values()))
    return (
        f"Mean {found.measure} with the preference judgments ({interval.confidence:.0%} "
        f"{interval.method} interval): {named or 'no run answers a query that has them'}."
    )


def _judged_line(data: ReportData, label: str) -> str:
    counts = data.counts
    shares = [
        f"{run} {share_text(evaluation.summary()[f'judged@{label}'])}"
        for run, evaluation in data.evaluations.items()
    ]
    return (
        f"Judged: {count_text(counts.get('judgments', 0), 'judgment', 'judgments')} by "
        f"{count_text(counts.get('raters', 0), 'rater', 'raters')} of "
        f"{count_text(counts.get('documents', 0), 'document', 'documents')} for "
        f"{count_text(counts.get('queries', 0), 'query', 'queries')}; the top {label} judged: "
        f"{listed(shares, 'and')}."
    )
