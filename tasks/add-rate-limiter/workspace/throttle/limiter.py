"""Token-bucket rate limiter."""


class RateLimiter:
    """A token bucket.

    The bucket holds at most ``capacity`` tokens and starts full. Tokens flow back in
    continuously at ``rate`` tokens per second. A call that needs ``tokens`` tokens may go
    ahead only if that many are in the bucket; it then takes them out.

    ``clock`` is a zero-argument callable returning the current time in seconds (a float);
    it defaults to ``time.monotonic``. Tests pass a fake one.
    """

    def __init__(self, rate: float, capacity: float, clock=None):
        raise NotImplementedError("RateLimiter is not written yet")

    def try_acquire(self, tokens: float = 1) -> bool:
        """Take ``tokens`` tokens if they are available now; report whether it did."""
        raise NotImplementedError

    def available(self) -> float:
        """Tokens in the bucket right now."""
        raise NotImplementedError

    def wait_time(self, tokens: float = 1) -> float:
        """Seconds until ``tokens`` tokens will be available (0.0 if they are now)."""
        raise NotImplementedError

