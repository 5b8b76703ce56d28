"""Cache keys for function calls."""

_KWARGS_MARK = object()


def make_key(args: tuple, kwargs: dict):
    """A hashable key for a call; keyword order does not matter."""
    key = tuple(args)
    if kwargs:
        key += (_KWARGS_MARK,) + tuple(sorted(kwargs.items()))
    return key
