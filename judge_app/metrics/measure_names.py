"""Measure names as ir_measures writes them (``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``Bpref``,
``nDCG(dcg='exp-log2')@10``), parsed into one :class:`MeasureName` that knows its canonical
text and the trec_eval measure it is.

The syntax is ir_measures' own (MacAvaney et al., ECIR 2022): ``Family(param=value, …)@cutoff``,
values written as Python literals. :data:`FAMILIES` is the one table of the names we compute,
their parameters and their trec_eval names; :func:`names_table` writes it for the user guide
(``docs/measures.md``, filled in as the guide is built). Names are checked here, never
evaluated: the values come from the trec_eval engine or, for the NDCG family, from
:mod:`judge_app.metrics.ranking`.

A run's value of a measure is made of its queries' values as trec_eval's summary line and
ir_measures make it (:func:`aggregate_of`): the counts (NumQ, NumRet, NumRel) are summed, every
other measure is averaged.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from judge_app.errors import UsageError, quoted
from judge_app.option_declarations import MEASURES


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its Python type, default (None: not given) and meaning."""

    kind: type
    default: object
    meaning: str
    choices: tuple[object, ...] = ()


_REL = Param(int, 1, "lowest grade that counts as relevant")
_JUDGED_ONLY = Param(bool, False, "drop unjudged documents before cutting (trec_eval -J)")


@dataclass(frozen=True)
class Family:
    """A measure family: its trec_eval name with and without a cut-off, its parameters (in
    ir_measures' order), whether the cut-off is required, and what it measures."""

    trec: str | None  # without a cut-off (None: a cut-off is required)
    trec_cut: str | None  # with one, e.g. "ndcg_cut" (None: no cut-off allowed)
    params: dict[str, Param]
    meaning: str
    cutoff_word: str = "cut-off"

    @property
    def cutoff(self) -> str:
        """``required``, ``optional`` or ``none``."""
        if self.trec_cut is None:
            return "none"
        return "required" if self.trec is None else "optional"


FAMILIES: dict[str, Family] = {
    "nDCG": Family(
        "ndcg",
        "ndcg_cut",
        {
            "dcg": Param(
                str, "log2", "gain: log2 = the grade, exp-log2 = 2^grade − 1", ("log2", "exp-log2")
            ),
            "gains": Param(dict, None, "a gain for each grade, e.g. {0:0,1:1,2:3}"),
            "judged_only": _JUDGED_ONLY,
        },
        "normalised discounted cumulative gain",
    ),
    "P": Family(None, "P", {"rel": _REL, "judged_only": _JUDGED_ONLY}, "precision at k"),
    "R": Family(None, "recall", {"rel": _REL, "judged_only": _JUDGED_ONLY}, "recall at k"),
    "AP": Family("map", "map_cut", {"rel": _REL, "judged_only": _JUDGED_ONLY}, "average precision"),
    "RR": Family("recip_rank", None, {"rel": _REL, "judged_only": _JUDGED_ONLY}, "reciprocal rank"),
    "Rprec": Family(
        "Rprec", None, {"rel": _REL, "judged_only": _JUDGED_ONLY}, "precision at R (relevant)"
    ),
    "Bpref": Family("bpref", None, {"rel": _REL}, "binary preference (Buckley & Voorhees)"),
    "infAP": Family("infAP", None, {"rel": _REL}, "inferred AP (Yilmaz & Aslam)"),
    "Judged": Family(None, "judged", {}, "share of the top min(k, retrieved) that is judged"),
    "Success": Family(
        None, "success", {"rel": _REL, "judged_only": _JUDGED_ONLY}, "a relevant one in the top k"
    ),
    "IPrec": Family(
        None,
        "iprec_at_recall",
        {"judged_only": _JUDGED_ONLY},
        "interpolated precision at a recall",
        cutoff_word="recall",
    ),
    "NumQ": Family("num_q", None, {}, "queries evaluated"),
    "NumRet": Family(
        "num_ret",
        None,
        {"rel": Param(int, None, "count only the relevant (trec_eval num_rel_ret)")},
        "documents retrieved",
    ),
    "NumRel": Family("num_rel", None, {"rel": _REL}, "relevant documents judged"),
    "SetP": Family(
        "set_P",
        None,
        {
            "rel": _REL,
            "relative": Param(bool, False, "divide by min(retrieved, relevant)"),
            "judged_only": _JUDGED_ONLY,
        },
        "precision of the whole list",
    ),
    "SetR": Family("set_recall", None, {"rel": _REL}, "recall of the whole list"),
    "SetF": Family(
        "set_F",
        None,
        {
            "rel": _REL,
            "beta": Param(float, 1.0, "weight of recall against precision"),
            "judged_only": _JUDGED_ONLY,
        },
        "F of the whole list",
    ),
    "SetAP": Family("set_map", None, {"rel": _REL, "judged_only": _JUDGED_ONLY}, "set AP"),
    "Compat": Family(
        None,
        None,
        {
            "p": Param(float, 0.95, "persistence of the rank-biased overlap"),
            "normalize": Param(bool, True, "divide by the ideal ranking's own overlap"),
        },
        "compatibility with the ideal ranking of the preference judgments (Clarke et al. 2021)",
    ),
}
PREFERENCE_FAMILIES = ("Compat",)
"""The families computed from preference judgments, not from grades
(:mod:`judge_app.evaluation.preferences`)."""

