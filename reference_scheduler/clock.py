"""Clocks: virtual time, in unit tests and in the runner.

Plays the part of k8s.io/utils/clock for the scheduler (no upstream file of its own).

Timers (the Permit timeout, backoff expiry) are scheduled on a clock, never slept on. With
:class:`SimClock` a test moves time forward explicitly and every timer due by then fires in
order, ties in the order they were scheduled, so a 5-minute Permit timeout takes microseconds.
The runner advances a :class:`SimClock` to the monotonic clock from its one loop, so timers fire
on that loop and the core needs no locks.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Protocol


class Timer:
    """A scheduled callback; :meth:`cancel` is idempotent."""

    __slots__ = ("when", "callback", "cancelled")

    def __init__(self, when: float, callback: Callable[[], None]):
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on this clock's time line."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once, ``delay`` seconds from now."""


class SimClock:
    """Virtual time. Nothing happens until :meth:`advance` (or :meth:`run`) is called."""

    def __init__(self, start: float = 0.0):
        self._now = start
        self._heap: list[tuple[float, int, Timer]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        timer = Timer(self._now + delay, callback)
        heapq.heappush(self._heap, (timer.when, next(self._seq), timer))
        return timer

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds``, firing every timer due by then; return how many fired."""
        if seconds < 0:
            raise ValueError(f"time cannot go back ({seconds})")
        return self.run(until=self._now + seconds)

    def run(self, until: float | None = None) -> int:
        """Fire timers in order until none is due by ``until`` (or none is left); return how many fired."""
        fired = 0
        while self._heap and (until is None or self._heap[0][0] <= until):
            when, _, timer = heapq.heappop(self._heap)
            self._now = max(self._now, when)
            if not timer.cancelled:
                timer.callback()  # an exception here surfaces to the caller: failures are never silent
                fired += 1
        if until is not None:
            self._now = max(self._now, until)
        return fired

    def next_due(self) -> float | None:
        """When the earliest pending timer is due, or None."""
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    @property
    def pending(self) -> int:
        return sum(1 for _, _, t in self._heap if not t.cancelled)

