import ast
import dataclasses
import pathlib

import pytest

import notify
from notify import (
    Client,
    DeliveryError,
    Sender,
    TransientError,
    backoff_delays,
    batches,
    call_with_retries,
    describe,
    retry_budget,
)

PKG = pathlib.Path(notify.__file__).resolve().parent
MODULES = ["client.py", "retry.py", "batching.py", "sender.py"]
VARS = ["NOTIFY_API_URL", "NOTIFY_TIMEOUT_S", "NOTIFY_MAX_RETRIES", "NOTIFY_BACKOFF_S",
        "NOTIFY_BATCH_SIZE"]
DEFAULT_URL = "https://api.example.com/v1"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in VARS:
        monkeypatch.delenv(name, raising=False)


def settings_module():
    import notify.settings as mod

    return mod


# --- settings.py -------------------------------------------------------------------------


def test_settings_dataclass_defaults():
    mod = settings_module()
    assert dataclasses.is_dataclass(mod.Settings)
    assert [f.name for f in dataclasses.fields(mod.Settings)] == [
        "api_url", "timeout_s", "max_retries", "backoff_s", "batch_size"
    ]
    s = mod.Settings()
    assert s.api_url == DEFAULT_URL
    assert s.timeout_s == 30.0 and s.max_retries == 3
    assert s.backoff_s == 0.5 and s.batch_size == 100
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.batch_size = 5
    assert notify.Settings is mod.Settings


def test_load_defaults():
    mod = settings_module()
    assert mod.load({}) == mod.Settings()
    assert mod.load() == mod.Settings()
    assert mod.load({name: "" for name in VARS}) == mod.Settings()
    assert mod.load({"UNRELATED": "1"}) == mod.Settings()


def test_load_from_mapping():
    mod = settings_module()
    s = mod.load({
        "NOTIFY_API_URL": "http://localhost:8080/api",
        "NOTIFY_TIMEOUT_S": "2.5",
        "NOTIFY_MAX_RETRIES": "0",
        "NOTIFY_BACKOFF_S": "0",
        "NOTIFY_BATCH_SIZE": "7",
    })
    assert s == mod.Settings("http://localhost:8080/api", 2.5, 0, 0.0, 7)
    assert type(s.timeout_s) is float and type(s.backoff_s) is float
    assert type(s.max_retries) is int and type(s.batch_size) is int
    assert mod.load({"NOTIFY_TIMEOUT_S": "5"}).timeout_s == 5.0
    assert type(mod.load({"NOTIFY_TIMEOUT_S": "5"}).timeout_s) is float


def test_load_reads_os_environ_at_call_time(monkeypatch):
    mod = settings_module()
    monkeypatch.setenv("NOTIFY_BATCH_SIZE", "12")
    assert mod.load().batch_size == 12
    monkeypatch.setenv("NOTIFY_BATCH_SIZE", "13")
    assert mod.load().batch_size == 13


@pytest.mark.parametrize(
    "name, value",
    [
        ("NOTIFY_TIMEOUT_S", "abc"),
        ("NOTIFY_TIMEOUT_S", "0"),
        ("NOTIFY_TIMEOUT_S", "-1"),
        ("NOTIFY_MAX_RETRIES", "-1"),
        ("NOTIFY_MAX_RETRIES", "2.5"),
        ("NOTIFY_MAX_RETRIES", "three"),
        ("NOTIFY_BACKOFF_S", "-0.5"),
        ("NOTIFY_BACKOFF_S", "fast"),
        ("NOTIFY_BATCH_SIZE", "0"),
        ("NOTIFY_BATCH_SIZE", "1.5"),
    ],
)
def test_load_rejects_bad_values(name, value):
    mod = settings_module()
    with pytest.raises(ValueError) as info:
        mod.load({name: value})
    assert name in str(info.value)


# --- constants are gone from the modules -----------------------------------------------------


@pytest.mark.parametrize("module", MODULES)
def test_no_constants_left(module):
    tree = ast.parse((PKG / module).read_text(encoding="utf-8"))
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        for target in targets:
            name = getattr(target, "id", "")
            assert not (name.isupper() and isinstance(value, ast.Constant)), (
                f"{module} still defines the constant {name}"
            )
    literals = {
        n.value for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and not isinstance(n.value, bool)
    }
    for value in (DEFAULT_URL, 30, 30.0, 0.5, 100):
        assert value not in literals, f"{module} still hard-codes {value!r}"


@pytest.mark.parametrize("module", MODULES)
def test_modules_use_settings(module):
    source = (PKG / module).read_text(encoding="utf-8")
    assert "settings" in source


def test_values_live_in_settings_py():
    tree = ast.parse((PKG / "settings.py").read_text(encoding="utf-8"))
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert DEFAULT_URL in literals
    assert {"NOTIFY_API_URL", "NOTIFY_BATCH_SIZE"} <= literals


