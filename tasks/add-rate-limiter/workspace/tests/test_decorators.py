import pytest

from throttle import RateLimitExceeded, rate_limited


class AlwaysEmpty:
    def try_acquire(self, tokens=1):
        return False

    def wait_time(self, tokens=1):
        return 2.5


class AlwaysFull:
    def try_acquire(self, tokens=1):
        return True

    def wait_time(self, tokens=1):
        return 0.0


def test_refused_call_raises():
    @rate_limited(AlwaysEmpty())
    def ping():
        return "pong"

    with pytest.raises(RateLimitExceeded) as info:
        ping()
    assert info.value.retry_after == 2.5


def test_allowed_call_runs():
    @rate_limited(AlwaysFull())
    def ping():
        return "pong"

    assert ping() == "pong"
