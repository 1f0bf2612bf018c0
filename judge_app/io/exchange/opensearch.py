"""OpenSearch's Search Relevance Workbench judgments (opensearch-project/search-relevance:
ImportJudgmentsProcessor.java, src/test/resources/judgment/ImportJudgments.json): a list
``judgmentRatings`` of queries (by text), each with ``ratings`` of ``docId`` and
``rating`` (a number written as a string). No rater."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from judge_app.io.exchange.campaign import Campaign, Written, combined_not_written
from judge_app.io.exchange.items import JsonDocumentFile, Where, cell, count_fields
from judge_app.io.exports import format_grade
from judge_app.io.outputs import output_file


class JudgmentsFile(JsonDocumentFile):
    """A judgment list's ratings, as judgments of the rater given."""

    queries_by_text = True
    names_no_rater = True
    labels = {"query_id": "query", "doc_id": "docId", "grade": "rating"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        if not self.expect(self.data, dict, (), "a judgment list"):
            return
        lists = self.data.get("judgmentRatings")
        if not self.expect(lists, list, (), "judgmentRatings"):
            return
        count_fields(self, self.data, ("judgmentRatings",), "judgment list")
        for index, item in enumerate(lists):
            where = ("judgmentRatings", index)
            if not self.expect(item, dict, where, "an item of judgmentRatings"):
                continue
            query = cell(self, item.get("query"), where, "query").strip()
            ratings = item.get("ratings") or []
            if not self.expect(ratings, list, (*where, "ratings"), "ratings"):
                continue
            for number, rating in enumerate(ratings):
                at = (*where, "ratings", number)
                if self.expect(rating, dict, at, "a rating"):
                    yield (
                        at,
                        {
                            "query_id": query,
                            "doc_id": cell(self, rating.get("docId"), at, "docId"),
                            "grade": cell(self, rating.get("rating"), at, "rating"),
                            "skipped": "false",
                            "query_text": query,
                        },
                    )


def write_judgments(campaign: Campaign, path: Path) -> Written:
    """A judgment list to import (type IMPORT_JUDGMENT), the raters' grades combined."""
    ratings: dict[str, list[dict[str, str]]] = defaultdict(list)
    for query_id, doc_id, grade in campaign.grades:
        ratings[query_id].append({"docId": doc_id, "rating": format_grade(grade)})
    judgments = {
        "name": campaign.name,
        "description": f"judge_app: the raters' grades combined by {campaign.aggregate}",
        "type": "IMPORT_JUDGMENT",
        "judgmentRatings": [
            {"query": campaign.query_text(query_id), "ratings": rated}
            for query_id, rated in ratings.items()
        ],
    }
    with output_file(path, newline="\n") as handle:
        json.dump(judgments, handle, ensure_ascii=False, indent=2)
        handle.write("\n")
    return Written(len(campaign.grades), "ratings", combined_not_written(campaign))
