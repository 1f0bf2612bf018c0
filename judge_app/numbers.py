"""Numbers for people, in one convention across the window, its drill-down and the report:
scores, NDCG, means and agreement coefficients with four decimals (``0.7516``); shares
(coverage, judged@k, percent agreement) as percentages with one decimal (``75.2%``); grades
on the 0–5 scale that are means or differences (a pair's mean grade, a judge's bias) with two
decimals, whole or not (``5.00``, ``1.33``: a column of them lines up, and a mean never passes
for one rater's whole grade); a missing
or undefined value as "–". A value that rounds to zero never shows a minus sign.

Machine formats (CSV, JSON) never go through here: they keep full precision."""

from __future__ import annotations

import math

MISSING = "–"
DIGITS = 4
GRADE_DIGITS = 2


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def _unsigned_zero(text: str) -> str:
    """``-0.0000`` → ``0.0000`` (a small negative rounded to zero); other texts unchanged."""
    if text.startswith("-") and not any(digit in "123456789" for digit in text):
        return text[1:]
    return text


def score_text(value: float | None, digits: int = DIGITS) -> str:
    """``0.7516``: a score, mean or coefficient."""
    if _missing(value):
        return MISSING
    assert value is not None
    return _unsigned_zero(f"{value:.{digits}f}")


def signed_text(value: float | None, digits: int = DIGITS) -> str:
    """``+0.0123`` / ``-0.0123``: a difference; ``0.0000`` when it rounds to zero."""
    if _missing(value):
        return MISSING
    assert value is not None
    text = f"{value:+.{digits}f}"
    return text[1:] if not any(digit in "123456789" for digit in text) else text


def grade_text(value: float | None) -> str:
    """``1.33``: a grade that is a mean (of raters, of a judge's grades), or a gain of one."""
    return score_text(value, GRADE_DIGITS)


def grade_shift_text(value: float | None) -> str:
    """``+0.42``: a difference of grades (a judge's bias, judge − humans)."""
    return signed_text(value, GRADE_DIGITS)


def share_text(value: float | None) -> str:
    """``75.2%``: a share between 0 and 1 (coverage, judged@k, percent agreement)."""
    if _missing(value):
        return MISSING
    assert value is not None
    return _unsigned_zero(f"{100 * value:.1f}") + "%"


def seconds_text(value: float | None) -> str:
    """``4.2``: a time in seconds, to a tenth."""
    if _missing(value):
        return MISSING
    assert value is not None
    return f"{value:.1f}"


def bound_text(value: float, digits: int = DIGITS) -> str:
    """``+0.0123``, or ``−∞`` / ``+∞`` for an unbounded side; a bound that is not 0 but
    rounds to 0 at ``digits`` in two significant figures (``+3.1e-06``): an interval that
    excludes 0 never shows a bound of 0."""
    if math.isinf(value):
        return "−∞" if value < 0 else "+∞"
    if value != 0 and round(value, digits) == 0:
        return f"{value:+.2g}"
    return signed_text(value, digits)


def p_text(p: float, digits: int = DIGITS, alpha: float = 0.05) -> str:
    """``p = 0.0123``, or ``p < 0.0001`` when it rounds to zero at ``digits``; with more
    digits where ``digits`` would round ``p`` across ``alpha`` (0.04996 is ``p = 0.04996``,
    never ``p = 0.0500`` beside "significant at 0.05")."""
    floor = 10.0**-digits
    if p < floor / 2:
        return f"p < {floor:.{digits}f}"
    while (round(p, digits) < alpha) != (p < alpha) and digits < 25:
        digits += 1
    return f"p = {p:.{digits}f}"


def count_text(n: int, singular: str, plural: str | None = None) -> str:
    """``1 query``, ``1,234 queries``; the plural is the singular and "s" unless given."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"
