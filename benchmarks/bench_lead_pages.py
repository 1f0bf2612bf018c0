"""Benchmark: how long a lead's pages keep the UI thread from the events (issue 29, item 8).

Goal: no lead page blocks the UI thread for more than 100 ms. In a fresh process per round
(offscreen), the window opens on the database, a 5 ms heartbeat timer runs on the UI thread,
and Ctrl+2, Ctrl+3, Ctrl+4 and Ctrl+5 are pressed in turn, each page waited for until it has
shown its numbers; the longest gap between two heartbeats while each page loads and computes
is that page's block. The children start from bytecode written by a first, untimed round, as
an installed judge_app does (not compiling its modules at every start, as
PYTHONDONTWRITEBYTECODE would have it). The peer, alternating in the same run: the same window
whose first Ctrl+2 imports the analysis stack on the UI thread, as judge_app did before issue
29 (the import alone is timed, as the block it was).

    .venv/bin/python benchmarks/bench_lead_pages.py               # on the demo
    .venv/bin/python benchmarks/bench_lead_pages.py --db big.sqlite --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

from common import bytecode_env, log

GOAL_MS = 100.0
PAGES = ("evaluation", "agreement", "raters", "calibration")

CHILD = textwrap.dedent(
    """
    import json, os, sys, tempfile, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["JUDGE_APP_SETTINGS"] = os.path.join(tempfile.mkdtemp(), "settings.ini")
    from PySide6.QtCore import QTimer
    from judge_app.gui import create_main_window
    from judge_app.gui.app import application
    from judge_app.gui.charts_canvas import ChartCanvas

    app = application()
    window = create_main_window(sys.argv[1], None if sys.argv[2] == "-" else sys.argv[2])
    window.show()
    if sys.argv[3] == "peer":  # as before: the stack imported on the UI thread
        from judge_app.gui.page_loading import STACKS, import_all, stack_of
        names = stack_of(["judge_app.gui.evaluation_view", STACKS])
        started = time.perf_counter()
        import_all(names)
        print(json.dumps({"import_ms": (time.perf_counter() - started) * 1000}))
        sys.exit(0)
    # the real event loop (app.exec), as a user's window runs: QTest.qWait keeps the GIL
    # while it sleeps and would starve the workers
    beats = [time.perf_counter()]
    heart = QTimer()
    heart.setInterval(5)
    heart.timeout.connect(lambda: beats.append(time.perf_counter()))
    heart.start()
    pages = json.loads(sys.argv[4])
    blocks, state = {}, {"page": None, "start": 0, "settled": 0}

    def shown() -> bool:
        charts = window.findChildren(ChartCanvas)
        return (
            window.analysis.shown_page() is not None
            and window.workspace.task is None
            and all(chart.drawn or not chart.isVisible() for chart in charts)
        )

    def step() -> None:
        page = state["page"]
        if page is not None:
            if not shown():
                state["settled"] = 0
                return
            state["settled"] += 1
            if state["settled"] < 10:  # 50 ms of quiet: nothing more comes
                return
            gaps = [b - a for a, b in zip(beats[state["start"] - 1:], beats[state["start"]:])]
            blocks[page] = max(gaps) * 1000
        if not pages:
            app.quit()
            return
        state["page"], state["start"], state["settled"] = pages.pop(0), len(beats), 0
        window.menus.page_actions[state["page"]].trigger()

    poll = QTimer()
    poll.setInterval(5)
    poll.timeout.connect(step)
    QTimer.singleShot(300, poll.start)
    app.exec()
    print(json.dumps(blocks))
    window.close()
    """
)


def child(db: Path, rater: str, side: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), rater, side, json.dumps(PAGES)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {side} child failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a campaign database (default: the demo)")
    parser.add_argument("--rater", default="-", help="the rater the window opens as")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db
        if db is None:
            from judge_app.cli import main as cli

            db = Path(folder) / "demo.sqlite"
            with redirect_stdout(StringIO()):
                cli(["demo", str(db)])
        env = bytecode_env(Path(folder))
        for side in ("ours", "peer"):  # untimed: writes the bytecode, reads the files
            child(db, args.rater, side, env)
        ours: dict[str, list[float]] = {page: [] for page in PAGES}
        peer: list[float] = []
        for _ in range(args.rounds):  # alternating: both sides meet the same load
            for page, block in child(db, args.rater, "ours", env).items():
                ours[page].append(block)
            peer.append(child(db, args.rater, "peer", env)["import_ms"])
    log(f"{args.rounds} rounds, each a fresh process; median of the rounds (never the best)")
    header = f"{'page (first time in the process)':<34} | {'ours':>9} | {'peer':>9} | goal"
    log(header)
    log("-" * len(header))
    for page in PAGES:
        block = statistics.median(ours[page])
        before = f"{statistics.median(peer):.0f} ms" if page == "evaluation" else ""
        met = "yes" if block <= GOAL_MS else "NO"
        log(f"{page:<34} | {block:>6.0f} ms | {before:>9} | ≤ {GOAL_MS:.0f} ms: {met}")
    log("ours: the longest the UI thread kept from its events while the page loaded and "
        "computed; peer: the analysis stack imported on the UI thread, as before.")  # fmt: skip


if __name__ == "__main__":
    main()
