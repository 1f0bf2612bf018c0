"""Every CSV file and text judge_app writes, and TREC qrels (DESIGN section 7).

Every text cell of a CSV file is made inert in a spreadsheet (``inert``, ``make_inert``). The
judgments export streams its rows to the csv module a chunk at a time (``write_judgments_csv``);
``csv_text`` and ``write_csv`` write the tables of ``eval --format csv``, ``agreement --format
csv`` and the window's "Export CSV…" through pandas, which leaves numbers as numbers (-0.25
stays -0.25). The exports' writers need no pandas, so an export does not pay for importing it.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from judge_app.errors import quoted
from judge_app.io.errors import ExportError
from judge_app.io.outputs import output_file

if TYPE_CHECKING:
    import pandas as pd

ById = list[str | None] | dict[int, str | None]
"""Names indexed by id: a list where the ids are dense, a dict where they are sparse."""
RISKY_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_KINDS = ("string", "mixed", "mixed-integer")  # what pandas infers of a column with text
JUDGMENT_COLUMNS = [
    "query_id", "query_text", "doc_id", "doc_title", "rater", "grade", "skipped", "note",
    "judged_at", "duration_ms",
]  # fmt: skip
HISTORY_COLUMNS = [
    "event", "rater", "query_id", "doc_id", "action", "old_grade", "old_skipped", "old_note",
    "new_grade", "new_skipped", "new_note", "at", "reverts", "login",
]  # fmt: skip
SPACE = re.compile(r"\s")


def inert(cell: str | None) -> str | None:
    """A text a spreadsheet would run as a formula with a leading ``'`` (``make_inert``)."""
    return "'" + cell if cell is not None and cell.startswith(RISKY_STARTS + ("'",)) else cell


def make_inert(cells: pd.Series) -> pd.Series:
    """Text cells a spreadsheet would run as a formula get a leading ``'``; other cells (numbers,
    true and false, missing values) are left as they are.

    A cell that already begins with ``'`` gets one more, so the import can tell them apart
    and the round trip is lossless (``readers._restore_inert`` undoes this).
    """
    import pandas as pd

    if isinstance(cells.dtype, pd.CategoricalDtype):  # names (of raters, say) as categories
        cells = cells.astype(object)
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
    """``frame`` with every column and every column's name made inert (a table's columns may
    be named after runs or raters), and real numbers among text formatted."""
    out = frame.copy(deep=False)
    for position in range(frame.shape[1]):
        column = make_inert(frame.iloc[:, position])
        if float_format and column.dtype == object:
            column = column.map(lambda cell: _formatted(cell, float_format))
        out.isetitem(position, column)
    out.columns = [inert(name) if isinstance(name, str) else name for name in frame.columns]
    return out


def write_flagged_csv(flagged: pd.DataFrame, path: Path | str) -> int:
    """Write judgments (``raters --too-fast``) as the judgments export writes their fields:
    ``skipped`` as false or true, ``judged_at`` in UTC as ``2024-03-09T23:59:58.000001Z``."""
    out = flagged.copy(deep=False)
    if "skipped" in out:
        out["skipped"] = out["skipped"].map({False: "false", True: "true"})
    if "judged_at" in out:
        out["judged_at"] = [utc_text(moment) for moment in out["judged_at"]]
    return write_csv(out, path)


def _formatted(cell: object, float_format: str) -> object:
    """A real number of a column of mixed cells in ``float_format`` (pandas formats only
    columns of real numbers); any other cell as it is."""
    return float_format % cell if isinstance(cell, float) and cell == cell else cell


@dataclass(frozen=True)
class Judgments:
    """Every rater judgment, as the export writes it: rows ``(query, document, rater, grade,
    skipped, note, judged_at, duration_ms)`` of integer keys in the order of the file, a chunk
    at a time, and the keys' names indexed by key."""

    query_ids: ById
    query_texts: ById
    doc_ids: ById
    doc_titles: ById
    raters: ById
    chunks: Iterable[Sequence[tuple]]


def write_judgments_csv(judgments: Judgments, path: Path) -> int:
    """Write one row per rater judgment, a chunk at a time; returns the rows written."""
    names = judgments.query_ids, judgments.query_texts, judgments.doc_ids, judgments.doc_titles
    query_ids, query_texts, doc_ids, doc_titles = (_inert_names(of) for of in names)
    raters = _inert_names(judgments.raters)
    flags = ("false", "true")
    count = 0
    with output_file(Path(path), newline="") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(JUDGMENT_COLUMNS)
        for chunk in judgments.chunks:
            writer.writerows(
                (query_ids[query], query_texts[query], doc_ids[document], doc_titles[document],
                 raters[rater], grade, flags[skipped], inert(note), utc_text(at), duration)
                for query, document, rater, grade, skipped, note, at, duration in chunk
            )  # fmt: skip
            count += len(chunk)
    return count


def write_history_csv(chunks: Iterable[Sequence[tuple]], path: Path) -> int:
    """Write one row per change of a judgment (``HISTORY_COLUMNS``), oldest first: a state's
    skipped flag is empty where the judgment did not exist, and the login empty where none was
    recorded (SQLite, or before judge_app recorded it); returns the rows written."""
    flags = {None: "", False: "false", True: "true"}
    count = 0
    with output_file(Path(path), newline="") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(HISTORY_COLUMNS)
        for chunk in chunks:
            writer.writerows(
                (event, inert(rater), inert(query), inert(document), action,
                 old_grade, flags[old_skipped], inert(old_note),
                 new_grade, flags[new_skipped], inert(new_note),
                 utc_text(at), reverts, inert(login))
                for (event, rater, query, document, action, old_grade, old_skipped, old_note,
                     new_grade, new_skipped, new_note, at, reverts, login) in chunk
            )  # fmt: skip
            count += len(chunk)
    return count


def _inert_names(names: ById) -> ById:
    """``names`` made inert, indexed as they were."""
    if isinstance(names, dict):
        return {key: inert(name) for key, name in names.items()}
    return [inert(name) for name in names]


def utc_text(moment: str | datetime) -> str:
    """A stored time (UTC; text on SQLite) as ``2024-03-09T23:59:58.000001Z``."""
    if isinstance(moment, str):
        if len(moment) == 26 and moment[10] == " ":  # as SQLAlchemy stores it in SQLite
            return f"{moment[:10]}T{moment[11:]}Z"
        moment = datetime.fromisoformat(moment)
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds") + "Z"


def format_grade(grade: float) -> str:
    """A grade as qrels text: ``3`` for whole grades, up to six decimals otherwise."""
    if float(grade).is_integer():
        return str(int(grade))
    return f"{grade:.6f}".rstrip("0").rstrip(".")  # 2.0000001 is "2", not "2."


def write_qrels(
    query_ids: Sequence[str], doc_ids: Sequence[str], grades: Sequence[str], path: Path
) -> int:
    """Write TREC qrels ``qid 0 docid grade`` of ids and grades (``format_grade``) in order;
    an ExportError if an id holds a space, which the format cannot hold."""
    for name, ids in (("query_id", query_ids), ("doc_id", doc_ids)):
        if SPACE.search("".join(ids)):
            spaced = [text for text in ids if SPACE.search(text)]
            raise ExportError(
                f"{len(spaced)} ids in {name} contain spaces (e.g. {quoted(spaced[0])}), which "
                "TREC qrels cannot hold: export judgments as CSV instead"
            )
    with output_file(path, newline="\n") as handle:
        handle.writelines(
            f"{query_id} 0 {doc_id} {grade}\n"
            for query_id, doc_id, grade in zip(query_ids, doc_ids, grades)
        )
    return len(grades)
