"""notify: sends notification batches to the messaging provider's HTTP API."""

from notify.batching import batches, retry_budget
from notify.client import Client
from notify.errors import DeliveryError, TransientError
from notify.retry import backoff_delays, call_with_retries
from notify.sender import Sender, describe

__all__ = [
    "Client",
    "DeliveryError",
    "Sender",
    "TransientError",
    "backoff_delays",
    "batches",
    "call_with_retries",
    "describe",
    "retry_budget",
]
