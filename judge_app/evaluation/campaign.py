"""What an evaluation is asked of: graded judgments and run results as integer codes, read at
one moment from a database (``judge_app.commands.campaign``) or coded from files where they
are read (``judge_app.commands.evaluate.read_files``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from judge_app.errors import UsageError, unknown_judge
from judge_app.metrics.aggregation import ADJUDICATED
from judge_app.metrics.codes import Graded, Judged, Results, code_of

if TYPE_CHECKING:
    import pandas as pd

Stamp = tuple[object, ...]
"""Values that change whenever what a campaign was read from changes (``change_stamp``)."""


@dataclass(frozen=True)
class Campaign:
    """Graded judgments and run results of ``source`` as integer codes over the same names,
    read at one moment (``stamp``): the humans' grades (``graded``), the results
    (``coded_results``), the queries' texts, the automatic ``judges`` by name and (read with
    them) their grades (``automatic``: each judge a rater, the same query and document
    names), and the active sample raters follow (``active``: ``query_id, judge, scale, key``
    in ascending key; None in the assigned order). ``with_raters`` is False for judgments
    without raters (a TREC qrels file), whose grades are the grades as given; ``run_order``
    is the order the runs were given in (run files), empty for code-point order (a
    database's); ``judged``, where asked for, every judgment with its time (skipped ones
    too), from the same read."""

    source: str
    graded: Graded
    coded_results: Results
    queries: dict[str, str]
    stamp: Stamp = ()
    judges: tuple[str, ...] = ()
    automatic: Graded | None = None
    active: pd.DataFrame | None = None
    with_raters: bool = True
    run_order: tuple[str, ...] = ()
    judged: Judged | None = None
    preferences: pd.DataFrame | None = None
    """Every rater's preference judgments (``store.preferences.PREFERENCE_COLUMNS``), read
    with the rest; None where the source holds none (files)."""

    def judge_graded(self, judge: str) -> Graded:
        """The automatic ``judge``'s grades, the judge its one rater; a usage error naming
        the judges there are if it is none of them, or if it graded nothing yet."""
        from judge_app.names import known_name

        name = known_name(judge, self.judges)
        if name is None:
            raise unknown_judge(self.source, judge, list(self.judges))
        grades = self.automatic
        assert grades is not None, "a campaign read without its automatic grades"
        mine = grades.rater == code_of(grades.raters, name)
        if not mine.any():
            raise UsageError(f": the automatic judge {name!r} has graded nothing yet", "judge")
        return grades.where(mine)

    def automatic_grades(self, judge: str) -> pd.DataFrame:
        """``query_id, doc_id, grade``: the automatic ``judge``'s grades (``judge_graded``)."""
        return self.judge_graded(judge).frame()[["query_id", "doc_id", "grade"]]

    def aggregated_grades(self, method: str = "mean", prefer: bool = True) -> pd.DataFrame:
        """``query_id, doc_id, grade``: one grade per pair of the humans'
        (``Graded.aggregated``); a usage error for ``rater:NAME`` of a rater with no grade
        here."""
        from judge_app.metrics.aggregation import parse_method
        from judge_app.options import check_known

        method = parse_method(method)
        if method.startswith("rater:"):
            rater = method[len("rater:") :]
            check_known([rater], self.graded.rater_names(), "rater", "aggregate", self.source)
        return self.graded.aggregated(method, prefer)

    @cached_property
    def judgments(self) -> pd.DataFrame:
        """``query_id, doc_id, rater, grade, skipped``: the graded judgments as a frame."""
        return self.graded.frame()

    @cached_property
    def results(self) -> pd.DataFrame:
        """``run, query_id, doc_id, rank``, in order of run, query and rank."""
        return self.coded_results.frame(self.graded)

    @property
    def runs(self) -> list[str]:
        """The runs with results, in ``run_order`` if given, else code-point order."""
        present = self.coded_results.run_names()
        if not self.run_order:
            return present
        return [name for name in self.run_order if name in present]

    @property
    def raters(self) -> list[str]:
        """The raters who graded something, the adjudicator left out."""
        return [name for name in self.graded.rater_names() if name != ADJUDICATED]

    @property
    def adjudicated(self) -> int:
        """How many grades a lead adjudicated."""
        return int(np.count_nonzero(self.graded.rater == self.graded.rater_code(ADJUDICATED)))

    def grade_counts(self) -> dict[str, list[int]]:
        """Each rater's number of grades 0 … 5."""
        graded = self.graded
        counts = np.bincount(
            graded.rater * 6 + graded.grade.astype(np.int64), minlength=6 * len(graded.raters)
        ).reshape(-1, 6)
        return {name: counts[graded.rater_code(name)].tolist() for name in self.raters}
