"""Active time on a judgment, without Qt: idle pauses count up to a limit, time while the
window is not active does not count."""

from __future__ import annotations

from judge_app.judging.timing import ActiveTimer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_timer_leaves_out_idle_time_and_inactive_time():
    clock = Clock()
    timer = ActiveTimer(clock, idle_limit=60)
    clock.now = 10
    timer.touch()
    clock.now = 200  # 190 s without input: only 60 count
    timer.touch()
    assert timer.elapsed_ms() == 70_000
    timer.set_active(False)
    clock.now = 500  # the window was in the background
    timer.set_active(True)
    clock.now = 505
    assert timer.elapsed_ms() == 75_000
    timer.restart()
    clock.now = 507
    assert timer.elapsed_ms() == 2_000


def test_a_long_pause_counts_up_to_the_limit_even_before_the_next_input():
    clock = Clock()
    timer = ActiveTimer(clock, idle_limit=60)
    clock.now = 1_000
    assert timer.elapsed_ms() == 60_000
    timer.set_active(False)
    timer.set_active(False)  # told twice: still inactive, nothing counted twice
    clock.now = 2_000
    assert timer.elapsed_ms() == 60_000
