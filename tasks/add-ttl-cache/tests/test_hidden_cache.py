import pytest

from cachekit import CacheStats, TTLCache, memoize


class FakeClock:
    def __init__(self, start=500.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def counters(cache):
    s = cache.stats
    assert isinstance(s, CacheStats)
    return (s.hits, s.misses, s.evictions, s.expirations)


def test_basic_get_set():
    cache = TTLCache(3, clock=FakeClock())
    cache.set("a", 1)
    assert cache.get("a") == 1
    assert cache.get("b") is None
    assert cache.get("b", "dflt") == "dflt"
    assert "a" in cache and "b" not in cache
    assert len(cache) == 1
    assert counters(cache) == (1, 2, 0, 0)


def test_stored_none_and_falsy_values_are_hits():
    cache = TTLCache(3, clock=FakeClock())
    cache.set("n", None)
    cache.set("z", 0)
    assert cache.get("n", "dflt") is None
    assert cache.get("z", "dflt") == 0
    assert counters(cache) == (2, 0, 0, 0)


def test_lru_eviction_order():
    cache = TTLCache(3, clock=FakeClock())
    for k in "abc":
        cache.set(k, k.upper())
    assert cache.get("a") == "A"  # a is now most recent; b is least recent
    cache.set("d", "D")
    assert "b" not in cache
    assert all(k in cache for k in "acd")
    cache.set("e", "E")  # c is now the least recent
    assert "c" not in cache
    assert len(cache) == 3
    assert counters(cache)[2] == 2


def test_update_refreshes_recency_without_evicting():
    cache = TTLCache(2, clock=FakeClock())
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("a", 10)  # update: no eviction, a becomes most recent
    assert counters(cache)[2] == 0
    assert len(cache) == 2
    cache.set("c", 3)  # evicts b
    assert cache.get("a") == 10
    assert cache.get("b") is None
    assert cache.get("c") == 3


def test_contains_and_len_do_not_change_recency_or_counts():
    cache = TTLCache(2, clock=FakeClock())
    cache.set("a", 1)
    cache.set("b", 2)
    assert "a" in cache
    assert len(cache) == 2
    assert counters(cache) == (0, 0, 0, 0)
    cache.set("c", 3)  # a is still the least recent, despite the `in`
    assert "a" not in cache and "b" in cache and "c" in cache


def test_default_ttl_expiry_boundary():
    clock = FakeClock()
    cache = TTLCache(10, ttl=5, clock=clock)
    cache.set("a", 1)
    clock.advance(4.5)
    assert cache.get("a") == 1
    clock.advance(0.5)  # exactly t + ttl: expired
    assert cache.get("a") is None
    assert counters(cache) == (1, 1, 0, 1)
    assert cache.get("a") is None  # already gone: a plain miss
    assert counters(cache) == (1, 2, 0, 1)


def test_get_does_not_extend_ttl():
    clock = FakeClock()
    cache = TTLCache(10, ttl=2, clock=clock)
    cache.set("a", 1)
    clock.advance(1.5)
    assert cache.get("a") == 1
    clock.advance(1)
    assert cache.get("a") is None


def test_set_resets_expiry():
    clock = FakeClock()
    cache = TTLCache(10, ttl=2, clock=clock)
    cache.set("a", 1)
    clock.advance(1.5)
    cache.set("a", 2)
    clock.advance(1.5)
    assert cache.get("a") == 2


def test_per_entry_ttl():
    clock = FakeClock()
    cache = TTLCache(10, ttl=10, clock=clock)
    cache.set("short", 1, ttl=1)
    cache.set("default", 2)
    cache.set("long", 3, ttl=100)
    clock.advance(1)
    assert "short" not in cache
    assert cache.get("default") == 2
    clock.advance(9)
    assert cache.get("default") is None
    assert cache.get("long") == 3
    clock.advance(1000)
    assert cache.get("long") is None


def test_no_default_ttl_never_expires():
    clock = FakeClock()
    cache = TTLCache(2, clock=clock)
    cache.set("forever", 1)
    cache.set("brief", 2, ttl=0.25)
    clock.advance(10**9)
    assert cache.get("forever") == 1
    assert cache.get("brief") is None


def test_expired_entries_purged_before_evicting():
    clock = FakeClock()
    cache = TTLCache(3, clock=clock)
    cache.set("old1", 1, ttl=1)
    cache.set("keep", 2)
    cache.set("old2", 3, ttl=1)
    clock.advance(2)
    cache.set("new", 4)  # cache "full" with 2 expired entries: purge them, evict nothing
    assert counters(cache) == (0, 0, 0, 2)
    assert cache.get("keep") == 2
    assert cache.get("new") == 4
    assert len(cache) == 2
    cache.set("x", 5)  # not full: nothing happens
    cache.set("y", 6)  # full with live entries: evict the least recent ("keep" was read before "new")
    assert counters(cache)[2:] == (1, 2)
    assert "keep" not in cache
    assert "new" in cache and "x" in cache and "y" in cache


def test_len_and_contains_hide_expired_and_count_them_once():
    clock = FakeClock()
    cache = TTLCache(5, ttl=1, clock=clock)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("c", 3, ttl=5)
    clock.advance(1)
    assert "a" not in cache
    assert len(cache) == 1
    assert len(cache) == 1
    assert cache.get("b") is None
    assert counters(cache) == (0, 1, 0, 2)


def test_delete():
    clock = FakeClock()
    cache = TTLCache(5, clock=clock)
    cache.set("a", 1)
    cache.set("b", 2, ttl=1)
    assert cache.delete("a") is True
    assert cache.delete("a") is False
    assert cache.delete("missing") is False
    clock.advance(1)
    assert cache.delete("b") is False
    assert len(cache) == 0
    assert counters(cache)[:3] == (0, 0, 0)


def test_clear_keeps_stats():
    cache = TTLCache(5, clock=FakeClock())
    cache.set("a", 1)
    cache.get("a")
    cache.get("zz")
    cache.clear()
    assert len(cache) == 0
    assert "a" not in cache
    assert counters(cache) == (1, 1, 0, 0)
    cache.set("a", 2)
    assert cache.get("a") == 2


def test_hit_rate():
    cache = TTLCache(5, clock=FakeClock())
    cache.set("a", 1)
    for _ in range(3):
        cache.get("a")
    cache.get("b")
    assert cache.stats.hit_rate == pytest.approx(0.75)


@pytest.mark.parametrize("maxsize", [0, -1, 1.5, "3", None])
def test_invalid_maxsize(maxsize):
    with pytest.raises((ValueError, TypeError)):
        TTLCache(maxsize, clock=FakeClock())


@pytest.mark.parametrize("ttl", [0, -1])
def test_invalid_ttl(ttl):
    with pytest.raises(ValueError):
        TTLCache(3, ttl=ttl, clock=FakeClock())
    cache = TTLCache(3, clock=FakeClock())
    with pytest.raises(ValueError):
        cache.set("a", 1, ttl=ttl)
    assert "a" not in cache


def test_maxsize_one():
    cache = TTLCache(1, clock=FakeClock())
    cache.set("a", 1)
    cache.set("b", 2)
    assert "a" not in cache and cache.get("b") == 2
    assert counters(cache)[2] == 1


def test_default_clock():
    cache = TTLCache(2, ttl=3600)
    cache.set("a", 1)
    assert cache.get("a") == 1


def test_memoize_with_ttl_cache():
    clock = FakeClock()
    cache = TTLCache(10, ttl=60, clock=clock)
    calls = []

    @memoize(cache)
    def price(sku, currency="EUR"):
        calls.append((sku, currency))
        return len(sku) * 10

    assert price("abc") == 30
    assert price("abc") == 30
    assert price("abc", currency="USD") == 30
    assert calls == [("abc", "EUR"), ("abc", "USD")]
    clock.advance(60)
    assert price("abc") == 30
    assert len(calls) == 3

    @memoize(cache, ttl=1)
    def stock(sku):
        calls.append(sku)
        return 7

    stock("x")
    clock.advance(0.5)
    stock("x")
    clock.advance(0.5)
    stock("x")
    assert calls.count("x") == 2
