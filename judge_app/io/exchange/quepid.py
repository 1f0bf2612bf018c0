"""Quepid's ratings CSV (``query,docid,rating``) and its book JSON (query_doc_pairs with
judgements), read and written as Quepid's exporters and importers do (o19s/quepid:
app/views/api/v1/export/books, app/services/book_importer.rb, ratings_importer.rb).

Quepid names a query by its text. A ratings CSV has no rater (one rating per pair); a book
has each judgement's rater (``user_email``), its rating or ``unrateable`` (our skip), its
``explanation`` (our note) and ``judge_later`` (a placeholder our model has no place for).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from judge_app.io.exchange.campaign import Campaign, Written, combined_not_written
from judge_app.io.exchange.items import ItemFile, JsonDocumentFile, Where, cell, count_fields
from judge_app.io.exports import RISKY_STARTS, format_grade, inert
from judge_app.io.outputs import output_file

CSV_HEADER = ["query", "docid", "rating"]
BOOK_SCALE = [0, 1, 2, 3, 4, 5]
JUDGEMENT_FIELDS = ("rating", "unrateable", "judge_later", "user_email", "explanation")
PAIR_FIELDS = ("query_text", "doc_id", "document_fields", "information_need", "judgements")
BOOK_FIELDS = ("query_doc_pairs",)
DOCUMENT_FIELDS = {"title": ("title", "name"), "url": ("url",)}  # ours ← the first found


class RatingsCsvFile(ItemFile):
    """A ratings CSV: its queries (a row may name a query alone) or its ratings."""

    queries_by_text = True
    names_no_rater = True
    labels = {"query_id": "query", "doc_id": "docid", "grade": "rating"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        seen: set[str] = set()
        for line, cells in self._csv_rows():
            query = _restored(cells[0].strip()) if cells else ""
            doc_id, rating = (cells + ["", ""])[1:3]
            if len(cells) > 3 and any(cells[3:]) and self.kind == "judgments":
                self.not_kept["cells after the third"] += 1
            if self.kind == "queries":
                if query and query not in seen:
                    seen.add(query)
                    yield line, {"query_id": query, "text": query}
            elif doc_id.strip() and rating.strip():
                yield line, {"query_id": query, "doc_id": doc_id, "grade": rating,
                             "skipped": "false", "query_text": query}  # fmt: skip
            elif doc_id.strip():
                self.not_kept["rows with a document but no rating"] += 1

    def _csv_rows(self) -> Iterator[tuple[int, list[str]]]:
        """``(first line, cells)`` of each row after the header, blank lines left out."""
        with self.path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            end = 0
            try:
                header = next(reader, [])
                end = reader.line_num
                if [name.strip().lower() for name in header] != CSV_HEADER:
                    self.refuse(1, None, "expected the header query,docid,rating")
                    return
                for cells in reader:
                    start, end = end + 1, reader.line_num
                    if any(part.strip() for part in cells):
                        yield start, cells
            except csv.Error as error:
                self.refuse(end + 1, None, f"not CSV: {error}")


def _restored(text: str) -> str:
    """A query text our writer made inert (``inert``), as it was."""
    if text.startswith("'") and text[1:2] and text[1:2] in RISKY_STARTS + ("'",):
        return text[1:]
    return text


class BookFile(JsonDocumentFile):
    """A book: its queries (with their information need), documents (title and URL from
    the document fields) or judgements."""

    queries_by_text = True
    labels = {"grade": "rating", "rater": "user_email", "note": "explanation",
              "skipped": "unrateable", "query_id": "query_text"}  # fmt: skip

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        if not self.expect(self.data, dict, (), "the book"):
            return
        pairs = self.data.get("query_doc_pairs")
        if not isinstance(pairs, list):
            self.refuse((), None, "a Quepid book has a list query_doc_pairs")
            return
        if self.kind == "judgments":
            count_fields(self, self.data, BOOK_FIELDS + ("name",), "book")
            self.not_kept.pop("book scale", None)  # ours is 0–5 whatever the book's was
            self.not_kept.pop("book scale_with_labels", None)
        seen: set[str] = set()
        for index, pair in enumerate(pairs):
            where = ("query_doc_pairs", index)
            if not self.expect(pair, dict, where, "a query_doc_pair"):
                continue
            query = cell(self, pair.get("query_text"), where, "query_text").strip()
            doc_id = cell(self, pair.get("doc_id"), where, "doc_id")
            if self.kind == "queries" and query not in seen:
                seen.add(query)
                need = cell(self, pair.get("information_need"), where, "information_need")
                yield where, {"query_id": query, "text": query, "description": need}
            elif self.kind == "documents" and doc_id not in seen:
                seen.add(doc_id)
                yield where, self._document(pair, where, doc_id)
            elif self.kind == "judgments":
                count_fields(self, pair, PAIR_FIELDS, "query_doc_pair")
                yield from self._judgements(pair, where, query, doc_id)

    def _document(self, pair: dict, where: tuple, doc_id: str) -> dict[str, str]:
        fields = pair.get("document_fields")
        if isinstance(fields, str):
            try:
                fields = json.loads(fields)
            except ValueError:
                self.not_kept["document_fields that are not JSON"] += 1
                fields = None
        row = {"doc_id": doc_id}
        if isinstance(fields, dict):
            for ours, keys in DOCUMENT_FIELDS.items():
                key = next((key for key in keys if isinstance(fields.get(key), str)), None)
                if key:
                    row[ours] = fields[key]
            kept = {row.get(ours) for ours in DOCUMENT_FIELDS}
            for key, value in fields.items():
                if value not in (None, "") and not (isinstance(value, str) and value in kept):
                    self.not_kept[f"document field {key}"] += 1
        return row

    def _judgements(
        self, pair: dict, where: tuple, query: str, doc_id: str
    ) -> Iterator[tuple[Where, dict[str, str]]]:
        judgements = pair.get("judgements") or []
        if not self.expect(judgements, list, where, "judgements"):
            return
        for index, judgement in enumerate(judgements):
            at = (*where, "judgements", index)
            if not self.expect(judgement, dict, at, "a judgement"):
                continue
            count_fields(self, judgement, JUDGEMENT_FIELDS + ("user_id",), "judgement")
            skipped = judgement.get("unrateable") is True
            rating = cell(self, judgement.get("rating"), at, "rating")
            if judgement.get("judge_later") is True and not skipped:
                if not rating:
                    self.not_kept["judge_later placeholders (no rating yet)"] += 1
                    continue
                self.not_kept["judge_later flags"] += 1
            if skipped and rating:
                self.not_kept["ratings of unrateable judgements"] += 1
                rating = ""
            rater = judgement.get("user_email", judgement.get("user_id"))
            yield (
                at,
                {
                    "query_id": query,
                    "doc_id": doc_id,
                    "rater": cell(self, rater, at, "user_email"),
                    "grade": rating,
                    "skipped": "true" if skipped else "false",
                    "note": cell(self, judgement.get("explanation"), at, "explanation"),
                    "query_text": query,
                },
            )


def write_ratings_csv(campaign: Campaign, path: Path) -> Written:
    """Quepid's ratings CSV: a row per graded pair (the raters' grades combined), a row of
    its text alone for a query without one, as Quepid exports a case."""
    graded = {query_id for query_id, _, _ in campaign.grades}
    with output_file(path, newline="") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(CSV_HEADER)
        writer.writerows(
            (inert(campaign.query_text(query_id)), inert(doc_id), format_grade(grade))
            for query_id, doc_id, grade in campaign.grades
        )
        writer.writerows(
            (inert(campaign.query_text(query_id)), "", "")
            for query_id in campaign.queries
            if query_id not in graded
        )
    return Written(len(campaign.grades), "ratings", combined_not_written(campaign))


def write_book(campaign: Campaign, path: Path) -> Written:
    """A Quepid book: a query_doc_pair per judged pair, a judgement per rater."""
    pairs: dict[tuple[str, str], list[dict]] = {}
    for judgment in campaign.judgments:
        pairs.setdefault((judgment.query_id, judgment.doc_id), []).append(
            {
                "rating": None if judgment.skipped else judgment.grade,
                "unrateable": judgment.skipped,
                "judge_later": False,
                "user_email": judgment.rater,
                "explanation": judgment.note,
            }
        )
    book = {
        "name": campaign.name,
        "show_rank": False,
        "support_implicit_judgements": False,
        "scale": BOOK_SCALE,
        "query_doc_pairs": [
            {
                "query_text": campaign.query_text(query_id),
                "doc_id": doc_id,
                "position": None,
                "document_fields": _document_fields(campaign, doc_id),
                "information_need": campaign.queries.get(query_id, (None, None))[1],
                "notes": None,
                "options": None,
                "judgements": judgements,
            }
            for (query_id, doc_id), judgements in pairs.items()
        ],
    }
    with output_file(path, newline="\n") as handle:
        json.dump(book, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    lost = Counter(
        {
            "judgment times": sum(j.judged_at is not None for j in campaign.judgments),
            "judgment durations": sum(j.duration_ms is not None for j in campaign.judgments),
        }
    )
    return Written(len(campaign.judgments), "judgements", +lost)


def _document_fields(campaign: Campaign, doc_id: str) -> str | None:
    title, url, _ = campaign.documents.get(doc_id, (None, None, None))
    fields = {key: value for key, value in (("title", title), ("url", url)) if value}
    return json.dumps(fields, ensure_ascii=False) if fields else None
