"""Graded judgments and run results as integer codes: a query, document, rater or run is the
place of its name among the names of its kind, in code-point order. Choosing, sorting and
grouping a million judgments is then numpy's work on integers, and a name is looked up only
where it is printed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judge_app.arrow_columns import from_numpy, sorted_ids, to_numpy, trec_order

if TYPE_CHECKING:
    import pandas as pd

Frame = Union["pd.DataFrame", pa.Table]
"""Rows with named columns: a pandas DataFrame or a pyarrow Table."""

QRELS_RATER = "qrels"
"""The one rater of judgments without raters (a TREC qrels file): its grades are the grades."""


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

    def aggregated(self, method: str = "mean", prefer: bool = True) -> pd.DataFrame:
        """``query_id, doc_id, grade``: one grade per pair, combined by ``method`` with the
        adjudicated grades preferred or not (``metrics.aggregation.aggregate``)."""
        import pandas as pd

        from judge_app.metrics.aggregation import aggregate

        query, doc, grade = aggregate(self, method, prefer)
        return pd.DataFrame(
            {
                "query_id": _named(self.queries, query),
                "doc_id": _named(self.docs, doc),
                "grade": grade,
            }
        )

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


class RepeatedDocument(ValueError):
    """A document twice for one query, in a run or in qrels (trec_eval refuses both)."""

    def __init__(self, source: str, query_id: str, doc_id: str) -> None:
        verb = "retrieved" if source == "run" else "judged"
        super().__init__(f"document {verb} twice for one query: query {query_id}, {doc_id}")
        self.source, self.query_id, self.doc_id = source, query_id, doc_id


def code_frames(qrels: Frame, runs: dict[str, Frame]) -> tuple[Graded, Results]:
    """Judgments and runs given as rows, as integer codes: ``qrels`` (``query_id, doc_id,
    grade`` and, from several raters, ``rater``; ungraded and skipped rows left out) and each
    run by name (``query_id, doc_id`` and ``rank``, or ``score``: ranked as trec_eval ranks a
    run file, score descending, ties by document id descending). Names are coded over both, so
    every result has a code. A document twice for one query of a run, or of qrels without
    raters, is a :class:`RepeatedDocument` (trec_eval refuses both); Arrow's kernels code
    the ids, without pandas."""
    judged = _table(qrels)
    if "skipped" in judged.column_names:
        judged = judged.filter(pc.invert(pc.fill_null(judged["skipped"].cast(pa.bool_()), False)))
    judged = judged.filter(pc.is_valid(judged["grade"]))
    tables = {name: _table(run) for name, run in runs.items()}
    columns = [judged, *tables.values()]
    queries = sorted_ids(pa.chunked_array([c for t in columns for c in t["query_id"].chunks]))
    docs = sorted_ids(pa.chunked_array([c for t in columns for c in t["doc_id"].chunks]))

    def codes(column: pa.ChunkedArray, names: pa.Array) -> np.ndarray:
        return to_numpy(pc.index_in(column, value_set=names), np.int64)

    query, doc = codes(judged["query_id"], queries), codes(judged["doc_id"], docs)
    if "rater" in judged.column_names:
        raters = sorted_ids(judged["rater"])
        rater = codes(judged["rater"], raters)
        rater_names = np.asarray(raters.to_pylist(), dtype=object)
    else:
        rater, rater_names = np.zeros(len(query), np.int64), np.array([QRELS_RATER], object)
        _refuse_repeats("qrels", query, doc, queries, docs)
    query_names = np.asarray(queries.to_pylist(), dtype=object)
    doc_names = np.asarray(docs.to_pylist(), dtype=object)
    graded = Graded(
        query, doc, rater, to_numpy(judged["grade"], np.float64), query_names, doc_names,
        rater_names,
    )  # fmt: skip
    parts = []
    for code, table in enumerate(tables.values()):
        run_query, run_doc = codes(table["query_id"], queries), codes(table["doc_id"], docs)
        _refuse_repeats("run", run_query, run_doc, queries, docs)
        if "rank" in table.column_names:
            rank = to_numpy(table["rank"], np.int64)
        else:
            order = trec_order(from_numpy(run_query), table["score"], table["doc_id"])
            rank = np.empty(len(order), np.int64)
            rank[order] = _positions(run_query[order])
        parts.append((np.full(len(rank), code, np.int64), run_query, run_doc, rank))
    columns = [
        np.concatenate([part[i] for part in parts]) if parts else np.zeros(0, np.int64)
        for i in range(4)
    ]
    names = np.asarray(list(tables), dtype=object)
    order = np.argsort(names, kind="stable")  # run codes in code-point order of the names
    renamed = np.empty(len(names), np.int64)
    renamed[order] = np.arange(len(names))
    run = renamed[columns[0]] if len(columns[0]) else columns[0]
    return graded, Results(run, columns[1], columns[2], columns[3], names[order])


def _table(frame: Frame) -> pa.Table:
    """``frame`` as a pyarrow Table with ids (and raters) of type string."""
    if not isinstance(frame, pa.Table):
        import pandas as pd

        frame = pa.Table.from_pandas(pd.DataFrame(frame), preserve_index=False)
    for name in ("query_id", "doc_id", "rater"):
        if name in frame.column_names:
            position = frame.schema.get_field_index(name)
            if frame.schema.field(position).type != pa.string():
                frame = frame.set_column(position, name, frame[name].cast(pa.string()))
    return frame


def _positions(group: np.ndarray) -> np.ndarray:
    """Each row's 1-based place in its run of equal values of ``group`` (sorted)."""
    if not len(group):
        return group
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    return np.arange(1, len(group) + 1) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))


def _refuse_repeats(
    source: str, query: np.ndarray, doc: np.ndarray, queries: pa.Array, docs: pa.Array
) -> None:
    """A :class:`RepeatedDocument` naming the first (query, document) twice, if any."""
    if len(query) < 2:
        return
    keys = np.sort(query * len(docs) + doc)
    twice = np.flatnonzero(keys[1:] == keys[:-1])
    if len(twice):
        key = int(keys[twice[0]])
        raise RepeatedDocument(
            source, queries[key // len(docs)].as_py(), docs[key % len(docs)].as_py()
        )
