"""trec_eval's output: ``name<TAB>query<TAB>value`` lines, the name padded to 22 characters,
numbers with 4 decimals (``%6.4f``; counts as whole numbers), per query in trec_eval's
order and then the summary (``all``)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from judge_app.trec_eval.compute import summary
from judge_app.trec_eval.ranked import Ranked
from judge_app.trec_eval.specs import Spec

LONG_MIN = -(2**63)  # what C's (long) makes of NaN and of numbers beyond a long


def query_lines(
    ranked: Ranked, specs: Sequence[Spec], values: dict[str, np.ndarray], upto: int
) -> Iterator[str]:
    """The per-query lines of the first ``upto`` queries."""
    columns = []
    for spec in specs:
        if not spec.measure.per_query:
            continue
        for name in spec.names:
            label = f"{name:<22}\t"
            if spec.measure.summary == "none":
                texts = [f"'{text}'" for text in values[name][:upto]]
            else:
                texts = _texts(values[name][:upto], spec.measure.whole)
            columns.append((label, texts))
    for index, query in enumerate(ranked.queries[:upto]):
        for label, texts in columns:
            yield f"{label}{query}\t{texts[index]}\n"


def summary_lines(
    ranked: Ranked, specs: Sequence[Spec], values: dict[str, np.ndarray]
) -> Iterator[str]:
    """The summary lines (``all``)."""
    for spec in specs:
        names = ["runid"] if spec.measure.summary == "runid" else spec.names or [spec.measure.name]
        for name, value in zip(names, summary(ranked, spec, values)):
            if isinstance(value, str):
                text = value
            else:
                text = _texts(np.array([value], dtype=np.float64), spec.measure.whole)[0]
            yield f"{name:<22}\tall\t{text}\n"


def _texts(values: np.ndarray, whole: bool) -> list[str]:
    if whole:
        return [str(int(value)) if math.isfinite(value) else str(LONG_MIN) for value in values]
    return [_fixed(value) for value in values.tolist()]


def _fixed(value: float) -> str:
    """C's ``%6.4f`` (NaN with its sign, as glibc prints it)."""
    if value != value:
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return "%6.4f" % value
