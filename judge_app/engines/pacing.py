"""The pace of requests to an engine: at most ``rate`` a second, each request sent no sooner
than ``1 / rate`` seconds after the one before it (retries too), and pauses that a cancel cuts
short. The clock and the wait are given, so a test reads the times a pacer chose without
waiting for them."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds, only ever going forward (``time.monotonic``)."""
Wait = Callable[[float], bool]
"""Wait this many seconds; True if the wait was cut short by a cancel."""
WATCH_SECONDS = 0.05
"""How often a pause looks whether it was cancelled."""


def cancellable_wait(cancelled: Callable[[], bool]) -> Wait:
    """A wait on the real clock that ends early, within ``WATCH_SECONDS``, once
    ``cancelled()``."""

    def wait(seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not cancelled():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(left, WATCH_SECONDS))
        return True

    return wait


class Pacer:
    """Spaces requests at least ``1 / rate`` seconds apart on ``clock`` (``rate`` 0: no
    limit), waiting with ``wait``; ``sent`` is the time each request was let go."""

    def __init__(self, rate: float, clock: Clock, wait: Wait) -> None:
        self.gap = 1.0 / rate if rate > 0 else 0.0
        self.clock = clock
        self.wait = wait
        self.sent: list[float] = []

    def ready(self) -> bool:
        """Wait for the next request's turn; False if cancelled meanwhile."""
        if self.sent and self.gap:
            left = self.sent[-1] + self.gap - self.clock()
            if left > 0 and self.wait(left):
                return False
        self.sent.append(self.clock())
        return True

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds`` before a retry; False if cancelled meanwhile."""
        return seconds <= 0 or not self.wait(seconds)
