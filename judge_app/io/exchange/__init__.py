"""Other tools' files of judgments, both ways: Quepid, RRE, RankLib/LETOR, BEIR, Label
Studio and OpenSearch's Search Relevance Workbench (``formats`` lists them).

Each format is read as a source of records of our own kinds (queries, documents,
judgments: ``items.ItemFile``), so that the readers check every cell and the import writes
them in its one transaction; and written from a ``campaign.Campaign``, whole or not at all.
"""
