"""Numbers for people: one convention, and never a negative zero."""

from __future__ import annotations

import math

import pytest

from judge_app.numbers import MISSING, score_text, share_text, signed_text


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.75164, "0.7516"), (1.0, "1.0000"), (-0.00004, "0.0000"), (-0.2, "-0.2000"),
     (None, MISSING), (math.nan, MISSING)],
)  # fmt: skip
def test_scores_have_four_decimals_and_no_negative_zero(value, expected):
    assert score_text(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.0123, "+0.0123"), (-0.0123, "-0.0123"), (-0.00004, "0.0000"), (0.00004, "0.0000")],
)
def test_differences_are_signed_but_zero_is_plain(value, expected):
    assert signed_text(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [(0.7516, "75.2%"), (1.0, "100.0%"), (-0.0001, "0.0%"), (None, MISSING)]
)
def test_shares_are_percentages_with_one_decimal(value, expected):
    assert share_text(value) == expected