ALIASES: dict[str, tuple[str, dict[str, object]]] = {
    "MAP": ("AP", {}),
    "MRR": ("RR", {}),
    "NDCG": ("nDCG", {}),
    "BPref": ("Bpref", {}),
    "RPrec": ("Rprec", {}),
    "Precision": ("P", {}),
    "Recall": ("R", {}),
    "SetRelP": ("SetP", {"relative": True}),
    "NumRelRet": ("NumRet", {"rel": 1}),
}
"""Other names ir_measures takes for a family (with the parameters they imply)."""


@dataclass(frozen=True)
class MeasureName:
    """A parsed measure name: family, cut-off (or recall, for IPrec) and the parameters given
    that differ from their defaults, in the order given (ir_measures keeps it too)."""

    family: str
    cutoff: int | float | None
    params: tuple[tuple[str, object], ...] = ()

    def __hash__(self) -> int:
        return hash(str(self))

    def param(self, name: str) -> object:
        """The parameter's value, given or default."""
        return dict(self.params).get(name, FAMILIES[self.family].params[name].default)

    def __str__(self) -> str:
        """As ir_measures writes it: ``nDCG(dcg='exp-log2')@10``."""
        text = self.family
        if self.params:
            text += (
                "(" + ",".join(f"{key}={_value_text(value)}" for key, value in self.params) + ")"
            )
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    @property
    def relevance(self) -> int:
        """The lowest grade that counts as relevant (1 unless ``rel`` is given)."""
        value = self.param("rel") if "rel" in FAMILIES[self.family].params else None
        return 1 if value is None else int(value)  # type: ignore[call-overload]

    @property
    def judged_only(self) -> bool:
        family = FAMILIES[self.family]
        return bool(self.param("judged_only")) if "judged_only" in family.params else False

    @property
    def aggregate(self) -> str:
        """:data:`SUM` where trec_eval's summary line (and ir_measures) adds the queries'
        values up, the counts; :data:`MEAN` for every other measure."""
        if self.family in PREFERENCE_FAMILIES:
            return MEAN
        from judge_app.trec_eval.catalog import BY_NAME  # loaded only for a named measure

        measure = BY_NAME.get(self.trec_spec().partition(".")[0])  # Judged is ours: a mean
        return SUM if measure is not None and measure.summed else MEAN

    def trec_spec(self) -> str:
        """trec_eval's ``-m`` text of this measure: ``ndcg_cut.10``, ``map``, ``set_F.0.5`` …"""
        family = FAMILIES[self.family]
        if self.family == "SetF" and "beta" in dict(self.params):
            return f"set_F.{float(self.param('beta'))!r}"  # type: ignore[arg-type]
        if self.cutoff is not None:
            return f"{family.trec_cut}.{self.cutoff!r}"
        if self.family == "NumRet" and self.param("rel") is not None:
            return "num_rel_ret"
        if self.family == "SetP" and self.param("relative"):
            return "set_relative_P"
        assert family.trec is not None
        return family.trec


