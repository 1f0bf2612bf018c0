"""Every CSV file and text judge_app writes, and TREC qrels (DESIGN section 7).

One writer (``csv_text``, ``write_csv``) serves the judgments export, ``eval --format csv``,
``agreement --format csv`` and the window's "Export CSV…": it makes every text cell inert in
a spreadsheet (``make_inert``) and leaves numbers as numbers (-0.25 stays -0.25).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import quoted
from judge_app.io.errors import ExportError
from judge_app.io.outputs import output_file

RISKY_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_KINDS = ("string", "mixed", "mixed-integer")  # what pandas infers of a column with text
JUDGMENT_COLUMNS = [
    "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped", "note",
    "judged_at", "duration_ms",
]  # fmt: skip


def make_inert(cells: pd.Series) -> pd.Series:
    """Text cells a spreadsheet would run as a formula get a leading ``'``; other cells (numbers,
    true and false, missing values) are left as they are.

    A cell that already begins with ``'`` gets one more, so the import can tell them apart
    and the round trip is lossless (``readers._restore_inert`` undoes this).
    """
    if pd.api.types.infer_dtype(cells, skipna=True) not in TEXT_KINDS:
        return cells
    risky = cells.str.startswith(RISKY_STARTS + ("'",), na=False).to_numpy(dtype=bool)
    if not risky.any():
        return cells
    text = cells.astype(object)
    text[risky] = "'" + text[risky].astype(str)
    return text


def csv_text(frame: pd.DataFrame, float_format: str | None = None) -> str:
    """``frame`` as CSV text without its index, text cells inert, real numbers written with
    ``float_format`` (as ``"%.4f"``) wherever they are."""
    return _inert(frame, float_format).to_csv(
        index=False, float_format=float_format, lineterminator="\n"
    )


def write_csv(frame: pd.DataFrame, path: Path | str, float_format: str | None = None) -> int:
    """Write ``frame`` as ``csv_text`` does, to a UTF-8 file whose lines end in \\r\\n (RFC 4180),
    whole or not at all; returns the rows written.

    With \\r\\n line ends the csv module quotes a cell holding any character of the line end;
    a cell holding a bare \\r must be quoted or every reader splits the row there.
    """
    out = _inert(frame, float_format)
    with output_file(Path(path), newline="") as handle:
        out.to_csv(handle, index=False, float_format=float_format, lineterminator="\r\n")
    return len(out)


def _inert(frame: pd.DataFrame, float_format: str | None) -> pd.DataFrame:
    """``frame`` with every column made inert, and real numbers among text formatted."""
    out = frame.copy(deep=False)
    for position in range(frame.shape[1]):
        column = make_inert(frame.iloc[:, position])
        if float_format and column.dtype == object:
            column = column.map(lambda cell: _formatted(cell, float_format))
        out.isetitem(position, column)
    return out


def _formatted(cell: object, float_format: str) -> object:
    """A real number of a column of mixed cells in ``float_format`` (pandas formats only
    columns of real numbers); any other cell as it is."""
    return float_format % cell if isinstance(cell, float) and cell == cell else cell


def write_judgments_csv(frame: pd.DataFrame, path: Path) -> int:
    """Write one row per rater judgment (``reads.judgments_frame``); returns rows written."""
    out = frame[JUDGMENT_COLUMNS].copy()
    out["skipped"] = out["skipped"].map({True: "true", False: "false"})
    moments = pd.to_datetime(out["judged_at"]).to_numpy(dtype="datetime64[us]")
    out["judged_at"] = np.char.add(np.datetime_as_string(moments, unit="us"), "Z")
    return write_csv(out, path)


def format_grade(grade: float) -> str:
    """A grade as qrels text: ``3`` for whole grades, up to six decimals otherwise."""
    if float(grade).is_integer():
        return str(int(grade))
    return f"{grade:.6f}".rstrip("0").rstrip(".")  # 2.0000001 is "2", not "2."


def write_qrels(grades: pd.DataFrame, path: Path) -> int:
    """Write ``query_id, doc_id, grade`` as TREC qrels ``qid 0 docid grade``."""
    for name in ("query_id", "doc_id"):
        spaced = grades[name].astype(str).str.contains(r"\s", regex=True)
        if spaced.any():
            example = grades[name][spaced].iloc[0]
            raise ExportError(
                f"{spaced.sum()} ids in {name} contain spaces (e.g. {quoted(example)}), which TREC "
                "qrels cannot hold: export judgments as CSV instead"
            )
    with output_file(path, newline="\n") as handle:
        for query_id, doc_id, grade in grades[["query_id", "doc_id", "grade"]].itertuples(
            index=False
        ):
            handle.write(f"{query_id} 0 {doc_id} {format_grade(grade)}\n")
    return len(grades)
