"""Automatic judges: an LLM over chat completions, a model learned from the campaign."""