SUM, MEAN = "sum", "mean"
"""How a run's value of a measure is made of its queries' values (:func:`aggregate_of`)."""


@functools.cache
def aggregate_of(key: str) -> str:
    """:data:`SUM` or :data:`MEAN`: how a run's value of the measure ``key`` is made of its
    queries' values. A name as ir_measures writes it (``NumRet(rel=1)``) is summed where
    trec_eval and ir_measures sum it (:attr:`MeasureName.aggregate`); the evaluation's own
    keys (``ndcg@10``, ``p@10``, ``rr``, ``ap`` …) are means."""
    family = re.split(r"[(@]", key, maxsplit=1)[0]
    return parse_measure(key).aggregate if family in FAMILIES or family in ALIASES else MEAN


def aggregate_note(keys: Iterable[str]) -> str | None:
    """For people reading runs' values of the measures ``keys``: which of them are sums over
    the queries (None if none is)."""
    summed = [key for key in keys if aggregate_of(key) == SUM]
    if not summed:
        return None
    names = ", ".join(summed[:-1]) + " and " + summed[-1] if len(summed) > 1 else summed[0]
    verb, other = ("are sums", "means") if len(summed) > 1 else ("is a sum", "a mean")
    return f"{names} {verb} over the queries (as in trec_eval and ir_measures), not {other}."


def _value_text(value: object) -> str:
    """A parameter's value as ir_measures writes it: repr, and dicts as ``{0:0,1:1}``."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
    return repr(value)


def parse_measure(text: str) -> MeasureName:
    """``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``nDCG(dcg='exp-log2')@10`` … as a
    :class:`MeasureName`; a usage error that says what is wrong and what is allowed."""
    written = text.strip()
    try:
        tree = ast.parse(written, mode="eval").body
    except SyntaxError:
        hint = (
            "; parameters come before the cut-off: nDCG(dcg='exp-log2')@10"
            if "[" in written
            else ""
        )
        raise _bad(written, _FORM + hint) from None
    cutoff_node: ast.expr | None = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff_node = tree.right
        tree = tree.left
    keywords: list[ast.keyword] = []
    if isinstance(tree, ast.Call):
        if tree.args:
            raise _bad(written, "parameters are named: Family(rel=2)")
        keywords = tree.keywords
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise _bad(written, _FORM)
    family_name, given = _family_name(tree.id, written)
    family = FAMILIES[family_name]
    cutoff = _cutoff(family_name, family, cutoff_node, written)
    for keyword in keywords:
        name = keyword.arg or ""
        if name not in family.params:
            allowed = ", ".join(family.params) or "none"
            has = f"{family_name} has no parameter {quoted(name)} (it has: {allowed})"
            raise _bad(written, has)
        given[name] = _param_value(family_name, name, family.params[name], keyword.value, written)
    params = tuple(
        (name, value) for name, value in given.items() if value != family.params[name].default
    )
    return MeasureName(family_name, cutoff, params)


def parse_measures(text: str) -> tuple[MeasureName, ...]:
    """A comma-separated list of names (commas inside parentheses or braces belong to a
    name), each once, in the order given."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += char in "({[" and 1 or char in ")}]" and -1 or 0
        if char == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    measures: list[MeasureName] = []
    for part in parts:
        if not part.strip():
            raise _bad(text, "an empty name between commas")
        measure = parse_measure(part)
        if measure not in measures:
            measures.append(measure)
    return tuple(measures)


_FORM = "a name is Family(param=value, …)@k, as ir_measures writes it"
_KINDS = {int: "a whole number", float: "a number", bool: "True or False", str: "text"}


def _bad(text: str, reason: str) -> UsageError:
    """The usage error of the measure names ``text``: what is wrong with them."""
    return UsageError(f"{quoted(text)}: {reason}", MEASURES.name)


