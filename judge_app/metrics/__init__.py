"""Ranking metrics and rater aggregation on pandas frames; no Qt, no SQLAlchemy."""
