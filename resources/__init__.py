"""Data shipped with judge_app: the demo data set."""
