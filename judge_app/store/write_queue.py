"""Units of work written one after another, in order, on a thread of their own.

A window hands its changes to a WriteQueue so that its own thread never waits on the
database: ``submit`` returns at once, the change is committed on the queue's thread (waiting
there, and retrying, while another program holds the database), and ``done`` is called with
what it returned or the error it raised. Changes run in the order they were submitted; each
is its own transaction, so one that fails does not stop the ones after it.

The thread starts with the queue, so that a first change never waits for a thread to start
(on a busy machine that can take tens of milliseconds). It is a daemon thread; a program that
exits first waits for every change submitted to be written.
"""

from __future__ import annotations

import atexit
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the judging screen makes its queue before the store is loaded
    from sqlalchemy.orm import Session

    from judge_app.store.database import Database

Done = Callable[[Any, BaseException | None], None]
Job = tuple["Database", Callable[["Session"], Any], Done]


class WriteQueue:
    """An ordered queue of units of work, run on one thread of its own."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._queued = 0  # submitted and not yet done
        self._started: float | None = None  # when the change being written began
        self._closed = False
        threading.Thread(target=self._run, name="judge_app writes", daemon=True).start()
        _QUEUES.add(self)

    def submit(self, database: Database, change: Callable[[Session], Any], done: Done) -> None:
        """Write ``change`` as one unit of work after every change submitted before it; then
        call ``done(result, None)`` or ``done(None, error)`` on the queue's thread."""
        handle = database.share()  # its own: the change outlives a window that closes its own
        with self._idle:
            if self._closed:
                handle.close()
                raise RuntimeError("the write queue is closed")
            self._queued += 1
            self._jobs.put((handle, change, done))

    @property
    def queued(self) -> int:
        """Changes submitted and not yet written (or failed)."""
        with self._idle:
            return self._queued

    def busy_seconds(self) -> float:
        """How long the change being written has taken so far (0 when none is)."""
        started = self._started
        return 0.0 if started is None else time.monotonic() - started

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every change submitted is written or failed; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._queued == 0, timeout)

    def close(self) -> None:
        """End the thread once the changes submitted are written; nothing more is taken."""
        with self._idle:
            if not self._closed:
                self._closed = True
                self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            handle, change, done = job
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
                traceback.print_exc()
            finally:
                with self._idle:
                    self._queued -= 1
                    self._idle.notify_all()


_QUEUES: weakref.WeakSet[WriteQueue] = weakref.WeakSet()


@atexit.register
def _write_everything_queued() -> None:
    """At exit, wait for the changes still queued: a daemon thread would be stopped."""
    for writes in list(_QUEUES):
        writes.wait_idle()
