"""Slow down repeated sign-in failures, per account and per client address.

After `free_failures` failures within `window` seconds, each further attempt on that account or
from that address must wait, twice as long after each failure, up to `max_delay`. Addresses are
held only in this process's memory, and only as HMACs under a key drawn at start: never stored,
never logged. Each worker process counts on its own.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class SignInThrottle:
    def __init__(self, free_failures: int = 5, base_delay: float = 2.0, max_delay: float = 300.0,
                 window: float = 900.0, max_entries: int = 100_000,
                 clock: Callable[[], float] = time.monotonic):
        self.free_failures = free_failures
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.window = window
        self.max_entries = max_entries
        self._clock = clock
        self._key = secrets.token_bytes(32)
        self._failures: OrderedDict[bytes, tuple[int, float]] = OrderedDict()  # key -> (count, last failure)
        self._lock = threading.Lock()

    def _keys(self, account: str, address: str | None) -> list[bytes]:
        keys = [hmac.new(self._key, b"account:" + account.strip().lower().encode(), hashlib.sha256).digest()]
        if address:
            keys.append(hmac.new(self._key, b"address:" + address.encode(), hashlib.sha256).digest())
        return keys

    def _wait(self, entry: tuple[int, float] | None, now: float) -> float:
        if entry is None:
            return 0.0
        count, last = entry
        if now - last > self.window or count < self.free_failures:
            return 0.0
        delay = min(self.max_delay, self.base_delay * 2 ** (count - self.free_failures))
        return max(0.0, last + delay - now)

    def retry_after(self, account: str, address: str | None) -> float:
        """Seconds to wait before this account may try again from this address (0: go ahead)."""
        now = self._clock()
        with self._lock:
            return max(self._wait(self._failures.get(key), now) for key in self._keys(account, address))

    def failed(self, account: str, address: str | None) -> float:
        """Count a failure; the wait it imposes on the next attempt."""
        now = self._clock()
        with self._lock:
            for key in self._keys(account, address):
                count, last = self._failures.pop(key, (0, now))
                self._failures[key] = (1 if now - last > self.window else count + 1, now)
            while len(self._failures) > self.max_entries:
                self._failures.popitem(last=False)
        return self.retry_after(account, address)

    def succeeded(self, account: str, address: str | None) -> None:
        """A correct password clears the account's count (the address keeps its own)."""
        with self._lock:
            self._failures.pop(self._keys(account, None)[0], None)
