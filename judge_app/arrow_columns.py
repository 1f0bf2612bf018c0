"""Arrow columns and numpy arrays for the evaluations of files, without pandas: a column as
numpy and back, query ids coded in string order, trec_eval's order of a run, 64-bit hashes of
strings and the meeting of equal keys (one sort, for joins and repeats), and the first
document repeated within a query.

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
    """The distinct values of a string column (plain or dictionary-encoded) in string (byte)
    order."""
    if pa.types.is_dictionary(ids.type):  # each chunk's dictionary holds its distinct values
        dictionaries = [chunk.dictionary for chunk in _chunks(ids)]
        ids = pa.chunked_array(dictionaries, ids.type.value_type)
    distinct = pc.unique(ids)
    return distinct.take(pc.sort_indices(distinct))


def codes_in(column: pa.ChunkedArray | pa.Array, ids: pa.Array) -> np.ndarray:
    """The index in ``ids`` of each value of a string column (plain or dictionary-encoded),
    -1 where it is not there, as int32: a dictionary's few values are looked up, not its
    rows."""
    if not pa.types.is_dictionary(column.type):
        return to_codes(pc.index_in(column, value_set=ids))
    codes = [
        to_codes(pc.index_in(chunk.dictionary, value_set=ids))[to_numpy(chunk.indices, np.int32)]
        for chunk in _chunks(column)
    ]
    return np.concatenate(codes) if codes else np.zeros(0, dtype=np.int32)


def _chunks(column: pa.ChunkedArray | pa.Array) -> list[pa.Array]:
    return list(column.chunks) if isinstance(column, pa.ChunkedArray) else [column]


_LOW_BYTES = np.array([(1 << (8 * count)) - 1 for count in range(9)], dtype=np.uint64)


def string_hashes(column: pa.ChunkedArray | pa.Array, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of each string of a column (its bytes and length), read 8 bytes at a time
    from its buffers: equal strings hash equal, others almost never (``seed`` picks another
    hash)."""
    chunks = [_hashes(chunk, seed) for chunk in _chunks(column)]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.uint64)


def _hashes(array: pa.Array, seed: int) -> np.ndarray:
    if not pa.types.is_large_string(array.type):
        array = array.cast(pa.large_string()) if not pa.types.is_string(array.type) else array
    kind = np.int64 if pa.types.is_large_string(array.type) else np.int32
    buffers = array.buffers()
    ends = np.frombuffer(buffers[1], dtype=kind, count=len(array) + 1 + array.offset)
    ends = ends[array.offset :].astype(np.int64)
    first, last = int(ends[0]), int(ends[-1])
    padded = np.zeros(last - first + 8, dtype=np.uint8)  # the last word reads past the end
    if last > first:
        padded[: last - first] = np.frombuffer(buffers[2], np.uint8, last - first, first)
    words = np.ndarray((last - first + 1,), dtype="<u8", buffer=padded, strides=(1,))
    start, length = ends[:-1] - first, np.diff(ends)
    hashes = mix(length.astype(np.uint64) + np.uint64(seed))
    for step in range(0, int(length.max(initial=0)), 8):
        going = length > step  # only these: a string's hash must not hang on its chunk
        if going.all():
            hashes = mix(hashes ^ (words[start + step] & _LOW_BYTES[np.minimum(length - step, 8)]))
            continue
        rows = np.flatnonzero(going)
        word = words[start[rows] + step] & _LOW_BYTES[np.minimum(length[rows] - step, 8)]
        hashes[rows] = mix(hashes[rows] ^ word)
    return hashes


def mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer of each value (uint64, wrapping): every bit stirs every other."""
    values = values ^ (values >> np.uint64(30))
    values *= np.uint64(0xBF58476D1CE4E5B9)
    values ^= values >> np.uint64(27)
    values *= np.uint64(0x94D049BB133111EB)
    values ^= values >> np.uint64(31)
    return values


def may_repeat(group: np.ndarray, hashes: np.ndarray) -> bool:
    """Whether a string may come twice within a group: its :func:`string_hashes` twice
    with one ``group`` code. False is sure; True asks :func:`first_repeat`, since hashes of
    different strings may meet by chance."""
    keys = mix(hashes ^ mix(group.astype(np.uint64)))
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


def same_keys(known: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, bool, bool]:
    """For each of ``keys`` (uint64), the index of one of ``known`` equal to it but for the
    lowest bit (-1: none); and whether a value is found twice among ``known``, among
    ``keys``. One sort of both, the lowest bit telling them apart: ``known`` (0) first of
    each run of equal values."""
    both = np.concatenate([known & ~np.uint64(1), keys | np.uint64(1)])
    order = np.argsort(both)
    ordered = both[order]
    del both
    same = ordered[1:] == ordered[:-1]
    is_known = (ordered & np.uint64(1)) == 0
    known_twice = bool((same & is_known[1:]).any())
    keys_twice = bool((same & ~is_known[1:]).any())
    last_known = np.where(is_known, np.arange(len(ordered)), -1)
    np.maximum.accumulate(last_known, out=last_known)
    asked = np.flatnonzero(~is_known)
    candidate = last_known[asked]
    met = candidate >= 0
    met[met] = (ordered[candidate[met]] >> np.uint64(1)) == (ordered[asked[met]] >> np.uint64(1))
    found = np.full(len(keys), -1, dtype=np.int64)
    found[order[asked[met]] - len(known)] = order[candidate[met]]
    return found, known_twice, keys_twice


def trec_order(
    query: pa.Array | pa.ChunkedArray, score: pa.ChunkedArray, doc: pa.ChunkedArray
) -> np.ndarray:
    """Row order of a run as trec_eval ranks it: by query code, then score descending, then
    document id descending (Arrow compares scores with < and >, as trec_eval does: -0.0 ties
    0.0)."""
    table = pa.table({"query": query, "score": score, "doc": doc})
    keys = [("query", "ascending"), ("score", "descending"), ("doc", "descending")]
    return to_numpy(pc.sort_indices(table, sort_keys=keys), np.int64)


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
