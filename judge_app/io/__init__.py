"""File formats: checked readers of queries, documents, runs and judgments; writers."""
