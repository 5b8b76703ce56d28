"""HTTP client for the provider API (the transport is injected)."""

import time

from notify.retry import call_with_retries

API_URL = "https://api.example.com/v1"
TIMEOUT_S = 30.0
MAX_RETRIES = 3


class Client:
    """``transport(url, payload, timeout)`` performs one request and returns the decoded
    response, raising TransientError for failures worth retrying."""

    def __init__(self, transport, sleep=time.sleep):
        self.transport = transport
        self.sleep = sleep
        self.base_url = API_URL
        self.timeout_s = TIMEOUT_S
        self.max_retries = MAX_RETRIES

    def endpoint(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def post(self, path: str, payload):
        url = self.endpoint(path)
        return call_with_retries(lambda: self.transport(url, payload, self.timeout_s), self.sleep)
