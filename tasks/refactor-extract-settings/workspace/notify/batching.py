"""Splitting messages into provider-sized batches."""

BATCH_SIZE = 100
MAX_RETRIES = 3


def batches(items) -> list:
    """``items`` in lists of at most BATCH_SIZE, in order."""
    items = list(items)
    return [items[i : i + BATCH_SIZE] for i in range(0, len(items), BATCH_SIZE)]


def retry_budget(n_items: int) -> int:
    """The most retries sending ``n_items`` messages may take (MAX_RETRIES per batch)."""
    n_batches = -(-n_items // BATCH_SIZE)
    return n_batches * MAX_RETRIES
