"""Fast readers of TREC run and qrels files for evaluation (no database involved).

A million-line run is split into tokens in one pass of C code and typed with numpy; lines are
looked at one by one only to say where a malformed file goes wrong. Unlike the importers,
qrels grades may be negative (trec_eval's "pooled, not judged") or real numbers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, Problem
from judge_app.io.records import read_text


def _columns(path: Path, fields: int, noun: str) -> tuple[np.ndarray, np.ndarray]:
    """The file's whitespace-separated tokens as a (records × fields) array of str, and the
    line each record is on. Blank lines and lines starting with ``#`` are skipped."""
    text = read_text(path)
    numbered = [
        (number, line)
        for number, line in enumerate(text.split("\n"), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    tokens = " ".join(line for _, line in numbered).split()
    if len(tokens) != fields * len(numbered):
        problems = []
        for number, line in enumerate(text.split("\n"), start=1):
            parts = line.split()
            if parts and not parts[0].startswith("#") and len(parts) != fields:
                reason = f"a {noun} line has {fields} fields, this one {len(parts)}"
                problems.append(Problem(str(path), number, None, reason))
        raise ImportFileError(problems[:MAX_PROBLEMS], len(problems))
    lines = np.fromiter((number for number, _ in numbered), dtype=np.int64, count=len(numbered))
    return np.array(tokens, dtype=object).reshape(-1, fields), lines


def _numbers(path: Path, cells: np.ndarray, column: str, lines: np.ndarray) -> np.ndarray:
    values = pd.to_numeric(pd.Series(cells), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        problems = [
            Problem(str(path), int(lines[row]), column, f"{cells[row]!r} is not a number")
            for row in bad[:MAX_PROBLEMS]
        ]
        raise ImportFileError(problems, len(bad))
    return values


def _read_single_spaced(path: Path, names: list[str], numeric: str) -> pd.DataFrame | None:
    """The common case, read by pyarrow's multithreaded CSV reader: fields separated by one
    space, no comments, no (query, document) twice. None when the file is not like that:
    the careful reader then takes over and says what is wrong."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv

    kept = ["query_id", "doc_id", numeric] + (["tag"] if "tag" in names else [])
    try:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=csv.ConvertOptions(
                column_types={
                    name: pa.float64() if name == numeric else pa.string() for name in names
                },
                include_columns=kept,
            ),
        )
    except (OSError, pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    values = table[numeric]
    if table.num_rows == 0 or values.null_count or not pc.all(pc.is_finite(values)).as_py():
        return None
    if pc.any(pc.starts_with(table["query_id"], "#")).as_py():
        return None
    pairs = pc.binary_join_element_wise(table["query_id"], table["doc_id"], "\x00")
    if pc.count_distinct(pairs).as_py() != table.num_rows:
        return None
    return table.to_pandas(
        types_mapper={pa.string(): pd.StringDtype("pyarrow", na_value=np.nan)}.get
    )


def read_run_file(path: Path) -> tuple[pd.DataFrame, str]:
    """A TREC run ``qid Q0 docid rank score tag``: ``query_id, doc_id, score`` and the tag.

    The rank column is not used (trec_eval orders by score); a file with several tags is
    named after its first.
    """
    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
    frame = _read(Path(path), names, "score", "document retrieved twice for one query")
    tag = str(frame["tag"].iat[0]) if len(frame) else Path(path).stem
    return frame[["query_id", "doc_id", "score"]], tag


def read_qrels_file(path: Path) -> pd.DataFrame:
    """TREC qrels ``qid iteration docid grade``: ``query_id, doc_id, grade`` (float)."""
    names = ["query_id", "iteration", "doc_id", "grade"]
    return _read(Path(path), names, "grade", "document judged twice for one query")


def _read(path: Path, names: list[str], numeric: str, duplicate: str) -> pd.DataFrame:
    """``query_id, doc_id``, the ``numeric`` column (and ``tag``, if named) of a TREC file."""
    fast = _read_single_spaced(path, names, numeric)
    if fast is not None:
        return fast
    columns, lines = _columns(path, len(names), "run" if "tag" in names else "qrels")
    cells = dict(zip(names, columns.T))
    frame = pd.DataFrame(
        {
            "query_id": cells["query_id"].astype(str),
            "doc_id": cells["doc_id"].astype(str),
            numeric: _numbers(path, cells[numeric], numeric, lines),
        }
    )
    if "tag" in cells:
        frame["tag"] = cells["tag"].astype(str)
    _refuse_duplicates(path, frame, lines, duplicate)
    return frame


def _refuse_duplicates(path: Path, frame: pd.DataFrame, lines: np.ndarray, reason: str) -> None:
    repeated = np.flatnonzero(frame.duplicated(["query_id", "doc_id"]).to_numpy())
    if len(repeated):
        queries, documents = frame["query_id"].to_numpy(), frame["doc_id"].to_numpy()
        problems = [
            Problem(
                str(path),
                int(lines[row]),
                None,
                f"{reason}: query {queries[row]}, {documents[row]}",
            )
            for row in repeated[:MAX_PROBLEMS]
        ]
        raise ImportFileError(problems, len(repeated))
