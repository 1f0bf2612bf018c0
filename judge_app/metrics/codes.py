"""Graded judgments and run results as integer codes: a query, document, rater or run is the
place of its name among the names of its kind, in code-point order. Choosing, sorting and
grouping a million judgments is then numpy's work on integers, and a name is looked up only
where it is printed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


Coded = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A run's (query, document, rank) codes, or qrels' (query, document, grade)."""


@dataclass(frozen=True)
class Graded:
    """Graded judgments (skipped ones left out): ``query``, ``doc`` and ``rater`` index
    ``queries``, ``docs`` and ``raters``; ``grade`` as read (float)."""

    query: np.ndarray
    doc: np.ndarray
    rater: np.ndarray
    grade: np.ndarray
    queries: np.ndarray
    docs: np.ndarray
    raters: np.ndarray

    @classmethod
    def from_frame(cls, judgments: pd.DataFrame) -> Graded:
        """From judgments ``query_id, doc_id, rater, grade[, skipped]``."""
        import pandas as pd

        graded = judgments[judgments["grade"].notna()]
        if "skipped" in graded:
            graded = graded[~graded["skipped"].astype(bool)]
        coded = [pd.factorize(graded[name], sort=True) for name in ("query_id", "doc_id", "rater")]
        (query, queries), (doc, docs), (rater, raters) = (
            (np.asarray(codes, dtype=np.int64), np.asarray(names, dtype=object))
            for codes, names in coded
        )
        grade = graded["grade"].to_numpy(dtype=np.float64)
        return cls(query, doc, rater, grade, queries, docs, raters)

    def where(self, keep: np.ndarray) -> Graded:
        """The judgments where ``keep`` is true (the same names)."""
        return replace(
            self,
            query=self.query[keep],
            doc=self.doc[keep],
            rater=self.rater[keep],
            grade=self.grade[keep],
        )

    def rater_names(self) -> list[str]:
        """The raters with a judgment here, in code-point order."""
        present = np.bincount(self.rater, minlength=len(self.raters)) > 0
        return [str(name) for name in self.raters[present]]

    def rater_code(self, name: str) -> int:
        """The code of the rater ``name``, -1 if there is none."""
        return code_of(self.raters, name)

    def frame(self) -> pd.DataFrame:
        """``query_id, doc_id, rater, grade, skipped`` (skipped False), as
        ``judge_app.store.reads.grades_frame`` gives them."""
        import pandas as pd

        return pd.DataFrame(
            {
                "query_id": _named(self.queries, self.query),
                "doc_id": _named(self.docs, self.doc),
                "rater": _named(self.raters, self.rater),
                "grade": self.grade.astype(np.float64),
                "skipped": np.zeros(len(self.grade), dtype=bool),
            }
        )


@dataclass(frozen=True)
class Results:
    """Run results: ``run`` indexes ``runs``; ``query`` and ``doc`` are codes of the judgments'
    :class:`Graded` names, -1 for a query or document no judgment names."""

    run: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    rank: np.ndarray
    runs: np.ndarray

    @classmethod
    def from_frame(cls, results: pd.DataFrame, graded: Graded) -> Results:
        """From results ``run, query_id, doc_id, rank``, coded with ``graded``'s names."""
        import pandas as pd

        run, runs = pd.factorize(results["run"], sort=True)
        return cls(
            np.asarray(run, dtype=np.int64),
            pd.Index(graded.queries).get_indexer(results["query_id"]).astype(np.int64),
            pd.Index(graded.docs).get_indexer(results["doc_id"]).astype(np.int64),
            results["rank"].to_numpy(dtype=np.int64),
            np.asarray(runs, dtype=object),
        )

    def run_names(self) -> list[str]:
        """The runs with a result here, in code-point order."""
        present = np.bincount(self.run, minlength=len(self.runs)) > 0
        return [str(name) for name in self.runs[present]]

    def by_run(self, names: list[str] | None = None) -> dict[str, Coded]:
        """Each run's (query, document, rank) codes by name, in order of name: those of
        ``names`` (None: all)."""
        return {
            name: (self.query[mine], self.doc[mine], self.rank[mine])
            for name in self.run_names()
            if names is None or name in names
            for mine in [self.run == code_of(self.runs, name)]
        }

    def frame(self, graded: Graded) -> pd.DataFrame:
        """``run, query_id, doc_id, rank`` in order of run, query and rank, as
        ``judge_app.store.reads.results_frame`` gives them (without scores)."""
        import pandas as pd

        order = np.lexsort((self.rank, self.query, self.run))
        return pd.DataFrame(
            {
                "run": _named(self.runs, self.run[order]),
                "query_id": _named(graded.queries, self.query[order]),
                "doc_id": _named(graded.docs, self.doc[order]),
                "rank": self.rank[order].astype(np.int64),
            }
        )

    def where(self, keep: np.ndarray) -> Results:
        """The results where ``keep`` is true (the same names)."""
        return replace(
            self,
            run=self.run[keep],
            query=self.query[keep],
            doc=self.doc[keep],
            rank=self.rank[keep],
        )


def code_of(names: np.ndarray, name: str) -> int:
    """The place of ``name`` among ``names`` (in code-point order), -1 if it is not there."""
    place = int(np.searchsorted(names, name))
    return place if place < len(names) and names[place] == name else -1


def _named(names: np.ndarray, codes: np.ndarray) -> pd.Series:
    """The names of ``codes`` as a column of strings (Arrow's, as the store's reads give)."""
    import pandas as pd
    import pyarrow as pa

    taken = pa.array(names, pa.string()).take(pa.array(codes))
    return pd.Series(taken, dtype=pd.StringDtype("pyarrow", na_value=np.nan))
