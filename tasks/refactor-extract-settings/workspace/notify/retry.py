"""Retrying with exponential backoff."""

import time

from notify.errors import DeliveryError, TransientError

MAX_RETRIES = 3
BACKOFF_S = 0.5


def backoff_delays() -> list:
    """Seconds to wait before each retry: BACKOFF_S, then doubling."""
    return [BACKOFF_S * 2**i for i in range(MAX_RETRIES)]


def call_with_retries(fn, sleep=time.sleep):
    """Call ``fn()``; on TransientError retry up to MAX_RETRIES times, sleeping in between."""
    delays = backoff_delays()
    for attempt in range(MAX_RETRIES + 1):
        try:
            return fn()
        except TransientError as e:
            if attempt == MAX_RETRIES:
                raise DeliveryError(f"gave up after {MAX_RETRIES} retries: {e}") from e
            sleep(delays[attempt])
