"""judge_app: relevance judging and ranking evaluation (NDCG, inter-annotator agreement)."""
