"""HTTP client for the provider API (the transport is injected)."""

import time

from notify.retry import call_with_retries
from notify.settings import load


class Client:
    """``transport(url, payload, timeout)`` performs one request and returns the decoded
    response, raising TransientError for failures worth retrying."""

    def __init__(self, transport, sleep=time.sleep, settings=None):
        self.transport = transport
        self.sleep = sleep
        self.settings = settings if settings is not None else load()
        self.base_url = self.settings.api_url
        self.timeout_s = self.settings.timeout_s
        self.max_retries = self.settings.max_retries

    def endpoint(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def post(self, path: str, payload):
        url = self.endpoint(path)
        return call_with_retries(
            lambda: self.transport(url, payload, self.timeout_s), self.sleep, self.settings
        )
