"""Rated Ranking Evaluator's ratings JSON (SeaseLtd/rated-ranking-evaluator: Engine.java,
ratings_example.json): topics of query groups of queries, each query's text in a placeholder
(``$query`` unless ``query_placeholder`` names another), relevant documents on a query or on
its group, as ``{"doc": {"gain": 3}}`` or ``{"3": ["doc", …]}``. Any of the levels may be left
out. RRE names a query by its text and has no rater."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from judge_app.io.exchange.campaign import Campaign, Written, combined_not_written
from judge_app.io.exchange.items import JsonDocumentFile, Where, cell, count_fields
from judge_app.io.outputs import output_file

LEVELS = ("topics", "query_groups", "queries")
ROOT_FIELDS = (*LEVELS, "relevant_documents", "query_placeholder")


class RatingsFile(JsonDocumentFile):
    """An RRE ratings file's judgments."""

    queries_by_text = True
    names_no_rater = True
    labels = {"grade": "gain", "query_id": "$query"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        if not self.expect(self.data, dict, (), "the ratings"):
            return
        placeholder = str(self.data.get("query_placeholder", "$query"))
        count_fields(self, self.data, ROOT_FIELDS, "ratings")
        for topic, at_topic in self._level(self.data, (), "topics"):
            count_fields(self, topic, LEVELS[1:] + ("relevant_documents",), "topic")
            for group, at_group in self._level(topic, at_topic, "query_groups"):
                count_fields(self, group, ("queries", "relevant_documents"), "query group")
                for query, at_query in self._level(group, at_group, "queries"):
                    yield from self._query(query, at_query, group, at_group, placeholder)

    def _level(self, node: dict, where: tuple, name: str) -> Iterator[tuple[dict, tuple]]:
        """The nodes of the level ``name`` under ``node`` (the node itself if it has none)."""
        if name not in node:
            yield node, where
            return
        children = node[name]
        if not self.expect(children, list, (*where, name), name):
            return
        for index, child in enumerate(children):
            if self.expect(child, dict, (*where, name, index), f"an item of {name}"):
                yield child, (*where, name, index)

    def _query(
        self, query: dict, where: tuple, group: dict, at_group: tuple, placeholder: str
    ) -> Iterator[tuple[Where, dict[str, str]]]:
        placeholders = query.get("placeholders")
        text = placeholders.get(placeholder) if isinstance(placeholders, dict) else None
        if text is None:
            self.refuse(where, placeholder, f"a query without the placeholder {placeholder}")
            return
        query_text = cell(self, text, where, placeholder).strip()
        if "template" in query:
            self.not_kept["query templates"] += 1
        if isinstance(placeholders, dict) and len(placeholders) > 1:
            self.not_kept["other placeholders"] += len(placeholders) - 1
        own = "relevant_documents" in query
        documents = query["relevant_documents"] if own else group.get("relevant_documents")
        at = (*(where if own else at_group), "relevant_documents")
        if documents is None:
            return
        if not self.expect(documents, dict, at, "relevant_documents"):
            return
        for doc_id, gain, at_doc in self._documents(documents, at):
            yield at_doc, {"query_id": query_text, "doc_id": doc_id, "grade": gain,
                           "skipped": "false", "query_text": query_text}  # fmt: skip

    def _documents(self, documents: dict, at: tuple) -> Iterator[tuple[str, str, Where]]:
        """``(document, gain, where)`` of either of RRE's two ways of writing them."""
        for key, value in documents.items():
            if isinstance(value, list):  # "3": ["doc1", "doc2"]
                for index, doc_id in enumerate(value):
                    where = (*at, key, index)
                    yield cell(self, doc_id, where, "document"), key, where
            elif self.expect(value, dict, (*at, key), f"document {key}"):
                gain = value.get("gain", value.get("rating"))
                yield key, cell(self, gain, (*at, key), "gain"), (*at, key)


def write_ratings(campaign: Campaign, path: Path) -> Written:
    """RRE ratings as Quepid writes them: a query per graded query, its documents' gains
    (the raters' grades combined, whole), one template for all to be supplied."""
    documents: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for query_id, doc_id, gain in campaign.whole_grades("RRE's ratings"):
        documents[query_id][doc_id] = {"gain": gain}
    ratings = {
        "index": campaign.name,
        "id_field": "id",
        "template": "template.json",
        "queries": [
            {
                "placeholders": {"$query": campaign.query_text(query_id)},
                "relevant_documents": relevant,
            }  # fmt: skip
            for query_id, relevant in documents.items()
        ],
    }
    with output_file(path, newline="\n") as handle:
        json.dump(ratings, handle, ensure_ascii=False, indent=2)
        handle.write("\n")
    return Written(len(campaign.grades), "gains", combined_not_written(campaign))
