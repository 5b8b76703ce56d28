"""Splitting messages into provider-sized batches."""

from notify.settings import load


def batches(items, settings=None) -> list:
    """``items`` in lists of at most ``batch_size``, in order."""
    size = (settings if settings is not None else load()).batch_size
    items = list(items)
    return [items[i : i + size] for i in range(0, len(items), size)]


def retry_budget(n_items: int, settings=None) -> int:
    """The most retries sending ``n_items`` messages may take (``max_retries`` per batch)."""
    s = settings if settings is not None else load()
    n_batches = -(-n_items // s.batch_size)
    return n_batches * s.max_retries
