"""A grade map (``--grade-map``): how another tool's grades become ours, 0–5.

Written ``FROM=TO,…`` (``1=0,2=0,3=1,…,10=5`` for Quepid's 1–10 scale, ``Relevant=3`` for a
Label Studio choice): every grade the file holds must be named, and every TO must be one of
ours. A FROM that is a number matches the same number however written (``3`` is ``3.0``); any
other FROM matches its text exactly. A grade the map does not name is refused with its line,
never clipped or guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from judge_app.errors import UsageError, quoted, shortened
from judge_app.io.schemas import Check


@dataclass(frozen=True)
class GradeMap:
    """Foreign grades (numbers, or texts) to ours."""

    numbers: dict[float, int]
    texts: dict[str, int]
    written: str  # as the user gave it, for messages

    @classmethod
    def parse(cls, text: str) -> GradeMap:
        """The map written ``FROM=TO,…``, or a UsageError saying what is wrong."""
        numbers: dict[float, int] = {}
        texts: dict[str, int] = {}
        for pair in filter(None, (part.strip() for part in text.split(","))):
            source, equals, target = pair.rpartition("=")
            source, target = source.strip(), target.strip()
            if not equals or not source:
                raise UsageError(f"grade map: {quoted(pair)} is not FROM=TO")
            if target not in {str(grade) for grade in range(6)}:
                raise UsageError(
                    f"grade map: {quoted(pair)} maps to {quoted(target)}, not a grade 0–5"
                )
            number = _number(source)
            if number is None:
                texts[source] = int(target)
            else:
                numbers[number] = int(target)
        if not numbers and not texts:
            raise UsageError("grade map: name at least one FROM=TO pair")
        return cls(numbers, texts, text.strip())

    def lookup(self, cell: str) -> int | None:
        """Our grade for the foreign ``cell`` (None where the map does not name it)."""
        text = cell.strip()
        number = _number(text)
        if number is not None and number in self.numbers:
            return self.numbers[number]
        return self.texts.get(text)

    def apply(self, cells: pd.Series) -> tuple[pd.Series, np.ndarray]:
        """The cells as our grades (as text; an empty cell stays empty), and which non-empty
        cells the map does not name (left as they are)."""
        codes, uniques = pd.factorize(cells)
        found = [self.lookup(str(cell)) for cell in uniques]
        mapped = np.array(
            [str(grade) if grade is not None else str(cell) for cell, grade in zip(uniques, found)]
            + [""],
            dtype=object,
        )
        missing = np.array(
            [grade is None and bool(str(cell).strip()) for cell, grade in zip(uniques, found)]
            + [False]
        )
        return pd.Series(mapped[codes], index=cells.index, dtype="str"), missing[codes]

    def refuse_unmapped(self, check: Check, cells: pd.Series, unmapped: np.ndarray) -> Check:
        """``check`` (of the mapped cells) failing the ``unmapped`` ones too, each problem
        told of the foreign ``cells``."""

        def reason(cell: str) -> str:
            grade = self.lookup(cell)
            if grade is None and cell.strip():
                shown = quoted(shortened(cell.strip()))
                return f"grade {shown} is not in the grade map ({self.written})"
            return check.reason(cell if grade is None else str(grade))

        return replace(check, bad=check.bad | unmapped, reason=reason, cells=cells)


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
