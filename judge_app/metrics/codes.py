"""Graded judgments and run results as integer codes: a query, document, rater or run is the
place of its name among the names of its kind, in code-point order. Choosing, sorting and
grouping a million judgments is then numpy's work on integers, and a name is looked up only
where it is printed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judge_app.arrow_columns import (
    first_repeat,
    from_numpy,
    may_repeat,
    string_hashes,
    to_codes,
    to_numpy,
    trec_order,
)

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
class Judged:
    """Every judgment, skipped ones too, as integer codes over its own names (those it uses,
    in code-point order): ``grade`` -1 where skipped, ``at`` when (microseconds since 1970,
    UTC), ``duration_ms`` how long (-1: not timed). What the raters' quality figures read."""

    query: np.ndarray
    doc: np.ndarray
    rater: np.ndarray
    grade: np.ndarray
    at: np.ndarray
    duration_ms: np.ndarray
    queries: np.ndarray
    docs: np.ndarray
    raters: np.ndarray

    def where(self, keep: np.ndarray) -> Judged:
        """The judgments where ``keep`` (a mask, or row numbers in the order wanted) says
        (the same names)."""
        return replace(self, **{name: getattr(self, name)[keep] for name in _JUDGED_ROWS})

    def graded(self) -> Graded:
        """The graded judgments, named as ``Graded.from_frame`` names them: only the queries,
        documents and raters they use."""
        keep = self.grade >= 0
        (query, queries), (doc, docs), (rater, raters) = (
            _compact(codes[keep], names)
            for codes, names in (
                (self.query, self.queries),
                (self.doc, self.docs),
                (self.rater, self.raters),
            )
        )
        return Graded(query, doc, rater, self.grade[keep].astype(np.float64), queries, docs, raters)


_JUDGED_ROWS = ("query", "doc", "rater", "grade", "at", "duration_ms")