def _family_name(name: str, written: str) -> tuple[str, dict[str, object]]:
    """The family a name stands for, with the parameters an alias implies."""
    if name in FAMILIES:
        return name, {}
    if name in ALIASES:
        family, implied = ALIASES[name]
        return family, dict(implied)
    by_case = {family.lower(): family for family in [*ALIASES, *FAMILIES]}
    meant = by_case.get(name.lower())
    hint = f"; did you mean {meant}?" if meant else f" (known: {', '.join(FAMILIES)})"
    raise _bad(written, f"no measure family {quoted(name)}{hint}")


def _cutoff(name: str, family: Family, node: ast.expr | None, written: str) -> int | float | None:
    if node is None:
        if family.cutoff == "required":
            raise _bad(written, f"{name} needs a {family.cutoff_word}: {name}@10")
        return None
    if family.cutoff == "none":
        raise _bad(written, f"{name} takes no cut-off")
    value = _literal(node, written)
    if name == "IPrec":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
            return float(value)
        raise _bad(written, "IPrec's recall is a number from 0 to 1: IPrec@0.5")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise _bad(written, f"the cut-off is a whole number from 1: {name}@10")


def _param_value(family: str, name: str, param: Param, node: ast.expr, written: str) -> object:
    value = _literal(node, written)
    if param.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if param.kind is dict and isinstance(value, dict):
        if all(isinstance(k, int) and isinstance(v, (int, float)) for k, v in value.items()):
            return {grade: gain for grade, gain in value.items() if grade != gain}
    elif isinstance(value, param.kind) and not (param.kind is int and isinstance(value, bool)):
        if not param.choices or value in param.choices:
            return value
    choices = " or ".join(map(repr, param.choices)) or _KINDS.get(param.kind, "{grade: gain, …}")
    raise _bad(written, f"{family}'s {name} is {choices} ({param.meaning})")


def _literal(node: ast.expr, written: str) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _bad(written, "parameter values are numbers, 'text', True or False") from None


_TREC_TEXT = {
    "Judged": "– (`unj.k` counts the unjudged)",
    "IPrec": "`iprec_at_recall.r`",
    "NumRet": "`num_ret`; with rel: `num_rel_ret`",
    "SetP": "`set_P`; relative: `set_relative_P`",
    "SetF": "`set_F.beta`",
    "Compat": "– (of preferences, not grades)",
}
"""trec_eval's names where a family's are not just ``trec`` and ``trec_cut.k``."""


def names_table() -> str:
    """The table of names, as the user guide shows it: each family as ir_measures writes it (and
    its other names), its parameters, trec_eval's name (``rel`` is its ``-l``, ``judged_only``
    its ``-J``), what it measures and how a run's value is made of its queries' values."""
    aliases: dict[str, list[str]] = {}
    for alias, (meant, _implied) in ALIASES.items():
        aliases.setdefault(meant, []).append(alias)
    lines = [
        "| ir_measures name | parameters (default) | trec_eval | measures | a run's value |",
        "|---|---|---|---|---|",
    ]
    for name, family in FAMILIES.items():
        at = "@r" if name == "IPrec" else "@k"
        forms = {"required": [name + at], "optional": [name, name + at], "none": [name]}
        written = ", ".join(f"`{form}`" for form in forms[family.cutoff])
        if name in aliases:
            written += " (also " + ", ".join(f"`{alias}`" for alias in aliases[name]) + ")"
        params = ", ".join(
            key if param.default is None else f"{key} ({param.default!r})"
            for key, param in family.params.items()
        )
        named = [family.trec, None if family.trec_cut is None else f"{family.trec_cut}.k"]
        trec = _TREC_TEXT.get(name) or " / ".join(f"`{text}`" for text in named if text)
        over = aggregate_of(name + ("@1" if family.cutoff == "required" else ""))
        lines.append(f"| {written} | {params or '–'} | {trec} | {family.meaning} | {over} |")
    return "\n".join(lines) + "\n"
