"""Arrow columns and numpy arrays for the evaluations of files, without pandas: a column as
numpy and back, query ids coded in string order, trec_eval's order of a run, the grade of
each row of a run (a hash join) and the first document repeated within a query.

Shared by the ranking metrics (``judge-app eval``) and ``judge_app.trec_eval``, below both (a
module of its own, so that ``judge-app eval`` does not load trec_eval's engine). Arrow's
kernels run without the GIL, so a caller may run two of them at once on two cores. Only
Arrow objects are passed to pyarrow on the way: pyarrow imports pandas the first time it
converts a Python or numpy value, a third of a second the file path can spare.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def to_numpy(column: pa.Array | pa.ChunkedArray, dtype: type) -> np.ndarray:
    """A numeric column as numpy, read from its buffers; with nulls, an object array with
    None for them."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    kind = np.dtype(dtype)
    array = array.cast(pa.from_numpy_dtype(kind))
    if len(array) == 0:
        return np.zeros(0, dtype=kind)
    validity, data = array.buffers()[:2]
    values = np.frombuffer(data, dtype=kind, count=len(array) + array.offset)[array.offset :]
    if array.null_count:
        bits = np.frombuffer(validity, dtype=np.uint8)
        valid = np.unpackbits(bits, count=len(array) + array.offset, bitorder="little")
        values = values.astype(object)
        values[~valid[array.offset :].astype(bool)] = None
    return values


def to_codes(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Integer codes as int32, -1 where null (``index_in``'s miss), read from the buffers:
    ``fill_null`` would take a Python scalar, and pyarrow import pandas to convert it."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    array = array.cast(pa.int32())
    if len(array) == 0:
        return np.zeros(0, dtype=np.int32)
    validity, data = array.buffers()[:2]
    values = np.frombuffer(data, dtype=np.int32, count=len(array) + array.offset)[array.offset :]
    if not array.null_count:
        return values.copy()
    bits = np.frombuffer(validity, dtype=np.uint8)
    valid = np.unpackbits(bits, count=len(array) + array.offset, bitorder="little")
    return np.where(valid[array.offset :].astype(bool), values, -1)


def from_numpy(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers (or booleans, packed into Arrow's bits) as an Arrow array
    over the same memory (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    buffers = [None, pa.py_buffer(values)]
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), buffers)


def sorted_ids(ids: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The distinct values of a string column in string (byte) order."""
    distinct = pc.unique(ids)
    return distinct.take(pc.sort_indices(distinct))


def trec_order(
    query: pa.Array | pa.ChunkedArray, score: pa.ChunkedArray, doc: pa.ChunkedArray
) -> np.ndarray:
    """Row order of a run as trec_eval ranks it: by query code, then score descending, then
    document id descending (Arrow compares scores with < and >, as trec_eval does: -0.0 ties
    0.0)."""
    table = pa.table({"query": query, "score": score, "doc": doc})
    keys = [("query", "ascending"), ("score", "descending"), ("doc", "descending")]
    return to_numpy(pc.sort_indices(table, sort_keys=keys), np.int64)


def grades_of(
    run_query: pa.Array | pa.ChunkedArray,
    run_doc: pa.ChunkedArray,
    judged_query: pa.Array | pa.ChunkedArray,
    judged_doc: pa.ChunkedArray,
    grade: pa.ChunkedArray,
) -> np.ndarray:
    """The grade of each row of a run (query codes and documents), NaN where its document is
    not judged for its query: Arrow's multithreaded hash join of the run's (query, document)
    pairs on the judgments'."""
    # pyarrow.acero imports pyarrow.dataset, and that pandas: the nodes are taken from _acero
    from pyarrow._acero import Declaration, HashJoinNodeOptions, TableSourceNodeOptions

    rows = pa.Table.from_arrays(
        [run_query, run_doc, from_numpy(np.arange(len(run_doc)))], names=["query", "doc", "row"]
    )
    judged = pa.Table.from_arrays(
        [judged_query, judged_doc, grade], names=["query", "doc", "grade"]
    )
    keys = ["query", "doc"]
    join = HashJoinNodeOptions("inner", keys, keys, ["row"], ["grade"])
    sources = [Declaration("table_source", TableSourceNodeOptions(t)) for t in (rows, judged)]
    matched = Declaration("hashjoin", join, inputs=sources).to_table(use_threads=True)
    run_grade = np.full(len(run_doc), np.nan)
    run_grade[to_numpy(matched["row"], np.int64)] = to_numpy(matched["grade"], np.float64)
    return run_grade


def first_repeat(
    query: pa.Array | pa.ChunkedArray, document: pa.ChunkedArray
) -> tuple[int, str] | None:
    """The first (query code, document id) found twice, in order of query code and document,
    if any: rows sorted by both, then neighbours compared, as trec_eval checks."""
    if len(query) < 2:
        return None
    keys = pa.table({"query": query, "doc": document})
    order = pc.sort_indices(keys, sort_keys=[("query", "ascending"), ("doc", "ascending")])
    ordered = keys.take(order).combine_chunks()
    query, document = ordered["query"].chunk(0), ordered["doc"].chunk(0)
    last = len(query) - 1
    same = pc.and_(
        pc.equal(query.slice(1), query.slice(0, last)),
        pc.equal(document.slice(1), document.slice(0, last)),
    )
    if not pc.any(same).as_py():
        return None
    row = pc.indices_nonzero(same)[0].as_py()
    return query[row].as_py(), document[row].as_py()
