"""The names (``--format``) and titles of other tools' formats, without what reads them: the
command line lists them without importing pandas."""

from __future__ import annotations

TITLES = {
    "quepid-csv": "Quepid ratings CSV",
    "quepid-book": "Quepid book JSON",
    "rre": "RRE ratings JSON",
    "ranklib": "RankLib/LETOR",
    "beir": "BEIR folder",
    "label-studio": "Label Studio tasks JSON",
    "opensearch": "OpenSearch Search Relevance Workbench judgments",
}
FORMAT_NAMES = tuple(TITLES)
SUFFIXES = {"quepid-csv": "csv", "ranklib": "txt", "beir": ""}  # a file's, "json" if not named
