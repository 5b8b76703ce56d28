"""Token-bucket rate limiter."""

import time


class RateLimiter:
    """A token bucket.

    The bucket holds at most ``capacity`` tokens and starts full. Tokens flow back in
    continuously at ``rate`` tokens per second. A call that needs ``tokens`` tokens may go
    ahead only if that many are in the bucket; it then takes them out.

    ``clock`` is a zero-argument callable returning the current time in seconds (a float);
    it defaults to ``time.monotonic``. Tests pass a fake one.
    """

    def __init__(self, rate: float, capacity: float, clock=None):
        if not rate > 0:
            raise ValueError("rate must be positive")
        if not capacity > 0:
            raise ValueError("capacity must be positive")
        self.rate = float(rate)
        self.capacity = float(capacity)
        self._clock = clock if clock is not None else time.monotonic
        self._tokens = self.capacity
        self._last = self._clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = now - self._last
        if elapsed > 0:
            self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
            self._last = now

    def _check(self, tokens: float) -> None:
        if not tokens > 0:
            raise ValueError("tokens must be positive")
        if tokens > self.capacity:
            raise ValueError(f"{tokens} tokens can never fit in a bucket of {self.capacity}")

    def try_acquire(self, tokens: float = 1) -> bool:
        """Take ``tokens`` tokens if they are available now; report whether it did."""
        self._check(tokens)
        self._refill()
        if self._tokens >= tokens:
            self._tokens -= tokens
            return True
        return False

    def available(self) -> float:
        """Tokens in the bucket right now."""
        self._refill()
        return self._tokens

    def wait_time(self, tokens: float = 1) -> float:
        """Seconds until ``tokens`` tokens will be available (0.0 if they are now)."""
        self._check(tokens)
        self._refill()
        missing = tokens - self._tokens
        return missing / self.rate if missing > 0 else 0.0
