"""Memoization on top of a cache."""

import functools

from cachekit.keys import make_key

_MISSING = object()


def memoize(cache, ttl=None):
    """Cache a function's results in ``cache`` (anything with get(key, default) and
    set(key, value, ttl=None)). ``ttl`` overrides the cache's default time to live."""

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            key = (func.__qualname__, make_key(args, kwargs))
            value = cache.get(key, _MISSING)
            if value is _MISSING:
                value = func(*args, **kwargs)
                cache.set(key, value, ttl=ttl)
            return value

        wrapper.cache = cache
        return wrapper

    return decorate
