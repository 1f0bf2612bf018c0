"""A sentence-transformers BERT model (all-MiniLM-L6-v2 and its kin) run with numpy on the CPU,
for the local judge's embedding similarity where PyTorch is not installed: the weights read
from the model folder's ``model.safetensors`` (``safetensors``), its ``tokenizer.json`` read by
Hugging Face's ``tokenizers``, then BERT's encoder (Devlin et al. 2019) as the model's
``config.json`` sizes it, the tokens' mean under the attention mask (``1_Pooling``) and, when
the folder's ``modules.json`` lists it, the vector scaled to length 1.

Only what sentence-transformers does at inference is done: absolute positions, token type 0,
GELU with erf, no dropout. ``tests/automatic_judges/test_embeddings.py`` checks the vectors
against those of sentence-transformers itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import erf

BATCH = 32
"""Texts encoded at once."""


@dataclass(frozen=True)
class _Layer:
    query: tuple[np.ndarray, np.ndarray]
    key: tuple[np.ndarray, np.ndarray]
    value: tuple[np.ndarray, np.ndarray]
    attention_out: tuple[np.ndarray, np.ndarray]
    attention_norm: tuple[np.ndarray, np.ndarray]
    intermediate: tuple[np.ndarray, np.ndarray]
    output: tuple[np.ndarray, np.ndarray]
    output_norm: tuple[np.ndarray, np.ndarray]


class BertEncoder:
    """The sentence-transformers BERT model in ``folder``; ``encode`` turns texts into rows."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{folder}: not a BERT model with GELU")
        settings = folder / "sentence_bert_config.json"
        longest = json.loads(settings.read_text(encoding="utf-8"))["max_seq_length"]
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        kinds = [module["type"].rsplit(".", 1)[-1] for module in modules]
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        if kinds[:2] != ["Transformer", "Pooling"] or not pooling["pooling_mode_mean_tokens"]:
            raise ValueError(f"{folder}: not a mean-pooled sentence-transformers model")
        self.normalized = "Normalize" in kinds
        self.heads = int(config["num_attention_heads"])
        self.epsilon = float(config["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=min(longest, config["max_position_embeddings"]))
        self.pad_id = int(config.get("pad_token_id", 0))
        self.tokenizer.enable_padding(pad_id=self.pad_id)
        weights = {
            name.removeprefix("bert."): array.astype(np.float32)
            for name, array in load_file(folder / "model.safetensors").items()
        }

        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            return weights[f"{name}.weight"].T.copy(), weights[f"{name}.bias"]

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return weights[f"{name}.weight"], weights[f"{name}.bias"]

        self.words = weights["embeddings.word_embeddings.weight"]
        self.positions = weights["embeddings.position_embeddings.weight"]
        self.token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self.embedding_norm = norm("embeddings.LayerNorm")
        self.layers = [
            _Layer(
                query=dense(f"encoder.layer.{i}.attention.self.query"),
                key=dense(f"encoder.layer.{i}.attention.self.key"),
                value=dense(f"encoder.layer.{i}.attention.self.value"),
                attention_out=dense(f"encoder.layer.{i}.attention.output.dense"),
                attention_norm=norm(f"encoder.layer.{i}.attention.output.LayerNorm"),
                intermediate=dense(f"encoder.layer.{i}.intermediate.dense"),
                output=dense(f"encoder.layer.{i}.output.dense"),
                output_norm=norm(f"encoder.layer.{i}.output.LayerNorm"),
            )
            for i in range(int(config["num_hidden_layers"]))
        ]

    def encode(self, texts: list[str]) -> np.ndarray:
        """One row a text: its sentence embedding (float32). Texts of like length are
        encoded together (as sentence-transformers does): a batch is padded to its longest."""
        vectors = np.zeros((len(texts), self.words.shape[1]), dtype=np.float32)
        if not texts:
            return vectors
        self.tokenizer.no_padding()
        lengths = [len(item.ids) for item in self.tokenizer.encode_batch(texts)]
        self.tokenizer.enable_padding(pad_id=self.pad_id)
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(texts), BATCH):
            chosen = order[start : start + BATCH]
            vectors[chosen] = self._batch([texts[i] for i in chosen])
        return vectors

    def _batch(self, texts: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([item.ids for item in encoded], dtype=np.int64)
        mask = np.array([item.attention_mask for item in encoded], dtype=np.float32)
        hidden = self.words[ids] + self.positions[: ids.shape[1]] + self.token_type
        hidden = self._norm(hidden, self.embedding_norm)
        blocked = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
        for layer in self.layers:
            hidden = self._layer(hidden, blocked, layer)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[
            :, None
        ]
        if self.normalized:
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)

    def _layer(self, hidden: np.ndarray, blocked: np.ndarray, layer: _Layer) -> np.ndarray:
        batch, length, width = hidden.shape
        size = width // self.heads

        flat = hidden.reshape(batch * length, width)  # 2-D products: BLAS's

        def heads(weight: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            projected = flat @ weight[0] + weight[1]
            return projected.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        query, key, value = heads(layer.query), heads(layer.key), heads(layer.value)
        scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ value).transpose(0, 2, 1, 3).reshape(batch * length, width)
        attended = context @ layer.attention_out[0] + layer.attention_out[1]
        flat = self._norm(attended + flat, layer.attention_norm)
        inner = flat @ layer.intermediate[0] + layer.intermediate[1]
        inner = 0.5 * inner * (1.0 + erf(inner / np.sqrt(2.0)))
        out = inner @ layer.output[0] + layer.output[1]
        return self._norm(out + flat, layer.output_norm).reshape(batch, length, width)

    def _norm(self, values: np.ndarray, weight: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        mean = values.mean(axis=-1, keepdims=True)
        variance = values.var(axis=-1, keepdims=True)
        return (values - mean) / np.sqrt(variance + self.epsilon) * weight[0] + weight[1]
