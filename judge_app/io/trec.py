"""Fast readers of TREC run and qrels files for evaluation (no database involved).

A million-line run is split into tokens in one pass of C code and typed with numpy; lines are
looked at one by one only to say where a malformed file goes wrong. Unlike the importers,
qrels grades may be negative (trec_eval's "pooled, not judged") or real numbers.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judge_app.errors import quoted
from judge_app.io.errors import MAX_PROBLEMS, ImportFileError, Problem
from judge_app.io.text import NUL_REASON, read_bytes, read_text

if TYPE_CHECKING:
    import pandas as pd

# Blanks pyarrow would keep inside a field, but str.split() splits on (and NUL, refused)
_OTHER_BLANKS = (b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\x00")
_BLANKS = re.compile(r"[^\S\n]+")  # what str.split() splits on, but line ends
_LINE_ENDS = re.compile(r"^ | $", re.MULTILINE)
_SKIPPED_LINES = re.compile(r"^(#.*)?\n", re.MULTILINE)  # blank and comment lines
RUN_FIELDS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
QRELS_FIELDS = ["query_id", "iteration", "doc_id", "grade"]


def _columns(path: Path, names: list[str], noun: str) -> tuple[np.ndarray, np.ndarray]:
    """The file's whitespace-separated tokens as a (records × fields) array of str, and the
    line each record is on. Blank lines and lines starting with ``#`` are skipped."""
    fields = len(names)
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
    if "\x00" in text:
        problems = [
            Problem(str(path), number, names[field], NUL_REASON)
            for number, line in numbered
            for field, token in enumerate(line.split())
            if "\x00" in token
        ]
        raise ImportFileError(problems[:MAX_PROBLEMS], len(problems))
    lines = np.fromiter((number for number, _ in numbered), dtype=np.int64, count=len(numbered))
    return np.array(tokens, dtype=object).reshape(-1, fields), lines


def _numbers(path: Path, cells: np.ndarray, column: str, lines: np.ndarray) -> np.ndarray:
    import pandas as pd

    values = pd.to_numeric(pd.Series(cells), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        problems = [
            Problem(str(path), int(lines[row]), column, f"{quoted(cells[row])} is not a number")
            for row in bad[:MAX_PROBLEMS]
        ]
        raise ImportFileError(problems, len(bad))
    return values


def _read_single_spaced(
    source: Path | io.BytesIO, names: list[str], numeric: str
) -> pa.Table | None:
    """A file (or text) with fields separated by one space and no comments, read by pyarrow's
    multithreaded CSV reader. None when it is not like that. (A document twice for one query
    is found by the evaluation, which then asks :func:`explain_repeats` for the lines.)"""
    from pyarrow import csv

    kept = ["query_id", "doc_id", numeric] + (["tag"] if "tag" in names else [])
    try:
        table = csv.read_csv(
            source,
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
    return table


def read_run_file(path: Path) -> tuple[pa.Table, str]:
    """A TREC run ``qid Q0 docid rank score tag``: ``query_id, doc_id, score`` and the tag.

    The rank column is not used (trec_eval orders by score); a file with several tags is
    named after its first.
    """
    table = _read(Path(path), RUN_FIELDS, "score")
    tag = table["tag"][0].as_py() if table.num_rows else Path(path).stem
    return table.select(["query_id", "doc_id", "score"]), tag


def read_qrels_file(path: Path) -> pa.Table:
    """TREC qrels ``qid iteration docid grade``: ``query_id, doc_id, grade`` (float)."""
    return _read(Path(path), QRELS_FIELDS, "grade")


def explain_repeats(path: Path, kind: str) -> None:
    """Raise the ImportFileError that names the lines of a ``run`` or ``qrels`` file where a
    document comes twice for one query (the fast reader does not look)."""
    names, numeric = (RUN_FIELDS, "score") if kind == "run" else (QRELS_FIELDS, "grade")
    _read_carefully(Path(path), names, numeric)


def _read(path: Path, names: list[str], numeric: str) -> pa.Table:
    """``query_id, doc_id``, the ``numeric`` column (and ``tag``, if named) of a TREC file:
    as it is if single-spaced; else with its blanks, tabs and comments tidied away (trec_eval
    itself writes tab-separated files); else line by line, to say what is wrong. Ids are in
    Unicode NFC (an ASCII file's already are)."""
    data = read_bytes(path)
    if data.isascii() and not any(byte in data for byte in _OTHER_BLANKS):
        table = _read_single_spaced(io.BytesIO(data), names, numeric)
    elif b"\x00" in data:
        table = None  # refused line by line, naming where
    else:
        text = _BLANKS.sub(" ", read_text(path, data)) + "\n"
        tidy = _SKIPPED_LINES.sub("", _LINE_ENDS.sub("", text))
        table = _read_single_spaced(io.BytesIO(tidy.encode("utf-8")), names, numeric)
        if table is not None:
            for name in ("query_id", "doc_id"):
                table = table.set_column(
                    table.schema.get_field_index(name), name, pc.utf8_normalize(table[name], "NFC")
                )
    if table is None:
        table = pa.Table.from_pandas(_read_carefully(path, names, numeric), preserve_index=False)
    return table


def _read_carefully(path: Path, names: list[str], numeric: str) -> pd.DataFrame:
    """The file read line by line, every problem reported with its line."""
    import pandas as pd

    columns, lines = _columns(path, names, "run" if "tag" in names else "qrels")
    cells = dict(zip(names, columns.T))
    frame = pd.DataFrame(
        {
            "query_id": pd.Series(cells["query_id"], dtype=str).str.normalize("NFC"),
            "doc_id": pd.Series(cells["doc_id"], dtype=str).str.normalize("NFC"),
            numeric: _numbers(path, cells[numeric], numeric, lines),
        }
    )
    if "tag" in cells:
        frame["tag"] = cells["tag"].astype(str)
    verb = "retrieved" if "tag" in names else "judged"
    _refuse_duplicates(path, frame, lines, f"document {verb} twice for one query")
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
