"""Retrying with exponential backoff."""

import time

from notify.errors import DeliveryError, TransientError
from notify.settings import load


def backoff_delays(settings=None) -> list:
    """Seconds to wait before each retry: ``backoff_s``, then doubling."""
    s = settings if settings is not None else load()
    return [s.backoff_s * 2**i for i in range(s.max_retries)]


def call_with_retries(fn, sleep=time.sleep, settings=None):
    """Call ``fn()``; on TransientError retry up to ``max_retries`` times, sleeping in between."""
    s = settings if settings is not None else load()
    delays = backoff_delays(s)
    for attempt in range(s.max_retries + 1):
        try:
            return fn()
        except TransientError as e:
            if attempt == s.max_retries:
                raise DeliveryError(f"gave up after {s.max_retries} retries: {e}") from e
            sleep(delays[attempt])
