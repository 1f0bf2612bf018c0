"""Time spent on a judgment, with idle time left out: a pause in input longer than the idle
limit counts only up to the limit, and time while the window is not active does not count."""

from __future__ import annotations

import time
from collections.abc import Callable

IDLE_LIMIT_S = 60.0


class ActiveTimer:
    """Active time since ``restart()``; call ``touch()`` on every input and ``set_active()`` when
    the window gains or loses focus. ``clock`` returns seconds (monotonic)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, idle_limit: float = IDLE_LIMIT_S
    ) -> None:
        self._clock = clock
        self._idle_limit = idle_limit
        self._active = True
        self._spent = 0.0
        self._last = clock()

    def restart(self) -> None:
        """Start timing a new judgment."""
        self._spent = 0.0
        self._last = self._clock()

    def touch(self) -> None:
        """An input event happened: count the time since the previous one."""
        now = self._clock()
        if self._active:
            self._spent += min(now - self._last, self._idle_limit)
        self._last = now

    def set_active(self, active: bool) -> None:
        """The window became active (time counts again) or inactive (time stops)."""
        if active == self._active:
            return
        self.touch()
        self._active = active

    def elapsed_ms(self) -> int:
        """Active milliseconds so far, counting up to now."""
        now = self._clock()
        pending = min(now - self._last, self._idle_limit) if self._active else 0.0
        return round(1000 * (self._spent + pending))
