"""cachekit: in-process caching for the catalogue service."""

from cachekit.cache import TTLCache
from cachekit.keys import make_key
from cachekit.memoize import memoize
from cachekit.stats import CacheStats

__all__ = ["CacheStats", "TTLCache", "make_key", "memoize"]
