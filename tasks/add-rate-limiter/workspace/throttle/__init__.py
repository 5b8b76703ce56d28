"""throttle: rate limiting for the public API gateway."""

from throttle.decorators import rate_limited
from throttle.errors import RateLimitExceeded
from throttle.limiter import RateLimiter
from throttle.registry import KeyedLimiter

__all__ = ["KeyedLimiter", "RateLimitExceeded", "RateLimiter", "rate_limited"]
