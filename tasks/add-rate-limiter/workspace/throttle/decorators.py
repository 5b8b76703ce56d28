"""Decorators applying a limiter to a function."""

import functools

from throttle.errors import RateLimitExceeded


def rate_limited(limiter, tokens: float = 1):
    """Refuse calls beyond ``limiter``'s rate by raising RateLimitExceeded."""

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if not limiter.try_acquire(tokens):
                raise RateLimitExceeded(limiter.wait_time(tokens))
            return func(*args, **kwargs)

        return wrapper

    return decorate
