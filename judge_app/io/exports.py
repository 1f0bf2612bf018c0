"""Writers of judgments CSV and TREC qrels (DESIGN section 7)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import quoted
from judge_app.io.errors import ExportError
from judge_app.io.outputs import output_file

RISKY_STARTS = ("=", "+", "-", "@", "\t", "\r")
JUDGMENT_COLUMNS = [
    "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped", "note",
    "judged_at", "duration_ms",
]  # fmt: skip


def make_inert(cells: pd.Series) -> pd.Series:
    """Text cells a spreadsheet would run as a formula get a leading ``'``.

    A cell that already begins with ``'`` gets one more, so the import can tell them apart
    and the round trip is lossless (``readers._restore_inert`` undoes this).
    """
    text = cells.astype(object)
    present = text.notna()
    strings = text[present].astype(str)
    risky = strings.str.startswith(RISKY_STARTS + ("'",))
    text.loc[strings.index[risky]] = "'" + strings[risky]
    return text


def write_judgments_csv(frame: pd.DataFrame, path: Path) -> int:
    """Write one row per rater judgment (``reads.judgments_frame``); returns rows written."""
    out = frame[JUDGMENT_COLUMNS].copy()
    for name in ("query_id", "query_text", "doc_id", "doc_title", "rater", "note"):
        out[name] = make_inert(out[name])
    out["skipped"] = out["skipped"].map({True: "true", False: "false"})
    moments = pd.to_datetime(out["judged_at"]).to_numpy(dtype="datetime64[us]")
    out["judged_at"] = np.char.add(np.datetime_as_string(moments, unit="us"), "Z")
    # \r\n line ends (RFC 4180): the csv module quotes a cell holding any character of the
    # line end, and a cell holding a bare \r must be quoted or every reader splits the row there
    with output_file(path, newline="") as handle:
        out.to_csv(handle, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    return len(out)


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
