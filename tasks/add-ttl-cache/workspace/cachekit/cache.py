"""LRU cache with per-entry time to live."""

from cachekit.stats import CacheStats


class TTLCache:
    """A least-recently-used cache of at most ``maxsize`` entries whose entries may expire.

    ``ttl`` is the default time to live in seconds (``None``: entries never expire);
    ``clock`` is a zero-argument callable returning the current time in seconds and
    defaults to ``time.monotonic``.

    TODO(catalogue#212): not written yet. See the ticket for the exact rules.
    """

    def __init__(self, maxsize: int, ttl=None, clock=None):
        raise NotImplementedError

    def get(self, key, default=None):
        raise NotImplementedError

    def set(self, key, value, ttl=None) -> None:
        raise NotImplementedError

    def delete(self, key) -> bool:
        raise NotImplementedError

    def clear(self) -> None:
        raise NotImplementedError

    def __contains__(self, key) -> bool:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @property
    def stats(self) -> CacheStats:
        raise NotImplementedError
