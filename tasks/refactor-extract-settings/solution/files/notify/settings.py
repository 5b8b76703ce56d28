"""All tunables of the notify package, in one place.

Every value can be overridden with an environment variable; an unset or empty variable
means the default.

| field         | variable             | default                      |
| ------------- | -------------------- | ---------------------------- |
| `api_url`     | `NOTIFY_API_URL`     | `https://api.example.com/v1` |
| `timeout_s`   | `NOTIFY_TIMEOUT_S`   | `30.0` (> 0)                 |
| `max_retries` | `NOTIFY_MAX_RETRIES` | `3` (integer >= 0)           |
| `backoff_s`   | `NOTIFY_BACKOFF_S`   | `0.5` (>= 0)                 |
| `batch_size`  | `NOTIFY_BATCH_SIZE`  | `100` (integer >= 1)         |
"""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    api_url: str = "https://api.example.com/v1"
    timeout_s: float = 30.0
    max_retries: int = 3
    backoff_s: float = 0.5
    batch_size: int = 100


def _number(env, name, convert, default, minimum, strict):
    raw = env.get(name, "")
    if raw.strip() == "":
        return default
    try:
        value = convert(raw.strip())
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a valid {convert.__name__}") from None
    if value < minimum or (strict and value == minimum) or value != value:
        bound = f"> {minimum}" if strict else f">= {minimum}"
        raise ValueError(f"{name}={raw!r} must be {bound}")
    return value


def load(env=None) -> Settings:
    """Settings from ``env`` (a mapping; default ``os.environ``), read now."""
    env = os.environ if env is None else env
    defaults = Settings()
    api_url = env.get("NOTIFY_API_URL", "").strip() or defaults.api_url
    return Settings(
        api_url=api_url,
        timeout_s=_number(env, "NOTIFY_TIMEOUT_S", float, defaults.timeout_s, 0, True),
        max_retries=_number(env, "NOTIFY_MAX_RETRIES", int, defaults.max_retries, 0, False),
        backoff_s=_number(env, "NOTIFY_BACKOFF_S", float, defaults.backoff_s, 0, False),
        batch_size=_number(env, "NOTIFY_BATCH_SIZE", int, defaults.batch_size, 1, False),
    )
