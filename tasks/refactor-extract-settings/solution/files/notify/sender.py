"""Sending a list of messages."""

import time

from notify.batching import batches
from notify.client import Client
from notify.settings import load


class Sender:
    def __init__(self, transport, sleep=time.sleep, settings=None):
        self.settings = settings if settings is not None else load()
        self.client = Client(transport, sleep, self.settings)

    def send_all(self, messages) -> int:
        """Post ``messages`` batch by batch to /messages; return the number of batches."""
        sent = 0
        for batch in batches(messages, self.settings):
            self.client.post("/messages", {"messages": batch})
            sent += 1
        return sent


def describe(settings=None) -> str:
    s = settings if settings is not None else load()
    return f"sending to {s.api_url} in batches of {s.batch_size} (timeout {s.timeout_s:g}s)"
