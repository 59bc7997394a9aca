"""How many requests one public link answers a minute, counted in this worker's memory.

Counted per link (never per address: an address is not kept, even in memory), so a link posted
widely cannot make its creator's rights run statements without bound.
"""
from __future__ import annotations

import math
import threading
import time
from collections import deque


class PerMinuteLimit:
    """A sliding window of 60 seconds per key."""

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._calls: dict[object, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, key: object, limit: int) -> int:
        """0 and the call is counted, or the whole seconds to wait before the next call is answered."""
        now = self._clock()
        with self._lock:
            calls = self._calls.setdefault(key, deque())
            while calls and calls[0] <= now - 60:
                calls.popleft()
            if len(calls) >= limit:
                return max(1, math.ceil(calls[0] + 60 - now))
            calls.append(now)
            return 0
