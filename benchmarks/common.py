"""Pieces every benchmark script uses: output, peak memory, and where the data goes."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from judge_app.store import Database


def log(text: str = "") -> None:
    print(text, flush=True)


def max_rss_mib() -> float:
    """This process's peak RSS so far, in MiB.

    On Linux this is VmHWM, the high-water mark of this program's memory: ru_maxrss is kept
    across execve, so a child started by a parent that holds the generated data would report
    the parent's size. Elsewhere ru_maxrss (KiB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def in_workdir(
    args: argparse.Namespace, prefix: str, benchmark: Callable[[argparse.Namespace, Path], None]
) -> None:
    """Run ``benchmark`` in ``--workdir`` (kept) or in a temporary folder (removed after)."""
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        benchmark(args, args.workdir.resolve())
    else:
        with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
            benchmark(args, Path(workdir))


def prepared_database(
    db_path: Path, reuse: bool, generate: Callable[[Path], dict[str, int]], extra: str = ""
) -> None:
    """Generate the benchmark's database at ``db_path`` (not timed), or keep it with
    ``reuse``; log what it holds and the machine it runs on."""
    if db_path.exists() and reuse:
        log(f"reusing {db_path.name}")
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(str(db_path) + suffix).unlink(missing_ok=True)
        t0 = time.perf_counter()
        counts = generate(db_path)
        held = ", ".join(
            f"{counts[name]:,} {name}"
            for name in ("queries", "documents", "results", "judgments", "raters")
            if name in counts
        )
        log(f"generated {db_path.name} in {time.perf_counter() - t0:.1f} s (not counted): "
            f"{held}, {db_path.stat().st_size / 2**20:.0f} MiB")  # fmt: skip
    log(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}{extra}")  # fmt: skip


def import_frames(database: Database, runs: dict[str, pd.DataFrame], **files: pd.DataFrame) -> None:
    """Import generated tables as a user's files are imported (``import_files``): ``files``
    (queries, documents, judgments) in one import, then each of ``runs`` under its name; each
    written to a CSV file first, in a temporary folder removed after."""
    from judge_app.commands.importing import ImportOptions, import_files

    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        paths, run_paths = write_frames(Path(folder), runs, **files)
        import_files(database, ImportOptions(**paths))
        for name, path in run_paths.items():
            import_files(database, ImportOptions(run=path, run_name=name))


def write_frames(
    folder: Path, runs: dict[str, pd.DataFrame], **files: pd.DataFrame
) -> tuple[dict[str, Path], dict[str, Path]]:
    """Write each of ``files`` to ``folder/KIND.csv`` and each of ``runs`` to ``NAME.csv``, as
    a user's files: returns the paths by kind and by run name."""

    def written(name: str, frame: pd.DataFrame) -> Path:
        path = folder / f"{name}.csv"
        frame.to_csv(path, index=False)
        return path

    paths = {kind: written(kind, frame) for kind, frame in files.items()}
    return paths, {name: written(name, frame) for name, frame in runs.items()}


WRAPPER = textwrap.dedent(
    """
    import json, resource, subprocess, sys, time
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"seconds": seconds, "rss_kib": usage.ru_maxrss, "status": done.returncode,
                      "cpu_seconds": usage.ru_utime + usage.ru_stime,
                      "stdout": done.stdout[-2000:], "stderr": done.stderr[-2000:]}))
    """
)
"""Runs a command, then prints its seconds, CPU seconds (user + system) and peak RSS: only the
command's own, as the wrapper's child, so neither the benchmark's memory nor another command's
counts."""


def measured(command: list[str], env: dict[str, str] | None = None) -> dict:
    """Run ``command`` under the wrapper (in ``env``, default this process's environment):
    its seconds, CPU seconds and peak RSS (MiB); exits if it fails."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, check=True,
        env=env,
    )  # fmt: skip
    result = json.loads(done.stdout)
    if result["status"] != 0:
        sys.stderr.write(result["stdout"] + result["stderr"])
        raise SystemExit(f"failed (exit {result['status']}): {' '.join(command)}")
    result["rss_mib"] = result["rss_kib"] / 1024
    return result


def bytecode_env(workdir: Path) -> dict[str, str]:
    """The environment of a child that starts as a user's installed judge_app does: from
    bytecode written once (in ``workdir``, not beside the sources; a first, untimed run writes
    it), never compiling its modules at every start, whatever PYTHONDONTWRITEBYTECODE says."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env
