"""Measures asked for as trec_eval's ``-m`` takes them: ``P``, ``P.5,10``, ``ndcg.1=3,2=9``,
``all_trec``; their parameters read and checked as trec_eval 10.0 reads them (``atol`` and
``atof``), and the names their values are printed under.

As in trec_eval, the first ``-m NAME.PARAMS`` of a measure sets its parameters (later ones
are ignored), a nickname marks every measure it names, and measures come out in trec_eval's
order whatever the order asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge_app.trec_eval.catalog import BY_NAME, MEASURES, NICKNAMES, OTHER_FORMATS, Measure
from judge_app.trec_eval.errors import EVALUATION, INPUT, USAGE, TrecEvalError
from judge_app.trec_eval.ranked import c_sorted
from judge_app.trec_eval.reading import atof, atol

Params = tuple  # of int, float, or (name, float) pairs, by the measure's kind


@dataclass(frozen=True)
class Spec:
    """A measure with its parameters: ``values`` (the defaults unless ``text`` gave them)."""

    measure: Measure
    values: Params
    text: str | None = None

    @property
    def names(self) -> list[str]:
        """The names its values are printed under, one per value."""
        name, kind = self.measure.name, self.measure.params
        if self.measure.function is None:
            return []
        if kind == "cutoffs":
            return [f"{name}_{value}" for value in self.values]
        if kind == "levels":  # trec_eval's buffer keeps 8 characters of the number
            return [f"{name}_{value:3.2f}"[: len(name) + 9] for value in self.values]
        if kind in ("numbers", "pairs") and self.text is not None:
            return [f"{name}_{self.text}"]
        return [name]


def selected(arguments: Sequence[str]) -> list[Spec]:
    """The measures the ``-m`` arguments ask for (``official`` if none), in trec_eval's
    order; TrecEvalError for an unknown measure or wrong parameters."""
    marked: set[str] = set()
    given: dict[str, str] = {}
    for argument in arguments or ["official"]:
        name, dot, params = argument.partition(".")
        if dot:
            if not params:
                raise TrecEvalError(
                    f"illegal measure '{name}': no parameters after the dot (-m {argument})", USAGE
                )
            given.setdefault(name, params)
        if name in OTHER_FORMATS:
            raise TrecEvalError(
                f"measure '{name}' needs trec_eval's {OTHER_FORMATS[name]} format (-R "
                f"{OTHER_FORMATS[name]}), which judge-app trec-eval does not read",
                USAGE,
            )
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(
                f"illegal measure '{name}' (judge-app trec-eval -h lists them)", USAGE
            )
    return [
        spec_of(measure, given.get(measure.name)) for measure in MEASURES if measure.name in marked
    ]


def parse(text: str) -> Spec:
    """One measure as ``-m`` takes it (``"P.5,10"``, ``"ndcg_cut.10"``, ``"map"``)."""
    name, dot, params = text.partition(".")
    if name not in BY_NAME:
        raise TrecEvalError(f"illegal measure '{name}' (judge-app trec-eval -h lists them)", USAGE)
    if dot and not params:
        raise TrecEvalError(f"illegal measure '{name}': no parameters after the dot", USAGE)
    return spec_of(BY_NAME[name], params if dot else None)


def spec_of(measure: Measure, text: str | None) -> Spec:
    """``measure`` with the parameters ``text`` (None: its defaults)."""
    if text is None or measure.params == "none":
        return Spec(measure, measure.defaults)
    try:
        values = _PARSERS[measure.params](text)
    except ValueError as error:
        raise TrecEvalError(
            f"cannot initialize measure '{measure.name}': {error} (-m {measure.name}.{text})", INPUT
        ) from None
    if measure.name == "utility" and len(values) != 4:  # trec_eval stops at the first query
        raise TrecEvalError(
            f"can't calculate measure 'utility': it takes 4 coefficients, not {len(values)} "
            f"(-m utility.{text})",
            EVALUATION,
        )
    return Spec(measure, values, text)


def _cutoffs(text: str) -> tuple[int, ...]:
    values = sorted(atol(part.encode()) for part in text.split(","))
    if values[0] <= 0:
        raise ValueError("cut-offs must be 1 or more")
    _refuse_twice(values)
    return tuple(values)


def _levels(text: str) -> tuple[float, ...]:
    def compare(a: float, b: float) -> int:
        return -1 if a < b else (1 if a > b else 0)

    values = c_sorted([atof(part.encode()) for part in text.split(",")], compare)
    _refuse_twice(values)
    return tuple(values)


def _numbers(text: str) -> tuple[float, ...]:
    return tuple(atof(part.encode()) for part in text.split(","))


def _pairs(text: str) -> tuple[tuple[str, float], ...]:
    """``name=number`` pairs separated by commas, checked as trec_eval checks them: an ``=``
    after every comma, never two ``=`` or two commas in a row."""
    last = ","
    for character in text:
        if character in ",=":
            if character == last:
                last = ","
                break
            last = character
    if last != "=":
        raise ValueError(f"malformed pair parameters in '{text}'")
    pairs = []
    for part in text.split(","):
        name, _, value = part.partition("=")
        pairs.append((name, atof(value.encode())))
    return tuple(pairs)


def _refuse_twice(values: Sequence[float]) -> None:
    if any(a == b for a, b in zip(values, values[1:])):
        raise ValueError("duplicate cut-offs")


_PARSERS = {"cutoffs": _cutoffs, "levels": _levels, "numbers": _numbers, "pairs": _pairs}
