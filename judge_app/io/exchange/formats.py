"""The formats of other tools judge_app reads and writes: their names (``--format``), how a
file or folder of each is recognised by its shape, the records it gives of each kind, and
its writer."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judge_app.errors import UsageError
from judge_app.io.errors import ImportFileError, Problem
from judge_app.io.exchange import beir, label_studio, opensearch, quepid, ranklib, rre
from judge_app.io.exchange.campaign import Campaign, Written
from judge_app.io.exchange.format_names import TITLES
from judge_app.io.exchange.items import ItemFile

HEAD_CHARACTERS = 65536  # what recognising a file reads of it
LETOR_LINE = re.compile(r"^\s*\S+\s+qid:\S+")


@dataclass(frozen=True)
class Format:
    """One tool's format: ``readers`` give each kind of record it holds (in the order they
    are imported), ``write`` writes a campaign, ``looks_like`` recognises the head of a
    file; ``shape`` says what that is, to someone whose file was not recognised."""

    name: str
    title: str
    shape: str
    readers: dict[str, type[ItemFile]]
    write: Callable[[Campaign, Path], Written]
    looks_like: Callable[[str], bool]
    folder: bool = False

    def sources(self, path: Path) -> list[tuple[str, ItemFile]]:
        """``(kind, records)`` of what the file (or BEIR folder) at ``path`` holds."""
        if self.folder:
            kinds = {"documents": beir.JsonLinesFile, "queries": beir.JsonLinesFile,
                     "judgments": beir.QrelsFile}  # fmt: skip
            found = sorted(beir.folder_files(path), key=lambda pair: _ORDER.index(pair[0]))
            return [(kind, kinds[kind](file, kind)) for kind, file in found]
        return [(kind, reader(path, kind)) for kind, reader in self.readers.items()]


def _json_with(*keys: str) -> Callable[[str], bool]:
    return lambda head: head[:1] in "{[" and any(f'"{key}"' in head for key in keys)


FORMATS = {
    f.name: f
    for f in (
        Format(
            "quepid-csv", TITLES["quepid-csv"], "CSV with the header query,docid,rating",
            {"queries": quepid.RatingsCsvFile, "judgments": quepid.RatingsCsvFile},
            quepid.write_ratings_csv,
            lambda head: head.splitlines()[0].replace(" ", "").lower() == "query,docid,rating",
        ),
        Format(
            "quepid-book", TITLES["quepid-book"], "JSON with query_doc_pairs",
            {"queries": quepid.BookFile, "documents": quepid.BookFile,
             "judgments": quepid.BookFile},
            quepid.write_book, _json_with("query_doc_pairs"),
        ),
        Format(
            "opensearch", TITLES["opensearch"],
            "JSON with judgmentRatings", {"judgments": opensearch.JudgmentsFile},
            opensearch.write_judgments, _json_with("judgmentRatings"),
        ),
        Format(
            "label-studio", TITLES["label-studio"],
            "a JSON list of tasks",
            {"queries": label_studio.TasksFile, "documents": label_studio.TasksFile,
             "judgments": label_studio.TasksFile},
            label_studio.write_tasks,
            lambda head: head[:1] == "[" and _json_with("data")(head),
        ),
        Format(
            "rre", TITLES["rre"], "JSON with relevant_documents",
            {"judgments": rre.RatingsFile}, rre.write_ratings,
            _json_with("relevant_documents", "placeholders", "query_groups"),
        ),
        Format(
            "ranklib", TITLES["ranklib"], "lines 'label qid:ID … # docid'",
            {"judgments": ranklib.LetorFile}, ranklib.write_letor,
            lambda head: bool(LETOR_LINE.match(_first_line(head))),
        ),
        Format(
            "beir", TITLES["beir"], f"a folder of {beir.CORPUS}, {beir.QUERIES}, qrels/",
            {}, beir.write_folder, lambda head: False, folder=True,
        ),
    )
}  # fmt: skip
_ORDER = ("queries", "documents", "judgments")


def named(name: str) -> Format:
    """The format called ``name``, or a usage error listing them."""
    if name not in FORMATS:
        raise UsageError(f"no format {name!r}: choose one of {', '.join(FORMATS)}")
    return FORMATS[name]


def recognised(path: Path) -> Format:
    """The format of the file or folder at ``path``, told by its shape; ImportFileError
    naming what was expected where none fits."""
    path = Path(path)
    if path.is_dir():
        beir.folder_files(path)  # refuses a folder without BEIR's files
        return FORMATS["beir"]
    try:
        with path.open("rb") as handle:
            data = handle.read(HEAD_CHARACTERS)
    except OSError as error:
        reason = "file not found" if isinstance(error, FileNotFoundError) else error.strerror
        raise ImportFileError([Problem(str(path), None, None, str(reason))]) from None
    head = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace").lstrip()
    for fmt in FORMATS.values():
        if head and fmt.looks_like(head):
            return fmt
    expected = "; ".join(f"{fmt.name}: {fmt.shape}" for fmt in FORMATS.values())
    reason = f"of no format judge_app recognises: name it with --format ({expected})"
    raise ImportFileError([Problem(str(path), None, None, reason)])


def _first_line(head: str) -> str:
    return next(
        (line for line in head.splitlines() if line.strip() and not line.startswith("#")), ""
    )
