"""LRU cache with per-entry time to live."""

import time
from collections import OrderedDict

from cachekit.stats import CacheStats


def _check_ttl(ttl) -> None:
    if ttl is not None and not ttl > 0:
        raise ValueError("ttl must be positive or None")


class TTLCache:
    """A least-recently-used cache of at most ``maxsize`` entries whose entries may expire.

    ``ttl`` is the default time to live in seconds (``None``: entries never expire);
    ``clock`` is a zero-argument callable returning the current time in seconds and
    defaults to ``time.monotonic``.
    """

    def __init__(self, maxsize: int, ttl=None, clock=None):
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError("maxsize must be an integer of at least 1")
        _check_ttl(ttl)
        self.maxsize = maxsize
        self.ttl = ttl
        self._clock = clock if clock is not None else time.monotonic
        self._entries = OrderedDict()  # key -> (value, expires_at or None); last = most recent
        self._stats = CacheStats()

    def _is_expired(self, expires_at, now) -> bool:
        return expires_at is not None and now >= expires_at

    def _drop_if_expired(self, key, now) -> bool:
        """Remove ``key`` if it is present but expired; report whether it did."""
        entry = self._entries.get(key)
        if entry is not None and self._is_expired(entry[1], now):
            del self._entries[key]
            self._stats.expirations += 1
            return True
        return False

    def _purge_expired(self, now) -> None:
        for key in [k for k, (_, exp) in self._entries.items() if self._is_expired(exp, now)]:
            del self._entries[key]
            self._stats.expirations += 1

    def get(self, key, default=None):
        now = self._clock()
        self._drop_if_expired(key, now)
        entry = self._entries.get(key)
        if entry is None:
            self._stats.misses += 1
            return default
        self._entries.move_to_end(key)
        self._stats.hits += 1
        return entry[0]

    def set(self, key, value, ttl=None) -> None:
        _check_ttl(ttl)
        now = self._clock()
        effective = ttl if ttl is not None else self.ttl
        expires_at = now + effective if effective is not None else None
        if key in self._entries:
            self._entries[key] = (value, expires_at)
            self._entries.move_to_end(key)
            return
        if len(self._entries) >= self.maxsize:
            self._purge_expired(now)
        while len(self._entries) >= self.maxsize:
            self._entries.popitem(last=False)
            self._stats.evictions += 1
        self._entries[key] = (value, expires_at)

    def delete(self, key) -> bool:
        if self._drop_if_expired(key, self._clock()):
            return False
        return self._entries.pop(key, None) is not None

    def clear(self) -> None:
        self._entries.clear()

    def __contains__(self, key) -> bool:
        self._drop_if_expired(key, self._clock())
        return key in self._entries

    def __len__(self) -> int:
        self._purge_expired(self._clock())
        return len(self._entries)

    @property
    def stats(self) -> CacheStats:
        return self._stats