# --- default behaviour unchanged ---------------------------------------------------------


def test_defaults_behave_as_before():
    assert backoff_delays() == [0.5, 1.0, 2.0]
    assert len(batches(range(250))) == 3
    assert batches(range(250))[2] == list(range(200, 250))
    assert retry_budget(250) == 9
    assert retry_budget(0) == 0
    assert describe() == f"sending to {DEFAULT_URL} in batches of 100 (timeout 30s)"
    client = Client(lambda *a: None)
    assert client.endpoint("/messages") == DEFAULT_URL + "/messages"
    assert client.timeout_s == 30.0 and client.max_retries == 3


def test_default_retries():
    calls, sleeps = [], []

    def flaky():
        calls.append(1)
        raise TransientError("503")

    with pytest.raises(DeliveryError):
        call_with_retries(flaky, sleep=sleeps.append)
    assert len(calls) == 4 and sleeps == [0.5, 1.0, 2.0]


# --- environment read at call time -------------------------------------------------------


def test_env_used_at_call_time(monkeypatch):
    monkeypatch.setenv("NOTIFY_BATCH_SIZE", "2")
    monkeypatch.setenv("NOTIFY_MAX_RETRIES", "2")
    monkeypatch.setenv("NOTIFY_BACKOFF_S", "0.25")
    monkeypatch.setenv("NOTIFY_API_URL", "http://mock.local/")
    monkeypatch.setenv("NOTIFY_TIMEOUT_S", "1.5")
    assert batches(range(5)) == [[0, 1], [2, 3], [4]]
    assert retry_budget(5) == 6
    assert backoff_delays() == [0.25, 0.5]
    assert describe() == "sending to http://mock.local/ in batches of 2 (timeout 1.5s)"
    sleeps = []
    with pytest.raises(DeliveryError):
        call_with_retries(lambda: (_ for _ in ()).throw(TransientError("x")), sleep=sleeps.append)
    assert sleeps == [0.25, 0.5]


def test_sender_and_client_from_env(monkeypatch):
    monkeypatch.setenv("NOTIFY_BATCH_SIZE", "3")
    monkeypatch.setenv("NOTIFY_API_URL", "http://mock.local")
    monkeypatch.setenv("NOTIFY_TIMEOUT_S", "4")
    monkeypatch.setenv("NOTIFY_MAX_RETRIES", "1")
    requests, sleeps = [], []
    failures = iter([True, False, False, False])

    def transport(url, payload, timeout):
        requests.append((url, len(payload["messages"]), timeout))
        if next(failures):
            raise TransientError("reset")
        return {"ok": True}

    sender = Sender(transport, sleep=sleeps.append)
    assert sender.send_all(list("abcdefg")) == 3
    assert requests == [
        ("http://mock.local/messages", 3, 4.0),
        ("http://mock.local/messages", 3, 4.0),
        ("http://mock.local/messages", 3, 4.0),
        ("http://mock.local/messages", 1, 4.0),
    ]
    assert sleeps == [0.5]


# --- explicit settings --------------------------------------------------------------------


def test_explicit_settings_win_over_env(monkeypatch):
    mod = settings_module()
    monkeypatch.setenv("NOTIFY_BATCH_SIZE", "50")
    s = mod.Settings(api_url="http://x.test", timeout_s=9.0, max_retries=1, backoff_s=2.0,
                     batch_size=4)
    assert batches(range(9), settings=s) == [[0, 1, 2, 3], [4, 5, 6, 7], [8]]
    assert retry_budget(9, settings=s) == 3
    assert backoff_delays(settings=s) == [2.0]
    assert describe(settings=s) == "sending to http://x.test in batches of 4 (timeout 9s)"
    sleeps = []
    with pytest.raises(DeliveryError):
        call_with_retries(lambda: (_ for _ in ()).throw(TransientError("x")),
                          sleep=sleeps.append, settings=s)
    assert sleeps == [2.0]

    requests = []
    client = Client(lambda url, p, t: requests.append((url, t)), sleep=None, settings=s)
    client.post("ping", {})
    assert requests == [("http://x.test/ping", 9.0)]

    attempts, sleeps = [], []

    def always_failing(url, payload, timeout):
        attempts.append(1)
        raise TransientError("down")

    with pytest.raises(DeliveryError):
        Client(always_failing, sleep=sleeps.append, settings=s).post("x", {})
    assert len(attempts) == 2 and sleeps == [2.0]

    sent = []
    sender = Sender(lambda url, p, t: sent.append((url, len(p["messages"]), t)), settings=s)
    assert sender.send_all(range(6)) == 2
    assert sent == [("http://x.test/messages", 4, 9.0), ("http://x.test/messages", 2, 9.0)]
