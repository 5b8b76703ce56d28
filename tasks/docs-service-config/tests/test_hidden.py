import re
import tomllib
from pathlib import Path

import pytest

PATH = Path("deploy/staging/quaymaster.toml")

# Every key quaymaster 2.4 accepts (reference.md): table -> {key: type}
DURATION = "duration"
SCHEMA = {
    "": {"schema": int},
    "listener": {"host": str, "port": int, "tls": dict},
    "listener.tls": {"certificate": str, "private_key": str, "min_version": str},
    "admin": {"host": str, "port": int},
    "upstream": {"name": str, "address": str, "weight": int, "tls": bool},
    "retry": {"attempts": int, "backoff": str, "base_delay": DURATION, "max_delay": DURATION, "retry_on": list},
    "log": {"level": str, "format": str, "output": str, "file": str},
    "limits": {"max_connections": int, "idle_timeout": DURATION, "max_request_bytes": int},
    "shutdown": {"grace": DURATION},
    "metrics": {"enabled": bool, "port": int},
}
TOP_TABLES = {"listener": dict, "admin": dict, "upstream": list, "retry": dict, "log": dict,
              "limits": dict, "shutdown": dict, "metrics": dict}


def millis(value):
    match = re.fullmatch(r"(\d+)(ms|s|m|h)", value)
    assert match, f"{value!r} is not a quaymaster duration"
    return int(match.group(1)) * {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[match.group(2)]


def check_table(name, table):
    allowed = SCHEMA[name]
    for key, value in table.items():
        assert key in allowed, f"unknown key {key!r} in [{name}]"
        kind = allowed[key]
        if kind is DURATION:
            assert isinstance(value, str), f"[{name}] {key} must be a duration string"
            millis(value)
        elif kind is int:
            assert isinstance(value, int) and not isinstance(value, bool), f"[{name}] {key} must be an integer"
        else:
            assert isinstance(value, kind), f"[{name}] {key} must be {kind.__name__}"


@pytest.fixture(scope="module")
def config():
    assert PATH.is_file(), f"{PATH} is missing"
    with PATH.open("rb") as handle:
        return tomllib.load(handle)


def test_schema_first_and_only_known_keys(config):
    first = next(
        line.strip() for line in PATH.read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    )
    assert re.fullmatch(r"schema\s*=\s*2\s*(#.*)?", first), "schema = 2 must be the first key"
    for key, value in config.items():
        if key == "schema":
            assert value == 2 and not isinstance(value, bool)
            continue
        assert key in TOP_TABLES, f"unknown top-level key or table {key!r}"
        assert isinstance(value, TOP_TABLES[key]), f"{key} has the wrong shape"
    check_table("listener", config["listener"])
    if "tls" in config["listener"]:
        check_table("listener.tls", config["listener"]["tls"])
    for upstream in config.get("upstream", []):
        check_table("upstream", upstream)
    for name in ("admin", "retry", "log", "limits", "shutdown", "metrics"):
        if name in config:
            check_table(name, config[name])


def test_listener_and_tls(config):
    listener = config["listener"]
    assert listener["port"] == 7443
    assert listener.get("host", "0.0.0.0") == "0.0.0.0"
    tls = listener.get("tls")
    assert tls is not None, "staging terminates TLS: [listener.tls] is needed"
    assert tls["certificate"] == "/etc/quaymaster/tls/staging.crt"
    assert tls["private_key"] == "/etc/quaymaster/tls/staging.key"
    assert tls.get("min_version", "1.2") == "1.2"


def test_admin(config):
    assert config["admin"]["port"] == 7081


def test_upstreams(config):
    upstreams = config.get("upstream")
    assert isinstance(upstreams, list) and len(upstreams) == 2
    by_name = {u["name"]: u for u in upstreams}
    assert set(by_name) == {"billing-a", "billing-b"}
    assert by_name["billing-a"]["address"] == "10.20.0.11:9000"
    assert by_name["billing-b"]["address"] == "10.20.0.12:9000"
    assert by_name["billing-a"].get("weight") == 75
    assert by_name["billing-b"].get("weight") == 25
    for upstream in upstreams:
        assert upstream.get("tls", False) is False


def test_retry(config):
    retry = config["retry"]
    assert retry["attempts"] == 5
    assert retry["backoff"] == "exponential"
    assert millis(retry["base_delay"]) == 250
    assert millis(retry["max_delay"]) == 10_000
    assert sorted(retry["retry_on"]) == ["connect-error", "timeout"]


def test_log(config):
    log = config["log"]
    assert log["level"] == "warn"
    assert log["format"] == "json"
    assert log["output"] == "file"
    assert log["file"] == "/var/log/quaymaster/relay.log"


def test_limits_and_shutdown(config):
    limits = config.get("limits")
    assert limits is not None, "[limits] is required since 2.3"
    assert limits["max_connections"] == 2000
    assert millis(limits["idle_timeout"]) == 120_000
    assert limits.get("max_request_bytes", 1048576) == 1048576
    assert millis(config["shutdown"]["grace"]) == 30_000


def test_metrics(config):
    metrics = config["metrics"]
    assert metrics["enabled"] is True
    assert metrics.get("port", 9102) == 9102
