"""The options both front ends bind to, each declared once: its name, the command line's flag,
the window's label, what it does (``--help`` and the control's tooltip), its default and its
choices, each with the window's words for it. ``judge-app eval`` adds its arguments from them
and the evaluation page builds its controls from them, so that the two cannot drift apart.

An error about an option names it (``UsageError(..., option="judge")``); each front end words
that name its own way: the command line by its flag (:func:`flag_of`), the window by its label
(:func:`label_of`). Plain data: no Qt, no argparse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T", covariant=True)  # an Option[int] is an Option[object]: it is read only


@dataclass(frozen=True)
class Option(Generic[T]):
    """One option: ``name`` (what errors and kept settings call it), ``flag`` (the command
    line's), ``label`` (the window's caption), ``help`` (what it does), ``default`` and the
    ``choices`` it takes, each value with the window's words for it (none: any value)."""

    name: str
    flag: str
    label: str
    help: str
    default: T
    choices: Mapping[str, str] = field(default_factory=dict)
    metavar: str | None = None


CUTOFF = Option(
    "k",
    "--k",
    "k",
    "the cut-off k of NDCG@k: a whole number from 1, or all (default 10)",
    default=10,
    metavar="K",
)
GAIN = Option(
    "gain",
    "--gain",
    "Gain",
    "the gain of a grade: linear, the grade itself (default, as trec_eval), or exponential, "
    "2^grade − 1",
    default="linear",
    choices={"linear": "linear: the grade", "exponential": "exponential: 2^grade − 1"},
)
IDEAL = Option(
    "ideal",
    "--ideal",
    "Ideal order from",
    "IDCG over every judged document of the query (default, as trec_eval) or the run's "
    "documents only",
    default="judged",
    choices={"judged": "every judged document", "retrieved": "the run's documents"},
)
UNJUDGED = Option(
    "unjudged",
    "--unjudged",
    "Unjudged results",
    "unjudged documents gain 0 (default), or are removed before the cut-off (condensed, "
    "trec_eval -J)",
    default="zero",
    choices={"zero": "count as not relevant", "condensed": "leave out (condensed)"},
)
AGGREGATES = {
    "mean": "mean of the raters",
    "median": "median of the raters",
    "majority": "majority of the raters",
    "max": "highest rater's grade",
    "min": "lowest rater's grade",
}
AGGREGATE = Option(
    "aggregate",
    "--aggregate",
    "Grade of a document",
    f"the raters' grades of a document made one: {', '.join(AGGREGATES)} (default mean), or "
    "one rater's (rater:NAME)",
    default="mean",
    choices=AGGREGATES,
    metavar="METHOD",
)
"""Its choices are the methods; a rater's own grades (``rater:NAME``) are taken too."""
ADJUDICATED = Option(
    "adjudicated",
    "--adjudicated",
    "Prefer adjudicated",
    "a lead's adjudicated grades (rater 'adjudicated'): prefer them over the raters' "
    "aggregate where there is one (default), or ignore them",
    default="prefer",
    choices={"prefer": "prefer", "ignore": "ignore"},
)
RUNS = Option(
    "runs",
    "--run",
    "Runs",
    "only these runs (default all)",
    default=None,
    metavar="NAME",
)
RATERS = Option(
    "raters",
    "--raters",
    "Raters",
    "only these raters' judgments (default all)",
    default=None,
    metavar="A,B",
)
MEASURES = Option(
    "measures",
    "--measure",
    "More measures",
    "more measures as ir_measures names them, comma-separated: AP, P@5, P(rel=2)@10, R@100, "
    "RR, Bpref, Rprec, infAP, Judged@10, nDCG(dcg='exp-log2')@10 …; the first leads the "
    "comparison of runs; each is shown per query and as a run's value",
    default=None,
    metavar="NAMES",
)
JUDGE = Option(
    "judge",
    "--judge",
    "Automatic judge",
    "an automatic judge of the database (judge-app autojudge): with the humans' grades "
    "corrected by its grades (the default with a judge), each run's mean is also estimated by "
    "prediction-powered inference, with the human grades it saves",
    default=None,
    metavar="NAME",
)
GRADES = Option(
    "grades",
    "--grades",
    "Grades",
    "whose grades: humans (the raters'; the default without a judge), corrected (the "
    "raters', corrected by an automatic judge whose grades of every query narrow each run's "
    "interval by prediction-powered inference) or automatic (a judge's alone, biased as the "
    "judge is)",
    default=None,
    choices={
        "humans": "humans",
        "automatic": "a judge's alone",
        "corrected": "humans corrected by a judge",
    },
    metavar="WHOSE",
)
"""None: ``corrected`` with a judge, else ``humans``."""

EVALUATION: tuple[Option[object], ...] = (
    CUTOFF,
    GAIN,
    IDEAL,
    UNJUDGED,
    AGGREGATE,
    ADJUDICATED,
    RUNS,
    RATERS,
    MEASURES,
    JUDGE,
    GRADES,
)
"""The options of an evaluation that the command line and the evaluation page share."""
DECLARED = {option.name: option for option in EVALUATION}


def flag_of(name: str) -> str:
    """The command line's words for the option ``name``: its flag (``--run`` for ``runs``)."""
    option = DECLARED.get(name)
    return option.flag if option is not None else f"--{name}"


def label_of(name: str) -> str:
    """The window's words for the option ``name``: its label (``Automatic judge``), or, for an
    option declared nowhere, its name as words (``Min gap`` for ``min-gap``)."""
    option = DECLARED.get(name)
    if option is not None:
        return option.label
    words = name.replace("-", " ").replace("_", " ")
    return words[:1].upper() + words[1:]
