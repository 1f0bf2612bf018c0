"""A sentence-embedding model for the local judge, when one is already on this computer:
``sentence_transformers`` installed (it is no dependency of judge_app) and one of
``MODELS`` in the local Hugging Face cache. Nothing is ever downloaded
(``local_files_only``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MODELS = (
    "sentence-transformers/all-MiniLM-L6-v2",
    "sentence-transformers/multi-qa-MiniLM-L6-cos-v1",
    "sentence-transformers/all-MiniLM-L12-v2",
    "sentence-transformers/all-mpnet-base-v2",
    "BAAI/bge-small-en-v1.5",
)
"""Small, common models tried in turn; the first one found in the cache is used."""


@dataclass(frozen=True)
class Embedder:
    """A model turning texts into vectors (one row each), and its name for the report."""

    name: str
    encode: Callable[[list[str]], np.ndarray]


def local_embedder(models: Sequence[str] = MODELS) -> tuple[Embedder | None, str]:
    """The first of ``models`` that loads from the local cache, and what the report says of
    it; or None and why there is none."""
    try:
        library = importlib.import_module("sentence_transformers")
    except ImportError:
        return None, "no embedding similarity: sentence_transformers is not installed"
    for name in models:
        try:
            model = library.SentenceTransformer(name, local_files_only=True)
        except (OSError, ValueError):  # not in the cache (and nothing is downloaded)
            continue

        def encode(texts: list[str], model: Any = model) -> np.ndarray:
            return np.asarray(model.encode(texts, batch_size=64), dtype=np.float32)

        return Embedder(name, encode), f"embedding similarity by {name} (from the local cache)"
    return None, (
        "no embedding similarity: none of the models tried is in the local cache "
        f"({', '.join(models)}); nothing is downloaded"
    )
