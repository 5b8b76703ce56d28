import pytest

from notify import DeliveryError, Sender, TransientError, batches, call_with_retries


def test_batches():
    assert batches(range(3)) == [[0, 1, 2]]
    assert len(batches(range(250))) == 3


def test_retries_then_gives_up():
    calls, sleeps = [], []

    def flaky():
        calls.append(1)
        raise TransientError("503")

    with pytest.raises(DeliveryError):
        call_with_retries(flaky, sleep=sleeps.append)
    assert len(calls) == 4
    assert sleeps == [0.5, 1.0, 2.0]


def test_sender_posts_batches():
    requests = []
    sender = Sender(lambda url, payload, timeout: requests.append((url, timeout)), sleep=None)
    assert sender.send_all([f"m{i}" for i in range(150)]) == 2
    assert requests == [("https://api.example.com/v1/messages", 30.0)] * 2