def _compact(codes: np.ndarray, names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` over only the ``names`` they use (in the same order), and those names."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(names)))
    place = np.zeros(len(names), dtype=np.int64)
    place[used] = np.arange(len(used))
    return place[codes], names[used]


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
        chosen = [name for name in self.run_names() if names is None or name in names]
        if len(self.run_names()) == 1:  # every row is the one run's: no copy
            return {name: (self.query, self.doc, self.rank) for name in chosen}
        return {
            name: (self.query[mine], self.doc[mine], self.rank[mine])
            for name in chosen
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
    run file, score descending, ties by document id descending, and put in that order).
    Queries, raters and runs are coded in code-point order over both; documents are the
    judged ones, in the order first met (a million names are never sorted: no use needs
    their order), and a run's document no judgment names is -1. A document twice for one
    query of a run, or of qrels without raters, is a :class:`RepeatedDocument` (trec_eval
    refuses both): looked for among sorted codes, or for a run among 64-bit hashes of its
    documents (by strings only where two meet), while a second thread ranks the runs.
    Arrow's kernels and numpy code the ids, without pandas."""
    judged = _table(qrels)
    if "skipped" in judged.column_names:
        judged = judged.filter(pc.invert(pc.fill_null(judged["skipped"].cast(pa.bool_()), False)))
    judged = judged.filter(pc.is_valid(judged["grade"]))
    tables = {name: _table(run) for name, run in runs.items()}
    columns = [judged, *tables.values()]
    (query, *run_queries), query_names = _encoded([t["query_id"] for t in columns], ordered=True)
    queries = _objects(query_names)
    (doc,), doc_names = _encoded([judged["doc_id"]], ordered=False)
    with ThreadPoolExecutor(max_workers=1) as pool:  # Arrow's kernels let go of the GIL
        ranked = [
            pool.submit(_ranked, codes, table) for table, codes in zip(tables.values(), run_queries)
        ]
        if "rater" in judged.column_names:
            (rater,), raters = _encoded([judged["rater"]], ordered=True)
            rater_names = _objects(raters)
        else:
            rater, rater_names = np.zeros(len(query), np.int64), np.array([QRELS_RATER], object)
            if _twice(query, doc, len(doc_names)):
                _refuse_repeat("qrels", query, judged["doc_id"], queries)
        parts = []
        for code, (table, codes, rows) in enumerate(zip(tables.values(), run_queries, ranked)):
            run_doc = to_codes(pc.index_in(table["doc_id"], value_set=doc_names))
            if may_repeat(codes, string_hashes(table["doc_id"])):
                _refuse_repeat("run", codes, table["doc_id"], queries)
            order, run_query, rank = rows.result()
            if order is not None:
                run_doc = run_doc[order]
            parts.append((np.full(len(rank), code, np.int32), run_query, run_doc, rank))
    graded = Graded(
        query.astype(np.int64), doc.astype(np.int64), rater.astype(np.int64),
        to_numpy(judged["grade"], np.float64), queries, _objects(doc_names), rater_names,
    )  # fmt: skip
    coded = [
        parts[0][i] if len(parts) == 1 else np.concatenate([part[i] for part in parts])
        for i in range(4)
    ] if parts else [np.zeros(0, np.int32)] * 4  # fmt: skip
    names = np.asarray(list(tables), dtype=object)
    order = np.argsort(names, kind="stable")  # run codes in code-point order of the names
    renamed = np.empty(len(names), np.int64)
    renamed[order] = np.arange(len(names))
    run = renamed[coded[0]] if len(coded[0]) else coded[0]
    return graded, Results(run, coded[1], coded[2], coded[3], names[order])


def _twice(query: np.ndarray, doc: np.ndarray, docs: int) -> bool:
    """Whether a (query, document) pair of codes comes twice."""
    keys = np.sort(query.astype(np.int64) * max(docs, 1) + doc)
    return bool((keys[1:] == keys[:-1]).any())


def _refuse_repeat(
    source: str, query: np.ndarray, docs: pa.ChunkedArray, queries: np.ndarray
) -> None:
    """Raise :class:`RepeatedDocument` for the first document twice in a query, if any."""
    repeat = first_repeat(from_numpy(query), docs)
    if repeat is not None:
        raise RepeatedDocument(source, str(queries[repeat[0]]), repeat[1])


def _ranked(query: np.ndarray, table: pa.Table) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """A run's rows in order of query and rank: the order to put them in (None: as they
    are, with the ranks given) and the query codes and ranks in that order; without ranks,
    ranked as trec_eval ranks a run file."""
    if "rank" in table.column_names:
        return None, query, to_numpy(table["rank"], np.int32)
    order = trec_order(from_numpy(query), table["score"], table["doc_id"])
    ordered = query[order]
    return order, ordered, _positions(ordered)


def _encoded(columns: list[pa.ChunkedArray], ordered: bool) -> tuple[list[np.ndarray], pa.Array]:
    """The values of ``columns`` coded together, one code array per column, and the names
    the codes index (``ordered``: in code-point order; else in the order first met): one
    hash pass of Arrow's dictionary encoding over all of them."""
    chunks = [chunk for column in columns for chunk in column.chunks]
    encoded = pa.chunked_array(chunks, type=pa.string()).dictionary_encode()
    names = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.string())
    flat = [to_numpy(chunk.indices, np.int32) for chunk in encoded.chunks]
    codes = np.concatenate(flat) if flat else np.zeros(0, np.int32)
    if ordered:
        order = to_numpy(pc.sort_indices(names), np.int64)
        place = np.empty(len(order), np.int32)
        place[order] = np.arange(len(order), dtype=np.int32)
        codes, names = place[codes], names.take(from_numpy(order))
    ends = np.cumsum([len(column) for column in columns])[:-1]
    return np.split(codes, ends), names


def _objects(names: pa.Array) -> np.ndarray:
    """Arrow strings as an object array of Python strings (through a list: numpy and pandas
    are left out of it, and pyarrow would import pandas for the other way)."""
    return np.asarray(names.to_pylist(), dtype=object)


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
    """Each row's 1-based place among the rows of its value of ``group`` (sorted codes)."""
    counts = np.bincount(group)
    starts = (np.cumsum(counts) - counts).astype(np.int32)
    return np.arange(1, len(group) + 1, dtype=np.int32) - starts[group]
