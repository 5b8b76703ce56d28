from cachekit import make_key, memoize


class DictCache:
    def __init__(self):
        self.data = {}

    def get(self, key, default=None):
        return self.data.get(key, default)

    def set(self, key, value, ttl=None):
        self.data[key] = value


def test_memoize_calls_once():
    calls = []

    @memoize(DictCache())
    def square(x):
        calls.append(x)
        return x * x

    assert square(3) == 9
    assert square(3) == 9
    assert calls == [3]


def test_make_key_ignores_keyword_order():
    assert make_key((1,), {"a": 1, "b": 2}) == make_key((1,), {"b": 2, "a": 1})
    assert make_key((1,), {}) != make_key((), {"x": 1})
