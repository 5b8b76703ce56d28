"""Sending a list of messages."""

import time

from notify.batching import batches
from notify.client import Client

API_URL = "https://api.example.com/v1"
TIMEOUT_S = 30.0
BATCH_SIZE = 100


class Sender:
    def __init__(self, transport, sleep=time.sleep):
        self.client = Client(transport, sleep)

    def send_all(self, messages) -> int:
        """Post ``messages`` batch by batch to /messages; return the number of batches."""
        sent = 0
        for batch in batches(messages):
            self.client.post("/messages", {"messages": batch})
            sent += 1
        return sent


def describe() -> str:
    return f"sending to {API_URL} in batches of {BATCH_SIZE} (timeout {TIMEOUT_S:g}s)"
