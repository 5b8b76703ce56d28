"""One limiter per key (per API token, per client IP...)."""

from collections import OrderedDict

from throttle.limiter import RateLimiter


class KeyedLimiter:
    """Lazily creates one RateLimiter per key, all with the same rate and capacity.

    At most ``max_keys`` limiters are kept; the least recently used one is dropped first
    (a dropped key simply starts again with a full bucket).
    """

    def __init__(self, rate: float, capacity: float, clock=None, max_keys: int = 10_000):
        if max_keys < 1:
            raise ValueError("max_keys must be at least 1")
        self._rate = rate
        self._capacity = capacity
        self._clock = clock
        self._max_keys = max_keys
        self._limiters = OrderedDict()
        RateLimiter(rate, capacity, clock)  # validate the arguments now

    def limiter(self, key) -> RateLimiter:
        found = self._limiters.get(key)
        if found is None:
            found = RateLimiter(self._rate, self._capacity, self._clock)
            self._limiters[key] = found
            while len(self._limiters) > self._max_keys:
                self._limiters.popitem(last=False)
        else:
            self._limiters.move_to_end(key)
        return found

    def try_acquire(self, key, tokens: float = 1) -> bool:
        return self.limiter(key).try_acquire(tokens)

    def __len__(self) -> int:
        return len(self._limiters)
