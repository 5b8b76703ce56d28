import pytest

from throttle import KeyedLimiter, RateLimiter, RateLimitExceeded, rate_limited


class FakeClock:
    def __init__(self, start=1000.0):
        self.now = start
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.now

    def advance(self, seconds):
        self.now += seconds


def make(rate=2, capacity=4, start=1000.0):
    clock = FakeClock(start)
    return RateLimiter(rate, capacity, clock=clock), clock


def test_starts_full():
    limiter, _ = make(rate=1, capacity=5)
    assert limiter.available() == pytest.approx(5)
    for _ in range(5):
        assert limiter.try_acquire() is True
    assert limiter.try_acquire() is False
    assert limiter.available() == pytest.approx(0)


def test_uses_the_injected_clock():
    limiter, clock = make()
    limiter.try_acquire()
    limiter.available()
    assert clock.calls >= 1


def test_refills_continuously():
    limiter, clock = make(rate=2, capacity=4)
    assert limiter.try_acquire(4)
    assert limiter.try_acquire() is False
    clock.advance(0.25)  # half a token
    assert limiter.available() == pytest.approx(0.5)
    assert limiter.try_acquire() is False
    clock.advance(0.25)  # exactly one token
    assert limiter.try_acquire() is True
    assert limiter.try_acquire() is False
    clock.advance(0.75)  # 1.5 tokens
    assert limiter.available() == pytest.approx(1.5)
    assert limiter.try_acquire(1.5) is True
    assert limiter.available() == pytest.approx(0)


def test_never_exceeds_capacity():
    limiter, clock = make(rate=10, capacity=3)
    clock.advance(3600)
    assert limiter.available() == pytest.approx(3)
    assert limiter.try_acquire(3)
    assert not limiter.try_acquire()
    clock.advance(0.5)
    assert limiter.available() == pytest.approx(3)


def test_failed_acquire_takes_nothing():
    limiter, clock = make(rate=1, capacity=4)
    assert limiter.try_acquire(3)
    assert limiter.try_acquire(2) is False
    assert limiter.available() == pytest.approx(1)
    clock.advance(1)
    assert limiter.try_acquire(2) is True
    assert limiter.available() == pytest.approx(0)


def test_wait_time():
    limiter, clock = make(rate=4, capacity=8)
    assert limiter.wait_time() == 0.0
    assert limiter.wait_time(8) == 0.0
    assert limiter.try_acquire(8)
    assert limiter.wait_time() == pytest.approx(0.25)
    assert limiter.wait_time(2) == pytest.approx(0.5)
    assert limiter.wait_time(8) == pytest.approx(2.0)
    clock.advance(0.125)
    assert limiter.wait_time() == pytest.approx(0.125)
    assert limiter.available() == pytest.approx(0.5)  # wait_time took nothing
    clock.advance(0.125)
    assert limiter.wait_time() == 0.0
    assert limiter.try_acquire()


def test_wait_time_is_accurate():
    limiter, clock = make(rate=3, capacity=6)
    assert limiter.try_acquire(6)
    wait = limiter.wait_time(4)
    assert wait == pytest.approx(4 / 3)
    clock.advance(wait - 0.01)
    assert not limiter.try_acquire(4)
    clock.advance(0.02)
    assert limiter.try_acquire(4)


def test_fractional_rate_and_capacity():
    limiter, clock = make(rate=0.5, capacity=1.5)
    assert limiter.try_acquire(1.5)
    clock.advance(1)
    assert limiter.available() == pytest.approx(0.5)
    assert limiter.wait_time(1) == pytest.approx(1.0)
    clock.advance(1)
    assert limiter.try_acquire(1)


def test_many_small_steps():
    limiter, clock = make(rate=8, capacity=8)
    assert limiter.try_acquire(8)
    granted = 0
    for _ in range(64):  # 64 * 1/16 s = 4 s -> 32 tokens
        clock.advance(1 / 16)
        if limiter.try_acquire():
            granted += 1
    assert granted == 32


@pytest.mark.parametrize("rate, capacity", [(0, 1), (-1, 1), (1, 0), (1, -5)])
def test_invalid_construction(rate, capacity):
    with pytest.raises(ValueError):
        RateLimiter(rate, capacity, clock=FakeClock())


@pytest.mark.parametrize("tokens", [0, -1, 5])
def test_invalid_token_requests(tokens):
    limiter, _ = make(rate=1, capacity=4)
    with pytest.raises(ValueError):
        limiter.try_acquire(tokens)
    with pytest.raises(ValueError):
        limiter.wait_time(tokens)
    assert limiter.available() == pytest.approx(4)


def test_clock_going_backwards():
    limiter, clock = make(rate=1, capacity=4)
    assert limiter.try_acquire(3)
    clock.advance(-100)
    assert limiter.available() == pytest.approx(1)
    assert limiter.try_acquire(2) is False
    assert limiter.available() == pytest.approx(1)


def test_default_clock_works():
    limiter = RateLimiter(1, 1)
    assert limiter.try_acquire() is True
    assert limiter.try_acquire() is False  # far less than a second has passed
    assert 0 <= limiter.available() < 1
    assert 0 < limiter.wait_time() <= 1


def test_decorator_with_real_limiter():
    limiter, clock = make(rate=2, capacity=2)
    calls = []

    @rate_limited(limiter)
    def ping(x):
        calls.append(x)
        return x * 2

    assert ping(1) == 2
    assert ping(2) == 4
    with pytest.raises(RateLimitExceeded) as info:
        ping(3)
    assert info.value.retry_after == pytest.approx(0.5)
    assert calls == [1, 2]
    clock.advance(0.5)
    assert ping(4) == 8


def test_keyed_limiter():
    clock = FakeClock()
    keyed = KeyedLimiter(1, 2, clock=clock, max_keys=2)
    assert keyed.try_acquire("a") and keyed.try_acquire("a")
    assert not keyed.try_acquire("a")
    assert keyed.try_acquire("b")
    clock.advance(1)
    assert keyed.try_acquire("a")
    assert not keyed.try_acquire("a")
    keyed.try_acquire("c")  # evicts "b", the least recently used
    assert len(keyed) == 2
    with pytest.raises(ValueError):
        KeyedLimiter(0, 1, clock=clock)
