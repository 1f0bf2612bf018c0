"""A BEIR data set's folder (beir-cellar/beir: GenericDataLoader): ``corpus.jsonl``
(``_id, title, text, metadata``), ``queries.jsonl`` (``_id, text, metadata``) and
``qrels/SPLIT.tsv`` (``query-id, corpus-id, score`` with that header), read as documents,
queries and the judgments of the rater given. A document's URL and a query's description
travel in their ``metadata``; other metadata is counted and left out."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

from judge_app.errors import quoted
from judge_app.io.errors import ExportError, ImportFileError, Problem
from judge_app.io.exchange.campaign import Campaign, Written, combined_not_written
from judge_app.io.exchange.items import ItemFile, Where, cell
from judge_app.io.outputs import output_file

CORPUS, QUERIES, QRELS = "corpus.jsonl", "queries.jsonl", "qrels"
QRELS_HEADER = ["query-id", "corpus-id", "score"]
SPLIT = "test"  # the split an export writes
KEPT_METADATA = {"documents": {"url": "url"}, "queries": {"description": "description"}}


def folder_files(folder: Path) -> list[tuple[str, Path]]:
    """``(kind, file)`` of what a BEIR folder holds: documents, queries, then each split's
    qrels; ImportFileError for a folder that holds none of them."""
    found = [(kind, folder / name) for kind, name in (("documents", CORPUS), ("queries", QUERIES))]
    found = [(kind, path) for kind, path in found if path.is_file()]
    qrels = folder / QRELS
    if qrels.is_dir():
        found += [("judgments", path) for path in sorted(qrels.glob("*.tsv"))]
    if not folder.is_dir():
        raise ImportFileError([Problem(str(folder), None, None, "is not a folder")])
    if not found:
        reason = f"a BEIR folder holds {CORPUS}, {QUERIES} or {QRELS}/*.tsv: found none"
        raise ImportFileError([Problem(str(folder), None, None, reason)])
    return found


class JsonLinesFile(ItemFile):
    """``corpus.jsonl`` (documents) or ``queries.jsonl`` (queries)."""

    labels = {"doc_id": "_id", "query_id": "_id", "body": "text"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        kept = KEPT_METADATA[self.kind]
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as error:
                    self.refuse(number, None, f"not JSON: {getattr(error, 'msg', error)}")
                    continue
                if not isinstance(item, dict):
                    self.refuse(number, None, "not a JSON object")
                    continue
                row = {self.columns[0]: cell(self, item.get("_id"), number, "_id")}
                row["text" if self.kind == "queries" else "body"] = cell(
                    self, item.get("text"), number, "text"
                )
                if self.kind == "documents":
                    row["title"] = cell(self, item.get("title"), number, "title")
                metadata = item.get("metadata") or {}
                for key, value in metadata.items() if isinstance(metadata, dict) else ():
                    if key in kept and isinstance(value, str):
                        row[kept[key]] = value
                    elif value not in (None, "", [], {}):
                        self.not_kept[f"metadata {key}"] += 1
                for key in item.keys() - {"_id", "text", "title", "metadata"}:
                    self.not_kept[f"field {key}"] += 1
                yield number, row


class QrelsFile(ItemFile):
    """``qrels/SPLIT.tsv``: the judgments of the rater given."""

    names_no_rater = True
    labels = {"query_id": "query-id", "doc_id": "corpus-id", "grade": "score"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                fields = line.rstrip("\r\n").split("\t")
                if number == 1:
                    if [field.strip() for field in fields] != QRELS_HEADER:
                        self.refuse(1, None, "expected the header query-id, corpus-id, score")
                        return
                    continue
                if not line.strip():
                    continue
                if len(fields) != 3:
                    self.refuse(
                        number, None, f"expected 3 tab-separated fields, found {len(fields)}"
                    )
                    continue
                yield number, {"query_id": fields[0], "doc_id": fields[1], "grade": fields[2],
                               "skipped": "false"}  # fmt: skip


def write_folder(campaign: Campaign, path: Path) -> Written:
    """A BEIR folder at ``path`` (new, or empty): every document and query, and the graded
    pairs (the raters' grades combined, whole) as ``qrels/test.tsv``. Written in a hidden
    folder beside it and renamed into place once whole."""
    grades = campaign.whole_grades("BEIR's qrels")
    for query_id, doc_id, _ in grades:
        for name, value in (("query", query_id), ("document", doc_id)):
            if "\t" in value or "\n" in value:
                raise ExportError(f"{name} id {quoted(value)} holds a tab or a line break")
    path = Path(path)
    if path.exists() and not (path.is_dir() and not any(path.iterdir())):
        raise ExportError(f"cannot write {path}: a BEIR export needs a new or empty folder")
    if not path.parent.is_dir():
        raise ExportError(f"cannot write {path}: folder {path.parent} does not exist")
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        (partial / QRELS).mkdir(parents=True)
        _write_lines(partial / CORPUS, (_document(campaign, i) for i in campaign.documents))
        texts = [i for i, (text, _) in campaign.queries.items() if text is not None]
        _write_lines(partial / QUERIES, (_query(campaign, i) for i in texts))
        with output_file(partial / QRELS / f"{SPLIT}.tsv", newline="\n") as handle:
            handle.write("\t".join(QRELS_HEADER) + "\n")
            handle.writelines(f"{q}\t{d}\t{grade}\n" for q, d, grade in grades)
        if path.is_dir():
            path.rmdir()
        os.replace(partial, path)
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    lost = combined_not_written(campaign)
    lost["queries without text (BEIR's need one)"] = len(campaign.queries) - len(texts)
    rows = f"graded pairs, {len(campaign.documents)} documents, {len(texts)} queries"
    return Written(len(grades), rows, +lost)


def _write_lines(path: Path, items: Iterator[dict]) -> None:
    with output_file(path, newline="\n") as handle:
        handle.writelines(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def _document(campaign: Campaign, doc_id: str) -> dict:
    title, url, body = campaign.documents[doc_id]
    return {"_id": doc_id, "title": title or "", "text": body or "",
            "metadata": {"url": url} if url else {}}  # fmt: skip


def _query(campaign: Campaign, query_id: str) -> dict:
    text, description = campaign.queries[query_id]
    return {"_id": query_id, "text": text,
            "metadata": {"description": description} if description else {}}  # fmt: skip
