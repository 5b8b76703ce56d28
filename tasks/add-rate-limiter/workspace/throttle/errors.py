class RateLimitExceeded(Exception):
    """Raised when a call is refused; ``retry_after`` is in seconds."""

    def __init__(self, retry_after: float):
        super().__init__(f"rate limit exceeded, retry after {retry_after:.3f}s")
        self.retry_after = retry_after
