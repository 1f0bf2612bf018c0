"""Units of work written one after another, in order, on a thread of their own.

A window hands its changes to a WriteQueue so that its own thread never waits on the
database: ``submit`` returns at once, the change is committed on the queue's thread (waiting
there, and retrying, while another program holds the database), and ``done`` is called with
what it returned or the error it raised. Changes run in the order they were submitted; each
is its own transaction, so one that fails does not stop the ones after it.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from judge_app.store.database import Database

Done = Callable[[Any, BaseException | None], None]
IDLE_SECONDS = 0.5
"""How long the queue's thread waits for more work before it ends (a new one starts on the
next submit); a thread that ended cannot keep the program from exiting."""


class WriteQueue:
    """An ordered queue of units of work, run on one thread of its own."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Database, Callable[[Session], Any], Done]] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._queued = 0  # submitted and not yet done
        self._started: float | None = None  # when the change being written began
        self._idle = threading.Condition(self._lock)

    def submit(self, database: Database, change: Callable[[Session], Any], done: Done) -> None:
        """Write ``change`` as one unit of work after every change submitted before it; then
        call ``done(result, None)`` or ``done(None, error)`` on the queue's thread."""
        handle = database.share()  # the change outlives a window that closes its own handle
        with self._lock:
            self._queued += 1
            self._jobs.put((handle, change, done))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="judge_app writes")
                self._thread.start()

    @property
    def queued(self) -> int:
        """Changes submitted and not yet written (or failed)."""
        with self._lock:
            return self._queued

    def busy_seconds(self) -> float:
        """How long the change being written has taken so far (0 when none is)."""
        started = self._started
        return 0.0 if started is None else time.monotonic() - started

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every change submitted is written or failed; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._queued == 0, timeout)

    def _run(self) -> None:
        while True:
            try:
                handle, change, done = self._jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._thread = None
                        return
                continue
            self._started = time.monotonic()
            try:
                result, error = handle.write(change), None
            except Exception as failure:  # every failure reaches ``done``: none is lost here
                result, error = None, failure
            finally:
                self._started = None
                handle.close()
            try:
                done(result, error)
            except Exception:  # the receiver's fault: reported, and the others still written
                sys.excepthook(*sys.exc_info())
            finally:
                with self._idle:
                    self._queued -= 1
                    self._idle.notify_all()
