"""RankLib's and LETOR's ranking files: ``label qid:Q feature:value … # docid [text]``, a
line a document (as Quepid writes them: the query's text after the document id). The
features are not judgments: they are counted and left out. No rater."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from judge_app.errors import quoted
from judge_app.io.errors import ExportError
from judge_app.io.exchange.campaign import Campaign, Written, combined_not_written
from judge_app.io.exchange.items import ItemFile, Where
from judge_app.io.outputs import output_file

SPACE = re.compile(r"\s")
LETOR_COMMENT = re.compile(r"\s*docid\s*=\s*(\S+)(.*)", re.DOTALL)


class LetorFile(ItemFile):
    """A RankLib/LETOR file's labels, as judgments of the rater given."""

    names_no_rater = True
    labels = {"grade": "label", "query_id": "qid", "doc_id": "docid"}

    def rows(self) -> Iterator[tuple[Where, dict[str, str]]]:
        with self.path.open(encoding="utf-8-sig", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                head, hash_, comment = line.partition("#")
                parts, words = head.split(), comment.split(maxsplit=1)
                letor = LETOR_COMMENT.match(comment)
                if letor:  # LETOR 4.0: "#docid = GX029-35-5894638 inc = … prob = …"
                    words = [letor.group(1)]
                    if letor.group(2).strip():
                        self.not_kept["LETOR comment fields after the docid"] += 1
                if len(parts) < 2 or not parts[1].startswith("qid:"):
                    self.refuse(number, None, "expected: label qid:ID [features] # docid")
                    continue
                if not hash_ or not words:
                    self.refuse(number, "docid", "no document id after '#'")
                    continue
                if len(parts) > 2:
                    self.not_kept["lines of features"] += 1
                yield (
                    number,
                    {
                        "query_id": parts[1][len("qid:") :],
                        "doc_id": words[0],
                        "grade": parts[0],
                        "skipped": "false",
                        "query_text": words[1].strip() if len(words) > 1 else "",
                    },
                )


def write_letor(campaign: Campaign, path: Path) -> Written:
    """``grade qid:ID # docid text`` per graded pair, the raters' grades combined (whole);
    no features."""
    grades = campaign.whole_grades("A RankLib file")
    for name, ids in (
        ("query", {q for q, _, _ in grades}),
        ("document", {d for _, d, _ in grades}),
    ):
        spaced = sorted(i for i in ids if SPACE.search(i))
        if spaced:
            raise ExportError(
                f"{len(spaced)} {name} ids contain spaces (e.g. {quoted(spaced[0])}), which "
                "a RankLib file cannot hold"
            )
    with output_file(path, newline="\n") as handle:
        for query_id, doc_id, grade in grades:
            text = " ".join(campaign.query_text(query_id).split())
            handle.write(f"{grade} qid:{query_id} # {doc_id} {text}".rstrip() + "\n")
    return Written(len(grades), "labels", combined_not_written(campaign))
