"""Repeated keys found by sorting integer codes (``store.repeated_keys.KeyLog``), packed into one integer
or, where they do not fit, sorted column by column: the same rows as a plain Python walk."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.store import repeated_keys as keys
from judge_app.store.repeated_keys import KeyLog

VALUES = st.one_of(st.none(), st.integers(1, 4), st.sampled_from([2**31 - 1, 2**40]))
ROWS = st.lists(st.tuples(VALUES, VALUES, VALUES), max_size=40)


def _reference(rows: list[tuple], key: list[int], limit: int) -> tuple[int, list[tuple]]:
    first: dict[tuple, int] = {}
    found = []
    for position, row in enumerate(rows):
        values = tuple(row[i] for i in key)
        if None in values:
            continue
        seen = first.setdefault(values, position)
        if seen != position:
            found.append((position, seen, *values))
    return len(found), found[:limit]


@settings(max_examples=150, deadline=None)
@given(rows=ROWS, chunk=st.integers(1, 7), limit=st.integers(1, 5), packed=st.booleans())
def test_repeats_are_those_of_a_plain_walk(rows, chunk, limit, packed):
    with pytest.MonkeyPatch.context() as patch:
        if not packed:
            patch.setattr(keys, "PACKED_LIMIT", 0)
        log = KeyLog(["a", "b", "c"])
        for first in range(0, len(rows), chunk):
            part = rows[first : first + chunk]
            log.add(
                first,
                {
                    name: pd.Series([row[i] for row in part], dtype="Int64")
                    for i, name in enumerate("abc")
                },
            )
        for key in (["a", "b", "c"], ["b"], ["c", "a"]):
            indexes = ["abc".index(name) for name in key]
            assert log.repeats(key, limit) == _reference(rows, indexes, limit)


def test_an_empty_log_has_no_repeats():
    log = KeyLog(["a"])
    log.add(0, {"a": pd.Series(np.array([], dtype=np.int64))})
    assert log.repeats(["a"], 20) == (0, [])
